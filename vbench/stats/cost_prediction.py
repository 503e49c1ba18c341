"""`vbench predict`: each suite job's time ratio to native on a platform measured by its
calibration micro-benchmarks alone (issue #53 item 5). Pure.

Two campaigns as `vbench.stats.campaign.load_campaign` reads them:

* the fit: native under planted slowdowns, each configuration's calibration and Hadoop jobs
  measured (params/experiments/costs-fit.yaml, or costs-fit-nodelay.yaml on a kernel without
  netem); each job's shares of native time per resource are fitted on it (`cost_model.fit_job`,
  unless told the resources its planted slowdowns move whose planted level moved their cost: the
  designs' rule 1, `planted_checks`), one design row per planted configuration, against the
  design's baseline (the unplanted configuration);
* the calibration: native and the platform(s) to predict, micro-benchmarks only (`vbench campaign
  run <design> --only calibrate`); each platform's cost vector is its paired ratio to the same
  campaign's native (`cost_model.cost_vectors_of`). A campaign without native gives no cost ratio:
  the costs of a platform only mean something against native measured on the same machine.

`prediction_inputs` checks both before anything is fitted (each error names the campaign's
samples file and what is missing), `prediction_table` fits and predicts, `format_prediction` and
`prediction_json` lay the result out. If the calibration campaign also timed the suite's jobs, the
measured ratio and the unexplained part stand beside each prediction, and where its runs recorded
JobHistory's phases, each phase's measured ratio (`vbench.stats.job_phases`): where the time went
beside where the model says it went. Each campaign read is named with the machine (CPU model) it ran
on, and a warning given where the fit's is not the calibration's or the measured jobs' (vbench.stats.machines):
a fit made on one machine has not been shown to carry to another.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from vbench.errors import ParamsError
from vbench.stats import cost_model as cm
from vbench.stats import machines as mc
from vbench.stats.bench_settings import CLUSTER_FIELDS, cells_like, settings_differ
from vbench.stats.machine_kernel import kernels_differ
from vbench.stats.campaign import Campaign
from vbench.stats.campaign_pool import PooledRatio, pool_job_ratios
from vbench.stats.compare import LEVEL
from vbench.stats.hypothesis import holm
from vbench.stats.job_phases import AttemptRuns, PhaseRatio
from vbench.stats.profile import PlatformResource
from vbench.stats.keys import natural_key
from vbench.stats.records import Interval
from vbench.stats.table.rows import DEFAULT_SEED

#: Each planted slowdown (testbed.slowdown, a fit design's compared factor) -> the resource whose
#: cost it moves. A fit can tell apart the shares of these only: membw is moved by none but the CPU
#: quota. The system-call stops move syscall, spawn and jvmstart together, so one of them is fitted:
#: jvmstart, as params/experiments/costs-fit-syscalls.yaml fixed before it ran (its rule 3; the others
#: with --resources).
PLANTED_RESOURCES: dict[str, str] = {
    "slowdown.cpu_fraction": "cpu",
    "slowdown.delay_ms": "round_trip",
    "slowdown.rate_mbit": "net_throughput",
    "slowdown.disk_write_bps": "disk_seq_write",
    "slowdown.syscall_stops": "jvmstart",
}
#: A fit campaign comparing both system-call levels (`slowdown.syscall_stops` at "process", only the
#: process and thread calls stopped, beside every call) fits a system call and a process creation,
#: as params/experiments/costs-fit-process-confirm.yaml named them before it ran: the process level
#: moves a process creation alone, every call stopped moves the call. Named, not chosen by rule 1
#: (PLANTED_RESOURCES has one resource per factor); its rule 1 is `levels_apart`.
SYSCALL_LEVELS_RESOURCES: tuple[str, ...] = ("syscall", "spawn")
#: The samples' column of the system-call stops' level, and its partial levels: the one that stops
#: only the process and thread calls, the one that stops only the calls naming a file, and the one
#: that stops only the calls mapping memory (vbench.testbed.syscall_stops, which the statistics and
#: the paper do not import).
SYSCALL_STOPS_COLUMN = LEVEL + "slowdown.syscall_stops"
PROCESS_LEVEL, FILE_LEVEL, MEMORY_LEVEL = "process", "file", "memory"
#: Each partial level of the system-call stops -> the resource it moves apart from every call
#: stopped (which moves the one-byte call, `syscall`): params/experiments/costs-fit-file.yaml added
#: the calls that name a file to costs-fit-process-confirm's process level; costs-fit-memory.yaml the
#: calls that map memory, which move a JVM's start and not its calls.
PARTIAL_LEVEL_RESOURCES: dict[str, str] = {PROCESS_LEVEL: "spawn", FILE_LEVEL: "fileopen", MEMORY_LEVEL: "jvmstart"}
#: The resources params/experiments/costs-fit.yaml fits (its rule 2): every planted one it plants.
FIT_RESOURCES: tuple[str, ...] = ("cpu", "round_trip", "net_throughput", "disk_seq_write")
#: Below this (after Holm over the jobs) the additive form is rejected for a job (costs-fit rule 3).
LACK_OF_FIT_ALPHA = 0.05
#: Rule 1 of params/experiments/costs-fit.yaml and costs-fit-nodelay.yaml, fixed before they ran:
#: each planted level must move its own resource's cost, in every configuration that plants it, to
#: a cost ratio whose 95 % interval lies above this. A level that does not (a throttle that never
#: reached the hosts) leaves its share to be fitted on noise, so its resource is left out of the fit.
MIN_PLANTED_COST = 1.5
#: The rule's interval level, fixed with it: not the predictions' `conf`.
PLANTED_COST_CONF = 0.95


# --- Records --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PredictionInputs:
    """What the fit and the predictions need, checked."""

    fit_path: Path
    fit_baseline: str
    calibration_path: Path
    calibration_baseline: str
    resources: tuple[str, ...]
    #: The fit campaign's configurations' cost vectors and job ratios (against `fit_baseline`).
    fit_costs: tuple[cm.CostVector, ...]
    fit_ratios: tuple[cm.JobRatio, ...]
    #: job -> its design rows: the configurations with every resource's cost and the job's ratio.
    designs: tuple[tuple[str, tuple[str, ...]], ...]
    #: The platforms to predict (against `calibration_baseline`).
    costs: tuple[cm.CostVector, ...]
    #: The measured job ratios: the calibration campaign's own, where it timed the suite too, or
    #: those of the campaign `measured_paths` names, or those of several pooled (`pooled`).
    measured: tuple[cm.JobRatio, ...]
    notes: tuple[str, ...] = ()
    #: Rule 1 on each planted resource (`planted_checks`), fitted or not.
    planted: tuple[PlantedCheck, ...] = ()
    #: The planted resources rule 1 left out of the fit (their level did not move their cost); none
    #: when the resources were named (`rule_one`).
    left_out: tuple[PlantedCheck, ...] = ()
    #: The campaign(s) the measured ratios come from when not the calibration (none: the
    #: calibration's own).
    measured_paths: tuple[Path, ...] = ()
    #: With several measured campaigns, each (job, platform) two or more of them measured, pooled
    #: (`campaign_pool`): what `measured` holds.
    pooled: tuple[PooledRatio, ...] = ()
    #: Rule 1 on the resources named to be fitted (`levels_apart`); None when they were not named.
    apart: ApartCheck | None = None
    #: The campaign the fit's configurations' costs come from when it is not the fit (None: the
    #: fit's own calibration).
    fit_costs_path: Path | None = None
    #: The CPU model(s) each campaign read ran on (`campaign_machines`): the fit, the fit's costs,
    #: the calibration, the measured jobs, as read.
    machines: tuple[mc.CampaignMachines, ...] = ()
    #: The resource whose cost prices the native time no fitted resource explains (`cost_model.predict`'s
    #: `rest`; `vbench predict --rest`), every platform calibrated it; None: priced at native's.
    rest: str | None = None

    @property
    def priced(self) -> tuple[str, ...]:
        """The resources whose costs a prediction reads: the fitted ones, then the rest's."""
        return cm.priced_resources(self.resources, self.rest)


