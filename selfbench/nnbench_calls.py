"""By hand: the system calls an NNBench operation makes on each side of its RPC, natively, and
what a stopped call costs a JVM (issue #53; docs/results.md "What an operation's calls cost").

`run OUT` starts `vbench bench run nnbench` (a fresh native testbed of 2 workers: create_write,
then open_read, barrier 50 s) and attaches `strace -f -tt -qq -o` to this testbed's own NameNode
and every map task JVM (YarnChild) as it appears: processes found in the namespaces the testbed
created (vb-master, vb-worker*), by their command line. `count OUT` reads the traces back: per
step, only the calls made between NNBench's barrier and the barrier plus its longest map (the
operations, no start-up), per operation (a map's calls over its files; the NameNode's over every
map's). Signals are counted apart ("--- SIG"). The traced run is the every-call plant on those
JVMs, so NNBench's own time per operation in OUT/data is their stopped time.

    sudo PYTHONPATH=. python3 -m selfbench.nnbench_calls run /tmp/nncalls --files 500
    python3 -m selfbench.nnbench_calls count /tmp/nncalls --files 500
"""

from __future__ import annotations

import argparse
import collections
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Iterable

REPO = Path(__file__).resolve().parents[1]
NAMESPACES = ("vb-master", "vb-worker1", "vb-worker2")
MAPS = 2
#: strace -f -tt -o: "PID HH:MM:SS.ffffff rest".
_LINE = re.compile(r"^(\d+) +(\d\d:\d\d:\d\d\.\d+) (.*)$")
_BARRIER = re.compile(r"Start time: (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{1,3})$", re.M)
_LONGEST = re.compile(r"RAW DATA: Longest Map Time \(ms\): (\d+\.\d+(?:E\d+)?)$", re.M)
_OPERATION = re.compile(r"Test Operation: (\w+)$", re.M)


@dataclass(frozen=True)
class Window:
    op: str
    start: datetime
    end: datetime


def ops_window(text: str) -> Window | None:
    """NNBench's operations from its client's log: barrier .. barrier + longest map. Pure."""
    b, lm, op = _BARRIER.search(text), _LONGEST.search(text), _OPERATION.search(text)
    if not (b and lm and op):
        return None
    start = datetime.strptime(b.group(1), "%Y-%m-%d %H:%M:%S") + timedelta(milliseconds=int(b.group(2)))
    return Window(op.group(1), start, start + timedelta(milliseconds=float(lm.group(1))))


def count(lines: Iterable[str], window: Window) -> tuple[collections.Counter, collections.Counter]:
    """(calls by name, signals by name) that began inside `window`; a resumed call is not a new
    one. Pure."""
    calls: collections.Counter = collections.Counter()
    sigs: collections.Counter = collections.Counter()
    for line in lines:
        m = _LINE.match(line)
        if not m:
            continue
        t = datetime.combine(window.start.date(), datetime.strptime(m.group(2), "%H:%M:%S.%f").time())
        rest = m.group(3)
        if not (window.start <= t <= window.end) or rest.startswith("<..."):
            continue
        if rest.startswith("---"):
            sigs[rest.split()[1]] += 1
        else:
            calls[rest.split("(", 1)[0]] += 1
    return calls, sigs


def _ns_pids(ns: str) -> list[int]:
    r = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
    return [int(p) for p in r.stdout.split()] if r.returncode == 0 else []


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def run(out: Path, files: int) -> int:
    out.mkdir(parents=True, exist_ok=True)
    argv = [
        str(REPO / ".venv/bin/vbench"),
        "bench",
        "run",
        "nnbench",
        "--set",
        f"files={files}",
        "--set",
        "barrier_s=50",
        "--platform",
        "native",
        "--workers",
        "2",
        "--campaign",
        "nnbench-calls",
        "--data",
        str(out / "data"),
    ]
    bench = subprocess.Popen(argv, cwd=REPO, stdout=open(out / "bench.log", "w"), stderr=subprocess.STDOUT)
    tracers: dict[int, subprocess.Popen] = {}
    try:
        while bench.poll() is None:
            for ns in NAMESPACES:
                for pid in _ns_pids(ns):
                    args = _cmdline(pid)
                    if pid in tracers:
                        continue
                    if "org.apache.hadoop.mapred.YarnChild" in args and "_m_" in args:
                        name = f"map-{ns}-{pid}"
                    elif "org.apache.hadoop.hdfs.server.namenode.NameNode" in args:
                        name = f"namenode-{pid}"
                    else:
                        continue
                    tracers[pid] = subprocess.Popen(
                        ["strace", "-f", "-tt", "-qq", "-o", str(out / f"{name}.strace"), "-p", str(pid)],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
            time.sleep(0.5)
    finally:
        for p in tracers.values():
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in tracers.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
    return bench.returncode or 0


def report(out: Path, files: int) -> str:
    lines = []
    for log in sorted((out / "data").rglob("*.stderr")) + sorted((out / "data").rglob("*.stdout")):
        w = ops_window(log.read_text(errors="replace"))
        if w is None or any(x.startswith(f"== {w.op}:") for x in lines):
            continue
        lines.append(f"== {w.op}: {w.start.time()} .. {w.end.time()} ({(w.end - w.start).total_seconds():.1f} s)")
        for trace in sorted(out.glob("*.strace")):
            calls, sigs = count(trace.open(errors="replace"), w)
            ops = files * MAPS if trace.name.startswith("namenode") else files
            if sum(calls.values()) < ops:  # a launcher shell, or a map of the other step
                continue
            top = ", ".join(f"{k} {v / ops:.1f}" for k, v in calls.most_common(8))
            lines.append(
                f"  {trace.stem}: {sum(calls.values()) / ops:.1f} calls an operation ({top}); signals {sum(sigs.values()) / ops:.2f}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("run", "count"))
    ap.add_argument("out", type=Path)
    ap.add_argument("--files", type=int, default=500, help="NNBench's files a map")
    args = ap.parse_args(argv)
    if args.what == "run":
        return run(args.out, args.files)
    print(report(args.out, args.files))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
