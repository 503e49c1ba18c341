"""Tenant A's workload: TeraSort (+ TeraValidate as the correctness gate) on input that TeraGen
wrote once, so each condition costs one sort and one validation, not a generation too.

A module of the shape `vbench.benchmarks.hadoop.execute` runs (NAME, steps, parse), so samples
are `terasort` / `terasort_time` like the suite's and the paper's isolation table reads them.
"""
from __future__ import annotations

from pydantic import Field

from vbench.benchmarks.hadoop import terasort
from vbench.benchmarks.hadoop.steps import JavaStep, Outputs, Step
from vbench.samples import Sample

NAME = "terasort"
METRICS = {"terasort_time": "s", "teravalidate_time": "s", "terasort_throughput": "MiB/s"}
#: Where TeraGen's output stays for the whole experiment (outside any run's directory).
INPUT_DIR = "/vbench/isolation-input"


class Config(terasort.Config):
    """The suite's TeraSort parameters at the isolation experiment's scale, and where the input stays."""

    size_mb: int = Field(32, ge=1)
    reduces: int = Field(1, ge=1)
    replication: int = Field(1, ge=1, le=10)
    input_dir: str = INPUT_DIR


def generate_step(cfg: Config) -> JavaStep:
    """TeraGen of the shared input (run once, before any condition). Pure."""
    return terasort.teragen_step(cfg.size_mb, cfg.maps, cfg.replication, cfg.input_dir, job_details=False)


def steps(cfg: Config, run_dir: str) -> list[Step]:
    """One condition's TeraSort of the shared input and its validation. Pure."""
    return terasort.sort_and_validate(cfg, cfg.input_dir, run_dir, validate_details=False)


def parse(outputs: Outputs, cfg: Config) -> list[Sample]:
    """Pure: TeraValidate gates (an unsorted output is a failed run, never a sample)."""
    meta = terasort.validated_meta(outputs)
    sort_s = outputs["terasort"].seconds
    return [
        Sample(NAME, "terasort_time", sort_s, "s", meta),
        Sample(NAME, "teravalidate_time", outputs["teravalidate"].seconds, "s", meta),
        Sample(NAME, "terasort_throughput", cfg.size_mb / sort_s, "MiB/s", meta),
    ]
