"""The machine's system calls by name over each step of a campaign, from `perf stat`'s interval
counts recorded beside it (issue #53: which calls a Hadoop JVM makes natively, and how many ptrace
stops gVisor's Sentry makes for them).

`record NAME` (root) runs `vbench campaign run NAME` beside

    perf stat -a -x, -I 2000 -e 'raw_syscalls:sys_enter,syscalls:sys_enter_*' \\
        -e syscalls:sys_enter_ptrace --filter 'request == 31' -e context-switches \\
        -e irq_vectors:call_function_single_entry,irq_vectors:call_function_entry,irq_vectors:reschedule_entry

and keeps perf's output (gzipped) and the campaign's log in DATA/raw/NAME/calls/. With `--profile`
it also samples the machine (`perf record`, selfbench.step_profile) and keeps the samples counted
per step and place as profile.csv.gz. perf mounts tracefs where it is not mounted; `record`
unmounts it after only then. Each perf is started by this script and stopped by its pid (SIGINT, so
it writes its last interval), Ctrl-C included.

`-e syscalls:sys_enter_ptrace --filter 'request == 31'` counts PTRACE_SYSEMU, with which gVisor's
ptrace platform resumes a guest's thread after each stop (a system call or a fault it served): the
second `syscalls:sys_enter_ptrace` row of each interval. A step's window runs from its line in the
campaign log (`HH:MM:SS bench: step ...`, second resolution) to the next such line; an interval
counts toward the step its end falls in, so a step's first and last interval are shared with its
neighbours. The counts are the whole machine's: the platform's cluster waiting beside (a design's
`idle: run`) is in them, as it is in every machine-CPU stamp.

The irq_vectors rows count the interrupts one CPU sends another (IPIS), where they arrive: a wake
of a task on the other CPU is one. `read` reports the platform's extra interrupts per stop beside
the stops.

`read` reads the files; it runs nothing. `--rule` picks the design's rule it judges by:
costs-callnames-gvisor's (`stops`, the default) or costs-profile-gvisor's (`wakes`).

`profile -- CMD` (root) profiles one command as `record --profile` profiles a step, per ptrace stop
it made: a micro-benchmark's stops in a sandbox, to set beside a Hadoop step's.

    cd <repository> && sudo .venv/bin/python -m selfbench.call_names record NAME [--profile]
    cd <repository> && python -m selfbench.call_names read data/raw/NAME/calls [--top 14] [--rule wakes]
    cd <repository> && sudo .venv/bin/python -m selfbench.call_names profile -- taskset -c 0 \\
        runsc --network=none --platform=ptrace do dd if=/dev/zero of=/dev/null bs=1 count=200000
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from bisect import bisect_right
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from selfbench import step_profile
from vbench.monitor.kernel_entries import TRACEFS
from vbench.samples import MACHINE_CPU_FIELD
from vbench.stats.campaign import load_campaign

RAW = "raw_syscalls:sys_enter"
PTRACE = "syscalls:sys_enter_ptrace"
#: The name the filtered (second) ptrace row of an interval is counted under.
SYSEMU = "ptrace:SYSEMU"
SWITCHES = "context-switches"
#: perf's event for PTRACE_SYSEMU: the ptrace tracepoint filtered to that request.
SYSEMU_EVENT = ("-e", PTRACE, "--filter", "request == 31")
#: The interrupts one CPU sends another, counted where they arrive: a wake-up queued to a task on
#: another CPU, a function to call there, a reschedule. On this VM a cross-CPU wake costs ~11 us of
#: machine CPU where a switch in place costs ~1 (selfbench.cross_cpu_wake).
IPIS = (
    "irq_vectors:call_function_single_entry",
    "irq_vectors:call_function_entry",
    "irq_vectors:reschedule_entry",
)
_STARTED = re.compile(r"^# started on \w+ (\w+ +\d+ [\d:]+ \d+)")
_STEP = re.compile(r"^(\d\d:\d\d:\d\d) (\w+): (\w+) \.\.\.")
#: The runner's progress line naming the cell that runs next ("... running b0/gvisor/nnbench").
_CELL = re.compile(r"\] running b(\d+)/([\w-]+)/")


@dataclass(frozen=True)
class Window:
    """One step of a campaign: its benchmark, its name, and its start and end (the log's clock);
    the cell's block and platform where the log named them."""

    bench: str
    step: str
    start: datetime
    end: datetime
    block: int | None = None
    platform: str | None = None


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


def totals(text: str) -> dict[str, int]:
    """Event -> count from perf stat's -x, output without intervals (an event's first row: with a
    filtered copy of an event, the one listed first). Pure."""
    got: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split(",")
        if len(parts) >= 3 and parts[0].strip().isdigit():
            got.setdefault(parts[2], int(parts[0]))
    return got


def windows(log: str, day: datetime) -> list[Window]:
    """Each step of a campaign log, from its line to the next stamped line, on `day` (a line earlier
    than the one before it falls on the next day), in the cell the runner last said it runs. Pure."""
    marks: list[tuple[datetime, str, str, int | None, str | None]] = []
    last = None
    cell: tuple[int | None, str | None] = (None, None)
    for line in log.splitlines():
        m = _CELL.search(line)
        if m:
            cell = (int(m.group(1)), m.group(2))
            continue
        stamp = line[:8]
        if not re.fullmatch(r"\d\d:\d\d:\d\d", stamp):
            continue
        at = datetime.combine(day.date(), datetime.strptime(stamp, "%H:%M:%S").time())
        while last is not None and at < last:
            at += timedelta(days=1)
        last = at
        m = _STEP.match(line)
        marks.append((at, m.group(2), m.group(3), *cell) if m else (at, "", "", None, None))
    out = []
    for i, (at, bench, step, block, platform) in enumerate(marks):
        if bench and i + 1 < len(marks):
            out.append(Window(bench, step, at, marks[i + 1][0], block, platform))
    return out


def per_window(
    started: datetime, rows: Iterable[tuple[float, str, int]], steps: Sequence[Window]
) -> list[tuple[Window, Counter[str]]]:
    """Each window with the counts of the intervals whose end falls in (its start, its end]: the rows
    sorted once, each window's found by bisection. Pure."""
    # By time only, and stable: the events of one interval keep perf's order (ties in a report's
    # most-called names fall as perf listed them).
    timed = sorted(((started + timedelta(seconds=t), event, n) for t, event, n in rows), key=lambda r: r[0])
    ends = [at for at, _, _ in timed]
    out = []
    for w in steps:
        c: Counter[str] = Counter()
        for _, event, n in timed[bisect_right(ends, w.start) : bisect_right(ends, w.end)]:
            c[event] += n
        out.append((w, c))
    return out


def short(event: str) -> str:
    return event.split("sys_enter_", 1)[1] if "sys_enter_" in event else event


def report(counted: Sequence[tuple[Window, Counter[str]]], top: int = 14) -> str:
    """Per step: its calls and calls per second, PTRACE_SYSEMU stops and the machine's context
    switches per stop where counted, and the names most called, in % of its calls. Pure."""
    lines = []
    for w, c in counted:
        secs = (w.end - w.start).total_seconds()
        calls = c.get(RAW) or sum(n for e, n in c.items() if e.startswith("syscalls:") and e != PTRACE)
        if calls <= 0 or secs <= 0:
            continue
        cell = f"b{w.block}/{w.platform} " if w.platform else ""
        head = f"{cell}{w.bench} {w.step}: {calls:,} calls in {secs:.0f} s ({calls / secs:,.0f}/s)"
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


def perf_argv(out: Path, interval_ms: int = 2000) -> list[str]:
    """perf stat over the whole machine: every call by name, PTRACE_SYSEMU, context switches, the
    interrupts between CPUs. Pure."""
    return [
        "perf",
        "stat",
        "-a",
        "-x,",
        "-I",
        str(interval_ms),
        "-e",
        f"{RAW},syscalls:sys_enter_*",
        *SYSEMU_EVENT,
        "-e",
        SWITCHES,
        "-e",
        ",".join(IPIS),
        "-o",
        str(out),
    ]


@dataclass(frozen=True)
class Stops:
    """One step in one block: the baseline's calls, the platform's ptrace stops and context switches,
    and each side's machine CPU-seconds (None: not stamped) and interrupts between CPUs (0: not
    counted)."""

    block: int
    step: str
    calls: int
    stops: int
    switches: int
    base_cpu_s: float | None
    cpu_s: float | None
    base_ipis: int = 0
    ipis: int = 0

    @property
    def extra_ipis_per_stop(self) -> float:
        return (self.ipis - self.base_ipis) / self.stops if self.stops > 0 else 0.0

    @property
    def extra_us_per_stop(self) -> float | None:
        if self.base_cpu_s is None or self.cpu_s is None or self.stops <= 0:
            return None
        return (self.cpu_s - self.base_cpu_s) / self.stops * 1e6


def ipis(c: Counter[str]) -> int:
    """A window's interrupts between CPUs. Pure."""
    return sum(c.get(e, 0) for e in IPIS)


def stops(
    counted: Sequence[tuple[Window, Counter[str]]],
    cpu: dict[tuple[str, int, str], float],
    platform: str = "gvisor",
    baseline: str = "native",
) -> list[Stops]:
    """Per (block, step) both sides ran: the baseline's calls against the platform's stops, with
    each side's machine CPU from `cpu` ((platform, block, step) -> CPU-seconds). Pure."""
    by = {(w.platform, w.block, w.step): c for w, c in counted if w.platform is not None}
    out = []
    for (p, block, step), c in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][2])):
        base = by.get((baseline, block, step))
        if p != platform or base is None or not c.get(SYSEMU) or not base.get(RAW):
            continue
        out.append(
            Stops(
                block,
                step,
                base[RAW],
                c[SYSEMU],
                c.get(SWITCHES, 0),
                cpu.get((baseline, block, step)),
                cpu.get((platform, block, step)),
                ipis(base),
                ipis(c),
            )
        )
    return out


