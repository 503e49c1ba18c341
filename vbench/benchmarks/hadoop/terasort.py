"""TeraGen -> TeraSort -> TeraValidate (VMware Tables 2-4, Jeong et al. Fig 6, Vasconcelos).

TeraValidate is a correctness gate: a TeraSort whose output does not validate is a failed run.
With `generate_only` the run is TeraGen alone (VMware's TeraGen row, finding W4), gated by the
job's own success: a TeraGen large enough for its replicas' writes to set its time costs seconds,
where the sort and validation of the same data would cost minutes on this machine.

Two options make a TeraSort run cheaper where the sort is what is measured (issue #51: on live
clusters a run spent 46-52 s, a third of it in the TeraSort it measured, and its spread is run to
run, so runs per hour are precision): `generate: once_per_cluster` writes the input once per
cluster, outside the runs' own directories, and later runs on that cluster sort it again (the run
that wrote it is the session's warm-up run where the design has rounds); `gate: output_size`
gates a run on the sorted output holding exactly the rows generated (the sizes of its part
files, listed by WebHDFS), instead of TeraValidate's second job, which checks the order too. The first keeps HDFS's
block placement of the input for the cluster's life: a cluster-instance effect, which blocks
already sample.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from pydantic import Field, model_validator

from vbench.benchmarks.base import BenchConfig
from vbench.benchmarks.hadoop.steps import JavaStep, ListStep, Outputs, ReadStep, Step
from vbench.errors import JobFailed
from vbench.hadoop import jobs, webhdfs
from vbench.samples import Sample

NAME = "terasort"
METRICS = {
    "teragen_time": "s",
    "terasort_time": "s",
    "teravalidate_time": "s",
    "teragen_throughput": "MiB/s",
    "terasort_throughput": "MiB/s",
}

#: Each setting added after samples were recorded -> what those samples were measured with (each
#: came in with the behaviour before it as its default: 41a22fc, f61b3b7, a796583): how
#: vbench.stats.bench_settings reads a sample without it.
SETTINGS_BEFORE_RECORDED = {
    "generate_only": False,
    "generate": "each_run",
    "gate": "teravalidate",
    "task_jit": "tiered",
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
    #: Generate the input in every run, or once per cluster for its later runs to sort again.
    generate: Literal["each_run", "once_per_cluster"] = "each_run"
    #: Gate a run on TeraValidate (order and checksum; a second job) or on the output's size alone.
    gate: Literal["teravalidate", "output_size"] = "teravalidate"
    #: The JIT of the sort's own JVMs (its ApplicationMaster, maps and reduces; not TeraGen's, not
    #: the client's): `tiered`, the JVM's default, or `c1`, the client compiler alone
    #: (-XX:TieredStopAtLevel=1). A benchmark parameter, so a design can give both as levels and
    #: compare them on the same clusters within a round (issue #51: how much of a run's spread is
    #: its task JVMs' JIT). `hadoop.job_jvm_flags` sets flags for every job of a cluster instead.
    task_jit: Literal["tiered", "c1"] = "tiered"

    @model_validator(mode="after")
    def _sort_options_need_a_sort(self) -> Config:
        if self.generate_only and (self.generate != "each_run" or self.gate != "teravalidate"):
            raise ValueError("generate and gate choose how a sort runs; generate_only runs no sort")
        return self


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


def cluster_input_dir(cfg: Config) -> str:
    """Where `generate: once_per_cluster` keeps the input its cluster's runs share: named by
    everything TeraGen was given, so a run of another size or replication never sorts it. Pure."""
    return f"/vbench-input/teragen-{cfg.size_mb}mb-{cfg.maps}maps-r{cfg.replication}"


#: Hadoop's own admin options of a task JVM (MRJobConfig.DEFAULT_MAPRED_ADMIN_JAVA_OPTS), which a
#: job's admin options replace: kept in front of the flags added.
ADMIN_TASK_OPTS = "-Djava.net.preferIPv4Stack=true -Dhadoop.metrics.log.level=WARN"
#: `task_jit` -> the JVM flags it adds.
JIT_FLAGS = {"tiered": "", "c1": "-XX:TieredStopAtLevel=1"}


def jit_options(task_jit: str) -> tuple[str, ...]:
    """The sort job's -D options that give its ApplicationMaster and tasks `task_jit`'s flags, as
    admin options (prepended to the tasks' own java.opts, so their heap stays the cluster's). Pure."""
    flags = JIT_FLAGS[task_jit]
    if not flags:
        return ()
    return (
        f"-Dmapreduce.admin.map.child.java.opts={ADMIN_TASK_OPTS} {flags}",
        f"-Dmapreduce.admin.reduce.child.java.opts={ADMIN_TASK_OPTS} {flags}",
        f"-Dyarn.app.mapreduce.am.admin-command-opts={flags}",
    )


def sort_and_validate(cfg: Config, input_dir: str, run_dir: str, validate_details: bool = True) -> list[Step]:
    """TeraSort of `input_dir` and its gate: TeraValidate and its report, or the output's sizes. Pure."""
    out, val = output_dir(run_dir), f"{run_dir}/validate"
    sort = JavaStep(
        "terasort",
        jobs.EXAMPLES_DRIVER,
        (
            "terasort",
            f"-Ddfs.replication={cfg.replication}",
            f"-Dmapreduce.job.reduces={cfg.reduces}",
            f"-Dmapreduce.terasort.output.replication={cfg.output_replication}",
            *jit_options(cfg.task_jit),
            input_dir,
            out,
        ),
    )
    if cfg.gate == "output_size":
        return [sort, ListStep("sizes", out)]
    return [
        sort,
        JavaStep("teravalidate", jobs.EXAMPLES_DRIVER, ("teravalidate", out, val), job_details=validate_details),
        ReadStep("report", f"{val}/part-r-*"),
    ]


