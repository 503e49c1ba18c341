"""Whether a gVisor (ptrace) system call costs a program with a large working set more than a
one-byte call costs dd: the caches and TLB a stop's switches to the Sentry and back leave behind
(issue #53).

On a busy machine every kind of call a Hadoop JVM makes costs gVisor about one ptrace stop, 22-24 us
(selfbench.gvisor_call_kinds), and native's calls at that price explain about a third of gVisor's
extra CPU on a job. The rest is in the guests' own code, which costs the host about twice native's
user time (costs-jvm-kernel-gvisor). A stop switches from the guest's address space to the Sentry's
and back; a guest whose working set the caches held before the call may find it gone after. dd's
working set is a few lines, a JVM's hundreds of MiB.

A small C program (compiled here with the machine's cc into a temporary directory) walks a random
cycle of cache lines over a buffer of `--sizes` bytes, `--loads` dependent loads an iteration, with
or without a system call (getppid) after each; ns per iteration. Run natively and in
`runsc --network=none --platform=ptrace do`, the whole run held to CPU 0 (as on a busy cluster, where
a gVisor call's wall time is its machine CPU). A call's price at each size is the iteration with the
call less the one without, per way; gVisor's extra is its price less native's. If the extra grows
with the working set, a stop's price is not dd's but the program's.

Needs root, runsc and cc; run it on an idle machine. ~2 min at the defaults.

    cd <repository> && sudo .venv/bin/python -m selfbench.gvisor_call_pollution [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from selfbench.runsc_do import ON_CPU0, RUNSC_DO

#: The walker: argv bytes, iterations, loads an iteration, call (0/1); prints one JSON line.
SOURCE = r"""
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv) {
    if (argc != 5) return 2;
    size_t lines = strtoull(argv[1], 0, 10) / 64;
    long iters = atol(argv[2]);
    int loads = atoi(argv[3]), call = atoi(argv[4]);
    if (lines < 2) lines = 2;
    size_t *a = aligned_alloc(64, lines * 64), *perm = malloc(lines * sizeof(size_t));
    if (!a || !perm) return 3;
    unsigned long long x = 88172645463325252ULL;
    for (size_t i = 0; i < lines; i++) perm[i] = i;
    for (size_t i = lines - 1; i > 0; i--) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        size_t j = x % (i + 1), t = perm[i]; perm[i] = perm[j]; perm[j] = t;
    }
    for (size_t i = 0; i < lines; i++) a[perm[i] * 8] = perm[(i + 1) % lines];
    free(perm);
    size_t p = 0;
    for (size_t i = 0; i < lines; i++) p = a[p * 8];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < iters; i++) {
        for (int j = 0; j < loads; j++) p = a[p * 8];
        if (call) syscall(SYS_getppid);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
    printf("{\"ns_per_iter\": %.3f, \"sink\": %zu}\n", ns / iters, p);
    return 0;
}
"""

WAYS = ("native", "gvisor")
#: Working sets: L1, L2, beyond L2, far beyond (bytes).
SIZES = (16 << 10, 1 << 20, 32 << 20, 256 << 20)


@dataclass(frozen=True)
class Walk:
    """One run: way, working set, whether each iteration made a call, ns per iteration."""

    way: str
    size: int
    call: bool
    ns: float


def argv_of(way: str, binary: Path, size: int, iters: int, loads: int, call: bool, spread: bool = False) -> list[str]:
    """The command of one run, held to CPU 0 unless `spread`. Pure."""
    cmd = [str(binary), str(size), str(iters), str(loads), "1" if call else "0"]
    if way == "gvisor":
        cmd = [*RUNSC_DO, *cmd]
    elif way != "native":
        raise ValueError(f"unknown way {way!r}: one of {', '.join(WAYS)}")
    return cmd if spread else [*ON_CPU0, *cmd]


def parse(stdout: str) -> float:
    """ns per iteration from the walker's JSON line (the last that is one). Pure."""
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            return float(json.loads(line)["ns_per_iter"])
    raise ValueError(f"no result line in {stdout[-300:]!r}")


def call_price(walks: Sequence[Walk], way: str, size: int) -> float | None:
    """A call's price at one working set, us: the median iteration with the call less the median
    without. None without both. Pure."""
    on = [w.ns for w in walks if (w.way, w.size, w.call) == (way, size, True)]
    off = [w.ns for w in walks if (w.way, w.size, w.call) == (way, size, False)]
    if not on or not off:
        return None
    return (statistics.median(on) - statistics.median(off)) / 1000


def summary(walks: Sequence[Walk], loads: int) -> str:
    """Per working set: each way's iteration without and with the call (us, medians), each way's
    call price, and gVisor's extra over native's. Pure."""

    def med(way: str, size: int, call: bool) -> float:
        got = [w.ns for w in walks if (w.way, w.size, w.call) == (way, size, call)]
        return statistics.median(got) / 1000 if got else float("nan")

    lines = [
        f"{'working set':>12}{'native':>10}{'+call':>9}{'gvisor':>10}{'+call':>9}"
        f"{'native call':>13}{'gvisor call':>13}{'extra':>9}"
    ]
    for size in sorted({w.size for w in walks}):
        n, g = call_price(walks, "native", size), call_price(walks, "gvisor", size)
        extra = f"{g - n:9.2f}" if n is not None and g is not None else f"{'-':>9}"
        lines.append(
            f"{_size(size):>12}{med('native', size, False):>10.2f}{med('native', size, True):>9.2f}"
            f"{med('gvisor', size, False):>10.2f}{med('gvisor', size, True):>9.2f}"
            f"{(n if n is not None else float('nan')):>13.2f}{(g if g is not None else float('nan')):>13.2f}{extra}"
        )
    lines.append(
        f"us per iteration of {loads} dependent loads (medians over rounds), without and with a getppid after them; "
        "a call's price: with less without"
    )
    return "\n".join(lines)


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="working sets, bytes")
    ap.add_argument("--loads", type=int, default=200, help="dependent loads an iteration")
    ap.add_argument("--iters", type=int, default=20000, help="iterations a run")
    ap.add_argument("--spread", action="store_true", help="do not hold the runs to CPU 0")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a run may take")
    args = ap.parse_args(argv)
    missing = [t for t in ("runsc", "taskset", "cc") if shutil.which(t) is None]
    if missing:
        print(f"needs {', '.join(missing)}", file=sys.stderr)
        return 2
    walks: list[Walk] = []
    with tempfile.TemporaryDirectory(prefix="vbench-gvisor-pollution-") as tmp:
        src, binary = Path(tmp, "walk.c"), Path(tmp, "walk")
        src.write_text(SOURCE)
        subprocess.run(["cc", "-O2", "-o", str(binary), str(src)], check=True)
        for i in range(args.rounds):
            for size in args.sizes:
                for way in WAYS if i % 2 == 0 else tuple(reversed(WAYS)):
                    for call in (False, True):
                        r = subprocess.run(
                            argv_of(way, binary, size, args.iters, args.loads, call, args.spread),
                            capture_output=True,
                            text=True,
                            timeout=args.timeout,
                        )
                        if r.returncode != 0:
                            print(
                                f"{way} {size} {call}: exit {r.returncode}: {r.stderr.strip()[-300:]}", file=sys.stderr
                            )
                            return 1
                        walks.append(Walk(way, size, call, parse(r.stdout)))
                        print(f"round {i + 1}/{args.rounds} {walks[-1]}", file=sys.stderr, flush=True)
    print(summary(walks, args.loads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
