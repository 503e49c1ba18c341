"""Where the machine's CPU goes over each step of a campaign: `perf record`'s samples of the whole
machine, counted per step by where each landed (issue #53: what a gVisor stop's 63-80 us of extra
machine CPU is spent on, where a one-byte call on one CPU costs 22 us).

`selfbench.call_names record NAME --profile` runs, beside its `perf stat`,

    perf record -a -F 250 -e cpu-clock -k CLOCK_REALTIME

and at the end counts the samples per step of the campaign log and per place: a kernel function
(`k:<symbol>`), the Sentry's own code (`runsc`: gVisor's binary), or any other user code (`user`:
the JVMs, their JIT and everything a guest runs). Idle (the `swapper` task) is left out. The
counts are kept as `profile.csv.gz` beside perf stat's; perf's own data is not kept (it holds every
process's names and addresses, and is ~100 MB a campaign).

How to read it. A sample is 1/250 s of one CPU. cpu-clock is a timer: in a VM it cannot fire
where the kernel runs with interrupts off, so that time lands on the instruction that turns them
back on. A context switch's whole path (the scheduler, the address-space switch) shows as
`finish_task_switch`; a system call's entry and exit as the functions around them.

`selfbench.call_names read` prints, where a recording has the profile, each step's extra CPU per
ptrace stop by place; `selfbench.call_names profile -- CMD` profiles one command the same way, per
ptrace stop it made.
"""

from __future__ import annotations

import csv
import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence, TextIO

#: Samples a second per CPU: 500 a second on this 2-CPU machine, each a timer interrupt.
FREQ = 250
PROFILE_FILE = "profile.csv.gz"
#: The Sentry's user code: gVisor's own binary (its stubs run no code of it).
SENTRY = "runsc"
USER = "user"
#: Where the kernel's time in the switch path lands (see the module's docstring).
SWITCH = ("finish_task_switch", "finish_task_switch.isra.0", "__schedule", "schedule", "__switch_to", "__switch_to_asm")
_LINE = re.compile(r"^\s*(.*?)\s+(\d+)\s+(\d+\.\d+):\s+[0-9a-f]+\s+(.*?)\s*\(([^()]*)\)\s*$")


def record_argv(out: Path, freq: int = FREQ) -> list[str]:
    """perf record of the whole machine on a timer, stamped with the wall clock. Pure."""
    return ["perf", "record", "-a", "-F", str(freq), "-e", "cpu-clock", "-k", "CLOCK_REALTIME", "-q", "-o", str(out)]


def script_argv(data: Path) -> list[str]:
    """perf script's lines: comm, pid, time, address, symbol, object. Pure."""
    return ["perf", "script", "-i", str(data), "-F", "comm,pid,time,ip,sym,dso"]


def place(symbol: str, dso: str) -> str:
    """Where a sample landed: `k:<symbol>` in the kernel, SENTRY in gVisor's binary, else USER. Pure."""
    if dso.endswith("[kernel.kallsyms]") or dso.startswith("[kernel"):
        return f"k:{symbol or '[unknown]'}"
    if Path(dso).name == SENTRY:
        return SENTRY
    return USER


def samples(lines: Iterable[str]) -> Iterator[tuple[float, str]]:
    """(wall-clock seconds, place) of each sample of perf script's lines, idle left out. Pure."""
    for line in lines:
        m = _LINE.match(line)
        if m is None:
            continue
        comm, _pid, t, sym, dso = m.groups()
        if comm == "swapper":
            continue
        yield float(t), place(sym, dso)


@dataclass(frozen=True)
class Span:
    """A step's window in wall-clock seconds, and what it was: block, platform, benchmark, step."""

    start: float
    end: float
    block: int | None
    platform: str | None
    bench: str
    step: str


def per_span(timed: Iterable[tuple[float, str]], spans: Sequence[Span]) -> Counter[tuple[int, str]]:
    """(span index, place) -> samples, each sample counted in the span whose (start, end] holds it;
    spans in time order, not overlapping. Pure."""
    ordered = sorted(range(len(spans)), key=lambda i: spans[i].start)
    starts = [spans[i].start for i in ordered]
    got: Counter[tuple[int, str]] = Counter()
    for t, where in timed:
        k = bisect_left(starts, t) - 1
        if k < 0:
            continue
        i = ordered[k]
        if t <= spans[i].end:
            got[(i, where)] += 1
    return got


