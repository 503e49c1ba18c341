"""MRBench: many small jobs, measuring MapReduce's per-job overhead (Xavier et al. Table II:
50 runs, 24 maps / 8 reduces, an input "in the order of 1 million" lines; Vasconcelos & Freitas:
"a loop of 50 small test jobs", maps, reduces and lines not stated, so MRBench's own defaults)."""

from __future__ import annotations

import re

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.benchmarks.hadoop.steps import JavaStep, Outputs, Step
from vbench.errors import JobFailed
from vbench.samples import Sample

NAME = "mrbench"
MAIN_CLASS = "org.apache.hadoop.mapred.MRBench"
METRICS = {"avg_job_time": "s"}
# MRBench's closing table: DataLines  Maps  Reduces  AvgTime (milliseconds)
# One whole line: a row cut at "378" of "37850" is not a shorter time.
_ROW = re.compile(r"^(\d+)[ \t]+(\d+)[ \t]+(\d+)[ \t]+(\d+)[ \t]*\r?\n", re.M)


class Config(BenchConfig):
    runs: int = Field(3, ge=1)
    maps: int = Field(2, ge=1)
    reduces: int = Field(1, ge=1)
    input_lines: int = Field(1, ge=1)


PRESETS = {
    "xavier2014": Config(runs=50, maps=24, reduces=8, input_lines=1_000_000),
    # Only the loop count is the study's; maps, reduces and input lines are MRBench's defaults
    # (2 maps, 1 reduce, 1 line), which is what an unstated setting ran as.
    "vasconcelos": Config(runs=50, maps=2, reduces=1, input_lines=1),
}


def steps(cfg: Config, run_dir: str) -> list[Step]:
    return [
        JavaStep(
            "mrbench",
            MAIN_CLASS,
            (
                "-numRuns",
                str(cfg.runs),
                "-maps",
                str(cfg.maps),
                "-reduces",
                str(cfg.reduces),
                "-inputLines",
                str(cfg.input_lines),
                "-baseDir",
                f"{run_dir}/mrbench",
            ),
        )
    ]


def parse(outputs: Outputs, cfg: Config) -> list[Sample]:
    m = _ROW.search(outputs["mrbench"].stdout)
    if not m:
        raise JobFailed("MRBench: no result row (DataLines Maps Reduces AvgTime) in the output")
    lines, maps, reduces, avg_ms = (int(g) for g in m.groups())
    if (maps, reduces) != (cfg.maps, cfg.reduces):
        raise JobFailed(f"MRBench ran {maps} maps / {reduces} reduces, {cfg.maps} / {cfg.reduces} were asked")
    return [Sample(NAME, "avg_job_time", avg_ms / 1000, "s", {"runs": cfg.runs})]
