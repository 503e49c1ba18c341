"""jvmstart: a JVM's start to `main` and exit (ms per `java -Xshare:auto -version`).

None of the studies measured it, but Hadoop pays it for every task: each map and reduce is a JVM
a NodeManager launches through a shell script (and container-executor), and MRBench's and Pi's
small jobs are mostly JVM starts (issue #53). A JVM start is tens of thousands of system calls
(mmap of the CDS archive and the modules image, threads, /proc reads), so it is where a sandboxed
kernel's per-call cost (the `syscall` benchmark) adds up.

The host's java is the first found of `<java_home>/bin/java` (the Config's, by default the
Hadoop clusters' `hadoop.java_home`), `$JAVA_HOME/bin/java`, and `java` on the PATH; a host with
none fails the run saying so. It runs `count` times in a POSIX sh loop between two `date +%s%N`
stamps taken by the same shell (vbench.benchmarks.micro.spawn.timed_loop), so no SSH round trip
falls inside the timing; a repeat is the median of `windows` such windows, after `warmup_starts`
starts untimed. Few starts a window and many windows: one start in twenty here took 1.5-3x as
long, and the median leaves out only the windows it falls in. The warm-up: a gVisor sandbox's
first three starts took twice the rest, and a task JVM on a cluster starts warm. `-Xshare:auto`
(the default, said explicitly) maps the class-data sharing archive when the JVM can, as Hadoop's
task JVMs do.

`copies` runs that many of the loop at once (vbench.benchmarks.micro.copies: what it is for, and
how a repeat's price is read then), each after its own warm-up.
"""

from __future__ import annotations

import re
import shlex

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.errors import JobFailed
from vbench.params import HadoopParams
from vbench.samples import Sample
from vbench.validate import SafePathText

from ._common import Runner, execute, one_step, sample
from .copies import copy_outputs, in_copies, per_operation_together
from .spawn import parse_lines, timed_loop

NAME = "jvmstart"
METRICS = {"jvm_start_ms": "ms", "elapsed": "s"}
#: Where the Hadoop clusters' java is unless their params say otherwise.
DEFAULT_JAVA_HOME = str(HadoopParams.model_fields["java_home"].default)
#: The exit status of the command when the host has no java (the shell's "command not found").
NO_JAVA = 127
#: The JVM's options: start, print the version (to stderr), exit.
JAVA_ARGS = ("-Xshare:auto", "-version")

# Written before the timed loop: which java ran, and the first line of its `-version`.
_HEADER = re.compile(r"^jvmstart java=(\S+) version=(.*?)\s*$", re.M)


class JvmStartConfig(BenchConfig):
    count: int = Field(2, ge=1, le=100_000)  # JVM starts per window
    repeats: int = Field(3, ge=1, le=1000)  # one sample of each metric per repeat
    windows: int = Field(7, ge=1, le=99)  # timed windows per repeat, whose median is the repeat's
    #: Not `warmup`: the runner stamps every sample's `warmup` (a warm-up cell), which the statistics drop.
    warmup_starts: int = Field(3, ge=0, le=1000)  # JVM starts before the first window, not timed
    java_home: SafePathText = DEFAULT_JAVA_HOME  # looked in first; then $JAVA_HOME, then the PATH
    copies: int = Field(1, ge=1, le=16)  # loops run at once on the host, each its own JVMs


#: The registry and `vbench bench list` find every module's config under this name.
Config = JvmStartConfig
PRESETS: dict[str, JvmStartConfig] = {}
#: Each setting added after samples were recorded -> what those samples were measured with
#: (one window of cold starts before 3719756): how vbench.stats.bench_settings reads a sample without it.
SETTINGS_BEFORE_RECORDED = {"windows": 1, "warmup_starts": 0, "copies": 1}


def find_java(cfg: JvmStartConfig, tool: str = NAME) -> str:
    """Sets $java to the host's java, or stops the script (exit NO_JAVA) saying, as `tool`, where it
    looked. `cfg`: any config with a `java_home`."""
    home = shlex.quote(cfg.java_home.rstrip("/") or "/")
    return (
        f'jh={home}; java=""; '
        'for j in "$jh/bin/java" "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java 2>/dev/null)"; do '
        'if [ -n "$j" ] && [ -x "$j" ]; then java=$j; break; fi; done; '
        f'if [ -z "$java" ]; then echo "vbench: {tool}: no java on this host '
        f'(not $jh/bin/java, not \\$JAVA_HOME/bin/java, none on the PATH)" >&2; exit {NO_JAVA}; fi; '
    )


def command(cfg: JvmStartConfig, workdir: str = "") -> str:
    # workdir holds the copies' outputs where `copies` > 1; one loop writes nothing.
    # LC_ALL=C: the JVM's messages stay in English for the failure reason.
    header = 'echo "jvmstart java=$java version=$("$java" -version 2>&1 | head -n 1)"; '
    program = f'"$java" {shlex.join(JAVA_ARGS)} > /dev/null 2>&1'
    return (
        "export LC_ALL=C; "
        + find_java(cfg)
        + header
        + in_copies(
            NAME, timed_loop(NAME, program, cfg.count, cfg.repeats, cfg.windows, cfg.warmup_starts), cfg.copies, workdir
        )
    )


def parse_stdout(text: str, cfg: JvmStartConfig) -> list[Sample]:
    head = _HEADER.search(text or "")
    if head is None:
        raise JobFailed("jvmstart: no 'jvmstart java=... version=...' line in output")
    meta = {"java": head.group(1), "java_version": head.group(2)}
    # Per copy: (repeat, seconds of its count starts, seconds its windows took), one per repeat.
    loops = [
        parse_lines(NAME, out, cfg.count, cfg.repeats, cfg.windows) for out in copy_outputs(NAME, text, cfg.copies)
    ]
    samples = []
    for i, repeat in enumerate(zip(*loops), start=1):
        per_start_s = per_operation_together([runs_s / cfg.count for _, runs_s, _ in repeat])
        took_s = max(took for _, _, took in repeat)
        samples.append(sample(NAME, "jvm_start_ms", per_start_s * 1e3, "ms", cfg, repeat=i, **meta))
        samples.append(sample(NAME, "elapsed", took_s, "s", cfg, repeat=i, **meta))
    return samples


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: JvmStartConfig, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)
