"""TestDFSIO: HDFS write and read throughput (Xavier et al. Figs 1-2; Liu et al.; Vasconcelos).

Throughput and average I/O rate are Hadoop's own numbers, as TestDFSIO defines them: throughput
= total MB / sum of the map tasks' I/O times; average I/O rate = mean of per-file rates; its MB
are 2**20 bytes, hence MiB/s here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from vbench.benchmarks.base import BenchConfig
from vbench.benchmarks.hadoop.parsing import labelled_values, number_of
from vbench.benchmarks.hadoop.steps import JavaStep, Outputs, Step
from vbench.samples import Sample

NAME = "dfsio"
MAIN_CLASS = "org.apache.hadoop.fs.TestDFSIO"
OPERATIONS = ("write", "read")
_REPORT = {  # label in TestDFSIO's report -> (metric suffix, unit)
    "Throughput mb/sec": ("throughput", "MiB/s"),
    "Average IO rate mb/sec": ("avg_io_rate", "MiB/s"),
    "IO rate std deviation": ("io_rate_std", "MiB/s"),
    "Test exec time sec": ("exec_time", "s"),
}
METRICS = {f"{op}_{m}": u for op in OPERATIONS for m, u in _REPORT.values()}


class Config(BenchConfig):
    files: int = Field(2, ge=1)
    file_size_mb: int = Field(16, ge=1)
    replication: int = Field(2, ge=1, le=10)
    operations: tuple[Literal["write", "read"], ...] = Field(OPERATIONS, min_length=1)

    @field_validator("operations", mode="before")
    @classmethod
    def _as_tuple(cls, v: Any) -> Any:
        return tuple(v) if isinstance(v, list) else v

    @field_validator("operations")
    @classmethod
    def _read_needs_write(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        # read needs the files that write leaves; each run's directory is fresh
        return ("write", *v) if "read" in v and "write" not in v else v


#: The studies' settings at their own scale. Sizes a study varies are design factors: the preset
#: holds one point of the range, and params/experiments/ sweeps the rest (scaled, with the factor
#: said in each design and in docs/benchmarks.md).
PRESETS = {
    # Figs 1-2: 10 files "from 100 MB to 3000 MB", replication 2 (Fig 1) and 3 (Fig 2), write only
    # ("we prefer to perform experiments with only write operations").
    "xavier2014": Config(files=10, file_size_mb=3000, replication=3, operations=("write",)),
    # Fig 3: "10 files of 100MB", write then read, on HDFS with replication 3.
    "vasconcelos": Config(files=10, file_size_mb=100, replication=3),
    # 1000 MB files, 3, 6 and 8 concurrent files (= maps), on HDFS with replication 3; the figure
    # reports both write and read.
    "liu2012": Config(files=3, file_size_mb=1000, replication=3),
}


def steps(cfg: Config, run_dir: str) -> list[Step]:
    common = (f"-Dtest.build.data={run_dir}/dfsio", f"-Ddfs.replication={cfg.replication}")
    return [
        JavaStep(
            op,
            MAIN_CLASS,
            (*common, f"-{op}", "-nrFiles", str(cfg.files), "-size", f"{cfg.file_size_mb}MB", "-resFile", "/dev/null"),
        )
        for op in cfg.operations
    ]


def parse(outputs: Outputs, cfg: Config) -> list[Sample]:
    out = []
    for op in cfg.operations:
        # Each stream on its own: a cut stderr glued to stdout's first line would make one line of two.
        values = {**labelled_values(outputs[op].stderr), **labelled_values(outputs[op].stdout)}
        for label, (suffix, unit) in _REPORT.items():
            out.append(Sample(NAME, f"{op}_{suffix}", number_of(values, label, f"TestDFSIO {op}"), unit))
    return out
