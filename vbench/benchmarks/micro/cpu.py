"""sysbench cpu: prime-number events per second on the host's (v)CPUs.

None of the studies ran sysbench; it complements the pi-digits timing of Vasconcelos &
Freitas (Table 5) with a throughput figure that does not depend on the problem size.
"""
from __future__ import annotations

from dataclasses import dataclass

from vbench.samples import Sample

from . import _sysbench
from ._common import Runner, execute, require_int, sample

NAME = "cpu"
METRICS = {"events_per_s": "events/s", "total_time": "s", "total_events": "count", "latency_avg": "ms"}


@dataclass(frozen=True)
class CpuConfig:
    max_prime: int = 10000  # sysbench's default
    threads: int = 1
    time_s: int = 5  # run this long (ignored when events is set)
    events: int | None = None  # fixed work instead: then total_time is the figure to compare

    def __post_init__(self) -> None:
        require_int("max_prime", self.max_prime, minimum=3)
        require_int("threads", self.threads, maximum=1024)
        require_int("time_s", self.time_s)
        if self.events is not None:
            require_int("events", self.events)

    @classmethod
    def cluster(cls, vcpus: int = 2) -> "CpuConfig":
        """One thread per vCPU of the studies' 2-vCPU nodes, 30 s."""
        return cls(max_prime=20000, threads=vcpus, time_s=30)


#: The registry and `vbench bench list` find every module's config under this name.
Config = CpuConfig


def command(cfg: CpuConfig, workdir: str = "") -> str:
    # --time=0 lifts the time limit, so a fixed event count always completes.
    limit = f"--events={cfg.events} --time=0" if cfg.events else f"--time={cfg.time_s}"
    return f"LC_ALL=C sysbench cpu --cpu-max-prime={cfg.max_prime} --threads={cfg.threads} {limit} run"


def parse(text: str, cfg: CpuConfig) -> list[Sample]:
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


def run(c: Runner, cfg: CpuConfig, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)
