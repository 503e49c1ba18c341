"""The machine's CPU spent over one micro-benchmark run, read from outside the host (issue #53).

A calibrated cost is a wall time per operation: it cannot tell a call that waits (the planted
stops' wake-ups of another vCPU) from one that burns CPU (gVisor's Sentry doing the call's work
on another core). On a machine whose cluster keeps its cores busy the two cost a job differently,
and the fits made under the plant under-predicted gVisor's jobs by 22-56 % on this AMD machine
(docs/results.md, "task CPU"). So the runner reads the whole machine's busy CPU time (the
aggregate /proc/stat line, read by the controller, which runs on the machine) just before and
just after each micro-benchmark's command, and stamps each sample with the two spans:
`machine_cpu_s` (CPU-seconds the machine spent, every process's, the host's own and its
sandbox's or tracer's included) and `machine_wall_s`. Their ratio is the CPUs the run kept busy
on average; a cost times it is the CPU a run's operation cost the machine (`cpu_weighted`).

Only the local testbed's hosts are read: they share this machine's kernel. A sandbox's or a
guest's own /proc/stat is its kernel's account, not the machine's, so it is never read for this.
The parsing and the arithmetic are pure.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from vbench.monitor.machine import USER_HZ
from vbench.monitor.sampler import parse_cpu_line
from vbench.samples import MACHINE_CPU_FIELD, MACHINE_WALL_FIELD

#: Time the machine did not spend working for anything: idle, waiting on I/O, or taken by the
#: hypervisor for another guest (steal). Everything else (user, nice, system, irq, softirq) is busy.
_NOT_BUSY = ("idle", "iowait", "steal")


def busy_ticks(cpu_line: str) -> int:
    """The busy ticks (all CPUs) of an aggregate /proc/stat cpu line. Pure."""
    fields = parse_cpu_line(cpu_line)
    return sum(v for k, v in fields.items() if k not in _NOT_BUSY)


@dataclass(frozen=True)
class Mark:
    """The machine's busy ticks at one moment, and when (monotonic seconds)."""

    busy: int
    at: float


#: Reads the machine's busy CPU now (`mark`, or a test's stand-in).
Marker = Callable[[], Mark]


def busy_between(before: Mark, after: Mark, hz: int = USER_HZ) -> dict[str, float]:
    """The stamp of a run between two marks: CPU-seconds spent and wall seconds. Pure."""
    return {
        MACHINE_CPU_FIELD: round(max(0, after.busy - before.busy) / hz, 3),
        MACHINE_WALL_FIELD: round(max(0.0, after.at - before.at), 3),
    }


def read_stat_line(path: Path = Path("/proc/stat")) -> str:
    """The aggregate cpu line of this machine's /proc/stat."""
    with path.open() as f:
        return f.readline()


def mark(read: Callable[[], str] = read_stat_line, clock: Callable[[], float] = time.monotonic) -> Mark:
    """Now's mark of this machine."""
    return Mark(busy_ticks(read()), clock())
