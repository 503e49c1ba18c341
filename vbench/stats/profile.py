"""A Hadoop job's resource profile, per job run and per platform (issue #53 item 1). Pure.

Every Hadoop run records, per job it submitted, what JobHistory says about it
(vbench.hadoop.history.job_samples): the job's time (`<step>_job_time`), VMware's map-shuffle and
reduce-merge phases (`<step>_map_shuffle_phase_time`, `<step>_reduce_merge_phase_time`), the job's
counters (`counter.<step>.<Group>.<NAME>`) and every successful task attempt's time
(`map_attempt_time`, `reduce_attempt_time`; a reducer's `reducer_shuffle_time`,
`reducer_merge_time`, `reducer_reduce_time`) and each failed or killed one
(`map_attempt_unsuccessful`, `reduce_attempt_unsuccessful`), each sample carrying the job's
`step` and `job_id`.
A `JobProfile` gathers them into one record per job: what the job used (CPU and GC time, HDFS and
local bytes read and written, shuffle bytes, spilled records, task counts, data-local maps) and
where its time went (phases, attempts). A counter the job did not record is None, never 0
(JobHistory leaves out a counter that stayed 0, such as RACK_LOCAL_MAPS when every map ran
data-local, but None says only "not recorded").

`platform_medians` gives, per experiment, benchmark, cell and step, each platform's median of every
resource over its compared runs (warm-up runs left out) and its ratio to the baseline platform's
median: medians and ratios only, no intervals.

Samples come from the campaign reader (`vbench.stats.campaign.load_campaign`, which reads
samples.jsonl through the one reader, vbench.stats.tidy.read_campaign); a run that has a failure
record is no whole run and gives no profile.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Iterable, Mapping

import pandas as pd

from vbench.hadoop.history import COUNTERS
from vbench.samples import (
    MACHINE_CPU_FIELD,
    MACHINE_FAULTS_FIELD,
    MACHINE_KERNEL_FIELD,
    MACHINE_SWITCHES_FIELD,
    MACHINE_SYSCALLS_FIELD,
    MACHINE_WALL_FIELD,
    SENTRY_CPU_FIELD,
)
from vbench.stats.campaign import Campaign, load_campaign
from vbench.stats.keys import natural_key

#: Profile field -> the JobHistory counter it holds, as vbench.hadoop.history.COUNTERS names it
#: (which also gives its unit: the counters every Hadoop run keeps as samples).
COUNTER_FIELDS: dict[str, str] = {
    "cpu_ms": "TaskCounter.CPU_MILLISECONDS",
    "gc_ms": "TaskCounter.GC_TIME_MILLIS",
    "hdfs_bytes_read": "FileSystemCounter.HDFS_BYTES_READ",
    "hdfs_bytes_written": "FileSystemCounter.HDFS_BYTES_WRITTEN",
    "local_bytes_read": "FileSystemCounter.FILE_BYTES_READ",
    "local_bytes_written": "FileSystemCounter.FILE_BYTES_WRITTEN",
    "shuffle_bytes": "TaskCounter.REDUCE_SHUFFLE_BYTES",
    "map_output_bytes": "TaskCounter.MAP_OUTPUT_BYTES",
    "map_output_records": "TaskCounter.MAP_OUTPUT_RECORDS",
    "reduce_input_records": "TaskCounter.REDUCE_INPUT_RECORDS",
    "spilled_records": "TaskCounter.SPILLED_RECORDS",
    "launched_maps": "JobCounter.TOTAL_LAUNCHED_MAPS",
    "launched_reduces": "JobCounter.TOTAL_LAUNCHED_REDUCES",
    "data_local_maps": "JobCounter.DATA_LOCAL_MAPS",
    "rack_local_maps": "JobCounter.RACK_LOCAL_MAPS",
    "other_local_maps": "JobCounter.OTHER_LOCAL_MAPS",
}

#: Profile field -> the per-attempt sample it summarises (vbench.hadoop.history.job_samples).
TASK_FIELDS: dict[str, str] = {
    "map_attempts": "map_attempt_time",
    "reduce_attempts": "reduce_attempt_time",
    "reducer_shuffle": "reducer_shuffle_time",
    "reducer_merge": "reducer_merge_time",
    "reducer_reduce": "reducer_reduce_time",
}

#: Profile field -> the sample of each attempt that failed or was killed (value 1).
UNSUCCESSFUL_FIELDS: dict[str, str] = {
    "unsuccessful_map_attempts": "map_attempt_unsuccessful",
    "unsuccessful_reduce_attempts": "reduce_attempt_unsuccessful",
}

#: Profile field -> the job-level time sample it holds, after `<step>_`.
PHASE_FIELDS: dict[str, str] = {
    "job_time_s": "job_time",
    "map_shuffle_phase_s": "map_shuffle_phase_time",
    "reduce_merge_phase_s": "reduce_merge_phase_time",
}

#: Profile field -> the field its job's samples carry: the machine's busy CPU and wall seconds over
#: the step that submitted the job, read outside every host (vbench.monitor.machine_cpu; local
#: testbeds only, None elsewhere and in campaigns older than it). Every process of the machine
#: counts: the daemons, the client, a sandbox's Sentry and a VM's emulator. A step submitting
#: several jobs (MRBench) gives each of them the whole step's.
MACHINE_FIELDS: dict[str, str] = {
    "machine_cpu_s": MACHINE_CPU_FIELD,
    "machine_wall_s": MACHINE_WALL_FIELD,
    # Of the machine's CPU, its gVisor Sentries' (None where no gVisor host ran).
    "sentry_cpu_s": SENTRY_CPU_FIELD,
    # Of the machine's CPU, its kernel's (system, irq, softirq; None in campaigns older than it).
    "machine_kernel_cpu_s": MACHINE_KERNEL_FIELD,
}
#: Profile field -> the field its job's samples carry: the machine's kernel entries over the same
#: step (vbench.monitor.kernel_entries), counts; None in campaigns older than them, and the system
#: calls only where the design set `count_syscalls`.
MACHINE_ENTRY_FIELDS: dict[str, str] = {
    "machine_syscalls": MACHINE_SYSCALLS_FIELD,
    "machine_faults": MACHINE_FAULTS_FIELD,
    "machine_switches": MACHINE_SWITCHES_FIELD,
}

DEFAULT_BASELINE = "native"


@dataclass(frozen=True)
class RunIdentity:
    """Which run of which campaign cell a job belongs to, as the runner stamped it."""

    run_id: str
    experiment: str
    #: The compared level: the platform, or the design's compared factor (vbench.stats.compare).
    platform: str
    benchmark: str
    #: The statistics' cell: the size label and the factors varying within the experiment.
    cell: str
    cell_id: str
    block: int | None
    round: int | None
    warmup: bool


@dataclass(frozen=True)
class JobCounters:
    """A job's JobHistory counters (totals over its tasks); None: not recorded."""

    cpu_ms: int | None
    gc_ms: int | None
    hdfs_bytes_read: int | None
    hdfs_bytes_written: int | None
    local_bytes_read: int | None
    local_bytes_written: int | None
    shuffle_bytes: int | None
    map_output_bytes: int | None
    map_output_records: int | None
    reduce_input_records: int | None
    spilled_records: int | None
    launched_maps: int | None
    launched_reduces: int | None
    data_local_maps: int | None
    rack_local_maps: int | None
    other_local_maps: int | None


