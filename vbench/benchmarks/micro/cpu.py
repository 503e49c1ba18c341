"""sysbench cpu: prime-number events per second on the host's (v)CPUs.

None of the studies ran sysbench; it complements the pi-digits timing of Vasconcelos &
Freitas (Table 5) with a throughput figure that does not depend on the problem size.
"""

from __future__ import annotations

import shlex

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.samples import Sample

from . import _sysbench
from ._common import Runner, execute, one_step, sample

NAME = "cpu"
METRICS = {"events_per_s": "events/s", "total_time": "s", "total_events": "count", "latency_avg": "ms"}


class CpuConfig(BenchConfig):
    max_prime: int = Field(10000, ge=3)  # sysbench's default
    threads: int = Field(1, ge=1, le=1024)
    time_s: int = Field(5, ge=1)  # run this long (ignored when events is set)
    events: int | None = Field(None, ge=1)  # fixed work instead: then total_time is the figure to compare


#: The registry and `vbench bench list` find every module's config under this name.
Config = CpuConfig
PRESETS = {
    "cluster": CpuConfig(max_prime=20000, threads=2, time_s=30),  # a thread per vCPU of the studies' 2-vCPU nodes
}


def argv(cfg: CpuConfig, workdir: str = "") -> list[str]:
    # workdir is unused (nothing is written), kept so every module has the same signature.
    # --time=0 lifts the time limit, so a fixed event count always completes.
    limit = [f"--events={cfg.events}", "--time=0"] if cfg.events else [f"--time={cfg.time_s}"]
    return ["sysbench", "cpu", f"--cpu-max-prime={cfg.max_prime}", f"--threads={cfg.threads}", *limit, "run"]


def command(cfg: CpuConfig, workdir: str = "") -> str:
    # LC_ALL=C: the report's decimal point stays a point for the parser (_sysbench).
    return "LC_ALL=C " + shlex.join(argv(cfg, workdir))


def parse_stdout(text: str, cfg: CpuConfig) -> list[Sample]:
    meta = {"sysbench_version": _sysbench.version(text)}
    labels = {
        "events_per_s": "events per second",
        "total_time": "total time",
        "total_events": "total number of events",
        "latency_avg": "avg",  # the "Latency (ms):" block
    }
    return [
        sample(NAME, metric, _sysbench.field(text, label, NAME), METRICS[metric], cfg, **meta)
        for metric, label in labels.items()
    ]


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: CpuConfig, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)
