"""The machine's CPU spent over one micro-benchmark run or Hadoop step, read from outside the hosts
(issue #53).

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
Beside them, `machine_kernel_cpu_s`: the part of the busy CPU the kernel spent (system, irq,
softirq). On native hosts that splits a job's CPU into its JVMs' own code, which a sandbox runs at
native speed, and the calls and faults a sandbox serves its own way (issue #53). And the machine's
kernel entries over the run (vbench.monitor.kernel_entries): `machine_faults` and
`machine_switches` always, `machine_syscalls` where the design counts system calls.

Each Hadoop step is read the same way (vbench.benchmarks.hadoop.execute). Where the testbed has
gVisor hosts, each mark also sums the CPU ticks of their Sentries (the `runsc-sandbox` process
in each host's cpuacct cgroup, which vbench's provisioner made), stamped as `sentry_cpu_s`: the
part of the machine's CPU that served the guests' system calls and faults, apart from the guests'
own code (the ptrace stubs) and the rest of the machine.

Only the local testbed's hosts are read: they share this machine's kernel. A sandbox's or a
guest's own /proc/stat is its kernel's account, not the machine's, so it is never read for this.
The parsing and the arithmetic are pure.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from vbench.monitor.kernel_entries import faults, switches
from vbench.monitor.machine import USER_HZ, parse_pid_stat
from vbench.monitor.sampler import parse_cpu_line
from vbench.samples import (
    MACHINE_CPU_FIELD,
    MACHINE_FAULTS_FIELD,
    MACHINE_KERNEL_FIELD,
    MACHINE_SWITCHES_FIELD,
    MACHINE_SYSCALLS_FIELD,
    MACHINE_WALL_FIELD,
    SENTRY_CPU_FIELD,
)
from vbench.testbed.limits import CGROUP_ROOT

#: Time the machine did not spend working for anything: idle, waiting on I/O, or taken by the
#: hypervisor for another guest (steal). Everything else (user, nice, system, irq, softirq) is busy.
_NOT_BUSY = ("idle", "iowait", "steal")
#: Of the busy time, the kernel's.
_KERNEL = ("system", "irq", "softirq")


def _busy(fields: dict[str, int]) -> int:
    return sum(v for k, v in fields.items() if k not in _NOT_BUSY)


def _kernel(fields: dict[str, int]) -> int:
    return sum(fields.get(k, 0) for k in _KERNEL)


def busy_ticks(cpu_line: str) -> int:
    """The busy ticks (all CPUs) of an aggregate /proc/stat cpu line. Pure."""
    return _busy(parse_cpu_line(cpu_line))


def kernel_ticks(cpu_line: str) -> int:
    """The ticks (all CPUs) the kernel spent, of an aggregate /proc/stat cpu line. Pure."""
    return _kernel(parse_cpu_line(cpu_line))


@dataclass(frozen=True)
class Mark:
    """The machine's busy ticks at one moment, and when (monotonic seconds); with gVisor hosts, the
    ticks of their Sentries (None: not read, or no gVisor host); the kernel's part of the busy
    ticks, the machine's page faults, context switches and system calls since some origin (None:
    not read)."""

    busy: int
    at: float
    sentry: int | None = None
    kernel: int | None = None
    faults: int | None = None
    switches: int | None = None
    syscalls: int | None = None


#: Reads the machine's busy CPU now (`mark`, or a test's stand-in).
Marker = Callable[[], Mark]


def busy_between(before: Mark, after: Mark, hz: int = USER_HZ) -> dict[str, float]:
    """The stamp of a run between two marks: CPU-seconds spent and wall seconds, and the Sentries'
    and the kernel's CPU-seconds where both marks read them. Pure."""
    out = {
        MACHINE_CPU_FIELD: round(max(0, after.busy - before.busy) / hz, 3),
        MACHINE_WALL_FIELD: round(max(0.0, after.at - before.at), 3),
    }
    if before.sentry is not None and after.sentry is not None:
        out[SENTRY_CPU_FIELD] = round(max(0, after.sentry - before.sentry) / hz, 3)
    if before.kernel is not None and after.kernel is not None:
        out[MACHINE_KERNEL_FIELD] = round(max(0, after.kernel - before.kernel) / hz, 3)
    for field, b, a in (
        (MACHINE_FAULTS_FIELD, before.faults, after.faults),
        (MACHINE_SWITCHES_FIELD, before.switches, after.switches),
        (MACHINE_SYSCALLS_FIELD, before.syscalls, after.syscalls),
    ):
        if b is not None and a is not None:
            out[field] = max(0, a - b)
    return out


