"""The machine side of monitoring: what a container or VM costs the machine that runs it.

Read by the controller (which runs on that machine, as root) every interval, in a thread:
  - a container's cgroup: cpuacct.stat (user/system ticks of everything in it, exited tasks
    included) and blkio.throttle.io_service_bytes (cgroup v1 sees direct and synchronous I/O;
    buffered write-back is not attributed to a cgroup, so that column says so);
  - a VM: its QEMU process, found in the pids cgroup vbench-<testbed>/<host> (it has no cpuacct
    or blkio cgroup), /proc/<pid>/stat utime/stime and /proc/<pid>/io read_bytes/write_bytes
    (QEMU opens its disk with cache=none, so the guest's disk I/O is the process's I/O).
Native hosts have no machine side: they are network namespaces whose processes are the
machine's own, and their guest-side /proc already is the machine's (scope `machine`).
The parsers and the rate computation are pure; `MachineSampler` is the loop.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from vbench.monitor.sampler import is_whole_disk
from vbench.monitor.series import Point
from vbench.testbed.limits import CGROUP_ROOT

USER_HZ = os.sysconf("SC_CLK_TCK")
BLKIO_NOTE = "cgroup v1 blkio counts direct/sync I/O only; buffered write-back is not attributed"
NOT_PER_CGROUP_NOTE = "hidden: not accounted per cgroup or process (see the guest side)"
GUEST_NET_NOTE = "not sampled on the machine side: the guest side's /proc/net/dev is the host's own"


def parse_cpuacct_stat(text: str) -> tuple[int, int]:
    kv = dict(line.split() for line in text.splitlines() if line.strip())
    return int(kv["user"]), int(kv["system"])


def parse_blkio_bytes(text: str) -> tuple[int, int]:
    """(read, write) bytes summed over devices from blkio.throttle.io_service_bytes."""
    rd = wr = 0
    for line in text.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] == "Read":
            rd += int(p[2])
        elif len(p) == 3 and p[1] == "Write":
            wr += int(p[2])
    return rd, wr


def parse_pid_stat(text: str) -> tuple[int, int]:
    """(utime, stime) ticks from /proc/<pid>/stat; the command name may hold spaces and parens."""
    rest = text.rsplit(")", 1)[1].split()
    return int(rest[11]), int(rest[12])  # fields 14 and 15, counted after ") "


def parse_pid_io(text: str) -> tuple[int, int]:
    kv = dict(line.split(": ") for line in text.splitlines() if ": " in line)
    return int(kv["read_bytes"]), int(kv["write_bytes"])


@dataclass(frozen=True)
class MachineSnap:
    time: float
    cpu: tuple[int, int] | None  # user, system ticks
    io: tuple[int, int] | None  # read, write bytes
    cpu_source: str
    io_source: str


def _absent(time: float, host: str, metrics: tuple[str, ...], unit: str, source: str, why: str) -> list[Point]:
    """Machine-side rows with no value, one per metric, whose note says why there is none."""
    return [Point(time, host, "machine", "host", m, None, unit, source, why) for m in metrics]


def machine_points(snaps: list[MachineSnap], host: str, ncpu: int, hz: int = USER_HZ) -> list[Point]:
    """Rates between consecutive machine-side snapshots of one host. CPU is % of the machine's CPUs."""
    rows: list[Point] = []
    for a, b in zip(snaps, snaps[1:]):
        dt = b.time - a.time
        if dt <= 0:
            continue
        if a.cpu and b.cpu and a.cpu_source == b.cpu_source:
            for name, x, y in zip(("user", "system"), a.cpu, b.cpu):
                if y >= x:
                    rows.append(
                        Point(
                            b.time,
                            host,
                            "machine",
                            "host",
                            f"cpu_{name}_pct",
                            100.0 * (y - x) / (hz * dt * ncpu),
                            "%",
                            b.cpu_source,
                            span_s=dt,
                        )
                    )
        if a.io and b.io and a.io_source == b.io_source:
            note = BLKIO_NOTE if "blkio" in b.io_source else ""
            for name, x, y in zip(("disk_read_Bps", "disk_write_Bps"), a.io, b.io):
                if y >= x:
                    rows.append(
                        Point(b.time, host, "machine", "host", name, (y - x) / dt, "B/s", b.io_source, note, dt)
                    )
    if snaps:
        t0 = snaps[0].time
        # Said in the data, not left for a reader to wonder about: what the machine side cannot give.
        rows += _absent(t0, host, ("cpu_iowait_pct", "cpu_steal_pct"), "%", snaps[0].cpu_source, NOT_PER_CGROUP_NOTE)
        rows += _absent(t0, host, ("net_rx_Bps", "net_tx_Bps"), "B/s", "", GUEST_NET_NOTE)
        if all(s.cpu is None for s in snaps):
            why = "hidden: no cpuacct cgroup or process"
            rows += _absent(t0, host, ("cpu_user_pct", "cpu_system_pct"), "%", "", why)
        if all(s.io is None for s in snaps):
            why = "hidden: no blkio cgroup or readable /proc/<pid>/io"
            rows += _absent(t0, host, ("disk_read_Bps", "disk_write_Bps"), "B/s", "", why)
    return rows


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def read_host(rel: str, root: Path = CGROUP_ROOT) -> MachineSnap:
    """One snapshot of cgroup `rel` (vbench-<testbed>/<host>): cpuacct/blkio when the host has
    them (containers), else the processes of its pids cgroup (a VM's QEMU)."""
    now = time.time()
    cpu = io = None
    cpu_src = io_src = ""
    text = _read(root / "cpuacct" / rel / "cpuacct.stat")
    if text:
        cpu, cpu_src = parse_cpuacct_stat(text), "cgroup cpuacct.stat"
    text = _read(root / "blkio" / rel / "blkio.throttle.io_service_bytes")
    if text is not None and cpu is not None:
        io, io_src = parse_blkio_bytes(text), "cgroup blkio.throttle.io_service_bytes"
    if cpu is None:
        procs = (_read(root / "pids" / rel / "cgroup.procs") or "").split()
        stats = [_read(Path(f"/proc/{p}/stat")) for p in procs]
        ios = [_read(Path(f"/proc/{p}/io")) for p in procs]
        if procs and all(stats):
            pairs = [parse_pid_stat(s) for s in stats]
            cpu, cpu_src = (sum(u for u, _ in pairs), sum(s for _, s in pairs)), "/proc/<qemu pid>/stat"
        if procs and all(ios):
            pairs = [parse_pid_io(s) for s in ios]
            io, io_src = (sum(r for r, _ in pairs), sum(w for _, w in pairs)), "/proc/<qemu pid>/io"
    return MachineSnap(now, cpu, io, cpu_src, io_src)