@dataclass(frozen=True)
class TaskTimes:
    """One kind of successful task attempt (or one phase of the reducers) in one job: how many
    there were, their median and their longest time, in seconds (None when there were none)."""

    n: int
    median_s: float | None
    max_s: float | None

    @classmethod
    def of(cls, seconds: Iterable[float]) -> "TaskTimes":
        values = [float(v) for v in seconds]
        if not values:
            return cls(0, None, None)
        return cls(len(values), float(statistics.median(values)), max(values))


@dataclass(frozen=True)
class JobProfile:
    """One Hadoop job of one run: where its time went and what it used."""

    run: RunIdentity
    #: The benchmark's step that submitted the job (teragen, terasort, wordcount, create_write...).
    step: str
    job_id: str
    job_time_s: float | None
    #: VMware's TeraSort phases: until the last reducer finished shuffling, and the rest.
    map_shuffle_phase_s: float | None
    reduce_merge_phase_s: float | None
    counters: JobCounters
    map_attempts: TaskTimes
    reduce_attempts: TaskTimes
    reducer_shuffle: TaskTimes
    reducer_merge: TaskTimes
    reducer_reduce: TaskTimes
    #: Attempts that failed or were killed (a container that never started, a lost speculative
    #: race): with the successful ones, the launched attempts JobHistory counts.
    unsuccessful_map_attempts: int
    unsuccessful_reduce_attempts: int
    #: The machine's CPU and wall seconds over the job's step, and its gVisor Sentries' CPU
    #: (`MACHINE_FIELDS`); None: not read.
    machine_cpu_s: float | None = None
    machine_wall_s: float | None = None
    sentry_cpu_s: float | None = None
    machine_kernel_cpu_s: float | None = None
    #: The machine's system calls, page faults and context switches over the job's step
    #: (`MACHINE_ENTRY_FIELDS`); None: not read.
    machine_syscalls: float | None = None
    machine_faults: float | None = None
    machine_switches: float | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.run.run_id, self.step, self.job_id)

    def resources(self) -> dict[str, float | None]:
        """Every number of the profile by its resource name (`RESOURCE_UNITS`' order)."""
        out: dict[str, float | None] = {name: getattr(self, name) for name in PHASE_FIELDS}
        out.update({name: getattr(self.counters, name) for name in COUNTER_FIELDS})
        for name in TASK_FIELDS:
            times: TaskTimes = getattr(self, name)
            out.update({f"{name}_n": times.n, f"{name}_median_s": times.median_s, f"{name}_max_s": times.max_s})
        out.update({name: getattr(self, name) for name in UNSUCCESSFUL_FIELDS})
        out.update({name: getattr(self, name) for name in MACHINE_FIELDS})
        out.update({name: getattr(self, name) for name in MACHINE_ENTRY_FIELDS})
        return out


