"""What one ptrace stop of a many-threaded JVM costs gVisor, alone and on a busy CPU (issue #53):
whether `rpc`, a JVM's loopback RPC handed between threads as Hadoop's IPC does, reproduces the
63-80 us of extra machine CPU a Hadoop stop costs (costs-cpu on costs-callnames-gvisor), where a
one-byte call, every kind of call, parallel processes and a working set reach 22-39 us.

Each run is `rpc`'s own command (vbench.benchmarks.micro.rpc: RpcPingPong.java in source-file mode,
one repeat after `--warmup` seconds of warm-up calls), natively or in `runsc --network=none
--platform=ptrace do` (its loopback is the Sentry's), alone or with the whole run held to CPU 0,
under `perf stat -a` counting the machine's system calls, PTRACE_SYSEMU (one per stop the ptrace
platform served) and context switches; the machine's busy CPU from /proc/stat around it. Each
way and condition runs at two lengths of the timed repeat, and a call's price is the long run's
extra over the short one's per extra call, so the JVM's start, its warm-up and the sandbox's start
fall out. `--copies N` runs N copies at once, each its own JVM (and under gVisor its own sandbox):
a stop beside other busy sandboxes, as on a cluster of three.

Needs root, perf, runsc and a java with the jdk.compiler module; run it on an idle machine. perf
mounts tracefs where it is not mounted; this script unmounts it after only then. ~4 min at the
defaults.

    cd <repository> && sudo .venv/bin/python -m selfbench.gvisor_jvm_stops [--rounds 3]
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from selfbench.call_names import PTRACE, RAW, SWITCHES, SYSEMU_EVENT, totals, tracefs_as_found
from selfbench.runsc_do import ON_CPU0, RUNSC_DO
from vbench.benchmarks.micro import rpc
from vbench.monitor.machine_cpu import busy_between, mark
from vbench.samples import MACHINE_CPU_FIELD

WAYS = ("native", "gvisor")
CONDITIONS = ("alone", "one-cpu")
_REPEAT = re.compile(r"^rpc repeat=\d+ calls=(\d+) ns=(\d+)\s*$", re.M)
_WARMUP = re.compile(r"^rpc warmup calls=(\d+) ns=\d+\s*$", re.M)


@dataclass(frozen=True)
class Run:
    """One run: its way, condition and timed seconds; the RPCs it made (warm-up included) and the
    timed repeat's us per call; the machine's busy CPU-seconds, system calls, ptrace stops and
    context switches over it."""

    way: str
    condition: str
    seconds: float
    calls: int
    rpc_us: float
    machine_cpu_s: float
    syscalls: int
    stops: int
    switches: int


@dataclass(frozen=True)
class PerCall:
    """An RPC's price: the long run's extra over the short one's per extra RPC."""

    way: str
    condition: str
    rpc_us: float
    machine_cpu_us: float
    syscalls: float
    stops: float
    switches: float


def argv_of(
    way: str, condition: str, seconds: float, warmup_s: float, out: Path, workdirs: Sequence[str] = ("/tmp",)
) -> list[str]:
    """perf stat around rpc's command, natively or in a sandbox, one copy per work directory (each
    its own JVM, and under gVisor its own sandbox, all at once), held to CPU 0 where the condition
    says so. rpc's loops are left out (`other_cpus_busy`): the conditions here are its CPUs. Pure."""
    cfg = rpc.RpcConfig(seconds=seconds, repeats=1, warmup_s=warmup_s, other_cpus_busy=False)
    if way not in WAYS:
        raise ValueError(f"unknown way {way!r}: one of {', '.join(WAYS)}")
    if not workdirs:
        raise ValueError("no work directory: no copy to run")
    sandbox = list(RUNSC_DO) if way == "gvisor" else []
    copies = [[*sandbox, "sh", "-c", rpc.command(cfg, d)] for d in workdirs]
    cmd = copies[0] if len(copies) == 1 else ["sh", "-c", " & ".join(shlex.join(c) for c in copies) + "; wait"]
    if condition == "one-cpu":
        cmd = [*ON_CPU0, *cmd]
    elif condition != "alone":
        raise ValueError(f"unknown condition {condition!r}: one of {', '.join(CONDITIONS)}")
    perf = ["perf", "stat", "-a", "-x,", "-e", RAW, *SYSEMU_EVENT, "-e", SWITCHES]
    return [*perf, "-o", str(out), "--", *cmd]


def parse_rpc(stdout: str, copies: int = 1) -> tuple[int, float]:
    """(RPCs made by every copy, warm-up included; the median copy's timed us per RPC) from rpc's
    lines. Pure."""
    reps, warms = _REPEAT.findall(stdout or ""), _WARMUP.findall(stdout or "")
    if len(reps) != copies or len(warms) != copies:
        raise ValueError(f"expected {copies} rpc warmup and repeat lines, found {len(warms)} and {len(reps)}")
    if any(int(calls) <= 0 for calls, _ in reps):
        raise ValueError("a timed repeat made no call")
    made = sum(int(c) for c, _ in reps) + sum(int(w) for w in warms)
    return made, statistics.median(int(ns) / int(calls) / 1000 for calls, ns in reps)


