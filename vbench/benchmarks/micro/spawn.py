"""spawn: the cost of creating a process and exec'ing a program (us per `/bin/true`).

None of the studies measured it, but Hadoop pays it for every task: a NodeManager launches each
container through a shell script (and, secure, container-executor), which forks and execs the
JVM, and Hadoop's own shell-outs (df, du, id, chmod) are more of the same (issue #53). A process
is many system calls (fork or clone, exec, mmap, exit, wait) and a new address space, which a
sandboxed kernel (gVisor's Sentry) builds itself rather than the host kernel.

A POSIX sh loop runs `/bin/true` `count` times between two `date +%s%N` stamps taken by the same
shell, so no SSH round trip falls inside the timing; the loop's test and counter are shell
builtins. The window holds the start stamp's `date` being reaped and the end stamp's being
started: about two spawns of `count`, which the default count makes 0.1 %.
"""

from __future__ import annotations

import re

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.errors import JobFailed
from vbench.samples import Sample

from ._common import Runner, execute, one_step, sample

NAME = "spawn"
METRICS = {"spawn_us": "us", "elapsed": "s"}
#: The program spawned: it exits at once, so the time is the process's creation, exec and exit.
PROGRAM = "/bin/true"


class SpawnConfig(BenchConfig):
    count: int = Field(2000, ge=10, le=10_000_000)  # processes per repeat
    repeats: int = Field(5, ge=1, le=1000)  # one sample of each metric per repeat


#: The registry and `vbench bench list` find every module's config under this name.
Config = SpawnConfig
PRESETS: dict[str, SpawnConfig] = {}


def timed_loop(tag: str, program: str, count: int, repeats: int) -> str:
    """The shell script that runs `program` (a shell word list, already quoted) `count` times per
    repeat between two `date +%s%N` stamps, and prints a `<tag> repeat= count= start= end=` line
    per repeat (`parse_lines` reads them). The first failure stops it, saying so on stderr, and
    is its exit status."""
    failed = f'echo "vbench: {tag}: run $((n + 1)) of repeat $r exited $rc" >&2'
    loop = f"n=0; while [ $n -lt {count} ]; do {program} || {{ rc=$?; {failed}; break 2; }}; n=$((n + 1)); done"
    return (
        f"rc=0; for r in $(seq 1 {repeats}); do s=$(date +%s%N); {loop}; e=$(date +%s%N); "
        f'echo "{tag} repeat=$r count=$n start=$s end=$e"; done; exit $rc'
    )


def command(cfg: SpawnConfig, workdir: str = "") -> str:
    # workdir is unused (nothing is written), kept so every module has the same signature.
    return timed_loop(NAME, PROGRAM, cfg.count, cfg.repeats)


def elapsed_s(start: str, end: str, what: str) -> float:
    """Seconds between two `date +%s%N` stamps (integers: nanoseconds since the epoch, which a
    float would round); JobFailed naming `what` when they are not that, or go backwards."""
    if not (start.isdigit() and end.isdigit()):
        # A date without %N (busybox) prints "%N" or nothing there.
        raise JobFailed(f"{what}: bad timestamps {start!r} {end!r} (date +%s%N must print nanoseconds)")
    if int(end) <= int(start):
        raise JobFailed(f"{what}: the clock did not advance ({start} -> {end})")
    return (int(end) - int(start)) / 1e9


def parse_lines(tag: str, text: str, count: int, repeats: int) -> list[tuple[int, float]]:
    """(repeat, seconds) from `timed_loop`'s lines; JobFailed, one line, when they are not all there."""
    found = re.findall(rf"^{re.escape(tag)} repeat=(\d+) count=(\d+) start=(\S*) end=(\S*)\s*$", text or "", re.M)
    if len(found) != repeats:
        raise JobFailed(f"{tag}: expected {repeats} result lines, found {len(found)}")
    timed = []
    for i, (repeat, done, start, end) in enumerate(found, start=1):
        if int(repeat) != i or int(done) != count:
            raise JobFailed(f"{tag}: line {i} is repeat {repeat} of {done} runs, expected repeat {i} of {count}")
        timed.append((i, elapsed_s(start, end, f"{tag} repeat {i}")))
    return timed


def parse_stdout(text: str, cfg: SpawnConfig) -> list[Sample]:
    samples = []
    for i, seconds in parse_lines(NAME, text, cfg.count, cfg.repeats):
        meta = {"repeat": i, "program": PROGRAM}
        samples.append(sample(NAME, "spawn_us", seconds / cfg.count * 1e6, "us", cfg, **meta))
        samples.append(sample(NAME, "elapsed", seconds, "s", cfg, **meta))
    return samples


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: SpawnConfig, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)
