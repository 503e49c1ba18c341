"""A Java program of this package, run on a host by its java in source-file mode (rpc, jvmcpu).

The program's file lies beside its module (package data, pyproject.toml). The script writes it to
the work directory, runs it with the host's java (found as `jvmstart` finds it), which compiles it
in memory (a java with the jdk.compiler module: Hadoop's JDK, and Debian's openjdk-17-jre-headless,
the guest image's), and removes it on the way out. The program times itself after a warm-up and
prints `<tool> warmup <count>=N ns=N`, then `<tool> repeat=i <count>=N ns=N` a repeat (`timed_repeats`).
"""

from __future__ import annotations

import re
import shlex
from importlib.resources import files

from vbench.errors import JobFailed

from .copies import in_copies
from .jvmstart import find_java


def program_source(program: str) -> str:
    """The text of `program` (a file name such as "RpcPingPong.java"), beside this module."""
    return files(__package__).joinpath(program).read_text(encoding="utf-8")


def program_script(
    tool: str,
    program: str,
    cfg,
    java_args: tuple[str, ...],
    args: list[str],
    workdir: str,
    *,
    before_run: str = "",
    on_exit: str = "",
    copies: int = 1,
) -> str:
    """The shell script that prints `<tool> java=... version=...`, writes `program` to `workdir`,
    runs `before_run` (shell lines), then the JVM (`copies` at once, vbench.benchmarks.micro.copies)
    with `java_args`, the program and `args`, and on exit runs `on_exit` and removes the program.
    `cfg`: any config with a `java_home`. The JVM's exit status is the script's. Pure."""
    d = shlex.quote(workdir.rstrip("/") or "/")
    header = f'echo "{tool} java=$java version=$("$java" -version 2>&1 | head -n 1)"; '
    return (
        "export LC_ALL=C; "
        + find_java(cfg, tool)
        + header
        + f"cd {d} || exit 1; trap '{on_exit}rm -f {program}' EXIT; "
        + f"printf '%s' {shlex.quote(program_source(program))} > {program} || exit 1; "
        + before_run
        + in_copies(tool, f'"$java" {shlex.join(java_args)} {program} {shlex.join(args)}', copies, workdir)
    )


def timed_repeats(tool: str, text: str, repeats: int, count: str) -> tuple[int, list[tuple[int, int]]]:
    """The program's warm-up `count` (its word for what it counts: "calls", "ops") and, per repeat, its
    count and the nanoseconds they took, from one JVM's lines. JobFailed, naming `tool`, when a line is
    missing, out of order or reports nothing done. Pure."""
    warm = re.search(rf"^{tool} warmup {count}=(\d+) ns=(\d+)\s*$", text, re.M)
    if warm is None:
        raise JobFailed(f"{tool}: no '{tool} warmup {count}=... ns=...' line in output")
    found = re.findall(rf"^{tool} repeat=(\d+) {count}=(\d+) ns=(\d+)\s*$", text, re.M)
    if len(found) != repeats:
        raise JobFailed(f"{tool}: expected {repeats} result lines, found {len(found)}")
    timed = []
    for i, (repeat, done, ns) in enumerate(found, start=1):
        n, elapsed_ns = int(done), int(ns)
        if int(repeat) != i:
            raise JobFailed(f"{tool}: line {i} is repeat {repeat}, expected {i}")
        if n < 1 or elapsed_ns <= 0:
            raise JobFailed(f"{tool}: repeat {i} reports {n} {count} in {elapsed_ns} ns")
        timed.append((n, elapsed_ns))
    return int(warm.group(1)), timed
