"""spawn: the cost of creating a process and exec'ing a program (us per `/bin/true`).

None of the studies measured it, but Hadoop pays it for every task: a NodeManager launches each
container through a shell script (and, secure, container-executor), which forks and execs the
JVM, and Hadoop's own shell-outs (df, du, id, chmod) are more of the same (issue #53). A process
is many system calls (fork or clone, exec, mmap, exit, wait) and a new address space, which a
sandboxed kernel (gVisor's Sentry) builds itself rather than the host kernel.

A POSIX sh loop runs `/bin/true` `count` times between two `date +%s%N` stamps taken by the same
shell, so no SSH round trip falls inside the timing; the loop's test and counter are shell
builtins. The window also holds the first stamp's `date` exiting and the second's starting: a
third stamp just before the first times that alone (an empty window), and it is taken off.

A repeat is `windows` such windows, and its value their median (`timed_loop`, `parse_lines`).
Here one window: 2000 processes a repeat, their mean. Five windows of 400 did not lower the CV
(2.5 % against 1.9 % natively, 2.4 against 2.2 on gVisor), and their median read gVisor's process
4 % cheaper than the mean: spawn's noise is spread, not a rare long window, which is what a median
leaves out (jvmstart's, fileopen's; docs/results.md, "Each new micro-benchmark's CV with windows
and warm-ups").
"""

from __future__ import annotations

import statistics
from typing import Callable

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
    count: int = Field(2000, ge=10, le=10_000_000)  # processes per window
    repeats: int = Field(5, ge=1, le=1000)  # one sample of each metric per repeat
    windows: int = Field(1, ge=1, le=99)  # timed windows per repeat, whose median is the repeat's


#: The registry and `vbench bench list` find every module's config under this name.
Config = SpawnConfig
PRESETS: dict[str, SpawnConfig] = {}
#: Each setting added after samples were recorded -> what those samples were measured with
#: (one window before 3719756): how vbench.stats.bench_settings reads a sample without it.
SETTINGS_BEFORE_RECORDED = {"windows": 1}


def timed_loop(tag: str, program: str, count: int, repeats: int, windows: int = 1, warmup: int = 0) -> str:
    """The shell script that runs `program` (a shell word list, already quoted) `warmup` times
    untimed, then `count` times per window between two `date +%s%N` stamps, after an empty
    window (two stamps with nothing between), `windows` windows per repeat; it prints a `<tag>
    repeat= window= count= empty= start= end=` line per window (`parse_lines` reads them). The
    first failure stops it, saying so on stderr, and is its exit status."""
    warm_failed = f'echo "vbench: {tag}: warm-up run $((n + 1)) exited $rc" >&2; exit $rc'
    warm = f"n=0; while [ $n -lt {warmup} ]; do {program} || {{ rc=$?; {warm_failed}; }}; n=$((n + 1)); done; "
    return (
        f"rc=0; {warm if warmup else ''}for r in $(seq 1 {repeats}); do for w in $(seq 1 {windows}); do "
        f"{timed_window(tag, program, count)}; done; done; exit $rc"
    )


def timed_window(tag: str, program: str, count: int) -> str:
    """One window of `timed_loop`: the empty window, `program` `count` times between two stamps,
    and the window's line. It belongs inside the two loops over `$r` (repeat) and `$w` (window)
    that `rc=0` precedes, as `timed_loop` puts it, so a script may hold several windows a repeat
    (pagefault's two loops); a failure sets `rc` and leaves both loops (`break 3`)."""
    failed = f'echo "vbench: {tag}: run $((n + 1)) of repeat $r exited $rc" >&2'
    loop = f"n=0; while [ $n -lt {count} ]; do {program} || {{ rc=$?; {failed}; break 3; }}; n=$((n + 1)); done"
    return (
        f"z=$(date +%s%N); s=$(date +%s%N); {loop}; e=$(date +%s%N); "
        f'echo "{tag} repeat=$r window=$w count=$n empty=$z start=$s end=$e"'
    )


def command(cfg: SpawnConfig, workdir: str = "") -> str:
    # workdir is unused (nothing is written), kept so every module has the same signature.
    return timed_loop(NAME, PROGRAM, cfg.count, cfg.repeats, cfg.windows)