FIELDS = ("block", "platform", "bench", "step", "place", "samples")


def write(out: TextIO, spans: Sequence[Span], counted: Counter[tuple[int, str]], freq: int = FREQ) -> None:
    """The counts as CSV, after a `# freq N` line; a step's rows in order of their samples."""
    out.write(f"# freq {freq}\n")
    w = csv.writer(out)
    w.writerow(FIELDS)
    for (i, where), n in sorted(counted.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1])):
        s = spans[i]
        w.writerow(["" if s.block is None else s.block, s.platform or "", s.bench, s.step, where, n])


@dataclass(frozen=True)
class Profile:
    freq: int
    #: (platform, block, step) -> place -> samples, over every window of that step.
    steps: dict[tuple[str, int, str], Counter[str]]


def read(text: str) -> Profile:
    """A profile.csv's counts; rows without a cell (the design's own steps) are left out. Pure."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("# freq "):
        raise ValueError("not a step profile: no '# freq N' line first")
    freq = int(lines[0].split()[2])
    steps: dict[tuple[str, int, str], Counter[str]] = {}
    for row in csv.DictReader(lines[1:]):
        if not row["block"] or not row["platform"]:
            continue
        key = (row["platform"], int(row["block"]), row["step"])
        steps.setdefault(key, Counter())[row["place"]] += int(row["samples"])
    return Profile(freq, steps)


def group(where: str) -> str:
    """A place's group: the switch path, the rest of the kernel, the Sentry's code, other user code. Pure."""
    if where.startswith("k:"):
        return "kernel switch" if where[2:] in SWITCH else "kernel other"
    return "Sentry code" if where == SENTRY else "other user code"


GROUPS = ("kernel switch", "kernel other", "Sentry code", "other user code")


def extra_per_stop(p: Profile, stops: dict[tuple[int, str], int], platform: str, baseline: str) -> dict:
    """(block, step) -> place -> the platform's CPU-us beyond the baseline's per stop of the
    platform's, for every (block, step) both profiled and `stops` counts. Pure."""
    out = {}
    for (plat, block, step), mine in p.steps.items():
        base, n = p.steps.get((baseline, block, step)), stops.get((block, step), 0)
        if plat != platform or base is None or n <= 0:
            continue
        out[(block, step)] = {w: (mine.get(w, 0) - base.get(w, 0)) / p.freq / n * 1e6 for w in set(mine) | set(base)}
    return out


def _split(per: dict[str, float], top: int) -> tuple[str, str]:
    """Per-stop us by place as (the groups' line, the places that take most). Pure."""
    groups: Counter[str] = Counter()
    for w, us in per.items():
        groups[group(w)] += us
    head = ", ".join(f"{g} {groups.get(g, 0.0):.1f}" for g in GROUPS)
    most = sorted(per.items(), key=lambda kv: (-kv[1], kv[0]))[:top]  # ties by name: set order varies by run
    return head, "    " + ", ".join(f"{w} {us:.1f}" for w, us in most)


def report(
    p: Profile, stops: dict[tuple[int, str], int], platform: str = "gvisor", baseline: str = "native", top: int = 12
) -> str:
    """Per (block, step): the profiled CPU of each side, and the platform's extra per stop by group and
    by the places that gain most. Pure."""
    lines = []
    for (block, step), per in sorted(extra_per_stop(p, stops, platform, baseline).items()):
        mine = sum(p.steps[(platform, block, step)].values()) / p.freq
        base = sum(p.steps[(baseline, block, step)].values()) / p.freq
        head, most = _split(per, top)
        lines.append(
            f"b{block} {step}: profiled CPU-s {baseline} {base:.1f}, {platform} {mine:.1f}; extra us per stop "
            f"{sum(per.values()):.1f}: {head}"
        )
        lines.append(most)
    return "\n".join(lines)


def places_report(got: Counter[str], freq: int, stops: int, top: int = 12) -> str:
    """A command's profiled CPU per stop by group and by the places that take most. Pure."""
    per = {w: n / freq / stops * 1e6 for w, n in got.items()} if stops > 0 else {}
    head, most = _split(per, top)
    return (
        f"profiled CPU-s {sum(got.values()) / freq:.2f}, {stops:,} ptrace stops; us per stop {sum(per.values()):.1f}: "
        f"{head}\n{most}"
    )
