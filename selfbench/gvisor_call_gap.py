"""Why dd's wall time per call prices a busy gVisor cluster's machine CPU per call (issue #53,
costs-entries-rpc-gvisor's rule B): dd's one-byte calls natively and under gVisor (ptrace), alone
on the machine, with the whole run held to one CPU, and beside busy loops on the host.

costs-entries-gvisor: on an idle machine dd under gVisor kept 0.53 CPUs busy, so its machine CPU per
call (~38 us) was half its wall time per call (~72 us), and each call cost the host 6.3 system calls
and 4.1 context switches: a handoff from the sandboxed task's stub to the Sentry and back. The
hypothesis: alone, the stub and the Sentry each run on a CPU of their own and each waits idle while
the other works, so the handoff's gaps are wall time, not CPU; on a machine whose CPUs are all
busy (a Hadoop cluster) the two share one, and the gaps are spent switching between them. If so,
a call's machine CPU held to one CPU, or beside busy loops, is about its wall time alone.

Each run is `syscall`'s own dd command (vbench.benchmarks.micro.syscall: its wall time per call is
dd's own seconds over its calls), in `runsc --network=none --platform=ptrace do` or natively. The
machine's side: its busy ticks and context switches (/proc/stat) over the run, less the competing
loops' own ticks (host processes this script starts before the run and kills by pid after it).
Each condition runs at two counts, and a call's machine CPU and switches are the difference over the
difference of calls, so the sandbox's start and stop fall out. Rounds alternate the ways; each value
is the median over rounds.

Needs root and runsc; run it on an idle machine (each run's machine CPU is the whole machine's). The
sandbox is `runsc do`'s own and ends with the run. ~5 min at the defaults.

    cd <repository> && sudo .venv/bin/python -m selfbench.gvisor_call_gap [--rounds 3] [--count 100000]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass
from typing import Sequence

from selfbench.runsc_do import ON_CPU0, RUNSC_DO, competing_loops
from vbench.benchmarks.micro import syscall
from vbench.monitor.kernel_entries import switches
from vbench.monitor.machine import USER_HZ
from vbench.monitor.machine_cpu import busy_ticks, cpu_line, read_stat

WAYS = ("native", "gvisor")
#: How a run shares the machine: alone; every process of the run held to CPU 0; beside 1 or 2
#: busy loops on the host (each in a session of its own, as `runsc do` puts its sandbox).
CONDITIONS = ("alone", "one-cpu", "beside-1", "beside-2")
#: The small count: a run that is mostly the sandbox's start and stop.
SMALL_COUNT = 1000


@dataclass(frozen=True)
class Run:
    """One dd run: its way, condition and count, dd's own seconds, and the machine's busy CPU-seconds
    (less the competitors') and context switches over the whole run."""

    way: str
    condition: str
    count: int
    dd_s: float
    machine_cpu_s: float
    switches: int
    #: dd's run at once; dd_s is their median.
    parallel: int = 1

    @property
    def calls(self) -> int:
        return syscall.CALLS_PER_RECORD * self.count * self.parallel


@dataclass(frozen=True)
class PerCall:
    """A call's price under one way and condition: dd's wall time, and the machine CPU and context
    switches the big run spent beyond the small one, over its extra calls (microseconds; count)."""

    way: str
    condition: str
    wall_us: float
    machine_cpu_us: float
    switches: float


def competitors_of(condition: str) -> int:
    """How many busy loops run beside a run under `condition`. Pure."""
    return int(condition.split("-")[1]) if condition.startswith("beside-") else 0


def argv_of(way: str, condition: str, count: int, parallel: int = 1) -> list[str]:
    """The command of one run: syscall's dd once, `parallel` of them at once (one shell, one
    sandbox), natively or in a sandbox, held to CPU 0 where the condition says so. Pure."""
    one = syscall.command(syscall.SyscallConfig(count=count, repeats=1))
    if parallel < 1:
        raise ValueError(f"parallel must be 1 or more, got {parallel}")
    # Each of parallel dd's prints its summary when it is done, in one write: dd writes its lines
    # apart, and two at once on one pipe interleaved them ("... 5.2 MB/s2000 bytes ...").
    each = f'( out=$({one}); rc=$?; printf "%s\\n" "$out"; exit $rc )'
    cmd = ["sh", "-c", one if parallel == 1 else " & ".join(each for _ in range(parallel)) + "; wait"]
    if way == "gvisor":
        cmd = [*RUNSC_DO, *cmd]
    elif way != "native":
        raise ValueError(f"unknown way {way!r}: one of {', '.join(WAYS)}")
    if condition == "one-cpu":
        cmd = [*ON_CPU0, *cmd]
    elif condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}: one of {', '.join(CONDITIONS)}")
    return cmd