#: Every resource of a profile, in order, with its unit.
RESOURCE_UNITS: dict[str, str] = {
    **{name: "s" for name in PHASE_FIELDS},
    **{name: COUNTERS[key] for name, key in COUNTER_FIELDS.items()},
    **{
        f"{name}_{part}": unit
        for name in TASK_FIELDS
        for part, unit in (("n", "count"), ("median_s", "s"), ("max_s", "s"))
    },
    **{name: "count" for name in UNSUCCESSFUL_FIELDS},
    **{name: "s" for name in MACHINE_FIELDS},
    **{name: "count" for name in MACHINE_ENTRY_FIELDS},
}
IDENTITY_COLUMNS = [f.name for f in fields(RunIdentity)] + ["step", "job_id"]


def _present(v: Any) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def _int_or_none(v: Any) -> int | None:
    return int(v) if _present(v) else None


def _float_or_none(v: Any) -> float | None:
    return float(v) if _present(v) else None


def _identity(row: Mapping[str, Any]) -> RunIdentity:
    warmup = row.get("warmup")
    return RunIdentity(
        run_id=str(row["run_id"]),
        experiment=str(row.get("experiment") or ""),
        platform=str(row.get("platform") or ""),
        benchmark=str(row["benchmark"]),
        cell=str(row["size"]) if _present(row.get("size")) else "",
        cell_id=str(row["cell_id"]) if _present(row.get("cell_id")) else "",
        block=_int_or_none(row.get("block")),
        round=_int_or_none(row.get("round")),
        warmup=bool(warmup) if _present(warmup) else False,
    )


def _job_profile(step: str, job_id: str, rows: list[dict[str, Any]], metric: str) -> JobProfile:
    """The profile of one job from its samples (`metric`: the column naming them as recorded)."""
    job_level = {r[metric]: r for r in rows if not _present(r.get("attempt_id"))}
    attempts: dict[str, list[float]] = {}
    for r in rows:
        if _present(r.get("attempt_id")):
            attempts.setdefault(r[metric], []).append(r["value"])
    # Identity from the job's own time sample: its cell is the one the statistics compare.
    first = job_level.get(f"{step}_job_time") or next(iter(job_level.values()), rows[0])

    def value(name: str) -> float | None:
        r = job_level.get(name)
        return float(r["value"]) if r is not None else None

    def counter(name: str) -> int | None:
        r = job_level.get(f"counter.{step}.{name}")
        return int(r["value"]) if r is not None else None

    return JobProfile(
        run=_identity(first),
        step=step,
        job_id=job_id,
        **{name: value(f"{step}_{sample}") for name, sample in PHASE_FIELDS.items()},
        counters=JobCounters(**{name: counter(key) for name, key in COUNTER_FIELDS.items()}),
        **{name: TaskTimes.of(attempts.get(sample, [])) for name, sample in TASK_FIELDS.items()},
        **{name: len(attempts.get(sample, [])) for name, sample in UNSUCCESSFUL_FIELDS.items()},
        **{name: _float_or_none(first.get(key)) for name, key in MACHINE_FIELDS.items()},
        **{name: _float_or_none(first.get(key)) for name, key in MACHINE_ENTRY_FIELDS.items()},
    )