@dataclass(frozen=True)
class PlantedFactor:
    """A planted slowdown the fit campaign compares, the resource it moves, and the configurations
    that plant it: those whose level of the factor is not the baseline configuration's."""

    factor: str
    resource: str
    configurations: tuple[str, ...]


@dataclass(frozen=True)
class PlantedCost:
    """A planting configuration's cost ratio of the factor's resource, as rule 1 reads it: the lower
    bound of its interval at PLANTED_COST_CONF; None when the configuration has no cost ratio of it."""

    configuration: str
    low: float | None

    @property
    def moved(self) -> bool:
        return self.low is not None and self.low > MIN_PLANTED_COST


@dataclass(frozen=True)
class PlantedCheck:
    """Rule 1 on one planted factor: its resource's cost in every configuration that plants it."""

    factor: str
    resource: str
    costs: tuple[PlantedCost, ...]

    @property
    def failed(self) -> tuple[PlantedCost, ...]:
        return tuple(c for c in self.costs if not c.moved)

    @property
    def passes(self) -> bool:
        return bool(self.costs) and not self.failed

    def reason(self) -> str:
        """Why it fails, naming the configurations and their bounds ("" when it passes)."""
        if self.passes:
            return ""
        low = [f"{c.low:.2f} in {c.configuration}" for c in self.failed if c.low is not None]
        unmeasured = [c.configuration for c in self.failed if c.low is None]
        said = [f"its cost ratio's {round(100 * PLANTED_COST_CONF)} % lower bound is {', '.join(low)}"] if low else []
        said += [f"no cost ratio of it in {', '.join(unmeasured)}"] if unmeasured else []
        where = (
            f"any of the {len(self.costs)}"
            if len(self.failed) == len(self.costs)
            else f"{len(self.failed)} of the {len(self.costs)}"
        )
        return (
            f"{self.factor} does not move the cost of {_measures(self.resource)} above x{MIN_PLANTED_COST:g} "
            f"in {where} configurations planting it: " + "; ".join(said)
        )