#: argv[0] of a gVisor sandbox's Sentry process (`runsc boot` names itself so).
SENTRY_ARGV0 = "runsc-sandbox"


def is_sentry(cmdline: str) -> bool:
    """Whether a /proc/<pid>/cmdline is a Sentry's; the gofer and the ptrace stubs that run the
    guest's code are not. Pure."""
    return cmdline.split("\0", 1)[0] == SENTRY_ARGV0


def start_time(stat: str) -> str:
    """A /proc/<pid>/stat's start time (field 22, ticks since boot): with the pid, it names one
    process for the machine's life, where a pid alone may be reused. Pure."""
    return stat.rsplit(")", 1)[1].split()[19]


def _read_or_empty(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:  # a process that exited between the listing and the read
        return ""


class SentryReader:
    """Reads the Sentries' ticks of the gVisor hosts whose cpuacct cgroups (vbench-<testbed>/<host>,
    made by vbench's provisioner) it is called with, read only.

    A host's cgroup lists its Sentry beside dozens of ptrace stubs, and a Sentry lives as long as
    its host: so each cgroup is listed (and its processes' cmdlines read) only until its Sentries
    are found, and after that only their stats are read, two per step. A remembered Sentry is
    trusted while its pid still has the start time it was found with; else the cgroup is listed
    again."""

    def __init__(self, root: Path = CGROUP_ROOT) -> None:
        self.root = root
        self._found: dict[str, list[tuple[str, str]]] = {}  # cgroup -> [(pid, start time)]

    def __call__(self, rels: Sequence[str]) -> int:
        return sum(self._ticks(rel) for rel in rels)

    def _ticks(self, rel: str) -> int:
        known = self._found.get(rel)
        if known:
            stats = [_read_or_empty(Path(f"/proc/{pid}/stat")) for pid, _ in known]
            if all(stat and start_time(stat) == start for stat, (_, start) in zip(stats, known)):
                return sum(sum(parse_pid_stat(stat)) for stat in stats)
        found, total = [], 0
        for pid in _read_or_empty(self.root / "cpuacct" / rel / "cgroup.procs").split():
            stat = _read_or_empty(Path(f"/proc/{pid}/stat"))
            if stat and is_sentry(_read_or_empty(Path(f"/proc/{pid}/cmdline"))):
                found.append((pid, start_time(stat)))
                total += sum(parse_pid_stat(stat))
        self._found[rel] = found
        return total


def read_stat(path: Path = Path("/proc/stat")) -> str:
    """This machine's /proc/stat: the aggregate cpu line first, the context switches further on."""
    return path.read_text()


def cpu_line(stat: str) -> str:
    """The aggregate cpu line of a /proc/stat text (its first). Pure."""
    return stat.split("\n", 1)[0]


def read_vmstat(path: Path = Path("/proc/vmstat")) -> str:
    return path.read_text()


def mark(
    read: Callable[[], str] = read_stat,
    clock: Callable[[], float] = time.monotonic,
    sandboxes: Sequence[str] = (),
    sentries: Callable[[Sequence[str]], int] | None = None,
    read_vm: Callable[[], str] = read_vmstat,
    syscalls: Callable[[], int] | None = None,
) -> Mark:
    """Now's mark of this machine; with `sandboxes` (the cgroups of its gVisor hosts), their
    Sentries' ticks too, read by `sentries` (a SentryReader kept across marks finds them once);
    with `syscalls` (a kernel_entries.SyscallCounter), the system calls counted so far."""
    sentry = (sentries or SentryReader())(sandboxes) if sandboxes else None
    stat = read()
    fields = parse_cpu_line(cpu_line(stat))
    calls = syscalls() if syscalls is not None else None
    return Mark(_busy(fields), clock(), sentry, _kernel(fields), faults(read_vm()), switches(stat), calls)