def parse_perf(text: str) -> tuple[int, int, int]:
    """(system calls, PTRACE_SYSEMU stops, context switches) from perf stat's -x, output without
    intervals: the raw tracepoint's row, the filtered ptrace row, the switches' row. Pure."""
    got = totals(text)
    missing = [e for e in (RAW, PTRACE, SWITCHES) if e not in got]
    if missing:
        raise ValueError(f"perf's output lacks {', '.join(missing)}")
    return got[RAW], got[PTRACE], got[SWITCHES]


def per_call(short: Run, long: Run) -> PerCall:
    """The long run's extra over the short one's per extra RPC. Pure."""
    extra = long.calls - short.calls
    if extra <= 0:
        raise ValueError(f"the long run made {long.calls} RPCs, the short one {short.calls}")
    return PerCall(
        long.way,
        long.condition,
        long.rpc_us,
        (long.machine_cpu_s - short.machine_cpu_s) / extra * 1e6,
        (long.syscalls - short.syscalls) / extra,
        (long.stops - short.stops) / extra,
        (long.switches - short.switches) / extra,
    )


def summary(calls: Sequence[PerCall]) -> str:
    """Per way and condition, medians over rounds: an RPC's wall and machine CPU, its host system
    calls, stops and switches; for gVisor, its extra CPU per stop over native's RPC in the same
    condition and its stops per native call. Pure."""

    def med(way: str, cond: str, f: str) -> float | None:
        got = [getattr(c, f) for c in calls if (c.way, c.condition) == (way, cond)]
        return statistics.median(got) if got else None

    lines = [
        f"{'way':<8}{'condition':<10}{'wall us':>9}{'CPU us':>9}{'calls':>8}{'stops':>8}{'switches':>10}"
        f"{'extra us/stop':>15}{'stops/native call':>19}"
    ]
    for way in WAYS:
        for cond in CONDITIONS:
            wall = med(way, cond, "rpc_us")
            if wall is None:
                continue
            cpu, sysc, stops, sw = (med(way, cond, f) for f in ("machine_cpu_us", "syscalls", "stops", "switches"))
            extra = per_native = "-"
            base_cpu, base_calls = med("native", cond, "machine_cpu_us"), med("native", cond, "syscalls")
            if way != "native" and stops and base_cpu is not None and base_calls:
                extra = f"{(cpu - base_cpu) / stops:.1f}"
                per_native = f"{stops / base_calls:.2f}"
            lines.append(
                f"{way:<8}{cond:<10}{wall:>9.1f}{cpu:>9.1f}{sysc:>8.1f}{stops:>8.2f}{sw:>10.2f}{extra:>15}{per_native:>19}"
            )
    lines.append(
        "per RPC, medians over rounds: the long run's extra over the short one's per extra RPC; calls: the host's "
        "system calls; stops: PTRACE_SYSEMU; extra us/stop: (gVisor's CPU - native's) / gVisor's stops"
    )
    return "\n".join(lines)


def run_one(way: str, condition: str, seconds: float, warmup_s: float, timeout: float, copies: int = 1) -> Run:
    with tempfile.TemporaryDirectory(prefix="vbench-jvm-stops-") as tmp:
        out = Path(tmp, "perf.csv")
        # A work directory per copy, made here: under gVisor the sandbox sees the host's (through its
        # overlay), so each copy writes its program to a directory of its own.
        dirs = [Path(tmp, f"copy{i}") for i in range(copies)]
        for d in dirs:
            d.mkdir()
        before = mark()
        r = subprocess.run(
            argv_of(way, condition, seconds, warmup_s, out, [str(d) for d in dirs]),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        after = mark()
        if r.returncode != 0:
            raise RuntimeError(f"{way} {condition}: exit {r.returncode}: {(r.stderr or r.stdout).strip()[-300:]}")
        calls, us = parse_rpc(r.stdout, copies)
        sysc, stops, switches = parse_perf(out.read_text())
    cpu = busy_between(before, after)[MACHINE_CPU_FIELD]
    return Run(way, condition, seconds, calls, us, cpu, sysc, stops, switches)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--short", type=float, default=2.0, help="timed seconds of the short run")
    ap.add_argument("--long", type=float, default=8.0, help="timed seconds of the long run")
    ap.add_argument("--warmup", type=float, default=6.0, help="seconds of warm-up calls in each run")
    ap.add_argument("--copies", type=int, default=1, help="JVMs (and sandboxes) running the RPCs at once")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a run may take")
    ap.add_argument(
        "--conditions", nargs="+", choices=CONDITIONS, default=list(CONDITIONS), help="the conditions to run"
    )
    args = ap.parse_args(argv)
    if args.copies < 1:
        ap.error("--copies must be 1 or more")
    if args.long <= args.short:
        ap.error("--long must exceed --short")
    missing = [t for t in ("perf", "runsc", "taskset") if shutil.which(t) is None]
    if missing:
        print(f"needs {', '.join(missing)}", file=sys.stderr)
        return 2
    calls: list[PerCall] = []
    with tracefs_as_found():
        for i in range(args.rounds):
            for cond in args.conditions:
                for way in WAYS if i % 2 == 0 else tuple(reversed(WAYS)):
                    short = run_one(way, cond, args.short, args.warmup, args.timeout, args.copies)
                    long = run_one(way, cond, args.long, args.warmup, args.timeout, args.copies)
                    calls.append(per_call(short, long))
                    print(f"round {i + 1}/{args.rounds} {calls[-1]}", file=sys.stderr, flush=True)
    print(summary(calls))
    return 0


if __name__ == "__main__":
    sys.exit(main())
