"""rpc: a loopback RPC as a JVM pays it (us per call), handed between threads as Hadoop's IPC does.

A client and a server in one JVM, over TCP on the host's loopback.

None of the studies measured it, but Hadoop pays it for every NameNode operation, heartbeat and
task report. It was built because `syscall` (dd's one-byte calls) prices a JVM's calls wrongly
(issue #53; docs/results.md, "What an operation's calls cost (by hand)"): an NNBench open/read is
~45 calls, most of them futex and gettid calls of threads handing the call to each other, and the
plant's stops (vbench.testbed.syscall_stops) cost such a call about half of what they cost dd's,
gVisor 2-3x what it costs dd's, so dd's cost ratio under-predicts gVisor's open/read ~3-6x.

One call here: the caller gives the request (`payload` bytes and a 4-byte length) to a sender
thread and waits for it to be written, then waits on a monitor; the server's reader thread
selects and reads it and queues it; a handler thread takes it and writes the answer (as many
bytes); the client's receiver thread reads it and wakes the caller (Hadoop 3's Client.call,
Server's Reader and Handler). Traced here (strace -c, native): 13 futex, 3.3 gettid, 3 read, 2
write and 1 epoll_wait per call, against 13, 9.5, 2, 1 and 4 per NNBench open/read in its map.

The program (RpcPingPong.java, beside this module) is written to the work directory and run by
the host's java (found as `jvmstart` finds it) in source-file mode, which compiles it in memory:
a java with the jdk.compiler module (`hadoop.java_home`'s; Debian's openjdk-17-jre-headless has
it: the guest image's JRE ran it on LXC, OCI and gVisor hosts in costs-rpc-platforms). It times
itself (System.nanoTime around calls made one after another for `seconds`), after `warmup_s` of
calls that let the JIT compile the path, so neither the JVM's start nor its compiler is counted. Serial GC and a fixed
64 MiB heap: a call allocates a few small buffers, and a collector's threads would only add noise.
The JVM is not pinned to a CPU. Where a handed-over thread wakes depends on whether the other
CPUs are idle: on an idle 2-CPU machine the scheduler mostly wakes it on the idle CPU, across CPUs
(natively 76-107 us a call), and sometimes on the waker's own (15-31 us). One JVM's 3-s repeats
can move between the two (18.7, 27.5, 30.1, 87.4, 98.3 us natively in costs-micro-cv: CV 17.6 %).

`other_cpus_busy` keeps every CPU of the host but one busy with a shell loop while the JVM runs,
so each handoff stays in place, as on a cluster that keeps the CPUs busy (costs-profile-gvisor):
natively 16-17 us a call, and each platform's ratio to native steady from host to host and block
to block (costs-rpc-busy: gVisor x32.3 [31.4, 33.1] busy against x8.03 [6.56, 9.82] idle, the
intervals 2.6-7.8x narrower). It is off by default: it is another measure, not a better-behaved
copy of this one. Every committed fit priced a call idle, and the busy price carries their levels
to gVisor badly (costs-plant-busy: the plant's every-call level x8.33 busy, x6.94 idle, while
gVisor's went from x8 to x29, so with costs-fit-memory's shares gVisor's TeraSort and WordCount
measured 29-54 % below their predictions; idle, -8 to +31 % from them). Use it to compare
platforms' in-place call price, with a fit made with it too (`vbench predict` notes a fit and a
calibration that ran rpc with other settings; docs/results.md). The loops are the host's (`nproc` CPUs less one, so none on
a one-CPU host), start just before the JVM, end with the script (killed by its EXIT trap, and each
ends itself within ~0.15 s once the script's shell is gone), and share whatever CPU limit the host
has (a planted CPU quota too, as a cluster's tasks would).

`copies` runs that many JVMs at once, each its own client and server (as a NameNode answers several
maps, each in its own JVM), each timing its own calls after its own warm-up; a repeat's price is
what the host delivers with them all running (vbench.benchmarks.micro.copies).
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
from .copies import copy_outputs, per_operation_together
from .jvmstart import DEFAULT_JAVA_HOME

NAME = "rpc"
METRICS = {"rpc_us": "us", "elapsed": "s"}
#: The program, in this package; its class name is its file's name (source-file mode's rule).
PROGRAM = "RpcPingPong.java"
#: The JVM's options (the module docstring says why).
JAVA_ARGS = ("-Xshare:auto", "-XX:+UseSerialGC", "-Xms64m", "-Xmx64m")

_HEADER = re.compile(r"^rpc java=(\S+) version=(.*?)\s*$", re.M)
_LOOPS = re.compile(r"^rpc busy_loops=(\d+)\s*$", re.M)


class RpcConfig(BenchConfig):
    seconds: float = Field(3.0, ge=0.5, le=600)  # calls made one after another per repeat, for this long
    repeats: int = Field(3, ge=1, le=1000)  # one sample of each metric per repeat
    warmup_s: float = Field(3.0, ge=0, le=600)  # calls made first, not sampled: the JIT compiles the path
    payload: int = Field(64, ge=0, le=65536)  # bytes of each request and each answer
    java_home: SafePathText = DEFAULT_JAVA_HOME  # looked in first; then $JAVA_HOME, then the PATH
    other_cpus_busy: bool = False  # a busy loop on each of the host's CPUs but one while the calls run
    copies: int = Field(1, ge=1, le=16)  # JVMs run at once on the host, each its own client and server


#: The registry and `vbench bench list` find every module's config under this name.
Config = RpcConfig
PRESETS: dict[str, RpcConfig] = {}
#: Each setting added after samples were recorded -> what those samples were measured with
#: (rpc's calls were all timed with the other CPUs idle before 30386f0): how vbench.stats.bench_settings reads a sample without it.
SETTINGS_BEFORE_RECORDED = {"other_cpus_busy": False, "copies": 1}


def program_source() -> str:
    return _java_program.program_source(PROGRAM)


#: Iterations of a busy loop between its checks that the script's shell is still there.
LOOP_CHECK_EVERY = 100_000


def busy_loops() -> str:
    """Shell lines that start a busy loop on each of the host's CPUs but one and print how many
    (`rpc busy_loops=N`), their pids in `$loops` for the script's EXIT trap. Each loop is
    arithmetic alone (no system call to stop on, in a sandbox too) and ends itself once the shell
    whose `$$` it names is gone: a script killed without its trap running leaves no loop. Pure."""
    return (
        'n=$(($(nproc 2>/dev/null || echo 1) - 1)); loops=""; i=0; '
        'while [ "$i" -lt "$n" ]; do '
        f'(k=0; while :; do k=$((k + 1)); if [ "$k" -ge {LOOP_CHECK_EVERY} ]; then '
        "kill -0 $$ 2>/dev/null || exit 0; k=0; fi; done) & "
        'loops="$loops $!"; i=$((i + 1)); done; '
        'echo "rpc busy_loops=$n"; '
    )


def command(cfg: RpcConfig, workdir: str) -> str:
    """The shell script: the header line, the busy loops where `other_cpus_busy`, the program
    written to `workdir` and run (its lines are `parse_stdout`'s), and the program removed and the
    loops killed on the way out; the JVM's exit status is its own."""
    args = [f"{cfg.seconds:g}", str(cfg.repeats), f"{cfg.warmup_s:g}", str(cfg.payload)]
    loops, stop = (busy_loops(), "kill $loops 2>/dev/null; ") if cfg.other_cpus_busy else ("", "")
    return program_script(
        NAME, PROGRAM, cfg, JAVA_ARGS, args, workdir, before_run=loops, on_exit=stop, copies=cfg.copies
    )


def parse_stdout(text: str, cfg: RpcConfig) -> list[Sample]:
    text = text or ""
    head = _HEADER.search(text)
    if head is None:
        raise JobFailed("rpc: no 'rpc java=... version=...' line in output")
    loops = _LOOPS.search(text)
    if cfg.other_cpus_busy and loops is None:
        raise JobFailed("rpc: no 'rpc busy_loops=...' line in output (other_cpus_busy is set)")
    # Per copy: its warm-up's calls, then (calls, seconds) of each repeat.
    timed = [timed_repeats(NAME, out, cfg.repeats, "calls") for out in copy_outputs(NAME, text, cfg.copies)]
    meta = {
        "java": head.group(1),
        "java_version": head.group(2),
        "warmup_calls": sum(warm for warm, _ in timed),
        "busy_loops": int(loops.group(1)) if cfg.other_cpus_busy else 0,
    }
    samples = []
    for i, repeat in enumerate(zip(*(repeats for _, repeats in timed)), start=1):
        n = sum(calls for calls, _ in repeat)
        per_call_us = per_operation_together([elapsed_ns / calls / 1e3 for calls, elapsed_ns in repeat])
        took_s = max(elapsed_ns for _, elapsed_ns in repeat) / 1e9
        samples.append(sample(NAME, "rpc_us", per_call_us, "us", cfg, repeat=i, calls=n, **meta))
        samples.append(sample(NAME, "elapsed", took_s, "s", cfg, repeat=i, calls=n, **meta))
    return samples


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: RpcConfig, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)
