"""NNBench: NameNode metadata performance, create/write then open/read (Xavier et al. Table I,
Vasconcelos & Freitas: 1000 files, 6 maps, 2 reduces).

Maps wait at a barrier (-startTime, epoch seconds) so they hammer the NameNode together; the
barrier must lie after the maps have started, which takes ~20 s on a small machine.
"""

from __future__ import annotations

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.benchmarks.hadoop.parsing import labelled_values, number_of
from vbench.benchmarks.hadoop.steps import START_TIME, JavaStep, Outputs, Step
from vbench.errors import JobFailed
from vbench.samples import Sample

NAME = "nnbench"
MAIN_CLASS = "org.apache.hadoop.hdfs.NNBench"
_REPORT = {
    "create_write": {
        "TPS: Create/Write/Close": ("create_write_tps", "tps"),
        "Avg exec time (ms): Create/Write/Close": ("create_write_avg_exec_time", "ms"),
        "Avg Lat (ms): Create/Write": ("create_write_avg_latency", "ms"),
        "Avg Lat (ms): Close": ("close_avg_latency", "ms"),
    },
    "open_read": {
        "TPS: Open/Read": ("open_read_tps", "tps"),
        "Avg Exec time (ms): Open/Read": ("open_read_avg_exec_time", "ms"),
        "Avg Lat (ms): Open": ("open_avg_latency", "ms"),
    },
}
METRICS = {metric: unit for labels in _REPORT.values() for metric, unit in labels.values()}


class Config(BenchConfig):
    files: int = Field(100, ge=1)
    maps: int = Field(2, ge=1)
    reduces: int = Field(1, ge=1)
    #: Must respect the NameNode's minimum block size (1 MB); NNBench's default of 1 byte does not.
    block_size: int = Field(1024 * 1024, ge=1024 * 1024)
    barrier_s: int = Field(30, ge=5)


PRESETS = {
    "vasconcelos": Config(files=1000, maps=6, reduces=2),
    # Table I: "operations on 1000 files"; maps and reduces are not stated, so NNBench's defaults here.
    "xavier2014": Config(files=1000),
}


def steps(cfg: Config, run_dir: str) -> list[Step]:
    common = (
        "-maps",
        str(cfg.maps),
        "-reduces",
        str(cfg.reduces),
        "-numberOfFiles",
        str(cfg.files),
        "-blockSize",
        str(cfg.block_size),
        "-baseDir",
        f"{run_dir}/nnbench",
        "-startTime",
        START_TIME,
    )
    return [
        JavaStep(
            "create_write",
            MAIN_CLASS,
            ("-operation", "create_write", "-bytesToWrite", "0", *common),
            barrier_s=cfg.barrier_s,
        ),
        JavaStep(
            "open_read",
            MAIN_CLASS,
            ("-operation", "open_read", "-readFileAfterOpen", "true", *common),
            barrier_s=cfg.barrier_s,
        ),
    ]


def parse(outputs: Outputs, cfg: Config) -> list[Sample]:
    out = []
    for op, labels in _REPORT.items():
        # Each stream on its own, as TestDFSIO's (vbench.benchmarks.hadoop.dfsio).
        values = {**labelled_values(outputs[op].stdout), **labelled_values(outputs[op].stderr)}
        exceptions = number_of(values, "# exceptions", f"NNBench {op}")
        ok_ops = number_of(values, "Successful file operations", f"NNBench {op}")
        if exceptions or not ok_ops:
            raise JobFailed(f"NNBench {op}: {int(exceptions)} exceptions, {int(ok_ops)} successful operations")
        meta = {
            "successful_operations": int(ok_ops),
            "maps_missed_barrier": int(number_of(values, "# maps that missed the barrier", f"NNBench {op}")),
        }
        for label, (metric, unit) in labels.items():
            out.append(Sample(NAME, metric, number_of(values, label, f"NNBench {op}"), unit, meta))
    return out