def failed_runs(failures: Iterable[Mapping[str, Any]]) -> set[str]:
    """The run ids that have a failure record."""
    return {str(f["run_id"]) for f in failures if _present(f.get("run_id")) and str(f["run_id"])}


def profiles_of(samples: pd.DataFrame, failures: Iterable[Mapping[str, Any]] = ()) -> list[JobProfile]:
    """One profile per job (run, step, JobHistory job id) of the campaign's samples
    (`load_campaign`'s frame), leaving out every run with a failure record; ordered by
    experiment, benchmark, cell, step, platform and run. MRBench submits several jobs in one step:
    each is a profile of its own."""
    needed = {"run_id", "step", "job_id", "benchmark", "value"}
    if samples.empty or not needed <= set(samples.columns):
        return []
    metric = "raw_metric" if "raw_metric" in samples.columns else "metric"
    failed = failed_runs(failures)
    jobs = samples[samples["step"].notna() & samples["job_id"].notna() & ~samples["run_id"].astype(str).isin(failed)]
    grouped: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in jobs.to_dict("records"):
        grouped.setdefault((str(r["run_id"]), str(r["step"]), str(r["job_id"])), []).append(r)
    out = [_job_profile(step, job_id, rows, metric) for (_, step, job_id), rows in grouped.items()]
    return sorted(out, key=_order)


def _order(p: JobProfile) -> tuple:
    r = p.run
    return tuple(
        natural_key(v) for v in (r.experiment, r.benchmark, r.cell, p.step, r.platform, r.block, r.round, r.run_id)
    ) + (natural_key(p.job_id),)


def job_profiles(campaign: Campaign) -> list[JobProfile]:
    """The profiles of every job of a campaign read by `load_campaign`."""
    return profiles_of(campaign.samples, campaign.failures)


def load_profiles(path: str | Path) -> list[JobProfile]:
    """The profiles of every job of the campaign directory `path`."""
    return job_profiles(load_campaign(path))


def profiles_frame(profiles: Iterable[JobProfile]) -> pd.DataFrame:
    """One row per job: the run's identity, step and job id, then every resource (`RESOURCE_UNITS`)."""
    rows = []
    for p in profiles:
        ident = {f.name: getattr(p.run, f.name) for f in fields(RunIdentity)}
        rows.append({**ident, "step": p.step, "job_id": p.job_id, **p.resources()})
    frame = pd.DataFrame(rows, columns=IDENTITY_COLUMNS + list(RESOURCE_UNITS))
    # Counters and counts are whole numbers even where one is missing (pandas would make them floats).
    for name, unit in RESOURCE_UNITS.items():
        if unit in ("count", "B", "ms"):
            frame[name] = frame[name].astype("Int64")
    return frame


@dataclass(frozen=True)
class PlatformResource:
    """One resource of one platform's median profile in one group (experiment, benchmark, cell,
    step), beside the baseline platform's."""

    experiment: str
    benchmark: str
    cell: str
    step: str
    platform: str
    resource: str
    unit: str
    #: The platform's compared (not warm-up) jobs in the group, and of those the ones recording this resource.
    jobs: int
    recorded: int
    median: float | None
    baseline: str
    baseline_recorded: int
    baseline_median: float | None
    #: median / baseline_median; None, with a note, when either is missing or the baseline's is 0.
    ratio: float | None
    note: str = ""


