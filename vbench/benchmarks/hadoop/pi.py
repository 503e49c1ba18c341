"""Pi: the CPU-bound MapReduce example (Vasconcelos & Freitas, Fig 6: "10 billion samples spread
across 6 maps tasks").

`samples` is per map, as Hadoop's `pi <nMaps> <nSamples>` takes it: the study's 10^10 in total is
6 maps of 1,666,666,667 (rounded up, 2 samples more than 10^10).
"""

from __future__ import annotations

import math
import re

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.benchmarks.hadoop.steps import JavaStep, Outputs, Step
from vbench.errors import JobFailed
from vbench.hadoop import jobs
from vbench.samples import Sample

NAME = "pi"
METRICS = {"job_wall_time": "s", "reported_time": "s", "abs_error": "ratio"}
# Whole numbers on whole lines: a cut or garbled "3.14400000" must not read as 3.14.
_FINISHED = re.compile(r"^Job Finished in ([0-9]+(?:\.[0-9]+)?) seconds[ \t]*\r?\n", re.M)
_ESTIMATE = re.compile(r"^Estimated value of Pi is ([0-9]+\.[0-9]+)[ \t]*\r?\n", re.M)


class Config(BenchConfig):
    maps: int = Field(2, ge=1)
    samples: int = Field(100_000, ge=1)
    #: An estimate further than this from pi means the job computed garbage.
    max_abs_error: float = Field(0.01, gt=0)


#: The study's total, 10**10 samples, split over its 6 maps (Hadoop's second argument is per map).
VASCONCELOS_TOTAL_SAMPLES = 10**10
PRESETS = {"vasconcelos": Config(maps=6, samples=-(-VASCONCELOS_TOTAL_SAMPLES // 6))}


def steps(cfg: Config, run_dir: str) -> list[Step]:
    # QuasiMonteCarlo writes under the user's working dir; keep it in the run's directory.
    return [
        JavaStep(
            "pi",
            jobs.EXAMPLES_DRIVER,
            ("pi", f"-Dmapreduce.output.fileoutputformat.outputdir={run_dir}", str(cfg.maps), str(cfg.samples)),
        )
    ]


def parse(outputs: Outputs, cfg: Config) -> list[Sample]:
    out = outputs["pi"]
    # Each stream on its own: a cut stdout glued to stderr's first line would make one line of two.
    fin = _FINISHED.search(out.stdout) or _FINISHED.search(out.stderr)
    est = _ESTIMATE.search(out.stdout) or _ESTIMATE.search(out.stderr)
    if not fin or not est:
        raise JobFailed("pi: no 'Job Finished in' / 'Estimated value of Pi' in the output")
    error = abs(float(est.group(1)) - math.pi)
    if error > cfg.max_abs_error:
        raise JobFailed(f"pi: estimate {est.group(1)} is {error:.4f} from pi")
    meta = {"estimate": float(est.group(1))}
    return [
        Sample(NAME, "job_wall_time", outputs["pi"].seconds, "s", meta),
        Sample(NAME, "reported_time", float(fin.group(1)), "s", meta),
        Sample(NAME, "abs_error", error, "ratio", meta),
    ]