@dataclass(frozen=True)
class FitChoice:
    """The resources to fit after rule 1 (`rule_one`), those it left out, and its notes."""

    resources: tuple[str, ...]
    left_out: tuple[PlantedCheck, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class ApartCheck:
    """Rule 1 for resources named to be fitted (`levels_apart`): an order of them in which each one
    has a fit configuration moving its cost above MIN_PLANTED_COST while every resource after it
    stays under it there (its interval's upper bound), so each share is fitted on a row the later
    ones do not move; `unresolved` are those no such configuration was found for."""

    #: (resource, the configuration that moves it apart from the resources after it), in that order.
    order: tuple[tuple[str, str], ...]
    unresolved: tuple[str, ...]

    @property
    def passes(self) -> bool:
        return not self.unresolved

    def reason(self) -> str:
        """Why it fails ("" when it passes)."""
        if self.passes:
            return ""
        rest = ", ".join(self.unresolved)
        return (
            f"no configuration moves any of {rest} above x{MIN_PLANTED_COST:g} (its cost ratio's "
            f"{round(100 * PLANTED_COST_CONF)} % lower bound) while leaving the others among them under "
            "it (their upper bounds): their shares are not fitted on configurations that move them apart"
        )


@dataclass(frozen=True)
class FittedJob:
    fit: cm.JobFit
    #: lack_of_fit_p after Holm over the jobs (nan without a residual degree of freedom).
    lack_of_fit_p_holm: float

    @property
    def rejected(self) -> bool:
        """The additive form is rejected for this job (costs-fit rule 3)."""
        return not math.isnan(self.lack_of_fit_p_holm) and self.lack_of_fit_p_holm < LACK_OF_FIT_ALPHA


@dataclass(frozen=True)
class PredictedJob:
    """One (platform, job) of the table."""

    platform: str
    job: str
    predicted: Interval
    attribution: cm.Attribution
    #: The calibration campaign's own measured ratio, if it timed the job.
    measured: Interval | None
    #: Its phases' measured ratios, where its runs recorded them (`job_phases.phase_ratios`).
    phases: tuple[PhaseRatio, ...] = ()
    #: The prediction interval of a ratio measured over `blocks` blocks (`cost_model.predict`):
    #: as many as the measured ratio's, or the fit's rows' where none was measured; or, where the
    #: measured ratio is pooled over `campaigns` campaigns, of such a pooled ratio
    #: (`cost_model.pooled_measurement`).
    measurement: Interval | None = None
    blocks: int | None = None
    campaigns: int | None = None


@dataclass(frozen=True)
class PredictionTable:
    inputs: PredictionInputs
    fits: tuple[FittedJob, ...]
    rows: tuple[PredictedJob, ...]
    conf: float
    n_draws: int
    seed: int
    #: The measured runs with a task attempt that did not succeed, per platform (the baseline too)
    #: and job (`job_phases.unsuccessful_attempts`); () where the jobs' campaign recorded none.
    attempts: tuple[AttemptRuns, ...] = ()
    #: The CPU time each platform's tasks spent per job over the baseline's (`job_phases.task_cpu`);
    #: () where the jobs' campaign recorded none.
    task_cpu: tuple[PlatformResource, ...] = ()
    #: The shares were fitted bounded at 0 (`cost_model.nonnegative_solve`).
    nonnegative: bool = False


@dataclass(frozen=True)
class PlatformAccuracy:
    """How a platform's predictions meet its measured ratios: issue #53's targets read per platform."""

    platform: str
    #: Its rows with a measured ratio and a predicted one.
    rows: int
    #: The median and the largest |measured / predicted - 1| over them.
    median_abs_error: float
    max_abs_error: float
    #: Rows whose prediction interval of a measurement (`PredictedJob.measurement`) holds the
    #: measured ratio; rows whose measured interval holds the predicted ratio.
    covered: int
    within_measured: int


@dataclass(frozen=True)
class Accuracy:
    """The same over every platform's rows."""

    rows: int
    median_abs_error: float
    covered: int
    within_measured: int
    platforms: tuple[PlatformAccuracy, ...]


def _holds(iv: Interval | None, x: float | None) -> bool:
    return iv is not None and x is not None and iv.low is not None and iv.high is not None and iv.low <= x <= iv.high


def row_error(row: PredictedJob) -> float | None:
    """A row's error, measured / predicted - 1 (what the calibrated costs leave unexplained); None
    without both estimates, or with a predicted ratio that is not positive. Pure."""
    m, p = row.measured.estimate if row.measured is not None else None, row.predicted.estimate
    if m is not None and p is not None and p > 0 and math.isfinite(m) and math.isfinite(p):
        return m / p - 1
    return None


def _judged(rows: Sequence[PredictedJob]) -> list[tuple[PredictedJob, float]]:
    """The rows with both estimates, each with its error measured / predicted - 1 (`row_error`)."""
    return [(r, e) for r in rows if (e := row_error(r)) is not None]


def accuracy(rows: Sequence[PredictedJob]) -> Accuracy | None:
    """The predictions against the measured ratios, overall and per platform (issue #53's targets:
    the median |error|, each platform's largest, the prediction intervals' coverage, the measured
    intervals holding the predictions); None where no row was measured. Pure."""
    judged = _judged(rows)
    if not judged:
        return None

    def counts(part: list[tuple[PredictedJob, float]]) -> tuple[int, int]:
        covered = sum(_holds(r.measurement, r.measured.estimate if r.measured else None) for r, _ in part)
        return covered, sum(_holds(r.measured, r.predicted.estimate) for r, _ in part)

    platforms = []
    for platform in sorted({r.platform for r, _ in judged}, key=natural_key):
        part = [(r, e) for r, e in judged if r.platform == platform]
        errors = [abs(e) for _, e in part]
        covered, within = counts(part)
        platforms.append(
            PlatformAccuracy(platform, len(part), float(np.median(errors)), float(max(errors)), covered, within)
        )
    covered, within = counts(judged)
    return Accuracy(len(judged), float(np.median([abs(e) for _, e in judged])), covered, within, tuple(platforms))


def format_accuracy(acc: Accuracy) -> list[str]:
    """Its lines in the command's text."""
    out = [
        f"Against the measured ratios ({acc.rows} rows): median |measured / predicted - 1| "
        f"{_pct(acc.median_abs_error)}; the prediction interval of a measurement holds the measured ratio "
        f"in {acc.covered} of {acc.rows}; the measured interval holds the predicted ratio in "
        f"{acc.within_measured} of {acc.rows}."
    ]
    records = [
        {
            "platform": a.platform,
            "rows": str(a.rows),
            "median |error|": _pct(a.median_abs_error),
            "largest |error|": _pct(a.max_abs_error),
            "PI holds measured": f"{a.covered}/{a.rows}",
            "measured holds predicted": f"{a.within_measured}/{a.rows}",
        }
        for a in acc.platforms
    ]
    return [*out, _table(records)]


# --- Checks ---------------------------------------------------------------------------------------


def checked_resources(names: Sequence[str], field: str = "--resources") -> tuple[str, ...]:
    """The resources to fit, each one the cost model knows, none twice."""
    out = tuple(n.strip() for n in names if n.strip())
    if not out:
        raise ParamsError(field, "name at least one resource")
    unknown = [n for n in out if n not in cm.RESOURCE_BY_NAME]
    if unknown:
        raise ParamsError(field, f"unknown resource(s) {unknown}; the cost model knows {sorted(cm.RESOURCE_BY_NAME)}")
    twice = sorted({n for n in out if out.count(n) > 1})
    if twice:
        raise ParamsError(field, f"{twice} named more than once")
    return out


def samples_path(campaign: Campaign) -> str:
    return str(campaign.path / "samples.jsonl")


def planted_factors(fit: Campaign, baseline: str) -> tuple[PlantedFactor, ...]:
    """The planted slowdowns the fit campaign compares at two levels or more, in PLANTED_RESOURCES'
    order, each with the configurations that plant it (its level differs from `baseline`'s, the
    level columns of the samples: an unplanted rate or disk is null); none for a campaign of
    platforms. A kernel without netem plants no delay (costs-fit-nodelay, or costs-fit with its
    delayed configurations refused), so its fit has no round trip to fit."""
    samples = fit.samples
    out: list[PlantedFactor] = []
    for factor, resource in PLANTED_RESOURCES.items():
        column = LEVEL + factor
        if column not in samples.columns or samples[column].nunique(dropna=False) < 2:
            continue
        levels = _levels_of(fit, column)
        out.append(PlantedFactor(factor, resource, tuple(c for c, lv in levels.items() if lv != levels[baseline])))
    return tuple(out)


def _levels_of(fit: Campaign, column: str) -> dict[str, str | None]:
    """Each configuration's level in `column` (None: unplanted, null), one per configuration."""
    pairs = fit.samples[["platform", column]].drop_duplicates()
    out: dict[str, str | None] = {}
    for config, level in zip(pairs["platform"].astype(str), pairs[column]):
        level = None if pd.isna(level) else str(level)
        if out.get(config, level) != level:
            raise ParamsError(
                samples_path(fit),
                f"configuration {config!r} has more than one {column} ({out[config]!r}, {level!r}): "
                "which level it plants is unknown",
            )
        out[config] = level
    return dict(sorted(out.items(), key=lambda kv: natural_key(kv[0])))


def levels_resources(samples: pd.DataFrame) -> tuple[str, ...]:
    """The resources a fit comparing system-call levels tells apart, as its design names them: the
    one-byte call, and each partial level's resource (PARTIAL_LEVEL_RESOURCES) for the levels its
    samples planted; () for a fit with no partial level (one level moves its costs together)."""
    if SYSCALL_STOPS_COLUMN not in samples.columns:
        return ()
    planted = set(samples[SYSCALL_STOPS_COLUMN].dropna().astype(str))
    partial = tuple(r for level, r in PARTIAL_LEVEL_RESOURCES.items() if level in planted)
    return ("syscall", *partial) if partial else ()


def planted_checks(factors: Sequence[PlantedFactor], costs: Sequence[cm.CostVector]) -> tuple[PlantedCheck, ...]:
    """Rule 1 (MIN_PLANTED_COST) on each planted factor, from the fit's configurations' cost vectors
    against its baseline: the lower bound of its resource's cost ratio in every configuration that
    plants it. A planting configuration without that cost ratio fails it too: nothing shows its
    level moved anything."""
    by_config = {v.platform: v for v in costs}
    return tuple(
        PlantedCheck(
            f.factor, f.resource, tuple(_planted_cost(by_config.get(c), c, f.resource) for c in f.configurations)
        )
        for f in factors
    )


def _planted_cost(vector: cm.CostVector | None, configuration: str, resource: str) -> PlantedCost:
    if vector is None or resource not in vector.resources:
        return PlantedCost(configuration, None)
    return PlantedCost(configuration, vector.ratio(resource).interval(PLANTED_COST_CONF).low)


def rule_one(checks: Sequence[PlantedCheck], resources: Sequence[str] | None, fit_file: str) -> FitChoice:
    """What is fitted after rule 1. Not told (`resources` None): the planted resources whose check
    passes, each one failing left out and named in a note with why; refused, naming the fit's
    samples file, when none passes. Told: those, as told, none left out, with a note for each one
    failing the rule, so a share fitted on an unmoved cost is not taken for a measured one."""
    failed = [c for c in checks if not c.passes]
    if resources is None and not checks:
        raise ParamsError(
            fit_file,
            f"no planted slowdown ({', '.join(PLANTED_RESOURCES)}) compared at two levels: no share "
            "can be fitted (a fit campaign compares them, params/experiments/costs-fit.yaml)",
        )
    if resources is None:
        kept = tuple(c.resource for c in checks if c.passes)
        if not kept:
            raise ParamsError(
                fit_file,
                "no planted level moved its own cost (costs-fit rule 1: a cost ratio above "
                f"x{MIN_PLANTED_COST:g} in every configuration planting it), nothing to fit: "
                + "; ".join(f"{c.resource}: {c.reason()}" for c in failed),
            )
        notes = tuple(f"{c.resource} left out of the fit (rule 1): {c.reason()}" for c in failed)
        return FitChoice(kept, tuple(failed), notes)
    told = tuple(resources)
    notes = tuple(
        f"{c.resource} fitted as --resources asks, though it fails rule 1: {c.reason()}"
        for c in failed
        if c.resource in told
    )
    return FitChoice(told, (), notes)


def levels_apart(resources: Sequence[str], costs: Sequence[cm.CostVector]) -> ApartCheck:
    """Whether the fit's configurations (`costs`, against its baseline) move `resources` apart. One
    planted level may move several costs (every system call stopped moves a call, a process creation
    and a JVM's start): their shares are told apart only if some level moves one while leaving the
    others, as costs-fit-process-confirm's rule 1 fixed before it ran. Peeled greedily: a resource
    moved alone among those left is taken, then the next among the rest; taking one only loosens the
    others' condition, so the order found first is as good as any."""
    left = list(resources)
    order: list[tuple[str, str]] = []
    while left:
        found = next(
            (
                (r, v.platform)
                for r in left
                for v in costs
                if _bound(v, r, "low") > MIN_PLANTED_COST
                and all(_bound(v, q, "high") < MIN_PLANTED_COST for q in left if q != r)
            ),
            None,
        )
        if found is None:
            break
        order.append(found)
        left.remove(found[0])
    return ApartCheck(tuple(order), tuple(left))


def _bound(vector: cm.CostVector, resource: str, which: str) -> float:
    """A bound of the resource's cost ratio at PLANTED_COST_CONF; nan when not measured (then no
    comparison holds)."""
    if resource not in vector.resources:
        return math.nan
    value = getattr(vector.ratio(resource).interval(PLANTED_COST_CONF), which)
    return math.nan if value is None else float(value)


def baseline_of(campaign: Campaign, default: str = cm.DEFAULT_BASELINE) -> str:
    """The campaign's design baseline (a compared factor's level, e.g. costs-fit's "1.0/0.0"), else `default`."""
    found = sorted(set(campaign.baselines.values()))
    if len(found) > 1:
        raise ParamsError(samples_path(campaign), f"several experiments with different baselines {found}")
    return found[0] if found else default


def _measures(name: str) -> str:
    r = cm.RESOURCE_BY_NAME[name]
    return f"{r.name} ({r.benchmark} {r.metric})"


def _read(campaign: Campaign, what, **kwargs):
    """`what(campaign.samples, ...)`, a refusal placed in the campaign's samples file."""
    try:
        return what(campaign.samples, **kwargs)
    except ParamsError as exc:
        raise ParamsError(samples_path(campaign), str(exc)) from None


def _no_cost(platforms: Sequence[str], resources: Sequence[str], baseline: str) -> str:
    """Why the platforms of a calibration cannot be priced at `resources`' costs. Pure."""
    named = ", ".join(repr(p) for p in platforms)
    subject = f"platform {named} has" if len(platforms) == 1 else f"platforms {named} have"
    return (
        f"{subject} no cost ratio of {', '.join(_measures(r) for r in resources)} to {baseline} "
        f"(not measured, or in fewer than two blocks beside {baseline})"
    )


class RestNotCalibrated(ParamsError):
    """`prediction_inputs`' refusal of a calibration with platforms without the rest's cost, every such
    platform named (`platforms`). Kept apart from its other refusals so that a caller given the rest
    elsewhere than `--rest` (the paper's `rest_tests`) can name where it was given, with `reason` and
    `rest`."""

    def __init__(self, field: str, reason: str, rest: str, platforms: Sequence[str]):
        self.reason, self.rest, self.platforms = reason, rest, tuple(platforms)
        super().__init__(field, f"{reason}: calibrate it, or predict without --rest")


def priced_in_cpu(campaign: Campaign, resources: Sequence[str]) -> Campaign:
    """The campaign with `resources`' calibrations priced in the machine's CPU per operation
    (`cost_model.cpu_weighted`), a refusal naming its samples file. Pure."""
    return replace(campaign, samples=_read(campaign, cm.cpu_weighted, resources=resources))


#: How `vbench predict --costs` prices the micro-benchmarks: as measured, or in the machine's CPU.
PRICINGS = ("wall", "cpu")


def priced_campaigns(
    pricing: str,
    fit: Campaign,
    calibration: Campaign,
    resources: Sequence[str],
    fit_costs_in: Campaign | None = None,
) -> tuple[Campaign, Campaign, Campaign | None]:
    """(fit, calibration, fit_costs_in) with their costs priced as `vbench predict --costs` prices
    them, before anything is fitted: "wall" as measured; "cpu" the calibration's and the fit's
    configurations' costs (`fit_costs_in`'s where given, else the fit's own calibration) in the
    machine's CPU (`priced_in_cpu`). A campaign of measured jobs is not among them: jobs are not
    costs. One function for the command and the paper (`vbench.paper.costs_pooled`), so a table of
    the paper is the command's. Pure."""
    if pricing not in PRICINGS:
        raise ParamsError("--costs", f"one of {', '.join(PRICINGS)}, not {pricing!r}")
    if pricing == "wall":
        return fit, calibration, fit_costs_in
    calibration = priced_in_cpu(calibration, resources)
    if fit_costs_in is not None:  # the fit's configurations' costs are read from it, not from the fit
        return fit, calibration, priced_in_cpu(fit_costs_in, resources)
    return priced_in_cpu(fit, resources), calibration, None


def format_busy(campaign: Campaign, rows: Sequence[cm.BusyCpus]) -> str:
    """The CPUs each configuration's runs kept busy, as `vbench predict --costs cpu` prints them
    under its table: what each cost was multiplied by. Pure."""
    records = [
        {
            "configuration": b.configuration,
            "resource": b.resource,
            "busy CPUs": f"{b.median:.2f}",
            "runs": str(b.runs),
            "per block": " ".join(f"{v:.2f}" for _, v in b.per_block),
        }
        for b in rows
    ]
    head = f"CPUs each run kept busy in {campaign.name} (machine CPU over the run's wall time; medians over its runs):"
    return "\n".join(["", head, _table(records) if records else "(none recorded)"]) + "\n"


def busy_json(rows: Sequence[cm.BusyCpus]) -> list[dict]:
    """`busy_cpus_of`'s rows as JSON records. Pure."""
    return [
        {
            "configuration": b.configuration,
            "resource": b.resource,
            "median": b.median,
            "runs": b.runs,
            "per_block": [{"block": k, "median": v} for k, v in b.per_block],
        }
        for b in rows
    ]


def prediction_inputs(
    fit: Campaign,
    calibration: Campaign,
    resources: Sequence[str] | None = None,
    *,
    conf: float = cm.DEFAULT_CONF,
    measured_in: Sequence[Campaign] = (),
    fit_costs_in: Campaign | None = None,
    rest: str | None = None,
) -> PredictionInputs:
    """Check both campaigns and gather what `prediction_table` needs; every refusal names the
    campaign's samples file (a fit campaign without jobs, a calibration without native, a resource
    one of them did not measure or the fit cannot tell apart). `resources`: by default, the ones the
    fit's planted slowdowns move (`planted_factors`) and whose planted level moved their cost
    (`planted_checks`, costs-fit rule 1), each one left out named in the notes; named, they are
    fitted as named, a note for each one failing rule 1. `measured_in`: the campaign whose timed jobs
    the predictions are compared with when the calibration timed none (a calibration-only campaign
    beside the study that timed the jobs, as `costs` beside `sandbox`): against the same baseline,
    its platforms matched to the calibration's by name, on the same machine's say-so of the user;
    several campaigns: each job's ratio on a platform pooled over those that measured it
    (`campaign_pool`), the machine's long-run ratio rather than one hour's. `fit_costs_in`: the
    campaign the fit's configurations' costs are read from instead of the fit's own calibration
    (one that calibrated the same planted configurations without Hadoop, to fit a resource the fit
    did not measure): against the same baseline, its configurations matched to the fit's by name,
    on the user's say-so that a planted level's costs are the mechanism's, not the day's. `rest`: a
    resource the fit does not fit whose cost prices the native time the fitted ones leave
    (`cost_model.predict`), refused unless every calibrated platform has its cost (`RestNotCalibrated`)."""
    told = checked_resources(resources) if resources is not None else None
    (rest,) = checked_resources([rest], "--rest") if rest is not None else (None,)
    notes: list[str] = []
    fit_file, cal_file = samples_path(fit), samples_path(calibration)

    # The fit's baseline and its configurations' costs first: rule 1 decides what is fitted.
    fit_baseline = baseline_of(fit)
    if fit_baseline not in fit.platforms:
        raise ParamsError(
            fit_file,
            f"no baseline configuration {fit_baseline!r} (the campaign's configurations: {fit.platforms or 'none'})",
        )
    fit_costs = _fit_costs(fit, fit_baseline, fit_costs_in, conf)
    planted = planted_checks(planted_factors(fit, fit_baseline), fit_costs)
    choice = rule_one(planted, told, fit_file)
    resources = choice.resources
    cm.checked_rest(resources, rest)
    # Each fitted resource's benchmark: what the settings notes compare between campaigns.
    benchmarks = {r: cm.RESOURCE_BY_NAME[r].benchmark for r in resources}
    notes += choice.notes
    levels_fit = levels_resources(fit.samples)
    if told is None and levels_fit:
        notes.append(
            "this fit compares system-call levels (every call stopped, and only some): its design fits "
            f"--resources {','.join(levels_fit)}, whose rule 1 is that the levels move them apart"
        )
    # Named resources: rule 1 asks whether the fit's levels move them apart, not only each one.
    apart = levels_apart(resources, fit_costs) if told is not None else None
    if apart is not None and not apart.passes:
        notes.append(f"{', '.join(apart.unresolved)} fitted as --resources asks, though rule 1 fails: {apart.reason()}")
    if fit_costs_in is not None:
        # Only the fitted resources' ratios: the others are never compared.
        fitted = [r for r in cm.RESOURCES if r.name in resources]
        own = cm.cost_vectors_of(fit.samples, baseline=fit_baseline, resources=fitted, conf=conf)
        notes += costs_disagree(fit_costs, own, resources, samples_path(fit_costs_in), conf)
        # Where the two disagree, a benchmark run two ways is the first thing to rule out.
        notes += settings_differ(
            benchmarks,
            fit_costs_in.samples,
            fit.samples,
            f"the fit's costs ({fit_costs_in.name})",
            f"the fit's own calibration ({fit.name})",
        )

    # The calibration: native beside each platform, every resource measured.
    cal_baseline = baseline_of(calibration)
    if cal_baseline not in calibration.platforms:
        raise ParamsError(
            cal_file,
            f"no {cal_baseline} configuration (the campaign measured {calibration.platforms or 'nothing'}): "
            f"a cost ratio needs {cal_baseline} calibrated on the same machine as the platform. Calibrate "
            f"{cal_baseline} beside it: a design with platforms [{cal_baseline}, <platform>] and the fit's "
            "micro-benchmarks, run with `vbench campaign run <design> --only calibrate`",
        )
    costs = _read(calibration, cm.cost_vectors_of, baseline=cal_baseline, conf=conf)
    if not costs:
        raise ParamsError(cal_file, f"only {cal_baseline} was measured: no platform to predict")
    for v in costs:
        missing = [r for r in resources if r not in v.resources]
        if missing:
            raise ParamsError(
                cal_file,
                f"{_no_cost([v.platform], missing, cal_baseline)}: calibrate it, or leave the resource out with --resources",
            )
    # Every platform without the rest's cost at once: each is a calibration to run again, and one named
    # at a time would take as many refusals to find them all.
    uncosted = [v.platform for v in costs if rest is not None and rest not in v.resources]
    if uncosted:
        raise RestNotCalibrated(cal_file, _no_cost(uncosted, [rest], cal_baseline), rest, uncosted)
    costed = fit_costs_in if fit_costs_in is not None else fit
    notes += settings_differ(
        benchmarks,
        costed.samples,
        calibration.samples,
        f"the fit's costs ({costed.name})",
        f"the calibration ({calibration.name})",
    )
    for m in measured_in:
        _check_beside(
            m,
            cal_baseline,
            "the calibration's",
            "a measured ratio and a prediction must be ratios to the same configuration",
            "measured ratio",
        )
    judged = []
    for c in tuple(measured_in) or (calibration,):
        # A campaign that timed a job in several settings is read in the fit's.
        cut, said = cells_like(
            c.samples, fit.samples, [(j.benchmark, j.metric) for j in cm.JOBS], c.name, also=CLUSTER_FIELDS
        )
        judged.append(replace(c, samples=cut) if said else c)
        notes += said
    per_campaign = [(c, _read(c, cm.job_ratios_of, baseline=cal_baseline, conf=conf)) for c in judged]
    pooled: tuple[PooledRatio, ...] = ()
    if len(judged) > 1:
        pool = pool_job_ratios([(c.name, ratios) for c, ratios in per_campaign])
        measured, pooled = pool.ratios, pool.pooled
        notes += [
            f"{job} on {platform}: measured in one of the campaigns only ({name}), not pooled: left out"
            for job, platform, name in pool.single
        ]
    else:
        measured = per_campaign[0][1]
    # A prediction is of the fit's jobs: the jobs it is compared with must be those jobs.
    for c in judged:
        notes += settings_differ(
            {j.benchmark: j.benchmark for j in cm.JOBS},
            fit.samples,
            c.samples,
            f"the fit ({fit.name})",
            f"the measured jobs ({c.name})",
            ratios="job ratios",
            also=CLUSTER_FIELDS,
        )
    # Costs and jobs timed on different kernels of the machine: gVisor's moved with it.
    read = {
        c.name: c.samples for c in (fit, *([fit_costs_in] if fit_costs_in is not None else []), calibration, *judged)
    }
    notes += kernels_differ(list(read.items()))
    for m, ratios in per_campaign if measured_in else ():
        unmatched = sorted({v.platform for v in costs} - {r.platform for r in ratios}, key=natural_key)
        if unmatched:
            notes.append(
                f"no measured job ratio of {', '.join(unmatched)} in {samples_path(m)} (platforms are matched by name)"
            )

    # The fit: configurations with their job ratios against the design's baseline.
    fit_ratios = _read(fit, cm.job_ratios_of, baseline=fit_baseline, conf=conf)
    if not fit_ratios:
        names = ", ".join(f"{j.benchmark} {j.metric}" for j in cm.JOBS)
        raise ParamsError(
            fit_file,
            f"no job of the suite ({names}) was timed against {fit_baseline!r} in two blocks or more: "
            "nothing to fit (a fit campaign runs the Hadoop jobs under planted slowdowns, "
            "params/experiments/costs-fit.yaml)",
        )
    complete = []
    for v in fit_costs:
        missing = [r for r in resources if r not in v.resources]
        if missing:
            notes.append(f"fit configuration {v.platform} left out: no cost ratio of {', '.join(missing)}")
        else:
            complete.append(v.platform)
    if fit_costs_in is not None:
        timed = {r.platform for r in fit_ratios}
        uncosted = sorted(timed - {v.platform for v in fit_costs}, key=natural_key)
        if uncosted:
            notes.append(
                f"fit configuration(s) {', '.join(uncosted)} left out: not calibrated in {samples_path(fit_costs_in)} "
                "(configurations are matched by name)"
            )
    if not complete:
        lacking = sorted({r for v in fit_costs for r in resources if r not in v.resources})
        raise ParamsError(
            samples_path(fit_costs_in) if fit_costs_in is not None else fit_file,
            f"no configuration has a cost ratio of every resource fitted: "
            f"{', '.join(_measures(r) for r in lacking)} not measured against {fit_baseline!r}",
        )
    designs = []
    for job in sorted({r.job for r in fit_ratios}, key=natural_key):
        timed = {r.platform for r in fit_ratios if r.job == job}
        rows = tuple(p for p in complete if p in timed)
        left = [p for p in complete if p not in timed]
        if left:
            notes.append(f"{job}: configuration(s) {', '.join(left)} left out of its fit (no job ratio)")
        designs.append((job, rows))

    inputs = PredictionInputs(
        fit_path=fit.path,
        fit_baseline=fit_baseline,
        calibration_path=calibration.path,
        calibration_baseline=cal_baseline,
        resources=resources,
        fit_costs=fit_costs,
        fit_ratios=fit_ratios,
        designs=tuple(designs),
        costs=costs,
        measured=measured,
        notes=tuple(notes),
        planted=planted,
        left_out=choice.left_out,
        measured_paths=tuple(m.path for m in measured_in),
        pooled=pooled,
        apart=apart,
        fit_costs_path=fit_costs_in.path if fit_costs_in is not None else None,
        machines=campaign_machines(fit, calibration, measured_in=measured_in, fit_costs_in=fit_costs_in),
        rest=rest,
    )
    # What the fit refuses (too few rows, a resource not moved, or not apart from the others) is
    # decided before its bootstrap: a fit of two draws per job asks it before any real work.
    for job, rows in inputs.designs:
        _fit(inputs, job, rows, conf=conf, n_draws=2, seed=DEFAULT_SEED)
    return inputs


def campaign_machines(
    fit: Campaign,
    calibration: Campaign,
    *,
    measured_in: Sequence[Campaign] = (),
    fit_costs_in: Campaign | None = None,
) -> tuple[mc.CampaignMachines, ...]:
    """The machine (CPU models) of each campaign `prediction_inputs` reads, each with its part."""
    read = (
        (mc.FIT, fit),
        (mc.FIT_COSTS, fit_costs_in),
        (mc.CALIBRATION, calibration),
        *((mc.MEASURED, m) for m in measured_in),
    )
    return tuple(mc.campaign_machines(role, c) for role, c in read if c is not None)


def costs_disagree(
    costs: Sequence[cm.CostVector],
    own: Sequence[cm.CostVector],
    resources: Sequence[str],
    costs_file: str,
    conf: float = cm.DEFAULT_CONF,
) -> list[str]:
    """A note per fitted resource and configuration that `--fit-costs`' campaign (`costs`, read
    from `costs_file`) and the fit's own calibration (`own`) both measured, with intervals that do
    not overlap: the fit's shares then depend on which campaign's plant is read, since a planted
    level's cost was the day's or the campaign's, not the mechanism's alone (costs-jvm-levels moved
    spawn x6.05 [5.90, 6.22] where costs-fit-intel, the same morning, moved it x8.33 [8.07, 8.59]).
    Pure."""
    theirs = {v.platform: v for v in costs}
    notes = []
    for mine in own:
        other = theirs.get(mine.platform)
        if other is None:
            continue
        for r in resources:
            if r not in mine.resources or r not in other.resources:
                continue
            a, b = other.ratio(r).interval(conf), mine.ratio(r).interval(conf)
            if a.high < b.low or b.high < a.low:
                notes.append(
                    f"{r} in {mine.platform}: {costs_file} measured it x{_interval(a)}, the fit's own calibration "
                    f"x{_interval(b)}; the intervals do not overlap, so the fit's shares depend on which campaign's "
                    "plant is read (the fit reads --fit-costs')"
                )
    return notes


def _check_beside(other: Campaign, baseline: str, whose: str, why: str, what: str) -> None:
    """`other` (a campaign read beside the fit or the calibration) compares against `baseline` and
    measured it; else refused naming its samples file, `whose` baseline it differs from and `why` it
    must not, or that it has no `what` to it."""
    if baseline_of(other) != baseline:
        raise ParamsError(samples_path(other), f"its baseline is {baseline_of(other)!r}, {whose} {baseline!r}: {why}")
    if baseline not in other.platforms:
        raise ParamsError(samples_path(other), f"no {baseline} configuration: no {what} to it")


def _fit_costs(fit: Campaign, baseline: str, costs_in: Campaign | None, conf: float) -> tuple[cm.CostVector, ...]:
    """The fit's configurations' cost vectors: from the fit's own calibration, or from `costs_in`,
    which must compare the same baseline configuration and have calibrated it."""
    if costs_in is None:
        return _read(fit, cm.cost_vectors_of, baseline=baseline, conf=conf)
    _check_beside(
        costs_in,
        baseline,
        "the fit's",
        "the fit's configurations' costs must be ratios to the configuration its job ratios are",
        "cost ratio",
    )
    costs = _read(costs_in, cm.cost_vectors_of, baseline=baseline, conf=conf)
    if not {v.platform for v in costs} & set(fit.platforms):
        raise ParamsError(
            samples_path(costs_in),
            f"none of its configurations ({', '.join(v.platform for v in costs) or 'none'}) is one of the fit's "
            f"({', '.join(p for p in fit.platforms if p != baseline)}): configurations are matched by name",
        )
    return costs


def _fit(inputs: PredictionInputs, job: str, rows: tuple[str, ...], **kwargs) -> cm.JobFit:
    try:
        return cm.fit_job(job, inputs.fit_costs, inputs.fit_ratios, design=rows, resources=inputs.resources, **kwargs)
    except ParamsError as exc:
        raise ParamsError(
            str(inputs.fit_path / "samples.jsonl"), f"the fit of {job} refuses it: {exc} (--resources chooses them)"
        ) from None


# --- Computing ------------------------------------------------------------------------------------


def fitted_jobs(fits: Sequence[cm.JobFit]) -> tuple[FittedJob, ...]:
    """Every job's fit with its lack-of-fit p-value adjusted by Holm over all of `fits`: which
    jobs' additive form is rejected (`FittedJob.rejected`), here and in the paper's section."""
    adjusted = holm([f.lack_of_fit_p for f in fits])
    return tuple(FittedJob(f, float(p)) for f, p in zip(fits, adjusted))


def prediction_table(
    inputs: PredictionInputs,
    *,
    phases: Sequence[PhaseRatio] = (),
    attempts: Sequence[AttemptRuns] = (),
    task_cpu: Sequence[PlatformResource] = (),
    conf: float = cm.DEFAULT_CONF,
    n_draws: int = cm.DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
    blocks: int | None = None,
    nonnegative: bool = False,
) -> PredictionTable:
    """Each job fitted on the fit campaign, each platform's ratio predicted and attributed, with
    the calibration's measured `phases` of that job and platform beside it, and its runs with an
    unsuccessful task attempt (`attempts`) and its tasks' CPU time (`task_cpu`) beside the table. Each row's prediction
    interval is for a measurement of `blocks` blocks (a campaign one plans); by default of as many
    as its measured ratio's, or, with none, as the fit's rows'; where the measured ratio is pooled
    over campaigns (`PredictionInputs.pooled`), of such a pooled ratio. `nonnegative` fits the shares
    bounded at 0 (`cost_model.fit_job`)."""
    if n_draws < 2:
        raise ParamsError("--draws", f"at least 2 bootstrap draws, not {n_draws}")
    if blocks is not None and blocks < 2:
        raise ParamsError("--blocks", f"a measured ratio needs two blocks or more, not {blocks}")
    fits = [
        _fit(inputs, job, rows, conf=conf, n_draws=n_draws, seed=seed, nonnegative=nonnegative)
        for job, rows in inputs.designs
    ]
    fitted = fitted_jobs(fits)
    rows = []
    pooled = {(p.job, p.platform): p for p in inputs.pooled}
    for costs in inputs.costs:
        for f in fits:
            measured = next((m for m in inputs.measured if m.job == f.job and m.platform == costs.platform), None)
            pool = pooled.get((f.job, costs.platform)) if blocks is None else None
            planned = blocks if blocks is not None or measured is None else cm.measured_blocks(measured.ratio)
            pred = cm.predict(f, costs, planned, rest=inputs.rest)
            if pool is not None:
                pred = replace(pred, measurement=cm.pooled_measurement(f, pred, pool.ratio), blocks=None)
            rows.append(
                PredictedJob(
                    costs.platform,
                    f.job,
                    pred.ratio,
                    cm.attribute(f, costs, measured, rest=inputs.rest),
                    measured.ratio.interval(conf) if measured is not None else None,
                    tuple(p for p in phases if p.job == f.job and p.platform == costs.platform),
                    pred.measurement,
                    pred.blocks,
                    len(pool.readings) if pool is not None else None,
                )
            )
    return PredictionTable(
        inputs, fitted, tuple(rows), conf, n_draws, seed, tuple(attempts), tuple(task_cpu), nonnegative
    )


def design_seed(campaign_dir: Path) -> int | None:
    """The seed a campaign's design names (campaign.json), which its analysis reuses; None if none."""
    meta = Path(campaign_dir) / "campaign.json"
    if not meta.is_file():
        return None
    try:
        seed = json.loads(meta.read_text(encoding="utf-8")).get("experiment", {}).get("seed")
    except (json.JSONDecodeError, AttributeError):
        raise ParamsError(str(meta), "not a campaign description (JSON with an experiment)") from None
    return int(seed) if isinstance(seed, int) and not isinstance(seed, bool) else None


def fit_seed(fit_dir: Path) -> int:
    """The seed `vbench predict` fits and predicts with when not told one: the fit campaign's design
    seed (`design_seed`), else DEFAULT_SEED. The paper's section and the statistics stage's
    predictions take it so, so their numbers are the command's."""
    found = design_seed(fit_dir)
    return DEFAULT_SEED if found is None else found


# --- Rendering ------------------------------------------------------------------------------------


def _num(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x:.2f}" if abs(x) < 10 else f"{x:.1f}"


def _interval(iv: Interval | None) -> str:
    if iv is None or iv.estimate is None:
        return "-"
    if not iv.bounded:
        return f"{_num(iv.estimate)} (no interval)"
    return f"{_num(iv.estimate)} [{_num(iv.low)}, {_num(iv.high)}]"


def _measurement(row: PredictedJob) -> str:
    """The prediction interval of a measurement and its blocks, or '-' where the noise is not known."""
    iv = row.measurement
    if iv is None or (row.blocks is None and row.campaigns is None):
        return "-"
    count = f"{row.blocks} b" if row.blocks is not None else f"{row.campaigns} c"
    return f"[{_num(iv.low)}, {_num(iv.high)}] ({count})"


def _pct(x: float | None, signed: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    x = 100 * x if round(100 * x) != 0 else 0.0  # no "-0 %"
    return f"{x:+.0f} %" if signed else f"{x:.0f} %"


def _p(p: float) -> str:
    return "-" if math.isnan(p) else f"{p:.2g}"


def _table(records: list[dict[str, str]]) -> str:
    """Records (one per line, the same keys) as left-aligned columns under their keys."""
    if not records:
        return ""
    keys = list(records[0])
    widths = {k: max(len(k), *(len(r.get(k, "")) for r in records)) for k in keys}
    lines = [[k for k in keys], *([r.get(k, "") for k in keys] for r in records)]
    return "\n".join("  ".join(cell.ljust(widths[k]) for cell, k in zip(line, keys)).rstrip() for line in lines)


def _took(timings: Sequence[tuple[str, float]]) -> str:
    total = sum(s for _, s in timings)
    parts = ", ".join(f"{what} {s:.1f} s" for what, s in timings)
    return f"Took {total:.1f} s" + (f" ({parts})." if len(timings) > 1 else ".")


def format_prediction(table: PredictionTable, timings: Sequence[tuple[str, float]] = ()) -> str:
    """The table as text: the campaigns and the machines they ran on (a warning where the fit's is
    not the predicted one's), the fit (per job its shares and lack of fit), then per platform its
    costs and per job the predicted ratio with its interval and each resource's part, and the
    jobs' measured phases where the calibration recorded them; last, how long it took
    (`timings`: what, seconds)."""
    inp = table.inputs
    level = round(100 * table.conf)
    out = [
        f"Fit: {inp.fit_path} against {inp.fit_baseline}; calibration: {inp.calibration_path} against "
        f"{inp.calibration_baseline}"
        + (f"; measured jobs: {', '.join(map(str, inp.measured_paths))}" if inp.measured_paths else "")
        + (f"; the fit's configurations' costs: {inp.fit_costs_path}" if inp.fit_costs_path is not None else ""),
        # Beside the campaigns, before any number: a fit carried to another machine may be far off.
        *mc.machines_lines(inp.machines),
        f"Resources: {', '.join(inp.resources)}"
        + (
            f" ({', '.join(c.resource for c in inp.left_out)} left out by rule 1: see the notes)"
            if inp.left_out
            else ""
        )
        + f"; {level} % intervals from {table.n_draws} bootstrap draws, seed {table.seed}"
        + ("; shares bounded at 0 (--shares nonnegative)" if table.nonnegative else "")
        + (
            f"; the rest of native time (1 less the shares, at least 0) priced at {inp.rest}'s cost as measured "
            f"(--rest {inp.rest})"
            if inp.rest is not None
            else ""
        ),
    ]
    if inp.apart is not None and inp.apart.passes:
        moved = ", then ".join(f"{r} in {c}" for r, c in inp.apart.order)
        out.append(f"Rule 1 for the named resources: the fit's configurations move them apart ({moved}).")
    out += [
        "",
        f"The fit's configurations against {inp.fit_baseline}: each resource's cost ratio, then each job's time ratio:",
    ]
    out.append(_table(_configuration_records(inp, table.conf)))
    out += [
        "",
        "Shares of native time that scale with each resource's cost (per job, fitted on the fit's configurations):",
    ]
    records = []
    for fj in table.fits:
        f = fj.fit
        rec = {"job": f.job, "rows": str(len(f.design))}
        rec.update({c.resource: f"{c.estimate:.3f} [{c.low:.3f}, {c.high:.3f}]" for c in f.coefficients})
        rec["total"] = f"{f.total_share:.2f}"
        rec["lack of fit p (Holm)"] = f"{_p(f.lack_of_fit_p)} ({_p(fj.lack_of_fit_p_holm)})" + (
            " additive form rejected" if fj.rejected else ""
        )
        records.append(rec)
    out.append(_table(records))
    measured_any = any(r.measured is not None for r in table.rows)
    for costs in inp.costs:
        out += ["", f"Platform {costs.platform}: cost over {inp.calibration_baseline}'s"]
        out.append("  " + ", ".join(f"{r} {_interval(costs.ratio(r).interval(table.conf))}" for r in inp.priced))
        records = []
        for row in (r for r in table.rows if r.platform == costs.platform):
            rec = {
                "job": row.job,
                f"predicted ratio [{level} %]": _interval(row.predicted),
                f"a measurement [{level} % PI]": _measurement(row),
            }
            for t in row.attribution.terms:
                rec[t.resource] = f"{_pct(t.extra_time, signed=True)} ({_pct(t.share)})"
            if measured_any:
                rec[f"measured [{level} %]"] = _interval(row.measured)
                un = row.attribution.unexplained_log
                rec["unexplained"] = _pct(math.exp(un) - 1, signed=True) if un is not None else "-"
            records.append(rec)
        out.append(_table(records))
        phased = [r for r in table.rows if r.platform == costs.platform and r.phases]
        if phased:
            out += ["", f"Measured phases on {costs.platform}:"]
            phases = [_phase_record(ph, level, inp.calibration_baseline) for row in phased for ph in row.phases]
            out.append(_table(phases))
    if inp.pooled:
        out += ["", f"Measured ratios pooled over {len(inp.measured_paths)} campaigns:"]
        out.append(_table([_pooled_record(p, table.conf) for p in inp.pooled]))
    if any(a.any for a in table.attempts):
        out += ["", "Measured runs with a task attempt that did not succeed (JobHistory):"]
        out.append(_table([_attempt_record(a) for a in table.attempts]))
    if table.task_cpu:
        out += [
            "",
            f"Task CPU time over {inp.calibration_baseline}'s (JobHistory's CPU_MILLISECONDS, medians over the runs):",
        ]
        with_note = any(r.note for r in table.task_cpu)
        out.append(_table([_task_cpu_record(r, with_note) for r in table.task_cpu]))
    out += [
        "",
        "Per resource: the extra time its cost explains, as a share of native time (they add up to the "
        "predicted ratio - 1), and (its part of the predicted overhead)."
        + (
            f" {cm.REST_TERM.format(inp.rest)}: the native time no fitted resource explains (1 less the job's "
            f"shares, at least 0) at {inp.rest}'s cost."
            if inp.rest is not None
            else ""
        ),
        "a measurement: where the ratio a campaign of that many blocks (b) finds should fall: the job's "
        "run-to-run noise on the fit's configurations added to the predicted ratio's interval (which carries "
        "the fit's and the calibrations' uncertainty only).",
    ]
    if inp.pooled:
        out.append(
            "pooled: each job's ratio on a platform over the campaigns that measured it, the mean of their log "
            "ratios (each campaign weighted alike), its interval a t on their number (c) less one: the machine's "
            "long-run ratio, which a model of costs predicts. Its prediction interval is for such a pooled ratio: "
            "the campaigns' own spread added to the predicted ratio's interval. sd between: the campaigns' log "
            "ratios' standard deviation; the hour's: what of it their own intervals do not explain."
        )
    if measured_any:
        out.append("unexplained: measured / predicted - 1, what the calibrated costs do not explain.")
    acc = accuracy(table.rows)
    if acc is not None:
        out += ["", *format_accuracy(acc)]
    if any(a.any for a in table.attempts):
        out.append(
            "speculated: a run in which YARN found a task slow enough to start a second attempt of it beside the "
            'first, and killed the one that finished second (JobHistory\'s "Speculation: ... succeeded first!"): a '
            "straggler's time, which no calibrated cost prices, and a second attempt holding a core while it ran; "
            "lost: one failed or killed otherwise."
        )
    if table.task_cpu:
        out.append(
            "Task CPU time: what the job's task attempts spent on a CPU, as their own /proc counts it (inside "
            "gVisor, the Sentry's account, its work for them included), median over the runs (`vbench campaign "
            "profile`): on shared cores a job is slowed by what its tasks spend as well as by what their calls "
            "wait for, which the calibrated costs (times per operation) do not tell apart."
        )
    if any(r.phases for r in table.rows):
        out.append(
            "Measured phases: each JobHistory phase's ratio to the baseline, the preferred ratio_to_baseline "
            "row of the calibration's statistics table, and its share of the baseline's job time (map_shuffle "
            "and reduce_merge add up to the job; a reducer_ phase is one reducer's, averaged over its reducers)."
        )
    notes = list(inp.notes) + [
        f"{r.platform} {r.job}: {note}" for r in table.rows for note in (r.predicted.note, r.attribution.note) if note
    ]
    notes += [
        f"{r.platform} {r.job} {ph.phase}: no ratio ({ph.ratio.note or 'the statistics table gives none'})"
        for r in table.rows
        for ph in r.phases
        if ph.ratio.estimate is None
    ]
    out += [f"note: {n}" for n in dict.fromkeys(notes)]
    if timings:
        out.append(_took(timings))
    return "\n".join(out) + "\n"


def configuration_ratios(inputs: PredictionInputs) -> tuple[tuple[str, dict[str, cm.LogRatio]], ...]:
    """Each fit configuration with the ratios the fit reads of it against the fit's baseline: every
    resource its calibration measured, then every job it timed (what rule 1 and the shares stand
    on, and, between two planted levels, how much of a job's slowdown each level gives). Pure."""
    out = []
    for v in inputs.fit_costs:
        ratios = {c.resource: c.ratio for c in v.costs}
        ratios.update({r.job: r.ratio for r in inputs.fit_ratios if r.platform == v.platform})
        out.append((v.platform, ratios))
    return tuple(out)


def _configuration_records(inputs: PredictionInputs, conf: float) -> list[dict[str, str]]:
    rows = configuration_ratios(inputs)
    names = list(dict.fromkeys(n for _, ratios in rows for n in ratios))
    # One line per resource or job, one column per configuration: a fit has few configurations.
    return [
        {
            "ratio of": n,
            **{config: _interval(ratios[n].interval(conf)) if n in ratios else "-" for config, ratios in rows},
        }
        for n in names
    ]


def _phase_record(ph: PhaseRatio, level: int, baseline: str) -> dict[str, str]:
    return {
        "job": ph.job,
        "phase": ph.phase,
        f"ratio [{level} %]": _interval(ph.ratio),
        f"share of {baseline}'s job": _pct(ph.native_share),
    }


def _task_cpu_record(r: PlatformResource, with_note: bool) -> dict[str, str]:
    """A task CPU row as printed; the note column only when some row has a note."""
    shown = {
        "platform": r.platform,
        "job": r.step,
        f"{r.baseline} (ms)": "-" if r.baseline_median is None else f"{r.baseline_median:.0f}",
        "ms": "-" if r.median is None else f"{r.median:.0f}",
        "ratio": "-" if r.ratio is None else f"{r.ratio:.2f}",
    }
    return (shown | {"note": r.note}) if with_note else shown


def _pooled_record(p: PooledRatio, conf: float) -> dict[str, str]:
    return {
        "platform": p.platform,
        "job": p.job,
        f"pooled [{round(100 * conf)} %]": _interval(p.ratio.interval(conf)),
        "c": str(len(p.readings)),
        "sd between (the hour's)": f"{p.between_sd:.3f} ({p.hour_sd:.3f})",
        "each campaign's ratio": ", ".join(f"{r.campaign} {_num(r.ratio.estimate)}" for r in p.readings),
    }


def _attempt_record(a: AttemptRuns) -> dict[str, str]:
    return {
        "platform": a.platform,
        "job": a.job,
        "runs speculated": f"{a.speculated} of {a.runs}",
        "runs lost": f"{a.lost} of {a.runs}",
        "attempts (map, reduce)": f"{a.maps}, {a.reduces}",
    }


def _clean(x: Any) -> Any:
    """A JSON value: nan and inf as null."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _accuracy_json(acc: Accuracy | None) -> dict | None:
    if acc is None:
        return None
    # JSON has no tuple: the platforms as the list a round trip gives.
    return {**asdict(acc), "platforms": [asdict(p) for p in acc.platforms]}


def interval_json(iv: Interval | None) -> dict | None:
    if iv is None:
        return None
    return {"estimate": _clean(iv.estimate), "low": _clean(iv.low), "high": _clean(iv.high), "note": iv.note}


def pooled_json(p: PooledRatio) -> dict:
    return {
        "job": p.job,
        "platform": p.platform,
        "readings": [{"campaign": r.campaign, "ratio": r.ratio.estimate, "log_se": r.ratio.log_se} for r in p.readings],
        "between_sd": p.between_sd,
        "hour_sd": p.hour_sd,
    }


def prediction_json(table: PredictionTable, timings: Sequence[tuple[str, float]] = ()) -> dict:
    """The table as a JSON document (`timings`: what, seconds)."""
    inp = table.inputs
    return {
        "fit": {
            "campaign": str(inp.fit_path),
            "baseline": inp.fit_baseline,
            "costs_campaign": str(inp.fit_costs_path or inp.fit_path),
        },
        "calibration": {"campaign": str(inp.calibration_path), "baseline": inp.calibration_baseline},
        "measured": {
            "campaigns": [str(p) for p in inp.measured_paths or (inp.calibration_path,)],
            "pooled": [pooled_json(p) for p in inp.pooled],
        },
        "machines": mc.machines_json(inp.machines),
        "machine_warning": mc.machine_warning(inp.machines),
        "resources": list(inp.resources),
        "shares": "nonnegative" if table.nonnegative else "free",
        "rest": inp.rest,
        "rule_1": [
            {
                "factor": c.factor,
                "resource": c.resource,
                "passes": c.passes,
                "fitted": c.resource in inp.resources,
                "lower_bounds": {p.configuration: p.low for p in c.costs},
            }
            for c in inp.planted
        ],
        "apart": None
        if inp.apart is None
        else {
            "passes": inp.apart.passes,
            "order": [{"resource": r, "configuration": c} for r, c in inp.apart.order],
            "unresolved": list(inp.apart.unresolved),
        },
        "configurations": [
            {"configuration": config, "ratios": {n: interval_json(r.interval(table.conf)) for n, r in ratios.items()}}
            for config, ratios in configuration_ratios(inp)
        ],
        "conf": table.conf,
        "draws": table.n_draws,
        "seed": table.seed,
        "jobs": [
            {
                "job": fj.fit.job,
                "design": list(fj.fit.design),
                "shares": {
                    c.resource: {"estimate": c.estimate, "low": c.low, "high": c.high, "se": c.se}
                    for c in fj.fit.coefficients
                },
                "total_share": fj.fit.total_share,
                "lack_of_fit_p": _clean(fj.fit.lack_of_fit_p),
                "lack_of_fit_p_holm": _clean(fj.lack_of_fit_p_holm),
                "additive_form_rejected": fj.rejected,
            }
            for fj in table.fits
        ],
        "platforms": [
            {
                "platform": v.platform,
                "costs": {r: interval_json(v.ratio(r).interval(table.conf)) for r in inp.priced},
            }
            for v in inp.costs
        ],
        "predictions": [
            {
                "platform": r.platform,
                "job": r.job,
                "predicted": interval_json(r.predicted),
                "prediction_interval": None
                if r.measurement is None or (r.blocks is None and r.campaigns is None)
                else {**interval_json(r.measurement), "blocks": r.blocks, "campaigns": r.campaigns},
                "measured": interval_json(r.measured),
                "unexplained_log": _clean(r.attribution.unexplained_log),
                "attribution": [
                    {
                        "resource": t.resource,
                        "cost_ratio": t.cost_ratio,
                        "time_share": t.time_share,
                        "extra_time": t.extra_time,
                        "share": t.share,
                        "log_overhead": t.log_overhead,
                    }
                    for t in r.attribution.terms
                ],
                "phases": [
                    {
                        "phase": ph.phase,
                        "metric": ph.metric,
                        "baseline": ph.baseline,
                        "ratio": interval_json(ph.ratio),
                        "method": ph.method,
                        "native_share": _clean(ph.native_share),
                    }
                    for ph in r.phases
                ],
                "note": "; ".join(n for n in (r.predicted.note, r.attribution.note) if n),
            }
            for r in table.rows
        ],
        "attempts": [asdict(a) for a in table.attempts],
        "task_cpu": [
            {
                "platform": r.platform,
                "job": r.step,
                "baseline": r.baseline,
                "median_ms": _clean(r.median),
                "baseline_median_ms": _clean(r.baseline_median),
                "ratio": _clean(r.ratio),
                "runs": r.recorded,
                "note": r.note,
            }
            for r in table.task_cpu
        ],
        "accuracy": _accuracy_json(accuracy(table.rows)),
        "notes": list(inp.notes),
        "seconds": {what: s for what, s in timings} | ({"total": sum(s for _, s in timings)} if timings else {}),
    }