def stops_report(got: Sequence[Stops], platform: str = "gvisor", baseline: str = "native") -> str:
    """One line per (block, step): stops per baseline call, switches per stop, extra CPU per stop. Pure."""
    lines = [
        f"{'block':>5} {'step':<14}{baseline + ' calls':>14}{platform + ' stops':>14}{'stops/call':>11}"
        f"{'switches/stop':>14}{'CPU s ' + baseline:>13}{'CPU s ' + platform:>13}{'extra us/stop':>14}"
        f"{'extra IPIs/stop':>16}"
    ]
    for s in got:
        x = s.extra_us_per_stop
        lines.append(
            f"{s.block:>5} {s.step:<14}{s.calls:>14,}{s.stops:>14,}{s.stops / s.calls:>11.2f}"
            f"{s.switches / s.stops:>14.2f}{_num(s.base_cpu_s):>13}{_num(s.cpu_s):>13}{_num(x, 1):>14}"
            f"{s.extra_ipis_per_stop:>16.2f}"
        )
    return "\n".join(lines)


def wake_report(got: Sequence[Stops]) -> str:
    """Per (block, step): the wake rule's extra per stop against the measured one, and its verdict. Pure."""
    lines = [f"{'block':>5} {'step':<14}{'extra IPIs/stop':>16}{'rule us/stop':>13}{'measured':>10}{'error':>9}"]
    for s in got:
        e = wake_error(s)
        lines.append(
            f"{s.block:>5} {s.step:<14}{s.extra_ipis_per_stop:>16.2f}{predicted_us_per_stop(s):>13.1f}"
            f"{_num(s.extra_us_per_stop, 1):>10}{'-' if e is None else f'{e:+.1%}':>9}"
        )
    word, off = wake_verdict(got)
    judged = sum(s.step in JUDGED for s in got)
    lines.append(
        f"the rule (costs-profile-gvisor): {word}; {judged - len(off)} of {judged} judged pairs within "
        f"{WITHIN:.0%} of {STOP_IN_PLACE_US:g} us + {WAKE_US:g} us x extra IPIs per stop"
        + "".join(f"; off: block {s.block} {s.step}" for s in off)
    )
    return "\n".join(lines)


