"""Planted system-call stops (`testbed.slowdown.syscall_stops`, issue #53): every system call of
a native host, of every process and thread it ever runs, stopped twice under ptrace (at entry and
at exit), as gVisor's ptrace platform stops a sandboxed task for each call; or, at the level
"process", only the calls that create, exec, wait for and end processes and threads (strace's
%process class: clone, fork, execve, wait4, exit...), so a process's or a thread's life pays the
stops while an ordinary call (a read, a write, a futex) pays nothing. The two levels tell apart
what a job pays per call from what it pays per process and thread (params/experiments/
costs-fit-process.yaml).

The cost model's other planted slowdowns (CPU quota, link rate, disk throttle) leave gVisor's
overhead unexplained: its CPU, I/O and link costs are near native's or unused by the jobs, while
its system call costs x129, a process creation x10 and a JVM's start x3 (docs/results.md, "The
platform cost vector"). This slowdown moves those costs on native and nothing else, so the
fit can give a job's share of them.

The tracer is strace (`strace -f -e trace=none`): it stops the tracees as often as any tracer
(without --seccomp-bpf every call stops at entry and exit, whatever is printed), decodes and
prints nothing, and follows every fork, vfork and clone. A minimal tracer of our own that only
restarted each stop was measured no cheaper here (1-byte dd: ~190 us a call under either, 0.16 us
untraced, 2026-12-01: the wake-up of the other vCPU at each stop is the cost, not the tracer's
work). The host's sshd is started under it, and every daemon and command of the host descends
from that sshd over SSH, so all of them are stopped; the tracer exits with sshd, and teardown
stops every process of the host's namespace as always.

At the level "file", only the calls that name a file stop (strace's %file class): an open, a stat,
an access, an exec (its path: one strace cannot leave out of the class while keeping the rest, so
a process creation pays a little at this level too, as it opens its libraries), where a read or a
write of an open file, a socket call or a futex pays nothing (params/experiments/
costs-nnbench-barrier.yaml asked for it: gVisor's NNBench open/read is dearer than its calls and
processes say). On this machine `fileopen` moved x37 under it and x0.8 under "process"
(2026-12-01, 2000 files, 5 repeats).

At the level "memory", only the calls that map, unmap, protect and advise memory stop (strace's
%memory class: mmap, munmap, mprotect, madvise, brk, mremap...): what a JVM's start pays in
quantity (it maps its heap, its code cache, its libraries and its class data: ~2x a JVM's start by
hand, 28 against 55 ms, 2026-12-03) and a JVM's call does not at all (`rpc` 92 against 95 us a
call untraced). `fileopen` pays it too (cat maps and unmaps a 136 KiB read buffer per file:
x4). It moves a JVM's start apart from its calls, which the process level, x1.17
against x1.00, hardly did (params/experiments/costs-fit-memory.yaml asked for it).

At the partial levels ("process", "file", "memory"), `--seccomp-bpf` makes the kernel stop a tracee only at the traced calls
(a seccomp filter installed in sshd and inherited by every descendant); without it every call
would still stop, only printed or not.

Why the partial levels also trace `set_robust_list` (FIRST_CALL; found 2026-12-02,
`selfbench/plant_threads.py`, tests/integration/test_syscall_stops.py): strace (6.1 here, and
upstream to at least 6.8) resumes a new task with PTRACE_SYSCALL, every call stopped, until that
task's first seccomp stop. With %process, %file or %memory alone, a thread a process creates, and a forked
child until it execs, had every ordinary call stopped (~120-175 us, against 0.3 in the main
thread): a JVM, whose work all runs in threads it creates (its `main` too), paid the every-call
level at "process" and "file" (a loopback RPC of a JVM, `rpc`, x7.2 at "process" and x7.7 with
every call stopped: costs-rpc-levels). Traced, the first call of each new task is its first seccomp
stop; after it an ordinary call costs what it costs untraced. Every campaign that planted a partial
level before this (its hosts' `slowdown_applied` reads `trace=%process` or `trace=%file` without
`,set_robust_list`) planted the every-call level on its JVMs: what a fit gave that level's resource
(spawn, fileopen) holds the JVMs' calls too.

The builders are pure; `tracer_problems` reads /proc.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from vbench.errors import VbenchError

Cmd = list[str]

#: The level that stops only the process and thread calls (`testbed.slowdown.syscall_stops`).
PROCESS = "process"
#: The level that stops only the calls naming a file (strace's %file class: open, openat, stat,
#: access, readlink, unlink, execve...), as gVisor sends a call naming a file out of its Sentry to
#: its file system: what `fileopen` measures.
FILE = "file"
#: The level that stops only the calls that map and unmap memory (strace's %memory class): a JVM's
#: start pays them, a JVM's call does not.
MEMORY = "memory"
#: The tracer's flags: follow every process and thread, print nothing.
_COMMON_FLAGS: tuple[str, ...] = ("-f", "-qq", "-e", "signal=none", "-o", "/dev/null")
#: The call every new thread and every forked child makes first thing (glibc registers its robust
#: futex list in both): traced at the partial levels so that strace, which resumes a new task with
#: every call stopped until its first seccomp stop, moves each new task to the filter at once.
FIRST_CALL = "set_robust_list"
#: Which calls stop, per level: every one (without a seccomp filter), or %process's (%file's) and
#: FIRST_CALL alone.
_STOPPED: dict[bool | str, tuple[str, ...]] = {
    True: ("-e", "trace=none"),
    PROCESS: ("--seccomp-bpf", "-e", f"trace=%process,{FIRST_CALL}"),
    FILE: ("--seccomp-bpf", "-e", f"trace=%file,{FIRST_CALL}"),
    MEMORY: ("--seccomp-bpf", "-e", f"trace=%memory,{FIRST_CALL}"),
}


def traced_argv(strace: str, argv: list[str], level: bool | str = True) -> Cmd:
    """`argv` run under the tracer at `level` (True: every system call of it and of its
    descendants stopped; "process": their process and thread calls only). Pure."""
    return [strace, *_COMMON_FLAGS, *_STOPPED[level], "--", *argv]


def applied(level: bool | str) -> str:
    """What a level plants, in words for host facts and samples. Pure."""
    return "strace -f" if level is True else f"strace -f --seccomp-bpf -e trace=%{level},{FIRST_CALL}"


def find_strace() -> str:
    """The tracer's path, or a refusal naming what to install."""
    path = shutil.which("strace")
    if path is None:
        raise VbenchError("testbed.slowdown.syscall_stops: 'strace' is not installed (Debian package strace)")
    return path


