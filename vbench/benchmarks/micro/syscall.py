"""syscall: the cost of one system call on the host (ns), from dd copying one byte at a time.

None of the studies measured it, but Hadoop pays it everywhere: every RPC is socket reads and
writes, every HDFS block and spill file is opens, reads, writes and fsyncs. It is where a sandboxed
kernel costs most: gVisor intercepts each system call of the sandboxed process in its Sentry
(ptrace: several context switches per call; systrap: a signal and a switch), where a container's
goes straight to the host kernel and a VM's stays in its own guest kernel (issue #53).

`dd if=/dev/zero of=/dev/null bs=1 count=N` makes N one-byte reads and N one-byte writes, 2N
system calls of the cheapest kind (no copy to speak of, no device), and times them itself: its
summary line's seconds start after the files are open, so process start-up is not counted.
`syscall_ns` is those seconds over 2N. dd is in coreutils, on every host and in every guest image.
"""

from __future__ import annotations

import re

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.errors import JobFailed
from vbench.samples import Sample

from ._common import Runner, execute, number, one_step, sample

NAME = "syscall"
METRICS = {"syscall_ns": "ns", "elapsed": "s"}
#: System calls per byte copied: one read, one write.
CALLS_PER_RECORD = 2

# "1000 bytes (1.0 kB) copied, 0.000303172 s, 3.3 MB/s" (coreutils 9.1, LC_ALL=C): the byte count
# and dd's own seconds are read; the rounded rate is not.
_RESULT = re.compile(r"^(\d+) bytes\b.*\bcopied, ([0-9.]+(?:e[-+]?\d+)?) s\b", re.M)


class SyscallConfig(BenchConfig):
    count: int = Field(2_000_000, ge=1000, le=1_000_000_000)  # bytes copied: 2 x count system calls
    repeats: int = Field(5, ge=1, le=1000)  # one sample of each metric per repeat


#: The registry and `vbench bench list` find every module's config under this name.
Config = SyscallConfig
PRESETS: dict[str, SyscallConfig] = {}


def command(cfg: SyscallConfig, workdir: str = "") -> str:
    # workdir is unused (nothing is written), kept so every module has the same signature.
    # LC_ALL=C: dd prints "0,123 s" under a comma-decimal locale. dd reports on stderr, hence 2>&1.
    dd = f"dd if=/dev/zero of=/dev/null bs=1 count={cfg.count} 2>&1"
    return f"export LC_ALL=C; rc=0; for i in $(seq 1 {cfg.repeats}); do {dd} || {{ rc=$?; break; }}; done; exit $rc"


def parse_stdout(text: str, cfg: SyscallConfig) -> list[Sample]:
    found = _RESULT.findall(text or "")
    if len(found) != cfg.repeats:
        raise JobFailed(f"syscall: expected {cfg.repeats} dd result lines, found {len(found)}")
    samples = []
    for i, (nbytes, secs) in enumerate(found, start=1):
        copied, seconds = int(nbytes), number("dd seconds", secs)
        if copied != cfg.count:
            # Fewer bytes is fewer calls: the per-call figure would be wrong, not just noisy.
            raise JobFailed(f"syscall: repeat {i} copied {copied} bytes, expected {cfg.count}")
        if seconds <= 0:
            raise JobFailed(f"syscall: repeat {i} reports a non-positive time {secs}")
        calls = CALLS_PER_RECORD * copied
        meta = {"repeat": i, "system_calls": calls}
        samples.append(sample(NAME, "syscall_ns", seconds / calls * 1e9, "ns", cfg, **meta))
        samples.append(sample(NAME, "elapsed", seconds, "s", cfg, **meta))
    return samples


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: SyscallConfig, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)
