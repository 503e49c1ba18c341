"""Where a suite job's time went on each platform, as a calibration campaign measured it: each
JobHistory phase's ratio to the baseline, beside the cost model's attribution (issue #53 item 4,
`vbench predict`). Pure.

The phases are what every Hadoop run already records (vbench.hadoop.history.job_samples), as
`load_campaign` names them: VMware's split of the job into map-shuffle and reduce-merge
(`<step>.map_shuffle_time`, `<step>.reduce_merge_time`: they add up to the job's time) and each
reducer's shuffle, merge and reduce (`<step>.attempt.reduce_<phase>_time`: a reducer's, the
pairing averaging a run's reducers). A phase's ratio and interval are the statistics table's
preferred `ratio_to_baseline` row: `campaign_stats`, the function the statistics stage writes its
table with, read by `preferred_row` as `vbench campaign summary` and the explore notebook read it,
so that a phase is never told one way here and another in the table. Its share of the baseline's
job time is read from the baseline's own samples.

Beside the phases, `unsuccessful_attempts` counts the runs in which JobHistory recorded a task
attempt of the job killed by speculation (a straggler: YARN thought the task slow enough to start a
second attempt beside it, and killed the one that finished second) or lost otherwise: time no
calibrated cost prices, and the losing attempt holds a core while it runs. `task_cpu` gives what the
tasks spent on a CPU.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from typing import Sequence

import pandas as pd

from vbench.errors import ParamsError, VbenchError
from vbench.stats import cost_model as cm
from vbench.stats.campaign import Campaign
from vbench.stats.campaign_stats import StatsConfig, campaign_stats
from vbench.stats.keys import natural_key
from vbench.stats.pernode import lost_to_speculation
from vbench.stats.profile import PlatformResource, job_profiles, platform_medians
from vbench.stats.records import Interval
from vbench.stats.table.cells import cell_number, cell_text, key_as_text, preferred_row
from vbench.stats.table.verdicts import HOLM_NOTE
from vbench.stats.warmup import measured_samples

#: Phase -> its metric after the job's step, as `load_campaign` names it; in the order shown.
PHASES: dict[str, str] = {
    "map_shuffle": "map_shuffle_time",
    "reduce_merge": "reduce_merge_time",
    "reducer_shuffle": "attempt.reduce_shuffle_time",
    "reducer_merge": "attempt.reduce_merge_time",
    "reducer_reduce": "attempt.reduce_reduce_time",
}
_ORDER = {p: i for i, p in enumerate(PHASES)}


@dataclass(frozen=True)
class PhaseRatio:
    """One JobHistory phase of a suite job on one platform against the baseline, as the
    statistics table of the campaign that timed it compares them."""

    job: str
    platform: str
    baseline: str
    #: A key of PHASES.
    phase: str
    #: The table's metric, e.g. "terasort.map_shuffle_time".
    metric: str
    #: The preferred row's estimate and interval; no estimate where the table has none (its note says why).
    #: Its note is the row's without Holm's family: that of the pass over the phases alone (`_row_note`).
    ratio: Interval
    #: The preferred row's method, e.g. "paired-t (blocks)".
    method: str
    #: The median over the baseline's runs of the phase's time over the job's (a reducer's phase:
    #: its mean over the run's reducers); None where no baseline run recorded both.
    native_share: float | None


def phase_metric(job: cm.Job, phase: str) -> str:
    """`job`'s metric of `phase`: its job time's step (`terasort.job_time` -> `terasort.`) and the
    phase's name. Only a job of `cm.PHASED_JOBS` has phases."""
    if job.step is None:
        raise ValueError(f"{job.name}'s time ({job.metric}) is not a JobHistory job's: it has no phases")
    return f"{job.step}.{PHASES[phase]}"