def parse_tracer_pid(status: str) -> int:
    """The `TracerPid` of a /proc/<pid>/status text (0: not traced, -1: no such line). Pure."""
    for line in status.splitlines():
        key, _, value = line.partition(":")
        if key == "TracerPid" and value.strip().isdigit():
            return int(value.strip())
    return -1


def parse_children(text: str) -> list[int]:
    """The pids of a /proc/<pid>/task/<tid>/children text. Pure."""
    return [int(p) for p in text.split() if p.isdigit()]


def tracer_problems(tracer: int, proc: Path = Path("/proc")) -> list[str]:
    """What is wrong with a host whose init process `tracer` should be the tracer of its sshd: the
    tracer must have a child, and every child must be traced by it. [] when it holds."""
    try:
        children = parse_children((proc / str(tracer) / "task" / str(tracer) / "children").read_text())
    except OSError:
        return [f"its tracer {tracer} is gone"]
    if not children:
        return [f"its tracer {tracer} has no child (the host's sshd is not running under it)"]
    bad = []
    for child in children:
        try:
            traced_by = parse_tracer_pid((proc / str(child) / "status").read_text())
        except OSError:
            continue  # exited between the two reads
        if traced_by != tracer:
            bad.append(f"process {child} is traced by {traced_by or 'nothing'}, not by {tracer}")
    return bad
