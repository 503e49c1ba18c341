"""sysbench memory: memory bandwidth in MiB/s.

None of the studies ran it; it separates a memory-bound slowdown (EPT/NPT page walks in a
VM) from a CPU-bound one when reading the MapReduce results.
"""

from __future__ import annotations

import re
import shlex
from typing import Literal

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.errors import JobFailed
from vbench.samples import Sample

from . import _sysbench
from ._common import Runner, execute, number, one_step, sample

NAME = "membw"
METRICS = {"bandwidth": "MiB/s", "ops_per_s": "ops/s", "transferred": "MiB", "total_time": "s"}

# "512.00 MiB transferred (9106.59 MiB/sec)"; sysbench 1.0 counts in 2**20 bytes.
_TRANSFER = re.compile(r"^\s*([0-9.]+) MiB transferred \(([0-9.]+) MiB/sec\)", re.M)
_OPS = re.compile(r"^\s*Total operations: (\d+) \(\s*([0-9.]+) per second\)", re.M)


class MembwConfig(BenchConfig):
    block_k: int = Field(1024, ge=1, le=1 << 20)  # bytes per operation, in KiB
    # sysbench reuses one block-sized buffer per thread, so a large total costs no memory;
    # it just leaves the time limit in charge, which keeps the run long enough to time.
    total_mb: int = Field(102400, ge=1)  # stop after this much (MiB) ...
    time_s: int = Field(5, ge=1)  # ... or after this long, whichever comes first
    oper: Literal["read", "write", "none"] = "write"
    access_mode: Literal["seq", "rnd"] = "seq"
    threads: int = Field(1, ge=1, le=1024)


#: The registry and `vbench bench list` find every module's config under this name.
Config = MembwConfig
PRESETS: dict[str, MembwConfig] = {}  # none of the studies ran it


def argv(cfg: MembwConfig, workdir: str = "") -> list[str]:
    # workdir is unused (nothing is written), kept so every module has the same signature.
    return [
        "sysbench",
        "memory",
        f"--memory-block-size={cfg.block_k}K",
        f"--memory-total-size={cfg.total_mb}M",
        f"--memory-oper={cfg.oper}",
        f"--memory-access-mode={cfg.access_mode}",
        f"--threads={cfg.threads}",
        f"--time={cfg.time_s}",
        "run",
    ]


def command(cfg: MembwConfig, workdir: str = "") -> str:
    # LC_ALL=C: the report's decimal point stays a point for the parser (_sysbench).
    return "LC_ALL=C " + shlex.join(argv(cfg, workdir))


def parse_stdout(text: str, cfg: MembwConfig) -> list[Sample]:
    transfer, ops = _TRANSFER.search(text or ""), _OPS.search(text or "")
    if not transfer or not ops:
        raise JobFailed("membw: no 'MiB transferred' / 'Total operations' in sysbench output")
    meta = {"sysbench_version": _sysbench.version(text)}
    return [
        sample(NAME, "bandwidth", number("membw rate", transfer[2]), "MiB/s", cfg, **meta),
        sample(NAME, "ops_per_s", number("membw ops", ops[2]), "ops/s", cfg, **meta),
        sample(NAME, "transferred", number("membw MiB", transfer[1]), "MiB", cfg, **meta),
        sample(NAME, "total_time", _sysbench.field(text, "total time", NAME), "s", cfg, **meta),
    ]


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: MembwConfig, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)
