"""Tidy time series from counter snapshots: one row per (time, host, side, metric). Pure.

Columns, and why each is there:
  time      epoch seconds at the end of the interval the value describes
  host      the cluster host the row is about
  side      `guest`: read inside the host over SSH; `machine`: read by the controller on the
            machine that runs the host (a container's or VM's cgroup / process)
  scope     whom the counter really describes: `host` (that host alone) or `machine` (the whole
            machine: native hosts and containers share its kernel, so their /proc/stat and
            /proc/diskstats are the machine's, identical on every such host)
  metric    cpu_user_pct, cpu_system_pct, cpu_iowait_pct, cpu_steal_pct (% of the CPUs the
            source sees), disk_read_Bps, disk_write_Bps, net_rx_Bps, net_tx_Bps
  value     the rate over the interval; empty when the counter is hidden (never a made-up zero)
  unit      % or B/s
  source    the file the counter came from
  note      why a value is missing, or what the counter leaves out
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Iterable, Mapping

from vbench.monitor.sampler import GROUPS, SamplerOutput

CPU_METRICS = ("user", "system", "iowait", "steal")
METRICS = {
    "cpu": tuple(f"cpu_{k}_pct" for k in CPU_METRICS),
    "disk": ("disk_read_Bps", "disk_write_Bps"),
    "net": ("net_rx_Bps", "net_tx_Bps"),
}
UNIT = {"cpu": "%", "disk": "B/s", "net": "B/s"}
GUEST_SOURCE = {"cpu": "/proc/stat", "disk": "/proc/diskstats", "net": "/proc/net/dev"}


@dataclass(frozen=True)
class Point:
    time: float
    host: str
    side: str
    scope: str
    metric: str
    value: float | None
    unit: str
    source: str
    note: str = ""
    #: Seconds the rate covers (its snapshot minus the one before): value x span_s is the
    #: counter's exact increment, which a gap between rows cannot give for the first row.
    span_s: float | None = None


COLUMNS = [f.name for f in fields(Point)]


def guest_scopes(platform: str) -> dict[str, str]:
    """Whom each /proc counter read inside a host describes, by platform.

    Native hosts are network namespaces and containers share the machine's kernel: /proc/stat
    and /proc/diskstats are the machine's (no lxcfs here), /proc/net/dev is the host's own
    network namespace. A VM has its own kernel, so everything it reads is its own, and so has a
    gVisor sandbox: its /proc is the Sentry's account of the sandbox."""
    if platform in ("qemu", "gvisor"):
        return {"cpu": "host", "disk": "host", "net": "host"}
    return {"cpu": "machine", "disk": "machine", "net": "host"}


def _counter_delta(a: int, b: int) -> int | None:
    # A counter that went backwards was reset (device re-created, namespace gone): no rate.
    return b - a if b >= a else None


def guest_points(out: SamplerOutput, host: str, platform: str) -> list[Point]:
    """Rates between consecutive snapshots of the guest-side sampler, plus one empty row per
    counter the host hid from it (e.g. /proc/diskstats missing)."""
    scopes = guest_scopes(platform)
    rows: list[Point] = []
    snaps = out.snapshots
    for prev, cur in zip(snaps, snaps[1:]):
        dt = cur.uptime - prev.uptime
        if dt <= 0:
            continue
        t = out.epoch(cur.uptime)
        if prev.cpu and cur.cpu:
            total = sum(cur.cpu.values()) - sum(prev.cpu.values())
            if total > 0:
                for k in CPU_METRICS:
                    d = _counter_delta(prev.cpu[k], cur.cpu[k])
                    if d is not None:
                        rows.append(
                            Point(
                                t,
                                host,
                                "guest",
                                scopes["cpu"],
                                f"cpu_{k}_pct",
                                100.0 * d / total,
                                "%",
                                GUEST_SOURCE["cpu"],
                                span_s=dt,
                            )
                        )
        for group in ("disk", "net"):
            a, b = getattr(prev, group), getattr(cur, group)
            if a is None or b is None:
                continue
            for metric, x, y in zip(METRICS[group], a, b):
                d = _counter_delta(x, y)
                if d is not None:
                    rows.append(
                        Point(t, host, "guest", scopes[group], metric, d / dt, "B/s", GUEST_SOURCE[group], span_s=dt)
                    )
    rows += hidden_points(out, host, scopes)
    return rows


def hidden_points(out: SamplerOutput, host: str, scopes: Mapping[str, str]) -> list[Point]:
    """One row with no value per metric whose counter the host never showed the sampler."""
    if not out.snapshots:
        return [
            Point(
                out.start_epoch,
                host,
                "guest",
                scopes[g],
                m,
                None,
                UNIT[g],
                GUEST_SOURCE[g],
                "no complete snapshot: the run was shorter than one interval",
            )
            for g in GROUPS
            for m in METRICS[g]
        ]
    rows = []
    for g in GROUPS:
        if all(getattr(s, g) is None for s in out.snapshots):
            why = next(
                (f"hidden: {GUEST_SOURCE[g]} not readable on this host" for s in out.snapshots if g in s.missing),
                f"hidden: {GUEST_SOURCE[g]} gave no usable counter",
            )
            rows += [
                Point(
                    out.epoch(out.snapshots[0].uptime), host, "guest", scopes[g], m, None, UNIT[g], GUEST_SOURCE[g], why
                )
                for m in METRICS[g]
            ]
    return rows


def to_records(points: Iterable[Point]) -> list[dict]:
    return [asdict(p) for p in points]
