"""WordCount over a generated natural-language corpus (Vasconcelos 64 MB..2 GB, Xavier 30 GB,
Jeong et al. Fig 6). The sum of the output's counts must equal the corpus's word count: a
WordCount that lost or invented words is a failed run."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vbench.benchmarks.hadoop.corpus import cached_corpus
from vbench.benchmarks.hadoop.steps import JavaStep, Outputs, ReadStep, Step, UploadStep
from vbench.benchmarks.micro._common import require_int
from vbench.errors import JobFailed
from vbench.hadoop import jobs
from vbench.hadoop.artifacts import default_cache_dir
from vbench.samples import Sample

NAME = "wordcount"
METRICS = {"job_wall_time": "s", "throughput": "MiB/s", "upload_time": "s"}


@dataclass(frozen=True)
class Config:
    size_mb: int = 64
    reduces: int = 2
    seed: int = 20141
    vocab_size: int = 20_000

    def __post_init__(self) -> None:
        require_int("wordcount.size_mb", self.size_mb)
        require_int("wordcount.reduces", self.reduces)
        require_int("wordcount.vocab_size", self.vocab_size, minimum=10)


def steps(cfg: Config, run_dir: str) -> list[Step]:
    size = cfg.size_mb * 1024**2

    def make() -> tuple[str, dict]:
        return cached_corpus(Path(default_cache_dir()) / "corpus", size, cfg.seed, cfg.vocab_size)

    return [
        UploadStep("upload", f"{run_dir}/input/corpus.txt", make),
        JavaStep("wordcount", jobs.EXAMPLES_DRIVER, ("wordcount", f"-Dmapreduce.job.reduces={cfg.reduces}",
                                                      f"{run_dir}/input", f"{run_dir}/output")),
        ReadStep("counts", f"{run_dir}/output/part-r-*"),
    ]


def total_count(output: str) -> int:
    total = 0
    for line in output.splitlines():
        word, _, count = line.rpartition("\t")
        if word:
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
