"""Monitoring around a run: start the samplers, run, stop them, fetch, store tidy time series.

    mon = Monitor(hosts, testbed_name, interval_s=1.0).start()
    ... the run ...
    points = mon.stop()
    save_timeseries(path, points)

Every host gets the guest-side sh sampler (vbench.monitor.sampler) over SSH; container and VM
hosts also get the machine side (vbench.monitor.machine). A sampler left behind by a crash
dies with its host at teardown (native hosts' processes are killed by namespace, containers
and VMs are stopped), so nothing outlives the testbed.
"""

from __future__ import annotations

import csv
import os
import re
import uuid
from pathlib import Path
from typing import Callable, Iterable

import pandas as pd

from vbench.each_host import on_each
from vbench.host import Host, connect
from vbench.monitor import sampler
from vbench.monitor.machine import MachineSampler, machine_points
from vbench.monitor.series import COLUMNS, Point, guest_points
from vbench.testbed.guest import testbed_cgroup

Log = Callable[[str], None]
#: Where a campaign keeps its time series: <campaign>/timeseries/<cell or run id>.csv
TIMESERIES_DIR = "timeseries"


def timeseries_name(key: str) -> str:
    """A file name for a cell or run id (cell ids carry brackets, commas and '=')."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", key).strip("_") + ".csv"


class Monitor:
    def __init__(self, hosts: list[Host], testbed_name: str, interval_s: float = 1.0, log: Log = print):
        if interval_s <= 0:
            raise ValueError("monitor interval must be positive")
        self.hosts, self.interval_s, self.log = list(hosts), interval_s, log
        self.token = uuid.uuid4().hex[:8]
        self._conns = {}
        rels = {h.name: f"{testbed_cgroup(testbed_name)}/{h.name}" for h in self.hosts if h.platform != "native"}
        self.machine = MachineSampler(rels, interval_s)
        self.started: dict[str, bool] = {}

    def _files(self, h: Host) -> tuple[str, str]:
        base = f"{h.work_dir}/monitor-{h.name}-{self.token}"
        return f"{base}.txt", f"{base}.pid"

    def _sh(self, h: Host, line: str):
        if h.name not in self._conns:
            self._conns[h.name] = connect(h)
        return self._conns[h.name].run(line, hide=True, warn=True, in_stream=False, timeout=60)

    def _each(self, fn) -> list:
        return on_each(fn, self.hosts)

    def start(self) -> "Monitor":
        def one(h: Host) -> None:
            out, pid = self._files(h)
            r = self._sh(h, sampler.start_in_line(h.work_dir, out, pid, self.interval_s))
            self.started[h.name] = r.exited == 0
            if r.exited != 0:
                self.log(f"monitor: sampler did not start on {h.name}: {r.stderr.strip()[:200]}")

        self.machine.start()  # first: SSH to a VM under TCG can take seconds, the machine side need not wait
        self._each(one)
        return self

    def stop(self) -> list[Point]:
        """Stop every sampler, fetch and parse its file, remove it; the tidy rows of all hosts."""
        machine = self.machine.stop()

        def one(h: Host) -> list[Point]:
            out, pid = self._files(h)
            if not self.started.get(h.name):
                return []
            self._sh(h, sampler.stop_line(pid))
            r = self._sh(h, sampler.collect_line(out))
            try:
                return guest_points(sampler.parse(r.stdout), h.name, h.platform)
            except ValueError as exc:
                self.log(f"monitor: no usable samples from {h.name}: {exc}")
                return []

        rows = [p for ps in self._each(one) for p in ps]
        ncpu = os.cpu_count() or 1
        for host, snaps in machine.items():
            rows += machine_points(snaps, host, ncpu)
        for c in self._conns.values():
            c.close()
        self._conns.clear()
        return rows


def save_timeseries(path: Path, points: Iterable[Point], extra: dict | None = None) -> Path:
    """Write tidy rows as CSV (atomically: a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    extra = extra or {}
    tmp = path.with_suffix(".csv.tmp")
    with tmp.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow([*COLUMNS, *extra])
        for p in sorted(points, key=lambda p: (p.time, p.host, p.side, p.metric)):
            w.writerow(
                [
                    *(
                        "" if v is None else (f"{v:.6g}" if isinstance(v, float) and k != "time" else v)
                        for k, v in zip(COLUMNS, (getattr(p, c) for c in COLUMNS))
                    ),
                    *extra.values(),
                ]
            )
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)
    return path


def load_timeseries_file(path: Path) -> pd.DataFrame | None:
    if not Path(path).is_file():
        return None
    d = pd.read_csv(path, dtype={"note": str, "source": str})
    d["series"] = Path(path).stem
    return d


def one_per_counter(d: pd.DataFrame) -> pd.DataFrame:
    """Rows of a monitored run with each real counter once: machine-scope series are the same
    machine counter seen from every native host or container, so one host's (the first by name:
    which one does not matter) stands for all, as host "machine"."""
    d = d[d["value"].notna()]
    machine = d[d["scope"] == "machine"]
    if machine.empty:
        return d
    first = sorted(machine["host"].astype(str).unique())[0]
    return pd.concat([machine[machine["host"] == first].assign(host="machine"), d[d["scope"] != "machine"]])


def load_timeseries(campaign_dir: Path) -> pd.DataFrame:
    """Every time series of a campaign, with the file's key (cell or run id) as `series`."""
    frames = []
    for f in sorted((Path(campaign_dir) / TIMESERIES_DIR).glob("*.csv")):
        frames.append(load_timeseries_file(f))
    if not frames:
        return pd.DataFrame(columns=[*COLUMNS, "series"])
    return pd.concat(frames, ignore_index=True)


def finish_monitor(mon: Monitor | None, campaign_dir: Path, key: str) -> dict:
    """Stop `mon` and store its series as <campaign>/timeseries/<key>.csv before the records that
    name it are appended (the ledger's order: files first, records last). The stamp to add."""
    if mon is None:
        return {}
    rel = f"{TIMESERIES_DIR}/{timeseries_name(key)}"
    save_timeseries(Path(campaign_dir) / rel, mon.stop())
    return {"timeseries": rel, "monitor_interval_s": mon.interval_s}
