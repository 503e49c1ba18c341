"""WordCount over a generated natural-language corpus (Vasconcelos 64 MB..2 GB, Xavier 30 GB,
Jeong et al. Fig 6). The sum of the output's counts must equal the corpus's word count: a
WordCount that lost or invented words is a failed run."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.benchmarks.hadoop.corpus import cached_corpus
from vbench.benchmarks.hadoop.parsing import whole_lines
from vbench.benchmarks.hadoop.steps import JavaStep, Outputs, ReadStep, Step, UploadStep
from vbench.errors import JobFailed
from vbench.hadoop import jobs
from vbench.hadoop.artifacts import default_cache_dir
from vbench.samples import Sample

NAME = "wordcount"
METRICS = {"job_wall_time": "s", "throughput": "MiB/s", "upload_time": "s"}


class Config(BenchConfig):
    size_mb: int = Field(64, ge=1)
    reduces: int = Field(2, ge=1)
    seed: int = 20141
    vocab_size: int = Field(20_000, ge=10)


PRESETS: dict[str, Config] = {}  # the studies' sizes are design factors, not presets


def steps(cfg: Config, run_dir: str) -> list[Step]:
    size = cfg.size_mb * 1024**2

    def make() -> tuple[str, dict]:
        return cached_corpus(Path(default_cache_dir()) / "corpus", size, cfg.seed, cfg.vocab_size)

    return [
        UploadStep("upload", f"{run_dir}/input/corpus.txt", make),
        JavaStep(
            "wordcount",
            jobs.EXAMPLES_DRIVER,
            ("wordcount", f"-Dmapreduce.job.reduces={cfg.reduces}", f"{run_dir}/input", f"{run_dir}/output"),
        ),
        ReadStep("counts", f"{run_dir}/output/part-r-*"),
    ]


def total_count(output: str) -> int:
    """The words WordCount counted: the sum of its `word<TAB>count` lines (whole lines only: a cut
    last line's count is not a count)."""
    total = 0
    for line in whole_lines(output):
        word, _, count = line.rpartition("\t")
        if word:
            if not (count.isascii() and count.isdigit()):
                raise JobFailed(f"WordCount's output has a count that is not a number: {line[:80]!r}")
            total += int(count)
    return total


def parse(outputs: Outputs, cfg: Config) -> list[Sample]:
    expected = int(outputs["upload"].info["words"])
    counted = total_count(outputs["counts"].stdout)
    if counted != expected:
        raise JobFailed(f"WordCount counted {counted} words, the corpus has {expected}")
    meta = {"words": expected, "corpus_bytes": int(outputs["upload"].info["bytes"])}
    t = outputs["wordcount"].seconds
    return [
        Sample(NAME, "job_wall_time", t, "s", meta),
        Sample(NAME, "throughput", cfg.size_mb / t, "MiB/s", meta),
        Sample(NAME, "upload_time", outputs["upload"].seconds, "s", meta),
    ]
