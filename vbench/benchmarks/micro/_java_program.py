"""A Java program of this package, run on a host by its java in source-file mode (rpc, jvmcpu).

The program's file lies beside its module (package data, pyproject.toml). The script writes it to
the work directory, runs it with the host's java (found as `jvmstart` finds it), which compiles it
in memory (a java with the jdk.compiler module: Hadoop's JDK, and Debian's openjdk-17-jre-headless,
the guest image's), and removes it on the way out. Pure.
"""

from __future__ import annotations

import shlex
from importlib.resources import files

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