def _num(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def machine_cpu(campaign: Path) -> dict[tuple[str, int, str], float]:
    """(platform, block, step) -> the machine's CPU-seconds over the step, from a campaign's samples
    (the first stamped sample of each; none where the campaign has no samples)."""
    if not (campaign / "samples.jsonl").exists():
        return {}
    df = load_campaign(campaign).samples
    if MACHINE_CPU_FIELD not in df or "step" not in df:
        return {}
    df = df[df["step"].notna() & df[MACHINE_CPU_FIELD].notna()].drop_duplicates(["platform", "block", "step"])
    return {
        (str(r["platform"]), int(r["block"]), str(r["step"])): float(r[MACHINE_CPU_FIELD]) for _, r in df.iterrows()
    }


#: costs-callnames-gvisor's rule: the judged steps, the stops per baseline call it allows, and the
#: least extra machine CPU per stop (2.5 x a one-byte call's 22.6 us on one CPU, gvisor_call_gap).
JUDGED = ("wordcount", "create_write", "open_read", "write", "terasort")
STOPS_PER_CALL = (1.0, 1.4)
MIN_US_PER_STOP = 56.0


def verdict(got: Sequence[Stops]) -> tuple[str, list[Stops]]:
    """The design's rule over the judged (step, block) pairs: held if every pair's stops per call lie
    in STOPS_PER_CALL and its extra per stop is at least MIN_US_PER_STOP; rejected if 3 or more
    fail either; else neither. With the pairs that fail. Pure."""
    judged = [s for s in got if s.step in JUDGED]
    lo, hi = STOPS_PER_CALL

    def ok(s: Stops) -> bool:
        x = s.extra_us_per_stop
        return lo <= s.stops / s.calls <= hi and x is not None and x >= MIN_US_PER_STOP

    failed = [s for s in judged if not ok(s)]
    if judged and not failed:
        return "held", failed
    return ("rejected" if len(failed) >= 3 else "neither"), failed


#: costs-profile-gvisor's rule: a stop's extra machine CPU is a stop's in place (a one-byte call held
#: to one CPU, 22.4 us: gvisor_call_gap) plus, for each interrupt between CPUs it adds over native's,
#: a cross-CPU wake's price (12 us: a JVM's RPC alone, 34.4 us a stop with 0.97 more interrupts, and a
#: native pipe round trip across the CPUs against one held to a CPU, 11.8 us an interrupt; by hand,
#: docs/results.md).
STOP_IN_PLACE_US = 22.4
WAKE_US = 12.0
WITHIN, OFF = 0.15, 0.25


def predicted_us_per_stop(s: Stops) -> float:
    """A stop's extra machine CPU by costs-profile-gvisor's rule. Pure."""
    return STOP_IN_PLACE_US + WAKE_US * s.extra_ipis_per_stop


def wake_error(s: Stops) -> float | None:
    """Measured extra per stop over the rule's, less 1. Pure."""
    x = s.extra_us_per_stop
    return None if x is None else x / predicted_us_per_stop(s) - 1


def wake_verdict(got: Sequence[Stops]) -> tuple[str, list[Stops]]:
    """costs-profile-gvisor's rule over the judged pairs: held if every pair's measured extra per stop
    is within WITHIN of the rule's; rejected if 3 or more are more than OFF off (or unmeasured); else
    neither. With the pairs more than WITHIN off. Pure."""
    judged = [s for s in got if s.step in JUDGED]
    errs = [(s, wake_error(s)) for s in judged]
    off = [s for s, e in errs if e is None or abs(e) > WITHIN]
    if judged and not off:
        return "held", off
    far = [s for s, e in errs if e is None or abs(e) > OFF]
    return ("rejected" if len(far) >= 3 else "neither"), off


PERF_FILE = "perf.csv.gz"
LOG_FILE = "campaign.log"


def _tracefs_mounted() -> bool:
    return (TRACEFS / "events").is_dir()


@contextmanager
def tracefs_as_found() -> Iterator[None]:
    """Around a body that runs perf: tracefs unmounted after where it was not mounted before (perf
    mounts it where it is absent); a tracefs mounted before is left alone."""
    mounted_before = _tracefs_mounted()
    try:
        yield
    finally:
        # A perf that has just exited may still hold tracefs for a moment (umount: busy): a few tries.
        for _ in range(10):
            if mounted_before or not _tracefs_mounted():
                break
            if subprocess.run(["umount", str(TRACEFS)], check=False, stderr=subprocess.DEVNULL).returncode != 0:
                time.sleep(0.2)


def _stop(proc: subprocess.Popen | None) -> None:
    """A perf this script started, by its pid: SIGINT, so it writes what it has; killed after 30 s."""
    if proc is None:
        return
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def record(name: str, data: Path, vbench: str, profile: bool = False) -> int:
    """Run the campaign beside perf stat (and, with `profile`, perf record); keep the outputs in
    DATA/raw/NAME/calls/ where the campaign wrote its directory. The campaign's exit code; Ctrl-C
    stops the campaign, then perf."""
    with tempfile.TemporaryDirectory(prefix="vbench-call-names-") as tmp, tracefs_as_found():
        csv, log, sampled = Path(tmp, "perf.csv"), Path(tmp, LOG_FILE), Path(tmp, "perf.data")
        perf = subprocess.Popen(perf_argv(csv), start_new_session=True, stderr=subprocess.DEVNULL)
        profiler = None
        if profile:
            profiler = subprocess.Popen(
                step_profile.record_argv(sampled),
                start_new_session=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        try:
            with log.open("w") as f:
                run = subprocess.Popen(
                    [vbench, "campaign", "run", name, "--data", str(data)], stdout=f, stderr=subprocess.STDOUT
                )
                try:
                    rc = run.wait()
                except KeyboardInterrupt:
                    run.send_signal(signal.SIGINT)
                    run.wait()
                    raise
        finally:
            _stop(perf)
            _stop(profiler)
            _keep(csv, log, data / "raw" / name, sampled if profile else None)
    return rc


def _keep(csv: Path, log: Path, campaign: Path, sampled: Path | None = None) -> None:
    """perf's output (gzipped) and the log into the campaign's calls/, where the campaign exists;
    with `sampled` (perf record's data), its samples counted per step (step_profile)."""
    if not (campaign / "campaign.json").exists():
        print(f"{campaign}: no campaign was written; perf's counts are not kept", file=sys.stderr)
        return
    keep = campaign / "calls"
    keep.mkdir(exist_ok=True)
    if csv.exists():
        with csv.open("rb") as src, gzip.open(keep / PERF_FILE, "wb") as dst:
            shutil.copyfileobj(src, dst)
    shutil.copy(log, keep / LOG_FILE)
    if sampled is not None and sampled.exists() and csv.exists():
        _keep_profile(sampled, csv.read_text(), log.read_text(), keep / step_profile.PROFILE_FILE)


def _keep_profile(sampled: Path, perf_text: str, log_text: str, out: Path) -> None:
    """perf record's samples, counted per step of the log, as step_profile's CSV (gzipped)."""
    started, _ = intervals(perf_text)
    spans = [
        step_profile.Span(w.start.timestamp(), w.end.timestamp(), w.block, w.platform, w.bench, w.step)
        for w in windows(log_text, started)
    ]
    with subprocess.Popen(
        step_profile.script_argv(sampled), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as script:
        counted = step_profile.per_span(step_profile.samples(script.stdout), spans)
    with gzip.open(out, "wt") as f:
        step_profile.write(f, spans, counted)


def profile(cmd: Sequence[str], top: int = 12) -> int:
    """Profile `cmd` (perf record) and count its ptrace stops (perf stat); print the CPU per stop by
    place. The command's exit code."""
    with tempfile.TemporaryDirectory(prefix="vbench-profile-") as tmp, tracefs_as_found():
        data, counts = Path(tmp, "perf.data"), Path(tmp, "stat.csv")
        stat = ["perf", "stat", "-a", "-x,", *SYSEMU_EVENT, "-o", str(counts)]
        done = subprocess.run([*step_profile.record_argv(data), "--", *stat, "--", *cmd])
        if done.returncode != 0:
            return done.returncode
        stops = totals(counts.read_text()).get(PTRACE, 0)
        with subprocess.Popen(
            step_profile.script_argv(data), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        ) as script:
            got = Counter(where for _, where in step_profile.samples(script.stdout))
    print(step_profile.places_report(got, step_profile.FREQ, stops, top))
    return 0


def _text(path: Path) -> str:
    if path.suffix == ".gz":
        with gzip.open(path, "rt") as f:
            return f.read()
    return path.read_text()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run a campaign beside perf stat (root)")
    rec.add_argument("name", help="the design, params/experiments/NAME.yaml")
    rec.add_argument("--data", type=Path, default=Path("data"))
    rec.add_argument("--vbench", default=str(Path(sys.executable).with_name("vbench")), help="the vbench command")
    rec.add_argument(
        "--profile", action="store_true", help="also sample the machine with perf record (selfbench.step_profile)"
    )
    rd = sub.add_parser("read", help="each step's calls by name from a recording")
    rd.add_argument("calls", type=Path, help=f"a recording's directory ({PERF_FILE} and {LOG_FILE})")
    rd.add_argument("--top", type=int, default=14, help="names shown a step")
    rd.add_argument(
        "--rule",
        choices=("stops", "wakes"),
        default="stops",
        help="the design's rule: costs-callnames-gvisor's (stops) or costs-profile-gvisor's (wakes)",
    )
    pr = sub.add_parser("profile", help="profile one command per ptrace stop it made (root)")
    pr.add_argument("--top", type=int, default=12, help="places shown")
    pr.add_argument("cmd", nargs=argparse.REMAINDER, help="-- and the command")
    args = ap.parse_args(argv)
    if args.command == "profile":
        cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
        if not cmd:
            ap.error("no command: profile -- CMD ...")
        if os.geteuid() != 0 or shutil.which("perf") is None:
            print("profile needs root and perf", file=sys.stderr)
            return 2
        return profile(cmd, args.top)
    if args.command == "record":
        if os.geteuid() != 0 or shutil.which("perf") is None:
            print("record needs root and perf", file=sys.stderr)
            return 2
        return record(args.name, args.data, args.vbench, args.profile)
    started, rows = intervals(_text(args.calls / PERF_FILE))
    counted = per_window(started, rows, windows(_text(args.calls / LOG_FILE), started))
    print(report(counted, args.top))
    got = stops(counted, machine_cpu(args.calls.parent))
    if got:
        print(stops_report(got))
        judged = sum(s.step in JUDGED for s in got)
        if args.rule == "stops":
            word, failed = verdict(got)
            print(
                f"the rule (costs-callnames-gvisor): {word}; {judged - len(failed)} of {judged} judged pairs meet both "
                f"(stops per call in [{STOPS_PER_CALL[0]}, {STOPS_PER_CALL[1]}], >= {MIN_US_PER_STOP:g} us per stop)"
                + "".join(f"; fails: block {s.block} {s.step}" for s in failed)
            )
        else:
            print(wake_report(got))
    profiled = args.calls / step_profile.PROFILE_FILE
    if profiled.exists():
        print(step_profile.report(step_profile.read(_text(profiled)), {(s.block, s.step): s.stops for s in got}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
