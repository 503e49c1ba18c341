"""Whose CPU a gVisor sandbox reports: a busy loop's own CPU time as the Sentry accounts it
(/proc/self/stat inside the sandbox, where Hadoop's tasks read their CPU_MILLISECONDS), beside the
CPU the machine actually gave it, natively and under `runsc do`, alone and beside busy loops
competing for the machine's cores (issue #53).

costs-reduces-gvisor found gVisor's TeraSort spending ~10 s of task CPU beyond native's per reduce
task; by hand, the threads carrying it were each task JVM's JIT compilers and main thread, busy on
a machine whose run queue held 6-9 threads for its 2 cores. If the Sentry counts a thread's time
waiting for a core as that thread's CPU, then gVisor's CPU_MILLISECONDS grows with the machine's
load and is not what the machine spent: this tells whether it does.

One payload (Python) spins on the clock for `--seconds` of wall time and prints its own utime +
stime from /proc/self/stat. The machine's side: the aggregate busy ticks of /proc/stat around the
run, less the ticks of the competing loops (`--competitors`, host processes this script starts
before the run and kills by pid after it; their own /proc/<pid>/stat, the machine's kernel's).
What is left is the payload's CPU (and, under gVisor, its Sentry's and stub's, which a busy loop
with no system calls barely uses) plus whatever else ran on the machine: run it on an idle
machine. Rounds alternate the ways; each value is the median over rounds. The payload and each
loop run in a session of their own: with the kernel's autogroup on, CFS shares the cores between
sessions first, so a sandbox (`runsc do` starts it in its own session) beside loops of one session
gets a whole core where a native payload in their session gets its thread's share.

It starts a sandbox per run with `runsc --network=none --platform=ptrace do` (no testbed); the
payload is in a temporary directory this script makes and removes. Needs root and runsc. ~1 min at
the defaults.

    cd <repository> && sudo python3 -m selfbench.sentry_cpu_accounting [--rounds 3] [--seconds 6] [--competitors 0 2]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from selfbench.runsc_do import RUNSC_DO, competing_loops
from vbench.monitor.machine import USER_HZ
from vbench.monitor.machine_cpu import busy_ticks, cpu_line, read_stat

#: The payload: spins for argv[1] seconds of wall time, then prints its wall time and its own CPU.
PAYLOAD = r"""
import os, sys, time
end = time.monotonic() + float(sys.argv[1])
t0 = time.monotonic()
x = 0
while time.monotonic() < end:
    x += 1
wall = time.monotonic() - t0
with open("/proc/self/stat") as f:
    rest = f.read().rsplit(")", 1)[1].split()
hz = os.sysconf("SC_CLK_TCK")
print(f"spin wall_s={wall:.3f} reported_cpu_s={(int(rest[11]) + int(rest[12])) / hz:.3f}", flush=True)
"""

WAYS = ("native", "gvisor")


@dataclass(frozen=True)
class Spin:
    """One run: the way it ran, beside how many competitors, its wall time, the CPU it reported
    for itself, and the CPU the machine gave it (busy less the competitors')."""

    way: str
    competitors: int
    wall_s: float
    reported_cpu_s: float
    machine_cpu_s: float


def argv_of(way: str, payload: Path, seconds: float) -> list[str]:
    """The command that runs the payload `way`. Pure."""
    py = ["python3", "-u", str(payload), f"{seconds:g}"]
    if way == "native":
        return py
    return [*RUNSC_DO, *py]


def parse(stdout: str) -> tuple[float, float]:
    """(wall_s, reported_cpu_s) from the payload's line (the last one that is one). Pure."""
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("spin "):
            kv = dict(part.split("=", 1) for part in line.split()[1:])
            return float(kv["wall_s"]), float(kv["reported_cpu_s"])
    raise ValueError(f"no 'spin wall_s=... reported_cpu_s=...' line in {stdout[-300:]!r}")


def payload_cpu_s(busy: tuple[int, int], competitors: tuple[int, int], hz: int = USER_HZ) -> float:
    """The machine's busy CPU-seconds over a run less its competitors': (before, after) ticks. Pure."""
    return max(0, (busy[1] - busy[0]) - (competitors[1] - competitors[0])) / hz


def summary(spins: Sequence[Spin]) -> str:
    """Per way and competitors: medians of wall, reported and machine CPU, and reported/machine. Pure."""
    groups: dict[tuple[str, int], list[Spin]] = {}
    for s in spins:
        groups.setdefault((s.way, s.competitors), []).append(s)
    lines = [
        f"{'way':<8}{'beside':>7}{'runs':>5}{'wall s':>9}{'reported s':>12}{'machine s':>11}{'reported/machine':>18}"
    ]
    for (way, k), rs in sorted(groups.items()):
        wall = statistics.median(r.wall_s for r in rs)
        rep = statistics.median(r.reported_cpu_s for r in rs)
        mach = statistics.median(r.machine_cpu_s for r in rs)
        ratio = f"{rep / mach:.2f}" if mach > 0 else "-"
        lines.append(f"{way:<8}{k:>7}{len(rs):>5}{wall:>9.2f}{rep:>12.2f}{mach:>11.2f}{ratio:>18}")
    lines.append(
        "medians over rounds; beside: competing busy loops on the host; reported: the payload's own "
        "utime+stime as its kernel (or Sentry) counts it; machine: /proc/stat busy less the competitors'"
    )
    return "\n".join(lines)


def run_one(way: str, payload: Path, seconds: float, competitors: int, timeout: float) -> Spin:
    """One run beside `competitors` loops started and killed around it."""
    with competing_loops(competitors) as ticks:
        comp0 = ticks()
        busy0 = busy_ticks(cpu_line(read_stat()))
        r = subprocess.run(
            argv_of(way, payload, seconds), capture_output=True, text=True, timeout=timeout, start_new_session=True
        )
        busy1 = busy_ticks(cpu_line(read_stat()))
        comp1 = ticks()
    if r.returncode != 0:
        raise RuntimeError(f"{way}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    wall, reported = parse(r.stdout)
    return Spin(way, competitors, wall, reported, payload_cpu_s((busy0, busy1), (comp0, comp1)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=6.0, help="wall seconds each run spins")
    ap.add_argument("--competitors", type=int, nargs="+", default=[0, 2], help="competing loops beside a run")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds a run may take")
    args = ap.parse_args(argv)
    if shutil.which("runsc") is None:
        print("needs runsc", file=sys.stderr)
        return 2
    spins: list[Spin] = []
    with tempfile.TemporaryDirectory(prefix="vbench-sentry-accounting-") as tmp:
        payload = Path(tmp, "spin.py")
        payload.write_text(PAYLOAD)
        for i in range(args.rounds):
            for k in args.competitors:
                for way in WAYS if i % 2 == 0 else tuple(reversed(WAYS)):
                    s = run_one(way, payload, args.seconds, k, args.timeout)
                    spins.append(s)
                    print(f"round {i + 1}/{args.rounds} {s}", file=sys.stderr, flush=True)
    print(summary(spins))
    return 0


if __name__ == "__main__":
    sys.exit(main())
