"""RandomWriter + Sort, validated by SortValidator (Liu et al.: 27 GB once, 2 GB three times)."""

from __future__ import annotations

import warnings

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.benchmarks.hadoop.steps import JavaStep, Outputs, Step
from vbench.errors import JobFailed
from vbench.hadoop import jobs
from vbench.samples import Sample

NAME = "sort"
METRICS = {"randomwriter_time": "s", "sort_time": "s", "sort_throughput": "MiB/s", "validate_time": "s"}
TEST_DRIVER = "org.apache.hadoop.test.MapredTestDriver"
_VALID = "SUCCESS! Validated the MapReduce framework's 'sort' successfully"


# `validate` is the parameter's name in designs and in every recorded sample; that it shadows
# pydantic's deprecated BaseModel.validate is harmless, and said once here rather than at import.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "validate"')

    class Config(BenchConfig):
        size_mb: int = Field(64, ge=1)
        maps: int = Field(2, ge=1)
        reduces: int = Field(2, ge=1)
        validate: bool = True


PRESETS = {"liu2012": Config(size_mb=2048, maps=8, reduces=8)}


def steps(cfg: Config, run_dir: str) -> list[Step]:
    total = cfg.size_mb * 1024**2
    per_map = -(-total // cfg.maps)
    data, out = f"{run_dir}/random", f"{run_dir}/sorted"
    s: list[Step] = [
        JavaStep(
            "randomwriter",
            jobs.EXAMPLES_DRIVER,
            (
                "randomwriter",
                f"-Dmapreduce.randomwriter.totalbytes={total}",
                f"-Dmapreduce.randomwriter.bytespermap={per_map}",
                data,
            ),
        ),
        JavaStep("sort", jobs.EXAMPLES_DRIVER, ("sort", "-r", str(cfg.reduces), data, out)),
    ]
    if cfg.validate:
        s.append(
            JavaStep(
                "validate", TEST_DRIVER, ("testmapredsort", "-sortInput", data, "-sortOutput", out), job_details=False
            )
        )
    return s


def parse(outputs: Outputs, cfg: Config) -> list[Sample]:
    if cfg.validate and _VALID not in outputs["validate"].text:
        raise JobFailed("SortValidator did not report success")
    t = outputs["sort"].seconds
    out = [
        Sample(NAME, "randomwriter_time", outputs["randomwriter"].seconds, "s"),
        Sample(NAME, "sort_time", t, "s"),
        Sample(NAME, "sort_throughput", cfg.size_mb / t, "MiB/s"),
    ]
    if cfg.validate:
        out.append(Sample(NAME, "validate_time", outputs["validate"].seconds, "s"))
    return out