def output_bytes(listing: str) -> int:
    """The total size of the reducers' part files in the output directory's listing. Pure."""
    try:
        return webhdfs.total_length(webhdfs.listing_from_text(listing), "part-r-*")
    except ValueError as exc:
        raise JobFailed(f"TeraSort's output sizes unreadable: {exc}") from None


def validated_meta(outputs: Outputs) -> dict[str, object]:
    """TeraValidate gates: an unsorted output is a failed run, never a sample."""
    valid, verdict = jobs.teravalidate_verdict(outputs["report"].stdout)
    if not valid:
        raise JobFailed(f"TeraValidate: {verdict}")
    return {"verdict": verdict}


def size_checked_meta(outputs: Outputs, cfg: Config) -> dict[str, object]:
    """The output-size gate: every row generated is in the sorted output, none added."""
    expected = jobs.teragen_rows(cfg.size_mb * 1024**2) * jobs.TERA_ROW_BYTES
    got = output_bytes(outputs["sizes"].stdout)
    if got != expected:
        raise JobFailed(f"TeraSort wrote {got} bytes, its input holds {expected}")
    return {"verdict": f"output size {got} B"}


def steps(cfg: Config, run_dir: str) -> list[Step]:
    if cfg.generate == "once_per_cluster":
        gen = cluster_input_dir(cfg)
        generate = replace(teragen_step(cfg.size_mb, cfg.maps, cfg.replication, gen), reuses=gen)
    else:
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
    meta = validated_meta(outputs) if cfg.gate == "teravalidate" else size_checked_meta(outputs, cfg)
    # A run that reused its cluster's input has no TeraGen of its own (and says so).
    meta["input_generated"] = "teragen" in outputs
    t = {s: outputs[s].seconds for s in ("teragen", "terasort", "teravalidate") if s in outputs}
    out = [Sample(NAME, f"{s}_time", v, "s", meta) for s, v in t.items()]
    if "teragen" in t:
        out.append(Sample(NAME, "teragen_throughput", cfg.size_mb / t["teragen"], "MiB/s", meta))
    return [*out, Sample(NAME, "terasort_throughput", cfg.size_mb / t["terasort"], "MiB/s", meta)]
