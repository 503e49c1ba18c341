"""What a wake of a task on the other CPU costs this machine, against a switch in place (issue #53:
a gVisor ptrace stop costs 22 us of machine CPU held to one CPU and 63-80 us on a Hadoop cluster;
each stop is a handoff between a stub and the Sentry, and a handoff across CPUs sends an
interrupt).

Two small C programs (compiled here with the machine's cc into a temporary directory), natively:

- `pipe`: two processes hand a byte back and forth over two pipes, `--rounds` round trips (two
  wakes each);
- `ptrace`: a tracer resumes a tracee with PTRACE_SYSEMU after each of its getppid calls and
  reads and writes its registers, as gVisor's ptrace platform does, `--rounds` stops.

Each runs held to CPU 0 (`taskset -c 0`: every wake is a switch in place) and free (the scheduler
may put the two on different CPUs). Around each run: the machine's busy CPU (/proc/stat) and the
interrupts between CPUs that arrived (/proc/interrupts: function call and reschedule interrupts,
every CPU). A handoff's price is the run's CPU per round trip or stop; a cross-CPU wake's price is
the free run's extra CPU over the held one's per extra interrupt.

Needs cc and taskset; run it on an idle machine (the counters are the whole machine's). ~10 s at
the defaults.

    cd <repository> && python -m selfbench.cross_cpu_wake [--repeats 3]
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

from selfbench.runsc_do import ON_CPU0
from vbench.monitor.machine_cpu import busy_between, mark
from vbench.samples import MACHINE_CPU_FIELD

#: argv: kind (pipe|ptrace), rounds. Prints nothing; its cost is read around it.
SOURCE = r"""
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

static int pingpong(long rounds) {
    int a[2], b[2];
    char c = 0;
    if (pipe(a) || pipe(b)) return 3;
    pid_t pid = fork();
    if (pid == 0) {
        for (long i = 0; i < rounds; i++) {
            if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1) _exit(4);
        }
        _exit(0);
    }
    for (long i = 0; i < rounds; i++) {
        if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1) return 4;
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 5;
}

static int stops(long rounds) {
    pid_t pid = fork();
    if (pid == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        raise(SIGSTOP);
        for (;;) syscall(SYS_getppid);
    }
    int st;
    struct user_regs_struct r;
    waitpid(pid, &st, 0);
    for (long i = 0; i < rounds; i++) {
        if (ptrace(PTRACE_SYSEMU, pid, 0, 0) != 0) return 6;
        waitpid(pid, &st, 0);
        ptrace(PTRACE_GETREGS, pid, 0, &r);
        r.rax = 1;
        ptrace(PTRACE_SETREGS, pid, 0, &r);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    long rounds = atol(argv[2]);
    if (strcmp(argv[1], "pipe") == 0) return pingpong(rounds);
    if (strcmp(argv[1], "ptrace") == 0) return stops(rounds);
    return 2;
}
"""

KINDS = ("pipe", "ptrace")
CONDITIONS = ("held", "free")
#: /proc/interrupts' rows of interrupts one CPU sends another.
IPI_ROWS = ("CAL:", "RES:")


def argv_of(binary: Path, kind: str, condition: str, rounds: int) -> list[str]:
    """The program, held to CPU 0 or free. Pure."""
    if kind not in KINDS or condition not in CONDITIONS:
        raise ValueError(f"unknown kind {kind!r} or condition {condition!r}")
    cmd = [str(binary), kind, str(rounds)]
    return [*ON_CPU0, *cmd] if condition == "held" else cmd


def ipis(text: str) -> int:
    """The interrupts between CPUs so far, every CPU, from /proc/interrupts' text. Pure."""
    lines = text.splitlines()
    cpus = len(lines[0].split()) if lines else 0
    total = 0
    for line in lines[1:]:
        parts = line.split()
        if parts and parts[0] in IPI_ROWS:
            total += sum(int(x) for x in parts[1 : 1 + cpus])
    return total


@dataclass(frozen=True)
class Run:
    kind: str
    condition: str
    rounds: int
    cpu_s: float
    ipis: int

    @property
    def cpu_us(self) -> float:
        """Machine CPU per round trip (pipe) or stop (ptrace)."""
        return self.cpu_s / self.rounds * 1e6

    @property
    def ipis_per(self) -> float:
        return self.ipis / self.rounds


def wake_price(held: Run, free: Run) -> float | None:
    """A cross-CPU wake's machine CPU: the free run's extra per handoff over the held one's, per
    extra interrupt; None where the free run sent no more interrupts. Pure."""
    extra = free.ipis_per - held.ipis_per
    if extra <= 0.05:
        return None
    return (free.cpu_us - held.cpu_us) / extra


def summary(runs: Sequence[Run]) -> str:
    """Per kind: medians over repeats of each condition's CPU and interrupts per handoff, and the
    wake's price. Pure."""
    lines = [f"{'kind':<8}{'held us':>9}{'free us':>9}{'free IPIs':>11}{'us per cross-CPU wake':>23}"]
    for kind in KINDS:
        held = [r for r in runs if (r.kind, r.condition) == (kind, "held")]
        free = [r for r in runs if (r.kind, r.condition) == (kind, "free")]
        if not held or not free:
            continue
        prices = [p for h, f in zip(held, free) if (p := wake_price(h, f)) is not None]
        price = f"{statistics.median(prices):.1f}" if prices else "-"
        lines.append(
            f"{kind:<8}{statistics.median(r.cpu_us for r in held):>9.2f}{statistics.median(r.cpu_us for r in free):>9.2f}"
            f"{statistics.median(r.ipis_per for r in free):>11.2f}{price:>23}"
        )
    lines.append(
        "per round trip (pipe: 2 wakes) or stop (ptrace), machine CPU, medians over repeats; a wake's price is "
        "the free run's extra over the held one's per extra interrupt between CPUs"
    )
    return "\n".join(lines)


def run_one(binary: Path, kind: str, condition: str, rounds: int) -> Run:
    before, ints0 = mark(), ipis(Path("/proc/interrupts").read_text())
    subprocess.run(argv_of(binary, kind, condition, rounds), check=True, timeout=600)
    after, ints1 = mark(), ipis(Path("/proc/interrupts").read_text())
    return Run(kind, condition, rounds, busy_between(before, after)[MACHINE_CPU_FIELD], ints1 - ints0)


def compile_program(tmp: Path) -> Path:
    src, binary = tmp / "wake.c", tmp / "wake"
    src.write_text(SOURCE)
    subprocess.run(["cc", "-O2", "-o", str(binary), str(src)], check=True)
    return binary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=200_000, help="round trips or stops a run")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    missing = [t for t in ("cc", "taskset") if shutil.which(t) is None]
    if missing:
        print(f"needs {', '.join(missing)}", file=sys.stderr)
        return 2
    runs = []
    with tempfile.TemporaryDirectory(prefix="vbench-wake-") as tmp:
        binary = compile_program(Path(tmp))
        for i in range(args.repeats):
            for kind in KINDS:
                for cond in CONDITIONS if i % 2 == 0 else tuple(reversed(CONDITIONS)):
                    runs.append(run_one(binary, kind, cond, args.rounds))
                    print(f"repeat {i + 1}/{args.repeats} {runs[-1]}", file=sys.stderr, flush=True)
    print(summary(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