def whole_disks(sys_block: Path = Path("/sys/block")) -> list[str]:
    """MAJ:MIN of every whole disk of the machine (partitions, loop and ram devices left out)."""
    out = []
    for d in sorted(sys_block.glob("*")):
        dev = d / "dev"
        if is_whole_disk(d.name) and dev.exists():
            out.append(dev.read_text().strip())
    return out


def enable_blkio_counting(rels, root: Path = CGROUP_ROOT, sys_block: Path = Path("/sys/block")) -> list[Path]:
    """Switch blkio's byte counters on for every whole disk; the files written.

    Since Linux 6.10 blk-throttle is set up on a disk only when a first rule is written for it
    since boot, and until then blkio.throttle.io_service_bytes counts nothing, in any cgroup: on
    a freshly booted machine a container without a disk limit showed 0 B for 16 MiB of direct
    writes (the test_monitoring flake of 2026-11-23/24, passing alone only after an earlier test
    had set a disk limit). Writing "no limit" (0) for each disk into the hosts' parent cgroup
    (`vbench-<testbed>`, which vbench created and which holds no limit of its own) turns the
    counting on and limits nothing; the hosts' own limits are not touched."""
    disks = whole_disks(sys_block)
    written = []
    for parent in sorted({rel.rsplit("/", 1)[0] for rel in rels if "/" in rel}):
        f = root / "blkio" / parent / "blkio.throttle.write_bps_device"
        if not f.exists():
            continue  # no blkio cgroup there (a VM host)
        for dev in disks:
            try:
                f.write_text(f"{dev} 0\n")
            except OSError:
                continue  # a disk blk-throttle refuses: its counter stays as it was
            written.append(f)
    return written


class MachineSampler:
    """Snapshots the given cgroups every `interval_s` in a daemon thread until `stop()`."""

    def __init__(self, rels: dict[str, str], interval_s: float):
        self.rels, self.interval_s = rels, interval_s
        self.snaps: dict[str, list[MachineSnap]] = {h: [] for h in rels}
        self._stop = threading.Event()
        self._first = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="vbench-machine-sampler", daemon=True)

    def _loop(self) -> None:
        while True:
            for host, rel in self.rels.items():
                self.snaps[host].append(read_host(rel))
            self._first.set()
            if self._stop.wait(self.interval_s):
                return

    def start(self, first_wait_s: float = 10) -> None:
        """Start sampling; return once the first snapshot (the baseline of every rate) is taken."""
        if self.rels:
            enable_blkio_counting(self.rels.values())
            self._thread.start()
            self._first.wait(first_wait_s)

    def stop(self) -> dict[str, list[MachineSnap]]:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        return self.snaps
