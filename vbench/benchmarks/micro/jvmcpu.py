"""jvmcpu: one thread of warm JIT-compiled Java sorting and checksumming records (ms per operation).

None of the studies measured it. It was built for `vbench predict --rest` (issue #53): the native
time no fitted resource explains is a Hadoop task's own computing, Java's, and a platform that
emulates the CPU prices it at its own cost. sysbench cpu's prime loop (compiled C) read QEMU/TCG at
x8.1 (costs-qemu-cpu-amd) while a JVM's start read x32.8 and TeraSort's task CPU x27.8: which of the
two a Hadoop task's computing is like is what this measures. Natively, on gVisor and in containers
the CPU's own work costs what it does on the host, so there it should read ~1.

One operation (JvmCompute.java, beside this module): generate `records` 100-byte records (TeraGen's
shape) from an LCG, sort an index of them by their 10-byte keys (a quicksort comparing unsigned
bytes, as Hadoop's map-side sort does) and checksum them in sorted order with a table-driven CRC-32
(Hadoop's PureJavaCrc32's kind): integer work, array reads and writes, branches, no allocation and
no system call while it is timed. The program times itself (System.nanoTime around operations made
one after another for `seconds`) after `warmup_s` of operations that let the JIT compile them, so
neither the JVM's start nor its compiler is counted (that is `jvmstart`'s). Cold (`warmup_s` 0
and `ops_per_repeat` > 0): a repeat is exactly that many operations and the first is a fresh JVM's,
so the interpreter, the early tiers and the compiler's own work are counted as a short-lived task's
JVM pays them (a Hadoop task's JVM lives seconds, so it never runs only warm code). One thread, Serial GC
and a fixed 64 MiB heap, as rpc; the program is written to the work directory and run by the
host's java in source-file mode (vbench.benchmarks.micro._java_program). 10,000 records are 1 MB:
the data stays in the CPU's caches, so this prices instructions, not memory bandwidth (`membw`'s).
"""

from __future__ import annotations

import re

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.errors import JobFailed
from vbench.samples import Sample
from vbench.validate import SafePathText

from . import _java_program
from ._common import Runner, execute, one_step, sample
from ._java_program import program_script, timed_repeats
from .jvmstart import DEFAULT_JAVA_HOME

NAME = "jvmcpu"
METRICS = {"jvmcpu_ms": "ms", "elapsed": "s"}
#: The program, in this package; its class name is its file's name (source-file mode's rule).
PROGRAM = "JvmCompute.java"
#: The JVM's options: as rpc's (the buffers are allocated once; a collector would only add noise).
JAVA_ARGS = ("-Xshare:auto", "-XX:+UseSerialGC", "-Xms64m", "-Xmx64m")
#: The most records an operation may take: 104 bytes each (the record and its index entry) within the heap.
MAX_RECORDS = 200_000

_HEADER = re.compile(r"^jvmcpu java=(\S+) version=(.*?)\s*$", re.M)
_CHECK = re.compile(r"^jvmcpu check=([0-9a-f]+)\s*$", re.M)


class JvmCpuConfig(BenchConfig):
    seconds: float = Field(3.0, ge=0.5, le=600)  # operations made one after another per repeat, for this long
    repeats: int = Field(3, ge=1, le=1000)  # one sample of each metric per repeat
    warmup_s: float = Field(5.0, ge=0, le=600)  # operations made first, not sampled: the JIT compiles them
    # Operations a repeat makes: 0, as many as `seconds` allow; more, exactly that many (`seconds` unused).
    # With warmup_s 0 no operation comes first, so repeat 1 times a cold JVM's first ones (a task's case).
    ops_per_repeat: int = Field(0, ge=0, le=1_000_000)
    # 100-byte records an operation generates, sorts and checksums; at most 20 MB with their index, so they
    # fit the fixed 64 MiB heap (JAVA_ARGS) and a config too large is refused before anything runs.
    records: int = Field(10_000, ge=2, le=MAX_RECORDS)
    java_home: SafePathText = DEFAULT_JAVA_HOME  # looked in first; then $JAVA_HOME, then the PATH


def warmth(warmup_s: float, ops_per_repeat: float) -> str:
    """How a config's repeats ran: "warm" (after a warm-up), "cold" (none, and a counted repeat from the
    JVM's start), "" (no warm-up before timed repeats: only the first is cold). Pure."""
    return "warm" if warmup_s > 0 else "cold" if ops_per_repeat > 0 else ""


#: The registry and `vbench bench list` find every module's config under this name.
Config = JvmCpuConfig
PRESETS: dict[str, JvmCpuConfig] = {}


def program_source() -> str:
    return _java_program.program_source(PROGRAM)


def command(cfg: JvmCpuConfig, workdir: str) -> str:
    """The shell script: the header line, the program written to `workdir` and run (its lines are
    `parse_stdout`'s) and removed on the way out; the JVM's exit status is its own."""
    args = [f"{cfg.seconds:g}", str(cfg.repeats), f"{cfg.warmup_s:g}", str(cfg.records), str(cfg.ops_per_repeat)]
    return program_script(NAME, PROGRAM, cfg, JAVA_ARGS, args, workdir)


def parse_stdout(text: str, cfg: JvmCpuConfig) -> list[Sample]:
    """A sample of ms per operation and one of the repeat's seconds per repeat. JobFailed when a
    line is missing, out of order or reports no operations."""
    text = text or ""
    head = _HEADER.search(text)
    if head is None:
        raise JobFailed("jvmcpu: no 'jvmcpu java=... version=...' line in output")
    if _CHECK.search(text) is None:
        raise JobFailed("jvmcpu: no 'jvmcpu check=...' line in output (the program did not finish)")
    warm, timed = timed_repeats(NAME, text, cfg.repeats, "ops")
    meta = {"java": head.group(1), "java_version": head.group(2), "warmup_ops": warm}
    samples = []
    for i, (n, elapsed_ns) in enumerate(timed, start=1):
        samples.append(sample(NAME, "jvmcpu_ms", elapsed_ns / n / 1e6, "ms", cfg, repeat=i, ops=n, **meta))
        samples.append(sample(NAME, "elapsed", elapsed_ns / 1e9, "s", cfg, repeat=i, ops=n, **meta))
    return samples


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: JvmCpuConfig, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)
