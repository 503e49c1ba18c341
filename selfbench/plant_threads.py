"""Do the plant's partial levels stay partial for threads and forked children? (issue #53)

`testbed.slowdown.syscall_stops: process` (and `file`) is meant to stop only the process and
thread calls (the calls naming a file) of every process of a host, leaving a read, a write or a
futex unstopped (vbench.testbed.syscall_stops). This runs one small workload under each level's
own tracer command (`syscall_stops.traced_argv`, as the testbed starts sshd under it) and without
one, and prints what an ordinary call (getppid, in no traced class) costs in the workload's:

- main thread (the process strace started, after its exec);
- a thread it creates (pthread_create: clone3 with CLONE_THREAD);
- a child it forks, before any exec;
- a child it forks that execs a new program.

An ordinary call costs ~0.2 us unstopped and ~120 us stopped here. With Debian 12's strace 6.1
(2026-12-02) the partial levels as first built (%process or %file alone) stopped every call of a
new thread and of a forked child until it execs, as the every-call level does: a JVM, whose work
all runs in threads it creates, paid every call stopped at the "process" and "file" levels. They
now trace each new task's first call too (`syscall_stops.FIRST_CALL`), and `--as-first-built`
runs the levels as they were, to show the difference (docs/results.md, "A JVM's loopback RPC").

Runs the host's strace and python3; needs nothing else. Each level takes about a second.

    cd <repository> && python -m selfbench.plant_threads [--calls N]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from typing import Sequence

from vbench.testbed import syscall_stops

#: The workload: the cost of an ordinary call in each kind of task, one "<task> <us>" line each.
WORKLOAD = r"""
import os, sys, threading, time
n = int(sys.argv[1])
def cost(task):
    t = time.perf_counter()
    for _ in range(n):
        os.getppid()
    print(task, (time.perf_counter() - t) / n * 1e6, flush=True)
cost("main_thread")
t = threading.Thread(target=cost, args=("new_thread",)); t.start(); t.join()
pid = os.fork()
if pid == 0:
    cost("forked_child"); os._exit(0)
os.waitpid(pid, 0)
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, "-c", sys.argv[2], sys.argv[1]])
os.waitpid(pid, 0)
"""
#: What the exec'd child runs.
EXECED = r"""
import os, sys, time
n = int(sys.argv[1]); t = time.perf_counter()
for _ in range(n):
    os.getppid()
print("execed_child", (time.perf_counter() - t) / n * 1e6, flush=True)
"""
TASKS = ("main_thread", "new_thread", "forked_child", "execed_child")
LEVELS: tuple[bool | str | None, ...] = (
    None,
    syscall_stops.PROCESS,
    syscall_stops.FILE,
    syscall_stops.MEMORY,
    True,
)
_LINE = re.compile(r"^(\w+) ([0-9.eE+-]+)$", re.M)


def workload_argv(calls: int) -> list[str]:
    return [sys.executable, "-c", WORKLOAD, str(calls), EXECED]


def parse(text: str) -> dict[str, float]:
    """Task -> us a call, from the workload's lines. Pure."""
    return {task: float(us) for task, us in _LINE.findall(text) if task in TASKS}


def level_name(level: bool | str | None) -> str:
    return "no tracer" if level is None else syscall_stops.applied(level)


def first_built(argv: list[str]) -> list[str]:
    """A partial level's tracer command as first built, without FIRST_CALL traced. Pure."""
    suffix = f",{syscall_stops.FIRST_CALL}"
    return [a[: -len(suffix)] if a.startswith("trace=%") and a.endswith(suffix) else a for a in argv]


def measure(level: bool | str | None, calls: int, strace: str, as_first_built: bool = False) -> dict[str, float]:
    argv = workload_argv(calls)
    if level is not None:
        argv = syscall_stops.traced_argv(strace, argv, level)
        argv = first_built(argv) if as_first_built else argv
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"{level_name(level)}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return parse(done.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--calls", type=int, default=5000, help="getppid calls per task")
    ap.add_argument("--as-first-built", action="store_true", help="the partial levels without FIRST_CALL traced")
    args = ap.parse_args(argv)
    strace = syscall_stops.find_strace()
    version = subprocess.run([strace, "-V"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"{version}; an ordinary call's cost (us), {args.calls} calls per task")
    print(f"{'level':58} " + " ".join(f"{t:>13}" for t in TASKS))
    for level in LEVELS:
        costs = measure(level, args.calls, strace, args.as_first_built)
        name = level_name(level)
        name = name.replace(f",{syscall_stops.FIRST_CALL}", "") if args.as_first_built else name
        print(f"{name:58} " + " ".join(f"{costs.get(t, float('nan')):13.2f}" for t in TASKS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