def elapsed_s(start: str, end: str, what: str) -> float:
    """Seconds between two `date +%s%N` stamps (integers: nanoseconds since the epoch, which a
    float would round); JobFailed naming `what` when they are not that, or go backwards."""
    if not (start.isdigit() and end.isdigit()):
        # A date without %N (busybox) prints "%N" or nothing there.
        raise JobFailed(f"{what}: bad timestamps {start!r} {end!r} (date +%s%N must print nanoseconds)")
    if int(end) <= int(start):
        raise JobFailed(f"{what}: the clock did not advance ({start} -> {end})")
    return (int(end) - int(start)) / 1e9


def tagged_lines(tag: str, text: str, fields: tuple[str, ...]) -> list[dict[str, str]]:
    """The lines of `text` that are `tag` and then exactly `fields` as key=value words, in that
    order, as dicts; other lines are left out. Pure."""
    found = []
    for line in (text or "").splitlines():
        words = line.split()
        if words and words[0] == tag:
            pairs = dict(w.partition("=")[::2] for w in words[1:])
            if tuple(pairs) == fields:
                found.append(pairs)
    return found


def median_of_windows(
    tag: str,
    found: list[dict[str, str]],
    count: int,
    repeats: int,
    windows: int,
    unit: str,
    value: Callable[[dict[str, str], str], tuple[float, float]],
    no_cost: str,
) -> list[tuple[int, float, float]]:
    """(repeat, the median of its windows' values, the seconds its windows took) from one line per
    window with `repeat`, `window` and `count` (`value(line, what)`: the window's value and its
    seconds). JobFailed, one line, when they are not all there or not in order, or when the median
    is not above 0 (`no_cost` says why)."""
    if len(found) != repeats * windows:
        raise JobFailed(f"{tag}: expected {repeats * windows} result lines ({windows} a repeat), found {len(found)}")
    timed = []
    for i in range(1, repeats + 1):
        values, took = [], 0.0
        for w, p in enumerate(found[(i - 1) * windows : i * windows], start=1):
            if (p["repeat"], p["window"], p["count"]) != (str(i), str(w), str(count)):
                raise JobFailed(
                    f"{tag}: a line is window {p['window']} of repeat {p['repeat']} of {p['count']} {unit}, "
                    f"expected window {w} of repeat {i} of {count}"
                )
            v, seconds = value(p, f"{tag} repeat {i} window {w}")
            values.append(v)
            took += seconds
        median = statistics.median(values)
        if median <= 0:
            raise JobFailed(f"{tag}: repeat {i}: {no_cost}")
        timed.append((i, median, took))
    return timed


def _runs_s(line: dict[str, str], what: str) -> tuple[float, float]:
    """A window's runs (its time less its empty window's) and its time, in seconds."""
    window_s = elapsed_s(line["start"], line["end"], what)
    return window_s - elapsed_s(line["empty"], line["start"], what), window_s


def parse_lines(tag: str, text: str, count: int, repeats: int, windows: int = 1) -> list[tuple[int, float, float]]:
    """(repeat, seconds of `count` runs, seconds its windows took) from `timed_loop`'s lines: a
    window's runs are its time less its empty window's, and a repeat's the median of its
    windows'. JobFailed, one line, when they are not all there."""
    found = tagged_lines(tag, text, ("repeat", "window", "count", "empty", "start", "end"))
    no_cost = f"{count} runs took no longer than two stamps in most of its windows"
    return median_of_windows(tag, found, count, repeats, windows, "runs", _runs_s, no_cost)


def parse_stdout(text: str, cfg: SpawnConfig) -> list[Sample]:
    samples = []
    for i, runs_s, took_s in parse_lines(NAME, text, cfg.count, cfg.repeats, cfg.windows):
        meta = {"repeat": i, "program": PROGRAM}
        samples.append(sample(NAME, "spawn_us", runs_s / cfg.count * 1e6, "us", cfg, **meta))
        samples.append(sample(NAME, "elapsed", took_s, "s", cfg, **meta))
    return samples


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: SpawnConfig, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)