def _median(values: list[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def _ratio(median: float | None, base: float | None, baseline: str, has_baseline: bool) -> tuple[float | None, str]:
    if not has_baseline:
        return None, f"no compared {baseline} jobs in this group"
    if median is None:
        return None, "not recorded"
    if base is None:
        return None, f"not recorded on {baseline}"
    if base == 0:
        return None, f"{baseline}'s median is 0"
    return median / base, ""


def platform_medians(profiles: Iterable[JobProfile], baseline: str = DEFAULT_BASELINE) -> list[PlatformResource]:
    """Per experiment, benchmark, cell and step, each platform's median of every resource over its
    compared jobs (warm-up runs left out) and its ratio to `baseline`'s median. Pure."""
    groups: dict[tuple[str, str, str, str], dict[str, list[JobProfile]]] = {}
    for p in profiles:
        if p.run.warmup:
            continue
        key = (p.run.experiment, p.run.benchmark, p.run.cell, p.step)
        groups.setdefault(key, {}).setdefault(p.run.platform, []).append(p)
    out: list[PlatformResource] = []
    for (experiment, benchmark, cell, step), by_platform in groups.items():
        medians: dict[str, dict[str, tuple[int, float | None]]] = {}
        for platform, jobs in by_platform.items():
            values = [j.resources() for j in jobs]
            medians[platform] = {}
            for name in RESOURCE_UNITS:
                recorded = [float(v[name]) for v in values if v[name] is not None]
                medians[platform][name] = (len(recorded), _median(recorded))
        base = medians.get(baseline, {})
        for platform in sorted(by_platform, key=lambda p: (p != baseline, natural_key(p))):
            for name, unit in RESOURCE_UNITS.items():
                recorded, median = medians[platform][name]
                base_recorded, base_median = base.get(name, (0, None))
                ratio, note = _ratio(median, base_median, baseline, baseline in by_platform)
                out.append(
                    PlatformResource(
                        experiment,
                        benchmark,
                        cell,
                        step,
                        platform,
                        name,
                        unit,
                        len(by_platform[platform]),
                        recorded,
                        median,
                        baseline,
                        base_recorded,
                        base_median,
                        ratio,
                        note,
                    )
                )
    return sorted(out, key=lambda r: tuple(natural_key(v) for v in (r.experiment, r.benchmark, r.cell, r.step)))


def platform_frame(profiles: Iterable[JobProfile], baseline: str = DEFAULT_BASELINE) -> pd.DataFrame:
    """`platform_medians` as a tidy frame: one row per group, platform and resource."""
    rows = platform_medians(profiles, baseline)
    return pd.DataFrame([vars(r) for r in rows], columns=[f.name for f in fields(PlatformResource)])


#: How a row of bytes is shown: in the largest of these its largest median reaches.
BYTE_UNITS = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))


def _byte_unit(largest: float) -> tuple[str, int]:
    return next(((name, size) for name, size in BYTE_UNITS if largest >= size), ("B", 1))


def _shown(value: float | None, unit: str, scale: int = 1) -> str:
    """A median as a reader takes it in: bytes over `scale`, times and counts to a sensible precision."""
    if value is None:
        return "-"
    if unit == "B":
        return f"{value / scale:.1f}" if scale > 1 else f"{value:.0f}"
    if unit == "s":
        return f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"
    return f"{value:.0f}" if float(value).is_integer() or abs(value) >= 100 else f"{value:.1f}"


def format_platform_table(frame: pd.DataFrame) -> str:
    """`platform_frame` as text: per group a header (its compared jobs per platform) and one line
    per resource recorded anywhere in it, each platform's median with its ratio to the baseline
    (a row of bytes in B, KiB, MiB or GiB, whichever its largest median reaches)."""
    if frame.empty:
        return "no Hadoop jobs with JobHistory samples\n"
    blocks = []
    keys = ["experiment", "benchmark", "cell", "step"]
    for (experiment, benchmark, cell, step), group in frame.groupby(keys, sort=False):
        baseline = str(group["baseline"].iloc[0])
        platforms = list(dict.fromkeys(group["platform"]))
        jobs = group.drop_duplicates("platform").set_index("platform")["jobs"]
        head = f"{benchmark} / {step}" + (f" [{cell}]" if cell else "") + f" (experiment {experiment})"
        head += ": compared jobs " + ", ".join(f"{p} {int(jobs[p])}" for p in platforms)
        if baseline not in platforms:
            head += f"; no {baseline} jobs: no ratios"
        lines = []
        for resource, rows in group.groupby("resource", sort=False):
            if rows["median"].isna().all():
                continue
            unit = str(rows["unit"].iloc[0])
            shown_unit, scale = _byte_unit(float(rows["median"].abs().max())) if unit == "B" else (unit, 1)
            line = {"resource": resource, "unit": shown_unit}
            for r in rows.itertuples():
                text = _shown(None if pd.isna(r.median) else r.median, unit, scale)
                if r.platform != baseline and not pd.isna(r.ratio):
                    text += f" ({r.ratio:.2f}x)"
                line[r.platform] = text
            lines.append(line)
        table = pd.DataFrame(lines, columns=["resource", "unit", *platforms]).fillna("-")
        blocks.append(head + "\n" + table.to_string(index=False))
    return "\n\n".join(blocks) + "\n"
