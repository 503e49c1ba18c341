"""The machine's system calls by name over each step of a campaign, from `perf stat`'s interval
counts recorded beside it (issue #53: which calls a Hadoop JVM makes natively, and how many ptrace
stops gVisor's Sentry makes for them).

Record (root; perf mounts tracefs if it is not mounted: unmount it after if it was not), then run
the campaign, then stop perf with Ctrl-C:

    perf stat -a -x, -I 1000 -e 'raw_syscalls:sys_enter,syscalls:sys_enter_*' \\
        -e syscalls:sys_enter_ptrace --filter 'request == 31' -e context-switches -o calls.csv &
    vbench campaign run NAME > campaign.log

`-e syscalls:sys_enter_ptrace --filter 'request == 31'` counts PTRACE_SYSEMU, with which gVisor's
ptrace platform resumes a guest's thread after each stop (a system call or a fault it served): the
second `syscalls:sys_enter_ptrace` row of each interval. A step's window runs from its line in the
campaign log (`HH:MM:SS bench: step ...`, second resolution) to the next such line; an interval
counts toward the step its end falls in, so a step's first and last second are shared.

Reads the two files; runs nothing.

    cd <repository> && python -m selfbench.call_names calls.csv campaign.log [--top 14]
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Iterable, Sequence

RAW = "raw_syscalls:sys_enter"
PTRACE = "syscalls:sys_enter_ptrace"
#: The name the filtered (second) ptrace row of an interval is counted under.
SYSEMU = "ptrace:SYSEMU"
SWITCHES = "context-switches"
_STARTED = re.compile(r"^# started on \w+ (\w+ +\d+ [\d:]+ \d+)")
_STEP = re.compile(r"^(\d\d:\d\d:\d\d) (\w+): (\w+) \.\.\.")


@dataclass(frozen=True)
class Window:
    """One step of a campaign: its benchmark, its name, and its start and end (the log's clock)."""

    bench: str
    step: str
    start: datetime
    end: datetime


def intervals(text: str) -> tuple[datetime, list[tuple[float, str, int]]]:
    """perf stat's start and its interval rows (seconds since the start, event, count), the second
    ptrace row of an interval named SYSEMU; rows perf could not count are left out. Pure."""
    started = None
    rows: list[tuple[float, str, int]] = []
    ptraces: Counter[float] = Counter()
    for line in text.splitlines():
        m = _STARTED.match(line)
        if m:
            started = datetime.strptime(" ".join(m.group(1).split()), "%b %d %H:%M:%S %Y")
            continue
        parts = line.strip().split(",")
        if len(parts) < 4 or line.startswith("#"):
            continue
        try:
            t, n = float(parts[0]), int(parts[1])
        except ValueError:
            continue
        event = parts[3]
        if event == PTRACE:
            ptraces[t] += 1
            if ptraces[t] == 2:
                event = SYSEMU
        rows.append((t, event, n))
    if started is None:
        raise ValueError("no '# started on ...' line: not perf stat's -o output")
    return started, rows


def windows(log: str, day: datetime) -> list[Window]:
    """Each step of a campaign log, from its line to the next step's (or the log's last stamped
    line), on `day`; a step line earlier than the one before it falls on the next day. Pure."""
    marks: list[tuple[datetime, str, str]] = []
    last = None
    for line in log.splitlines():
        stamp = line[:8]
        if not re.fullmatch(r"\d\d:\d\d:\d\d", stamp):
            continue
        at = datetime.combine(day.date(), datetime.strptime(stamp, "%H:%M:%S").time())
        while last is not None and at < last:
            at += timedelta(days=1)
        last = at
        m = _STEP.match(line)
        marks.append((at, m.group(2), m.group(3)) if m else (at, "", ""))
    out = []
    for i, (at, bench, step) in enumerate(marks):
        if bench and i + 1 < len(marks):
            out.append(Window(bench, step, at, marks[i + 1][0]))
    return out


def counts(started: datetime, rows: Iterable[tuple[float, str, int]], window: Window) -> Counter[str]:
    """The counts of the intervals whose end falls in (window start, window end]. Pure."""
    out: Counter[str] = Counter()
    for t, event, n in rows:
        at = started + timedelta(seconds=t)
        if window.start < at <= window.end:
            out[event] += n
    return out


def short(event: str) -> str:
    return event.split("sys_enter_", 1)[1] if "sys_enter_" in event else event


def report(started: datetime, rows: Sequence[tuple[float, str, int]], steps: Sequence[Window], top: int = 14) -> str:
    """Per step: its calls and calls per second, PTRACE_SYSEMU stops and the machine's context
    switches per stop where counted, and the names most called, in % of its calls. Pure."""
    lines = []
    for w in steps:
        c = counts(started, rows, w)
        secs = (w.end - w.start).total_seconds()
        calls = c.get(RAW) or sum(n for e, n in c.items() if e.startswith("syscalls:") and e != PTRACE)
        if calls <= 0 or secs <= 0:
            continue
        head = f"{w.bench} {w.step}: {calls:,} calls in {secs:.0f} s ({calls / secs:,.0f}/s)"
        if c.get(SYSEMU):
            head += f"; {c[SYSEMU]:,} ptrace stops ({c[SYSEMU] / calls:.3f} of the calls)"
            if c.get(SWITCHES):
                head += f", {c[SWITCHES] / c[SYSEMU]:.2f} context switches a stop"
        lines.append(head)
        named = Counter({short(e): n for e, n in c.items() if e.startswith("syscalls:")})
        if named:
            per = [f"{name} {n / calls:.1%}" for name, n in named.most_common(top)]
            lines.append("    " + ", ".join(per))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("perf_csv", type=Path)
    ap.add_argument("campaign_log", type=Path)
    ap.add_argument("--top", type=int, default=14, help="names shown a step")
    args = ap.parse_args(argv)
    started, rows = intervals(args.perf_csv.read_text())
    print(report(started, rows, windows(args.campaign_log.read_text(), started), args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
