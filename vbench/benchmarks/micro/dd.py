"""dd: sequential write throughput with conv=fdatasync (Liu et al., section 3.2).

conv=fdatasync makes dd flush before it reports, so the figure is the disk's and not the
page cache's; Liu et al. use it for exactly that reason and repeat the write 6 times.
"""

from __future__ import annotations

import re
import shlex
from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.errors import JobFailed
from vbench.samples import Sample

from ._common import Runner, execute, number, one_step, sample

NAME = "dd"
METRICS = {"write_bw": "MB/s", "write_time": "s"}
TEST_FILE = "vbench-dd.dat"

# "33554432 bytes (34 MB, 32 MiB) copied, 0.0399 s, 841 MB/s": the exact byte count and
# seconds are read, not the rounded rate, which dd prints with 2-3 significant digits.
_RESULT = re.compile(r"^(\d+) bytes\b.*\bcopied, ([0-9.]+(?:e[-+]?\d+)?) s\b", re.M)


class DdConfig(BenchConfig):
    bs_mb: int = Field(4, ge=1, le=1024)  # dd's M is MiB
    count: int = Field(8, ge=1)
    repeats: int = Field(3, ge=1, le=1000)


#: The registry and `vbench bench list` find every module's config under this name.
Config = DdConfig
PRESETS = {
    "liu2012": DdConfig(bs_mb=32, count=100, repeats=6),  # 32 MB blocks x 100 (3.2 GB), 6 consecutive runs per node
}


def command(cfg: DdConfig, workdir: str) -> str:
    path = shlex.quote(f"{workdir.rstrip('/')}/{TEST_FILE}")
    dd = f"dd if=/dev/zero of={path} bs={cfg.bs_mb}M count={cfg.count} conv=fdatasync 2>&1"
    # LC_ALL=C: dd prints "0,123 s" under a comma-decimal locale. The file is removed after
    # each repeat so every repeat allocates fresh blocks, as the first one did.
    return (
        f"export LC_ALL=C; rc=0; for i in $(seq 1 {cfg.repeats}); do "
        f"{dd} || {{ rc=$?; break; }}; rm -f {path}; done; rm -f {path}; exit $rc"
    )


def parse_stdout(text: str, cfg: DdConfig) -> list[Sample]:
    found = _RESULT.findall(text or "")
    if len(found) != cfg.repeats:
        raise JobFailed(f"dd: expected {cfg.repeats} result lines, found {len(found)}")
    samples = []
    expected = cfg.bs_mb * 2**20 * cfg.count
    for i, (nbytes, secs) in enumerate(found, start=1):
        nbytes_i, seconds = int(nbytes), number("dd seconds", secs)
        if nbytes_i != expected:
            # A short write (disk full, quota) would otherwise look like a fast one.
            raise JobFailed(f"dd: repeat {i} wrote {nbytes_i} bytes, expected {expected}")
        if seconds <= 0:
            raise JobFailed(f"dd: repeat {i} reports a non-positive time {secs}")
        meta = {"repeat": i, "bytes": nbytes_i}
        samples.append(sample(NAME, "write_bw", nbytes_i / seconds / 1e6, "MB/s", cfg, **meta))
        samples.append(sample(NAME, "write_time", seconds, "s", cfg, **meta))
    return samples


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: DdConfig, workdir: str) -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)
