"""TeraGen -> TeraSort -> TeraValidate (VMware Tables 2-4, Jeong et al. Fig 6, Vasconcelos).

TeraValidate is a correctness gate: a TeraSort whose output does not validate is a failed run.
With `generate_only` the run is TeraGen alone (VMware's TeraGen row, finding W4), gated by the
job's own success: a TeraGen large enough for its replicas' writes to set its time costs seconds,
where the sort and validation of the same data would cost minutes on this machine.
"""

from __future__ import annotations

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.benchmarks.hadoop.steps import JavaStep, Outputs, ReadStep, Step
from vbench.errors import JobFailed
from vbench.hadoop import jobs
from vbench.samples import Sample

NAME = "terasort"
METRICS = {
    "teragen_time": "s",
    "terasort_time": "s",
    "teravalidate_time": "s",
    "teragen_throughput": "MiB/s",
    "terasort_throughput": "MiB/s",
}


class Config(BenchConfig):
    size_mb: int = Field(64, ge=1)
    maps: int = Field(2, ge=1)
    reduces: int = Field(2, ge=1)
    replication: int = Field(2, ge=1, le=10)
    #: TeraSort writes its output with replication 1 unless told (VMware Table 3: 1 vs 3).
    output_replication: int = Field(1, ge=1, le=10)
    #: TeraGen alone: no TeraSort, no TeraValidate; the run's samples are TeraGen's time and throughput.
    generate_only: bool = False


PRESETS = {
    # 1 TB, triple replication of input and output (Table 3 compares 1 vs 3).
    "vmware2015": Config(size_mb=1024 * 1024, maps=64, reduces=64, replication=3, output_replication=3),
    # The largest of "512 MB .. 2 GB", on HDFS with replication 3; TeraSort's output with 1 replica,
    # as the study quotes TeraSort's documentation. Maps and reduces are not stated.
    "vasconcelos": Config(size_mb=2048, replication=3, output_replication=1),
    # Fig 4: TeraSort of 30 GB on HDFS with replication 3; maps and reduces not stated.
    "xavier2014": Config(size_mb=30 * 1024, replication=3, output_replication=1),
}


def teragen_step(size_mb: int, maps: int, replication: int, out: str, job_details: bool = True) -> JavaStep:
    """TeraGen of `size_mb` into `out`. Pure."""
    rows = jobs.teragen_rows(size_mb * 1024**2)
    return JavaStep(
        "teragen",
        jobs.EXAMPLES_DRIVER,
        ("teragen", f"-Ddfs.replication={replication}", f"-Dmapreduce.job.maps={maps}", str(rows), out),
        job_details=job_details,
    )


def output_dir(run_dir: str) -> str:
    """Where a run's TeraSort writes its sorted output (the smoke checks its block placement). Pure."""
    return f"{run_dir}/sorted"


def sort_and_validate(cfg: Config, input_dir: str, run_dir: str, validate_details: bool = True) -> list[Step]:
    """TeraSort of `input_dir`, TeraValidate of its output and the validation report. Pure."""
    out, val = output_dir(run_dir), f"{run_dir}/validate"
    return [
        JavaStep(
            "terasort",
            jobs.EXAMPLES_DRIVER,
            (
                "terasort",
                f"-Ddfs.replication={cfg.replication}",
                f"-Dmapreduce.job.reduces={cfg.reduces}",
                f"-Dmapreduce.terasort.output.replication={cfg.output_replication}",
                input_dir,
                out,
            ),
        ),
        JavaStep("teravalidate", jobs.EXAMPLES_DRIVER, ("teravalidate", out, val), job_details=validate_details),
        ReadStep("report", f"{val}/part-r-*"),
    ]


def validated_meta(outputs: Outputs) -> dict[str, str]:
    """TeraValidate gates: an unsorted output is a failed run, never a sample."""
    valid, verdict = jobs.teravalidate_verdict(outputs["report"].stdout)
    if not valid:
        raise JobFailed(f"TeraValidate: {verdict}")
    return {"verdict": verdict}


def steps(cfg: Config, run_dir: str) -> list[Step]:
    gen = f"{run_dir}/gen"
    generate = teragen_step(cfg.size_mb, cfg.maps, cfg.replication, gen)
    return [generate] if cfg.generate_only else [generate, *sort_and_validate(cfg, gen, run_dir)]


def parse(outputs: Outputs, cfg: Config) -> list[Sample]:
    if cfg.generate_only:
        t = outputs["teragen"].seconds
        return [
            Sample(NAME, "teragen_time", t, "s", {}),
            Sample(NAME, "teragen_throughput", cfg.size_mb / t, "MiB/s", {}),
        ]
    meta = validated_meta(outputs)
    t = {s: outputs[s].seconds for s in ("teragen", "terasort", "teravalidate")}
    return [
        *(Sample(NAME, f"{s}_time", v, "s", meta) for s, v in t.items()),
        Sample(NAME, "teragen_throughput", cfg.size_mb / t["teragen"], "MiB/s", meta),
        Sample(NAME, "terasort_throughput", cfg.size_mb / t["terasort"], "MiB/s", meta),
    ]