def native_share(samples: pd.DataFrame, job: cm.Job, metric: str, baseline: str) -> float | None:
    """The median over `baseline`'s compared runs of `metric`'s time over `job`'s time, each run's
    phase samples averaged first (a reducer phase has one per reducer). Runs are matched by
    `run_id`; a campaign whose samples carry none gives None."""
    rows = measured_samples(samples)
    if rows is None or rows.empty or "run_id" not in rows.columns:
        return None
    rows = rows[(rows["benchmark"] == job.benchmark) & (rows["platform"] == baseline) & (rows["run_id"] != "")]
    job_s, phase_s = (_run_means(rows[rows["metric"] == m]) for m in (job.metric, metric))
    fractions = [float(phase_s[r] / job_s[r]) for r in phase_s.index if r in job_s.index and job_s[r] > 0]
    return float(statistics.median(fractions)) if fractions else None


def _run_means(rows: pd.DataFrame) -> pd.Series:
    return rows["value"].astype(float).groupby(rows["run_id"]).mean()


def _preferred_ratio(rows: pd.DataFrame) -> tuple[Interval, str]:
    """The estimate, interval and method of the row the table prefers among one platform's ratio
    rows of one phase metric."""
    comparisons = rows.groupby(["experiment", "size", "baseline"], sort=True)
    if comparisons.ngroups > 1:
        # The cost model's job ratio pools experiments and refuses several cells: a phase split
        # over several comparisons has no one ratio to stand beside it.
        keys = ", ".join("/".join(map(str, k)) for k, _ in comparisons)
        return Interval(None, note=f"{comparisons.ngroups} comparisons ({keys}): no single ratio"), ""
    r = preferred_row(rows)
    low, high = cell_number(r["ci_low"]), cell_number(r["ci_high"])
    return Interval(cell_number(r["estimate"]), low, high, _row_note(r["note"])), cell_text(r["method"])


def _row_note(note: object) -> str:
    """A phase row's note without its "Holm over the N paired ratio tests": that family is the
    one of `phase_ratios`' pass over the phases alone, not the statistics table's, and no phase
    ratio reads its adjusted p-value (the interval is the row's own, unadjusted)."""
    return "; ".join(part for part in cell_text(note).split("; ") if not part.startswith(HOLM_NOTE))


def phase_ratios(
    campaign: Campaign, cfg: StatsConfig = StatsConfig(), jobs: Sequence[cm.Job] = cm.PHASED_JOBS
) -> tuple[PhaseRatio, ...]:
    """Every phase of every job of `jobs` the campaign timed, on every platform beside the
    baseline (each experiment's, `cfg.baseline` where the design names none), in natural order
    of platform and job and in PHASES' order; () when it recorded no phase. A platform or job
    without phase samples has none: no row, not a zero."""
    wanted = {(job.benchmark, phase_metric(job, phase)): (job, phase) for job in jobs for phase in PHASES}
    samples = campaign.samples
    if samples.empty:
        return ()
    phased = samples[[k in wanted for k in zip(samples["benchmark"], samples["metric"])]]
    if phased.empty:
        return ()
    # The phases alone: a comparison's rows come from its own group (seeded by its own key), so
    # the other metrics change none of them, only Holm's adjustment across the campaign, which no
    # ratio reads (its note's family, this pass's, is dropped: `_row_note`); and their bootstrap
    # and mixed models would cost time for nothing shown.
    try:
        table = campaign_stats(replace(campaign, samples=phased.reset_index(drop=True)), cfg)
    except VbenchError as exc:
        raise ParamsError(
            str(campaign.path / "samples.jsonl"), f"the statistics refuse its JobHistory phase samples: {exc}"
        ) from None
    if table.empty:
        return ()
    ratio_rows = key_as_text(table[table["statistic"] == "ratio_to_baseline"])
    out = []
    for (benchmark, metric), (job, phase) in wanted.items():
        t = ratio_rows[(ratio_rows["benchmark"] == benchmark) & (ratio_rows["metric"] == metric)]
        for platform, rows in t.groupby("platform", sort=False):
            baselines = sorted({cell_text(b) for b in rows["baseline"]})
            baseline = baselines[0] if len(baselines) == 1 else cfg.baseline
            ratio, method = _preferred_ratio(rows)
            share = native_share(samples, job, metric, baseline)
            out.append(PhaseRatio(job.name, str(platform), baseline, phase, metric, ratio, method, share))
    return tuple(sorted(out, key=lambda p: (natural_key(p.platform), natural_key(p.job), _ORDER[p.phase])))


