"""TestDFSIO: HDFS write and read throughput (Xavier et al. Figs 1-2; Liu et al.; Vasconcelos).

Throughput and average I/O rate are Hadoop's own numbers, as TestDFSIO defines them: throughput
= total MB / sum of the map tasks' I/O times; average I/O rate = mean of per-file rates; its MB
are 2**20 bytes, hence MiB/s here.
"""
from __future__ import annotations

from dataclasses import dataclass

from vbench.benchmarks.hadoop.parsing import labelled_values, number_of
from vbench.benchmarks.hadoop.steps import JavaStep, Outputs, Step
from vbench.benchmarks.micro._common import require_choice, require_int
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


@dataclass(frozen=True)
class Config:
    files: int = 2
    file_size_mb: int = 16
    replication: int = 2
    operations: tuple[str, ...] = OPERATIONS

    def __post_init__(self) -> None:
        require_int("dfsio.files", self.files)
        require_int("dfsio.file_size_mb", self.file_size_mb)
        require_int("dfsio.replication", self.replication, maximum=10)
        if not self.operations:
            raise ValueError("dfsio.operations must not be empty")
        for op in self.operations:
            require_choice("dfsio.operations", op, OPERATIONS)
        if "read" in self.operations and "write" not in self.operations:
            # read needs the files that write leaves; each run's directory is fresh
            object.__setattr__(self, "operations", ("write", *self.operations))

    @classmethod
    def xavier2014(cls, file_size_mb: int = 1000, replication: int = 3) -> "Config":
        """10 files of 100..3000 MB, replication 2 and 3."""
        return cls(files=10, file_size_mb=file_size_mb, replication=replication)

    @classmethod
    def vasconcelos(cls) -> "Config":
        """10 x 100 MB."""
        return cls(files=10, file_size_mb=100, replication=3)


def steps(cfg: Config, run_dir: str) -> list[Step]:
    common = (f"-Dtest.build.data={run_dir}/dfsio", f"-Ddfs.replication={cfg.replication}")
    return [
        JavaStep(op, MAIN_CLASS, (*common, f"-{op}", "-nrFiles", str(cfg.files), "-size", f"{cfg.file_size_mb}MB",
                                   "-resFile", "/dev/null"))
        for op in cfg.operations
    ]


def parse(outputs: Outputs, cfg: Config) -> list[Sample]:
    out = []
    for op in cfg.operations:
        values = labelled_values(outputs[op].stderr + outputs[op].stdout)
        for label, (suffix, unit) in _REPORT.items():
            out.append(Sample(NAME, f"{op}_{suffix}", number_of(values, label, f"TestDFSIO {op}"), unit))
    return out