def dd_seconds(stdout: str, count: int, parallel: int = 1) -> float:
    """dd's own seconds, from its summary lines (syscall's parser, its checks included): the median
    of the `parallel` dd's. Pure."""
    got = syscall.parse_stdout(stdout, syscall.SyscallConfig(count=count, repeats=parallel))
    return statistics.median(s.value for s in got if s.metric == "elapsed")


def per_call(small: Run, big: Run) -> PerCall:
    """The big run's extra over the small one's per extra call. Pure."""
    extra = big.calls - small.calls
    if extra <= 0:
        raise ValueError(f"the big run made {big.calls} calls, the small one {small.calls}")
    return PerCall(
        big.way,
        big.condition,
        big.dd_s / (big.calls / big.parallel) * 1e6,
        (big.machine_cpu_s - small.machine_cpu_s) / extra * 1e6,
        (big.switches - small.switches) / extra,
    )


def summary(calls: Sequence[PerCall]) -> str:
    """Per way and condition: the medians over rounds of each price, and the machine CPU over the
    wall time (the CPUs a call keeps busy). Pure."""
    groups: dict[tuple[str, str], list[PerCall]] = {}
    for c in calls:
        groups.setdefault((c.way, c.condition), []).append(c)
    lines = [
        f"{'way':<8}{'condition':<10}{'rounds':>7}{'wall us':>10}{'machine CPU us':>16}{'CPUs':>7}{'switches':>10}"
    ]
    for way in WAYS:
        for cond in CONDITIONS:
            got = groups.get((way, cond))
            if not got:
                continue
            wall = statistics.median(c.wall_us for c in got)
            cpu = statistics.median(c.machine_cpu_us for c in got)
            sw = statistics.median(c.switches for c in got)
            lines.append(f"{way:<8}{cond:<10}{len(got):>7}{wall:>10.2f}{cpu:>16.2f}{cpu / wall:>7.2f}{sw:>10.2f}")
    lines.append(
        "per call, medians over rounds; wall: dd's own seconds over its calls; machine CPU and switches: "
        "the big run's beyond the small one's (/proc/stat, less the competing loops' CPU) over the extra calls"
    )
    return "\n".join(lines)


def run_one(way: str, condition: str, count: int, timeout: float, parallel: int = 1) -> Run:
    """One run beside the condition's busy loops, started and killed around it."""
    with competing_loops(competitors_of(condition)) as ticks:
        comp0 = ticks()
        stat0 = read_stat()
        r = subprocess.run(
            argv_of(way, condition, count, parallel),
            capture_output=True,
            text=True,
            timeout=timeout,
            start_new_session=True,
        )
        stat1 = read_stat()
        comp1 = ticks()
    if r.returncode != 0:
        raise RuntimeError(f"{way} {condition}: exit {r.returncode}: {(r.stderr or r.stdout).strip()[-300:]}")
    busy = busy_ticks(cpu_line(stat1)) - busy_ticks(cpu_line(stat0)) - (comp1 - comp0)
    return Run(
        way,
        condition,
        count,
        dd_seconds(r.stdout, count, parallel),
        max(0, busy) / USER_HZ,
        switches(stat1) - switches(stat0),
        parallel,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--count", type=int, default=100_000, help="bytes dd copies in the big run (2 calls each)")
    ap.add_argument("--parallel", type=int, default=1, help="dd's at once in each run (one shell, one sandbox)")
    ap.add_argument("--conditions", nargs="+", choices=CONDITIONS, default=list(CONDITIONS))
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a run may take")
    args = ap.parse_args(argv)
    if args.count <= SMALL_COUNT:
        ap.error(f"--count must be above the small run's {SMALL_COUNT}")
    missing = [t for t in ("runsc", "taskset") if shutil.which(t) is None]
    if missing:
        print(f"needs {', '.join(missing)}", file=sys.stderr)
        return 2
    calls: list[PerCall] = []
    for i in range(args.rounds):
        for cond in args.conditions:
            for way in WAYS if i % 2 == 0 else tuple(reversed(WAYS)):
                small = run_one(way, cond, SMALL_COUNT, args.timeout, args.parallel)
                big = run_one(way, cond, args.count, args.timeout, args.parallel)
                calls.append(per_call(small, big))
                print(f"round {i + 1}/{args.rounds} {calls[-1]}", file=sys.stderr, flush=True)
    print(summary(calls))
    return 0


if __name__ == "__main__":
    sys.exit(main())