#: A job's unsuccessful attempts' metric after its step, per task type, as `load_campaign` names them.
UNSUCCESSFUL: tuple[str, ...] = ("attempt.map_attempt_unsuccessful", "attempt.reduce_attempt_unsuccessful")


@dataclass(frozen=True)
class AttemptRuns:
    """How many of a suite job's measured runs on one platform had a task attempt that did not
    succeed, as JobHistory recorded it."""

    job: str
    platform: str
    #: The measured runs that timed the job (warm-up runs left out).
    runs: int
    #: Runs with an attempt killed by speculation: YARN found a task slow, started a second attempt
    #: of it, and killed the one that did not finish first (in every campaign here, the second).
    speculated: int
    #: Runs with an attempt that failed, or was killed for another reason (e.g. "Attmpt state
    #: missing from History").
    lost: int
    #: The unsuccessful attempts of each kind, over all the runs: map and reduce.
    maps: int
    reduces: int

    @property
    def any(self) -> bool:
        return self.speculated > 0 or self.lost > 0


def unsuccessful_attempts(campaign: Campaign, jobs: Sequence[cm.Job] = cm.PHASED_JOBS) -> tuple[AttemptRuns, ...]:
    """For every job of `jobs` the campaign timed and every platform it timed it on (the baseline
    too), the runs with an attempt killed by speculation and those with one lost otherwise,
    in natural order of platform and job. Runs are told apart by `run_id`; a campaign whose samples
    carry none gives (). Pure."""
    rows = measured_samples(campaign.samples)
    if rows is None or rows.empty or "run_id" not in rows.columns:
        return ()
    rows = rows[rows["run_id"].astype(str) != ""]
    out = []
    for job in jobs:
        mine = rows[rows["benchmark"] == job.benchmark]
        timed = mine[mine["metric"] == job.metric]
        bad = mine[mine["metric"].isin([f"{job.step}.{m}" for m in UNSUCCESSFUL])]
        speculated = lost_to_speculation(bad)
        for platform, runs in timed.groupby("platform", sort=False):
            here = bad["platform"] == platform
            out.append(
                AttemptRuns(
                    job.name,
                    str(platform),
                    int(runs["run_id"].nunique()),
                    int(bad.loc[here & speculated, "run_id"].nunique()),
                    int(bad.loc[here & ~speculated, "run_id"].nunique()),
                    int((here & bad["metric"].str.endswith(UNSUCCESSFUL[0])).sum()),
                    int((here & bad["metric"].str.endswith(UNSUCCESSFUL[1])).sum()),
                )
            )
    return tuple(sorted(out, key=lambda a: (natural_key(a.platform), natural_key(a.job))))


#: The profile's resource `task_cpu` reads (vbench.stats.profile.COUNTER_FIELDS: JobHistory's
#: TaskCounter.CPU_MILLISECONDS).
TASK_CPU = "cpu_ms"


def task_cpu(
    campaign: Campaign, baseline: str, jobs: Sequence[cm.Job] = cm.PHASED_JOBS
) -> tuple[PlatformResource, ...]:
    """For every job of `jobs` the campaign timed and every platform beside `baseline`, the CPU time
    its task attempts spent (median over the measured runs) and its ratio to `baseline`'s, as `vbench
    campaign profile` gives it (`profile.platform_medians`, medians, no interval): beside a prediction,
    what a platform's tasks spend as well as what they wait for (gVisor's 2.8-6.7x native's where the
    plant's levels spend 1.2-1.4x; docs/results.md). Inside gVisor the counter is the Sentry's
    account of the tasks' CPU, its own work for them included. Pure."""
    steps = {job.step: job.name for job in jobs if job.step is not None}
    rows = platform_medians(job_profiles(campaign), baseline=baseline)
    picked = [r for r in rows if r.resource == TASK_CPU and r.step in steps and r.platform != baseline]
    return tuple(sorted(picked, key=lambda r: (natural_key(r.platform), natural_key(steps[r.step]))))
