"""A Hadoop job's overhead on a platform from the platform's costs (issue #53 items 3 and 4). Pure.

The model. For a job j on a platform p, with x_r = c_r(p) / c_r(native) the platform's cost ratio
of resource r (what one unit of r takes: a time as measured, a throughput as its reciprocal):

    T_j(p) / T_j(native) = 1 + sum_r s_jr (x_r - 1)

s_jr is the share of the job's native time that scales with resource r's cost: a job spending a
fifth of its native time on round trips pays 0.2 x 6.3 = +126 % where a round trip costs 7.3 times
native's. The shares are fitted per job on native hosts under planted slowdowns (testbed.slowdown:
CPU quota, netem delay and rate, blkio throttle), whose cost vector the same micro-benchmarks
measure; then a platform never in the fit is predicted from its calibration alone.

Why this form and not the log-linear one, log(T_p / T_n) = sum_r b_jr log(x_r). Both fit
slowdowns near native alike (b_jr ~ s_jr for small x), but the model is fitted on slowdowns of a
few times native and used where costs are 7 to 130 times native (gVisor's round trip, TCP
throughput, system call): there the two part. Time spent waiting on a resource grows linearly with
what each use costs, which is what the additive-time form says; the log form's constant elasticity
says a share of 0.2 turns a 7.3x round trip into 7.3^0.2 = 1.49x instead of 2.26x, and so
under-predicts every large cost for a reason with no physics behind it. The additive form's terms
are shares of native time (>= 0, summing to at most 1 when nothing overlaps: `JobFit.total_share`
says where they do not), and its attribution is exact: the predicted extra time is the sum of the
terms. What it assumes, and a factorial design can test (params/experiments/costs-fit.yaml):
resources' extra times add (no overlap hiding one behind another), and a resource's cost reaches
the job as the micro-benchmark measured it.

Fit. Weighted least squares of R - 1 on x - 1 without intercept (the unplanted configuration is R = 1
at x = 1 by definition), one row per planted configuration, weights 1 / the row's effective
variance (the ratio's own, plus what each cost's calibration error moves through the fitted
shares: the effective-variance method for errors in the regressors, iterated twice from OLS;
statsmodels' WLS standard errors at the final weights are kept beside, for comparison). A
design whose rows do not move a resource beyond its calibration's noise (Fisher's combination of
each row's t test: a system call is not slowed by any planted slowdown) or not independently of
the others (an exact linear dependence) is refused naming it: its share cannot be told apart.

Uncertainty. A parametric bootstrap (seeded, deterministic): every draw redraws each design row's
ratio and costs from their intervals (log scale, Student t on each interval's own degrees of
freedom, cut at the 0.05 % tails), refits, and pairs the refit shares with a draw of the predicted platform's costs; the
percentile interval of the predicted ratio carries the fit's and both calibrations' uncertainty.
The rows are not independent: each is a ratio to the same baseline runs of every block, so the
baseline's noise moves them all alike. Records made from a campaign's samples carry their blocks'
log ratios (`LogRatio.blocks`), and then the rows' ratios and costs are drawn jointly: a
multivariate t with their covariance across blocks (`joint_log_draws`, which says why not a block
bootstrap). Records with only a summary are drawn independently, as before. On costs-fit-shaped
campaigns (selfbench/cost_model_coverage.py, 5 blocks, 2 x 100 seeded pairs) the 95 % prediction
intervals held the true ratio in 95.2 and 95.5 % of 400 drawn jointly, 91.5 and 90.0 % drawn
independently; the shares' intervals in 91.5 to 92.8 % (of 800) drawn jointly, short of 95 %
because the WLS weights come from each row's own variance on 4 degrees of freedom (rows whose
noise happened to look small weigh more and claim a smaller error; with equal weights the same
draws cover 95 to 99 % per share). docs/statistics.md has the table.
Bounded shares (`fit_job(nonnegative=True)`, `vbench predict --shares nonnegative`): the same weights
and draws, each solved with every share >= 0 (`nonnegative_solve`), since a share of native time
cannot be negative and a free share below 0 times a large cost drags a prediction down. Where every
free share is positive the two fits are the same.
The rest (`predict(rest=...)`, `vbench predict --rest cpu`): the native time no fitted share
explains, max(0, 1 - sum s_r), is priced at a resource's cost instead of at native's, for a
platform that slows every instruction (QEMU under TCG); the shares are not refitted, the fit's
configurations being taken to run that resource at native's cost.
When the fit's residuals are larger than the intervals say (Birge ratio sqrt(scale) > 1: the model
misses something, or the ratios' intervals are too narrow) the ratios' draws are widened by it, so
lack of fit widens the prediction instead of hiding in it; `JobFit.lack_of_fit_p` reports it.
Not carried: a held-out platform's own departure from the model (a resource it pays that no
micro-benchmark measures), which is what the prediction error is there to show.
That interval is the platform's ratio's. What a campaign measures of it carries the job's own
run-to-run noise besides: `predict` also gives the prediction interval of a ratio measured in a
given number of blocks, the ratio's draws times a t draw of that noise as the fit's rows show it
(`run_noise`, the two-way residual of their blocks), which is what a measured ratio is held against
(`PredictionRow.inside_prediction`).

Attribution (item 4). The predicted log overhead log(R_hat) is split over the resources in
proportion to their extra-time terms s_r (x_r - 1): the shares sum to 1, their log parts to
log(R_hat) (the explained part), and log(measured) - log(R_hat) is the unexplained rest. A priced
rest is one more term, `rest@RESOURCE`.

Inputs are records: `CostVector` (a platform's cost ratios to native with intervals), `JobRatio`
(a job's measured time ratio to native with its interval). `cost_vectors_of` and `job_ratios_of`
make them from a campaign's samples as `vbench.stats.campaign.load_campaign` reads them, paired by
block as every ratio of the statistics table is (vbench.stats.paired).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from statsmodels.regression.linear_model import WLS
from scipy import stats

from vbench.errors import ParamsError
from vbench.samples import MACHINE_CPU_FIELD, MACHINE_WALL_FIELD
from vbench.stats.keys import natural_key
from vbench.stats.paired import pair_runs, paired_ratio
from vbench.stats.records import Interval
from vbench.stats.table.rows import DEFAULT_SEED, seeded_rng

#: Bootstrap draws per fit and per prediction: the Monte Carlo error of a 95 % percentile limit
#: is then small beside the calibration's own.
DEFAULT_DRAWS = 2000
DEFAULT_CONF = 0.95
DEFAULT_BASELINE = "native"


# --- What is measured: resources and jobs --------------------------------------------------------


@dataclass(frozen=True)
class Resource:
    """One entry of a platform's cost vector: the calibration metric that measures it."""

    name: str
    benchmark: str
    #: As `load_campaign` names it.
    metric: str
    #: A throughput: its cost (time per unit) is the reciprocal.
    higher_is_better: bool


#: The cost vector the committed campaigns can fill (sandbox, reference: cpu, membw, fio, iperf3,
#: latency; costs: syscall, spawn, jvmstart; fileopen since costs-nnbench-barrier asked for it;
#: rpc since a JVM's calls were found priced unlike dd's; jvmcpu for a priced rest, `--rest`;
#: pagefault since QEMU's process cost lay far above its call's and its memory bandwidth's).
RESOURCES: tuple[Resource, ...] = (
    Resource("cpu", "cpu", "events_per_s", True),
    Resource("membw", "membw", "bandwidth", True),
    Resource("disk_seq_read", "fio", "seq_read_bw", True),
    Resource("disk_seq_write", "fio", "seq_write_bw", True),
    Resource("disk_random_read", "fio", "randread_iops", True),
    Resource("net_throughput", "iperf3", "throughput_mean", True),
    Resource("round_trip", "latency", "rtt_mean", False),
    Resource("syscall", "syscall", "syscall_ns", False),
    Resource("spawn", "spawn", "spawn_us", False),
    Resource("jvmstart", "jvmstart", "jvm_start_ms", False),
    Resource("fileopen", "fileopen", "fileopen_us", False),
    Resource("rpc", "rpc", "rpc_us", False),
    Resource("jvmcpu", "jvmcpu", "jvmcpu_ms", False),
    Resource("pagefault", "pagefault", "pagefault_us", False),
)
#: The cost vector's resources by name.
RESOURCE_BY_NAME: dict[str, Resource] = {r.name: r for r in RESOURCES}


@dataclass(frozen=True)
class Job:
    """A Hadoop job of the suite whose time the model explains: the time sample it reads, as
    `load_campaign` names it (a JobHistory job's time, or NNBench's time per operation)."""

    name: str
    benchmark: str
    metric: str

    @property
    def step(self) -> str | None:
        """The benchmark step whose JobHistory job `metric` is the time of (`terasort.job_time` ->
        `terasort`), whose phases split it; None for a time that is not a JobHistory job's."""
        head, dot, tail = self.metric.rpartition(".")
        return head if dot and tail == JOB_TIME else None


#: The name of a JobHistory job's time under its step (`terasort.job_time`).
JOB_TIME = "job_time"

#: The suite's jobs (sandbox's sizes), by the time sample `load_campaign` names. NNBench's is its
#: own time per operation (the maps' operations after its barrier over their number, "Avg exec
#: time"), not its job's: the maps sleep at a barrier set when the job is submitted, so on native
#: most of the job's time is start-up and a sleep that absorbs any slowdown of that start-up, and
#: on a platform whose start-up outlasts the barrier (gVisor) none is absorbed. A time with a
#: sleep in it is proportional to no cost (docs/results.md, "NNBench's barrier"); the time per
#: operation is, and it is what the paper's NNBench numbers are.
JOBS: tuple[Job, ...] = (
    Job("terasort", "terasort", "terasort.job_time"),
    Job("wordcount", "wordcount", "wordcount.job_time"),
    Job("nnbench_create_write", "nnbench", "create_write_avg_exec_time"),
    Job("nnbench_open_read", "nnbench", "open_read_avg_exec_time"),
    Job("dfsio_write", "dfsio", "write.job_time"),
)

#: The jobs whose time is a JobHistory job's, which its phases split.
PHASED_JOBS: tuple[Job, ...] = tuple(job for job in JOBS if job.step is not None)


def _t_tails(df: float) -> tuple[float, float]:
    high = float(stats.t.ppf(1 - TAIL_CUT, df))
    return -high, high


#: Each tail of an input's t distribution cut off in the bootstrap's draws (see LogRatio.draws).
TAIL_CUT = 0.0005


# --- Records ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LogRatio:
    """A ratio to native as its log and the log's standard error, with the degrees of freedom of
    the t its interval came from (inf: normal). Every input of the model is one."""

    log_estimate: float
    log_se: float
    df: float = math.inf
    #: The blocks' own mean log ratios, (block, value) in the blocks' order, when the ratio was
    #: measured from a campaign's samples (`cost_vectors_of`, `job_ratios_of`): log_estimate is
    #: their mean, log_se their standard error, df their number less one. What lets `fit_job`
    #: draw the ratios measured against the same baseline runs jointly (see `joint_log_draws`);
    #: None when only the summary is known (the draws are then independent).
    blocks: tuple[tuple[str, float], ...] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not math.isfinite(self.log_estimate):
            raise ParamsError("log_estimate", f"{self.log_estimate!r} is not a finite number")
        if not (math.isfinite(self.log_se) and self.log_se >= 0):
            raise ParamsError("log_se", f"{self.log_se!r} is not a finite number >= 0")
        if not self.df > 0:
            raise ParamsError("df", f"{self.df!r} is not > 0")
        if self.blocks is not None:
            self._check_blocks()

    def _check_blocks(self) -> None:
        names = [b for b, _ in self.blocks]
        values = np.array([v for _, v in self.blocks], dtype=float)
        if len(names) < 2 or len(set(names)) != len(names) or not np.isfinite(values).all():
            raise ParamsError("blocks", f"need two or more distinct blocks with finite log ratios, got {self.blocks!r}")
        if self.df != len(names) - 1:
            raise ParamsError(
                "blocks", f"{len(names)} blocks give {len(names) - 1} degrees of freedom, not {self.df!r}"
            )
        se = float(values.std(ddof=1) / math.sqrt(values.size))
        if abs(values.mean() - self.log_estimate) > 1e-9 or abs(se - self.log_se) > 1e-9 + 1e-6 * self.log_se:
            raise ParamsError(
                "blocks",
                f"the blocks' mean {values.mean()!r} and standard error {se!r} are not the record's "
                f"{self.log_estimate!r} and {self.log_se!r}",
            )

    @classmethod
    def from_interval(cls, estimate: float, low: float, high: float, df: float, conf: float = DEFAULT_CONF):
        """From a ratio's symmetric-on-logs interval (a t interval on log ratios)."""
        if not 0 < low <= estimate <= high:
            raise ParamsError("interval", f"need 0 < low <= estimate <= high, got {low!r}, {estimate!r}, {high!r}")
        quantile = float(stats.t.ppf(0.5 + conf / 2, df))
        return cls(math.log(estimate), (math.log(high) - math.log(low)) / (2 * quantile), df)

    @property
    def estimate(self) -> float:
        return math.exp(self.log_estimate)

    def interval(self, conf: float = DEFAULT_CONF) -> Interval:
        half = float(stats.t.ppf(0.5 + conf / 2, self.df)) * self.log_se
        return Interval(self.estimate, math.exp(self.log_estimate - half), math.exp(self.log_estimate + half))

    def draws(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Log-scale draws from the ratio's sampling distribution, cut at its 0.05 % tails: a t of
        2 degrees of freedom (3 blocks) has no variance, and one draw in a million would overflow
        exp() and turn a whole refit into NaN; a 95 % percentile interval does not see the cut."""
        if math.isinf(self.df):
            noise = rng.standard_normal(shape)
        else:
            noise = np.clip(rng.standard_t(self.df, shape), *_t_tails(self.df))
        return self.log_estimate + self.log_se * noise

    def inverse(self) -> "LogRatio":
        """The reciprocal ratio: a throughput's ratio as a cost's."""
        blocks = None if self.blocks is None else tuple((b, -v) for b, v in self.blocks)
        return LogRatio(-self.log_estimate, self.log_se, self.df, blocks)


def joint_log_draws(ratios: Sequence[LogRatio], rng: np.random.Generator, n: int) -> np.ndarray:
    """Log-scale draws of several ratios at once, (n, len(ratios)): jointly through their blocks
    where they carry them, each marginal the same cut t as `LogRatio.draws`.

    Why joint: the design rows of a fit are each a configuration's ratio to the same baseline runs
    of every block, so the baseline's noise in a block moves every row's ratio (and every row's
    cost of a resource) alike; drawn independently, those errors average out over the rows and the
    intervals are too narrow (91 % held the truth at 95 % on costs-fit-shaped data).

    How: a multivariate t with the ratios' empirical covariance across blocks. One standard normal
    w_b per block name and draw, shared by every ratio measured in that block; a ratio's normal is
    sum_b w_b dev_b / |dev| (dev: its blocks' log ratios less their mean), so two ratios correlate
    as their block deviations do; one uniform per draw, shared, sets the chi-square of every
    ratio's t (its quantile at the ratio's own df: the same chi-square when the df agree), and the
    normal over sqrt(chi2 / df), cut at the 0.05 % tails, times log_se, is the deviation. For any
    fixed combination c of ratios measured in the same blocks, c . draw is then exactly c's own
    paired t (its blocks' c . d_b have a t on n - 1 df about their mean), whatever the number of
    ratios beside the blocks (the covariance may be singular). Not a block bootstrap: resampling
    3 to 5 blocks draws from few distinct means (10 multisets of 3 blocks, 126 of 5), with the
    normal's tails and a spread short by sqrt((n - 1) / n), and under-covers as the hierarchical
    bootstrap does (vbench.stats.paired); the t's tails on n - 1 df are what a 95 % interval over 3 to 5
    blocks needs. Blocks are matched by name: ratios from different campaigns sharing names
    ("0", "1", ...) get an empirical correlation near 0 that leaves each combination's t exact
    when their blocks are as many. Ratios without blocks are drawn independently (`draws`)."""
    names = sorted({b for r in ratios if r.blocks is not None for b, _ in r.blocks}, key=natural_key)
    index = {b: i for i, b in enumerate(names)}
    w = rng.standard_normal((n, len(names)))
    u = rng.uniform(size=n)
    out = np.empty((n, len(ratios)))
    for j, r in enumerate(ratios):
        if r.blocks is None:
            out[:, j] = r.draws(rng, (n,))
            continue
        values = np.array([v for _, v in r.blocks])
        dev = values - values.mean()
        norm = float(np.sqrt((dev**2).sum()))
        if norm == 0 or r.log_se == 0:
            out[:, j] = r.log_estimate
            continue
        z = w[:, [index[b] for b, _ in r.blocks]] @ dev / norm
        chi = np.maximum(stats.chi2.ppf(u, r.df) / r.df, np.finfo(float).tiny)
        out[:, j] = r.log_estimate + r.log_se * np.clip(z / np.sqrt(chi), *_t_tails(r.df))
    return out


@dataclass(frozen=True)
class ResourceCost:
    resource: str
    #: The platform's cost of the resource over native's (> 1: costlier).
    ratio: LogRatio


@dataclass(frozen=True)
class CostVector:
    """A platform's (or a planted configuration's) costs, each as a ratio to native's."""

    platform: str
    costs: tuple[ResourceCost, ...]

    def __post_init__(self) -> None:
        names = [c.resource for c in self.costs]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ParamsError("costs", f"platform {self.platform!r} has {twice} more than once")

    @property
    def resources(self) -> tuple[str, ...]:
        return tuple(c.resource for c in self.costs)

    def ratio(self, resource: str) -> LogRatio:
        for c in self.costs:
            if c.resource == resource:
                return c.ratio
        raise ParamsError(
            "resources",
            f"platform {self.platform!r} has no calibrated cost of {resource!r} "
            f"(it has {', '.join(self.resources) or 'none'})",
        )


@dataclass(frozen=True)
class JobRatio:
    """A job's measured time on a platform over native's."""

    job: str
    platform: str
    ratio: LogRatio


@dataclass(frozen=True)
class Coefficient:
    """A fitted share of native time with its bootstrap interval; `se_wls` is statsmodels' (the
    ratios' noise only, costs taken as exact), for comparison."""

    resource: str
    estimate: float
    low: float
    high: float
    se: float
    se_wls: float


@dataclass(frozen=True)
class JobFit:
    """One job's shares, fitted on the design rows."""

    job: str
    resources: tuple[str, ...]
    coefficients: tuple[Coefficient, ...]
    design: tuple[str, ...]
    #: sum of weighted squared residuals / (rows - resources); nan with no residual degree of freedom.
    scale: float
    #: chi-square test of the residuals against the rows' own variances (nan: no degree of freedom).
    lack_of_fit_p: float
    condition_number: float
    conf: float
    seed: int
    #: Bootstrap draws of the shares, one row per draw, columns in `resources`' order.
    draws: np.ndarray = field(compare=False, repr=False)
    #: The rows' ratios and costs were drawn jointly by block (`joint_log_draws`), not independently.
    joint: bool = False
    #: The job's run-to-run noise in a measured ratio, read off the design rows (`run_noise`): what
    #: a prediction interval of a measurement adds to the ratio's own (None: not known).
    noise: "RunNoise | None" = None
    #: The shares were fitted bounded at 0 (`nonnegative_solve`), the estimate and every draw.
    nonnegative: bool = False

    @property
    def estimates(self) -> np.ndarray:
        return np.array([c.estimate for c in self.coefficients])

    @property
    def total_share(self) -> float:
        """Sum of the shares: above 1, the resources' times overlap or interact (the additive form fails)."""
        return float(self.estimates.sum())

    def share(self, resource: str) -> Coefficient:
        for c in self.coefficients:
            if c.resource == resource:
                return c
        raise ParamsError("resource", f"{resource!r} is not among the fit's resources {list(self.resources)}")


@dataclass(frozen=True)
class RunNoise:
    """A job's run-to-run noise in a ratio measured block by block: the standard deviation of one
    block's log ratio to the baseline, on `df` degrees of freedom, and the blocks the rows it was
    read from were measured in (what a measurement is taken to have when no count is given)."""

    block_sd: float
    df: float
    blocks: int


@dataclass(frozen=True)
class Prediction:
    job: str
    platform: str
    #: The platform's ratio: the interval carries the fit's and the calibrations' uncertainty.
    ratio: Interval
    draws: np.ndarray = field(compare=False, repr=False)
    #: The prediction interval of a ratio measured over `blocks` blocks: `ratio`'s draws with the
    #: job's run-to-run noise added (`JobFit.noise`); None where that noise is not known.
    measurement: Interval | None = None
    blocks: int | None = None


@dataclass(frozen=True)
class PredictionRow:
    """One (job, platform) of the leave-one-platform-out table."""

    job: str
    platform: str
    measured: Interval
    predicted: Interval
    #: measured / predicted - 1, with the interval of its draws (both uncertainties).
    error: Interval
    #: The measurement agrees with the prediction: the error's interval holds 0 (the measurement's
    #: own interval and the prediction's ratio interval, both).
    agrees: bool
    #: The measured ratio's estimate lies inside `pi`, the prediction interval of a ratio measured
    #: over as many blocks: what the issue's coverage target counts, an interval fixed before the
    #: measurement is read (its noise is the fit's rows', not the measurement's own).
    inside_prediction: bool
    #: The configurations (and platforms) the shares were fitted on.
    design: tuple[str, ...]
    #: Those shares: what `attribute` splits this prediction by, so that an attribution beside the
    #: row needs no second fit (None where a row was made by hand).
    fit: JobFit | None = field(default=None, compare=False, repr=False)
    #: The prediction interval of a ratio measured over the measured ratio's blocks
    #: (`Prediction.measurement`; None where the fit knows no run-to-run noise).
    measurement: Interval | None = None

    @property
    def pi(self) -> Interval:
        """The interval `inside_prediction` reads: `measurement`, or the ratio's own where the fit
        knows no run-to-run noise (ratios given as summaries on a normal's degrees of freedom)."""
        return self.predicted if self.measurement is None else self.measurement


#: How an attribution names the term of the native time no fitted resource explains, priced at a
#: resource's cost (`predict`'s `rest`).
REST_TERM = "rest@{}"


@dataclass(frozen=True)
class ResourceTerm:
    resource: str
    cost_ratio: float
    #: The fitted share of native time, s_r.
    time_share: float
    #: s_r (x_r - 1): the extra time, as a fraction of native time, this resource's cost explains.
    extra_time: float
    #: extra_time / the sum of them (None when the model predicts no overhead at all).
    share: float | None
    #: share x the explained log overhead: these sum to log(predicted).
    log_overhead: float | None


@dataclass(frozen=True)
class Attribution:
    job: str
    platform: str
    terms: tuple[ResourceTerm, ...]
    predicted: float
    #: log(predicted): the log overhead the resources explain (None if predicted <= 0).
    explained_log: float | None
    measured_log: float | None
    #: log(measured) - log(predicted): what the model leaves unexplained.
    unexplained_log: float | None
    note: str = ""


# --- Fit ----------------------------------------------------------------------------------------


def _checked_resources(resources: Sequence[str]) -> tuple[str, ...]:
    out = tuple(resources)
    if not out:
        raise ParamsError("resources", "name at least one resource")
    twice = sorted({r for r in out if out.count(r) > 1})
    if twice:
        raise ParamsError("resources", f"{twice} named more than once")
    return out


def _by_platform(costs: Iterable[CostVector]) -> dict[str, CostVector]:
    out: dict[str, CostVector] = {}
    for c in costs:
        if c.platform in out:
            raise ParamsError("costs", f"two cost vectors for platform {c.platform!r}")
        out[c.platform] = c
    return out


def _ratio_of(ratios: Iterable[JobRatio], job: str, platform: str) -> JobRatio | None:
    found = [r for r in ratios if r.job == job and r.platform == platform]
    if len(found) > 1:
        raise ParamsError("ratios", f"{len(found)} measured ratios of {job!r} on {platform!r}")
    return found[0] if found else None


def _cost_rows(
    costs: dict[str, CostVector], platforms: Sequence[str], resources: Sequence[str]
) -> list[list[LogRatio]]:
    rows = []
    for p in platforms:
        if p not in costs:
            raise ParamsError("costs", f"platform {p!r} has no calibration (no cost vector)")
        rows.append([costs[p].ratio(r) for r in resources])
    return rows


def _unmoved(cost_rows: list[list[LogRatio]], resources: Sequence[str], conf: float) -> list[str]:
    """The resources whose cost ratios over the design rows are not told from 1 by Fisher's
    combination of each row's two-sided t test (at 1 - conf): calibration noise around native's
    cost would make a column of full rank that says nothing."""
    out = []
    for i, r in enumerate(resources):
        p_values = []
        for row in cost_rows:
            c = row[i]
            if c.log_se == 0:
                p_values.append(1.0 if c.log_estimate == 0 else 0.0)
            else:
                p_values.append(float(2 * stats.t.sf(abs(c.log_estimate) / c.log_se, c.df)))
        if min(p_values) > 0 and stats.chi2.sf(-2 * np.log(p_values).sum(), 2 * len(p_values)) > 1 - conf:
            out.append(r)
    return out


def _dependent_columns(x: np.ndarray, resources: Sequence[str]) -> list[str]:
    """The resources whose column lies in the span of the others (dropping it keeps the rank)."""
    rank = np.linalg.matrix_rank(x)
    if rank == x.shape[1]:
        return []
    return [r for i, r in enumerate(resources) if np.linalg.matrix_rank(np.delete(x, i, axis=1)) == rank]


def _weighted_solve(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted least squares for a stack of designs: x (B, n, k), y (B, n), w (n,) -> (B, k)."""
    a = np.einsum("bnk,n,bnj->bkj", x, w, x)
    b = np.einsum("bnk,n,bn->bk", x, w, y)
    try:
        return np.linalg.solve(a, b[..., None])[..., 0]
    except np.linalg.LinAlgError:
        return np.einsum("bkj,bj->bk", np.linalg.pinv(a), b)


def nonnegative_solve(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted least squares with every share >= 0, for a stack of designs: x (B, n, k), y (B, n),
    w (n,) -> (B, k). Exact, not iterative: the bounded optimum is the unbounded one on its own
    support, so it is the least weighted squared residual among the solutions on each subset of the
    resources whose shares are all >= 0 (the empty subset, every share 0, always is). 2^k subsets
    for the few resources a fit has, each solved for all draws at once."""
    b, _, k = x.shape
    best = np.zeros((b, k))
    best_ssr = np.einsum("n,bn->b", w, y**2)
    for size in range(1, k + 1):
        for subset in itertools.combinations(range(k), size):
            cols = list(subset)
            full = np.zeros((b, k))
            full[:, cols] = _weighted_solve(x[:, :, cols], y, w)
            resid = y - np.einsum("bnk,bk->bn", x, full)
            ssr = np.einsum("n,bn->b", w, resid**2)
            better = (full[:, cols] >= 0).all(axis=1) & (ssr < best_ssr)
            best[better], best_ssr[better] = full[better], ssr[better]
    return best


def fit_job(
    job: str,
    costs: Sequence[CostVector],
    ratios: Sequence[JobRatio],
    *,
    design: Sequence[str],
    resources: Sequence[str],
    conf: float = DEFAULT_CONF,
    n_draws: int = DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
    nonnegative: bool = False,
) -> JobFit:
    """Fit `job`'s shares of native time on the `design` platforms (planted configurations, each
    with its cost vector in `costs` and the job's measured ratio in `ratios`). `nonnegative` bounds
    every share at 0, in the estimate and in each bootstrap draw (`nonnegative_solve`): a share of
    native time cannot be negative, and a free fit's negative share (a resource the planted levels
    barely move in that job) times a large cost drags a prediction down for no reason in the job.
    The weights, the residuals' tests and the draws are the free fit's, with the bounded solution;
    the degrees of freedom stay rows less resources (a share held at 0 is not counted free)."""
    resources = _checked_resources(resources)
    design = tuple(design)
    if len(design) < len(resources):
        raise ParamsError(
            "design", f"{len(design)} design row(s) for {len(resources)} resources: a fit needs at least as many rows"
        )
    measured = []
    for p in design:
        r = _ratio_of(ratios, job, p)
        if r is None:
            raise ParamsError("ratios", f"no measured ratio of {job!r} on design platform {p!r}")
        measured.append(r.ratio)
    cost_rows = _cost_rows(_by_platform(costs), design, resources)
    x_hat = np.array([[c.estimate for c in row] for row in cost_rows])
    x_se = np.array([[c.log_se for c in row] for row in cost_rows])
    y_hat = np.array([m.estimate for m in measured])
    y_se = np.array([m.log_se for m in measured])
    unmoved = _unmoved(cost_rows, resources, conf)
    if unmoved:
        raise ParamsError(
            "resources",
            f"the design rows do not move the cost of {unmoved} beyond its calibration's noise: "
            "their shares cannot be fitted (leave them out, or plant a slowdown that moves them)",
        )
    dependent = _dependent_columns(x_hat - 1, resources)
    if dependent:
        raise ParamsError(
            "resources",
            f"the design rows do not move {dependent} independently of the other resources "
            "(a column constant at native's cost, or a combination of others): their shares cannot be told apart",
        )

    # Effective variance of each row: the ratio's, plus its costs' moved through the shares.
    X, Y = x_hat - 1, y_hat - 1
    var_y = (y_hat * y_se) ** 2
    solve = nonnegative_solve if nonnegative else _weighted_solve
    shares = solve(X[None], Y[None], np.ones(len(Y)))[0]
    for _ in range(2):
        variance = var_y + ((shares * x_hat * x_se) ** 2).sum(axis=1)
        weights = 1.0 / np.where(variance > 0, variance, variance[variance > 0].min() if (variance > 0).any() else 1.0)
        shares = solve(X[None], Y[None], weights)[0]
    dof = len(design) - len(resources)
    chi2 = float(np.sum(weights * (Y - X @ shares) ** 2))
    scale = chi2 / dof if dof > 0 else math.nan
    lack_of_fit_p = float(stats.chi2.sf(chi2, dof)) if dof > 0 else math.nan
    birge = math.sqrt(scale) if dof > 0 and scale > 1 else 1.0
    # statsmodels' standard errors of the unbounded fit at the final weights, for comparison; they
    # scale by the residuals' variance, so there are none without a residual.
    se_wls = np.asarray(WLS(Y, X, weights=weights).fit().bse) if dof > 0 else np.full(len(resources), math.nan)

    rng = seeded_rng(seed, "cost_model.fit", job, *design)
    shape = (n_draws,)
    joint = any(r.blocks is not None for r in [*measured, *(c for row in cost_rows for c in row)])
    if joint:
        # The rows share their baseline's runs: every ratio and cost drawn jointly by block.
        n, k = len(design), len(resources)
        logs = joint_log_draws([*(c for row in cost_rows for c in row), *measured], rng, n_draws)
        x_draws = np.exp(logs[:, : n * k].reshape(n_draws, n, k))
        y_log = np.array([m.log_estimate for m in measured])
        y_draws = np.exp(y_log + (logs[:, n * k :] - y_log) * birge)
    else:
        x_draws = np.stack(
            [np.stack([np.exp(c.draws(rng, shape)) for c in row], axis=-1) for row in cost_rows], axis=1
        )  # (B, n, k)
        y_draws = np.stack(
            [np.exp(m.log_estimate + (m.draws(rng, shape) - m.log_estimate) * birge) for m in measured], axis=1
        )  # (B, n)
    draws = solve(x_draws - 1, y_draws - 1, weights)
    low, high = np.percentile(draws, [50 * (1 - conf), 50 * (1 + conf)], axis=0)
    coefficients = tuple(
        Coefficient(
            r, float(shares[i]), float(low[i]), float(high[i]), float(draws[:, i].std(ddof=1)), float(se_wls[i])
        )
        for i, r in enumerate(resources)
    )
    return JobFit(
        job=job,
        resources=resources,
        coefficients=coefficients,
        design=design,
        scale=scale,
        lack_of_fit_p=lack_of_fit_p,
        condition_number=float(np.linalg.cond(X * np.sqrt(weights)[:, None])),
        conf=conf,
        seed=seed,
        draws=draws,
        joint=joint,
        noise=run_noise(measured),
        nonnegative=nonnegative,
    )


def run_noise(measured: Sequence[LogRatio]) -> RunNoise | None:
    """The run-to-run noise of one block's log ratio, from a job's ratios on a fit's rows.

    Where every row carries its blocks and they share two or more: the residual of the two-way
    (configuration x block) model of the blocks' log times, the baseline a row of zeros (a ratio is
    a configuration's log time less the baseline's in the same block, a shift the block effect
    takes up). Its variance sigma^2 on (rows)(blocks - 1) degrees of freedom is one run's, after
    the block's drift is taken out; a block's ratio is the difference of two, 2 sigma^2. The rows
    share the baseline's runs, so their own variances are not independent estimates; the two-way
    residual is, and its degrees of freedom are exact. Otherwise `pooled_noise` (rows taken as
    independent, as their draws are).

    Assumed: the noise is alike on every row (on the log scale) and on the platform predicted; a
    platform noisier than native under its planted slowdowns is covered less than the level says."""
    blocked = [m.blocks for m in measured if m.blocks is not None]
    if blocked and len(blocked) == len(measured):
        common = set.intersection(*({b for b, _ in blocks} for blocks in blocked))
        names = sorted(common, key=natural_key)
        if len(names) >= 2:
            d = np.array([[0.0] * len(names)] + [[dict(blocks)[b] for b in names] for blocks in blocked])
            resid = d - d.mean(axis=1, keepdims=True) - d.mean(axis=0, keepdims=True) + d.mean()
            df = len(blocked) * (len(names) - 1)
            return RunNoise(math.sqrt(2 * float((resid**2).sum()) / df), float(df), len(names))
    return pooled_noise(measured)


def pooled_noise(ratios: Sequence[LogRatio]) -> RunNoise | None:
    """Each ratio's variance of one block's log ratio (log_se^2 x blocks), pooled on their summed
    degrees of freedom, the ratios taken as independent; the blocks their median. None with no
    ratio on finite degrees of freedom. Pure."""
    finite = [m for m in ratios if math.isfinite(m.df)]
    if not finite:
        return None
    df = sum(m.df for m in finite)
    variance = sum(m.df * m.log_se**2 * (m.df + 1) for m in finite) / df
    blocks = int(round(float(np.median([m.df + 1 for m in finite]))))
    return RunNoise(math.sqrt(variance), float(df), blocks)


# --- Prediction ---------------------------------------------------------------------------------


def rest_share(shares: np.ndarray) -> np.ndarray:
    """The share of native time no fitted resource explains, per row of `shares` (..., k): 1 less
    their sum, never below 0 (shares summing past 1 leave no rest to price). Pure."""
    return np.clip(1.0 - np.sum(shares, axis=-1), 0.0, None)


def priced_resources(resources: Sequence[str], rest: str | None) -> tuple[str, ...]:
    """The resources whose costs a prediction reads: the fitted ones, then the rest's (`predict`). Pure."""
    return (*resources, *([rest] if rest is not None else []))


def checked_rest(resources: Sequence[str], rest: str | None) -> str | None:
    """`rest` (`predict`'s), refused where it is one of the fitted `resources` (a platform without its
    cost is refused by `CostVector.ratio`)."""
    if rest is not None and rest in resources:
        raise ParamsError(
            "--rest",
            f"{rest} is a fitted resource: its share is fitted, the rest is the native time no fitted resource explains",
        )
    return rest


def predict(fit: JobFit, costs: CostVector, blocks: int | None = None, rest: str | None = None) -> Prediction:
    """The job's time ratio to native on `costs`' platform, from its cost vector alone, with the
    percentile interval of the fit's draws paired with draws of the platform's costs; and the
    prediction interval of a ratio measured over `blocks` blocks (by default as many as the fit's
    rows had): those draws times a draw of the job's run-to-run noise in such a ratio, a t on the
    noise's degrees of freedom (`JobFit.noise`). Its own seeded draws: the ratio's interval is the
    same whether or not a measurement is predicted.

    `rest`: a resource not fitted (e.g. "cpu") whose cost prices the native time the fitted shares
    leave (`rest_share`), which is otherwise priced at native's: ratio = 1 + sum s_r (x_r - 1) +
    max(0, 1 - sum s_r) (x_rest - 1), in the estimate and every draw (its cost drawn with the
    others). It assumes the fit's configurations ran that resource at native's cost (no planted
    level slows it), so the shares need no refit; a platform that slows every instruction (QEMU
    under TCG) is what it is for."""
    if blocks is not None and blocks < 2:
        raise ParamsError("blocks", f"a measured ratio needs two blocks or more, not {blocks}")
    rest = checked_rest(fit.resources, rest)
    priced = [costs.ratio(r) for r in priced_resources(fit.resources, rest)]
    ratios = priced[: len(fit.resources)]
    x_hat = np.array([c.estimate for c in ratios])
    rng = seeded_rng(fit.seed, "cost_model.predict", fit.job, costs.platform)
    n = fit.draws.shape[0]
    if any(c.blocks is not None for c in priced):
        x_draws = np.exp(joint_log_draws(priced, rng, n))
    else:
        x_draws = np.stack([np.exp(c.draws(rng, (n,))) for c in priced], axis=-1)
    k = len(ratios)
    draws = 1.0 + np.sum(fit.draws * (x_draws[:, :k] - 1), axis=1)
    estimate = float(1.0 + fit.estimates @ (x_hat - 1))
    if rest is not None:
        draws = draws + rest_share(fit.draws) * (x_draws[:, k] - 1)
        estimate += float(rest_share(fit.estimates) * (priced[k].estimate - 1))
    low, high = np.percentile(draws, [50 * (1 - fit.conf), 50 * (1 + fit.conf)])
    note = "" if estimate > 0 else "the fitted shares predict a non-positive time ratio: outside the model's range"
    ratio = Interval(estimate, float(low), float(high), note)
    noise = fit.noise
    if noise is None:
        return Prediction(fit.job, costs.platform, ratio, draws)
    blocks = noise.blocks if blocks is None else blocks
    rng = seeded_rng(fit.seed, "cost_model.measurement", fit.job, costs.platform, str(blocks))
    measurement = _with_noise(ratio, draws, noise.block_sd / math.sqrt(blocks), noise.df, rng, fit.conf)
    return Prediction(fit.job, costs.platform, ratio, draws, measurement, blocks)


def pooled_measurement(fit: JobFit, pred: Prediction, pooled: LogRatio) -> Interval:
    """The prediction interval of a ratio pooled over campaigns (`campaign_pool`): the prediction's
    draws times a draw of the pooled ratio's own error, its standard error on its degrees of
    freedom. That error is read off the campaigns' spread, which holds each one's blocks and its
    hour; the fit's run-to-run noise (`predict`'s) holds neither hour nor day."""
    rng = seeded_rng(fit.seed, "cost_model.pooled_measurement", fit.job, pred.platform, str(pooled.df))
    return _with_noise(pred.ratio, pred.draws, pooled.log_se, pooled.df, rng, fit.conf)


def _with_noise(
    ratio: Interval, draws: np.ndarray, log_sd: float, df: float, rng: np.random.Generator, conf: float
) -> Interval:
    """`ratio`'s percentile interval once each of its draws is multiplied by exp(log_sd x t), t
    on `df` degrees of freedom (cut at its tails, as `LogRatio.draws`)."""
    t = np.clip(rng.standard_t(df, draws.shape[0]), *_t_tails(df))
    low, high = np.percentile(draws * np.exp(log_sd * t), [50 * (1 - conf), 50 * (1 + conf)])
    return Interval(ratio.estimate, float(low), float(high), ratio.note)


def _error(pred: Prediction, measured: LogRatio, seed: int, conf: float) -> Interval:
    """measured / predicted - 1 and the percentile interval of its draws (both uncertainties)."""
    rng = seeded_rng(seed, "cost_model.error", pred.job, pred.platform)
    m = np.exp(measured.draws(rng, pred.draws.shape))
    estimate = measured.estimate / pred.ratio.estimate - 1 if pred.ratio.estimate > 0 else math.nan
    # A draw predicting no time at all under-predicts without bound: its error is +inf, which
    # keeps the draws' order (a prediction tending to 0 from above has an error tending to +inf).
    with np.errstate(divide="ignore"):
        errors = np.where(pred.draws > 0, m / np.where(pred.draws > 0, pred.draws, 1.0) - 1, np.inf)
    low, high = np.percentile(errors, [50 * (1 - conf), 50 * (1 + conf)])
    if not np.isfinite(high):
        return Interval(estimate, float(low), None, "too many draws of the prediction are not positive: no upper limit")
    return Interval(estimate, float(low), float(high))


def leave_one_platform_out(
    costs: Sequence[CostVector],
    ratios: Sequence[JobRatio],
    *,
    design: Sequence[str],
    resources: Sequence[str],
    fit_on_other_platforms: bool = False,
    conf: float = DEFAULT_CONF,
    n_draws: int = DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
) -> list[PredictionRow]:
    """One row per (job, platform) measured outside `design`: the platform's measured ratio and
    the ratio predicted for it by shares fitted without it. The shares are fitted on the `design`
    rows (the planted configurations) only, or with `fit_on_other_platforms` on those and every
    other measured platform too (each platform still left out of its own fit)."""
    design = tuple(design)
    jobs = sorted({r.job for r in ratios}, key=natural_key)
    held_out = sorted({r.platform for r in ratios} - set(design), key=natural_key)
    by_platform = _by_platform(costs)
    out: list[PredictionRow] = []
    for job in jobs:
        measured_on = [p for p in held_out if _ratio_of(ratios, job, p) is not None]
        shared = None
        for platform in measured_on:
            if platform not in by_platform:
                raise ParamsError("costs", f"platform {platform!r} has a measured ratio of {job!r} but no calibration")
            rows = design + (tuple(p for p in measured_on if p != platform) if fit_on_other_platforms else ())
            if fit_on_other_platforms or shared is None:
                fit = fit_job(
                    job, costs, ratios, design=rows, resources=resources, conf=conf, n_draws=n_draws, seed=seed
                )
                shared = None if fit_on_other_platforms else fit
            else:
                fit = shared
            measured = _ratio_of(ratios, job, platform).ratio
            pred = predict(fit, by_platform[platform], measured_blocks(measured))
            m = measured.interval(conf)
            error = _error(pred, measured, seed, conf)
            agrees = error.low is not None and error.low <= 0 and (error.high is None or error.high >= 0)
            row = PredictionRow(job, platform, m, pred.ratio, error, agrees, False, rows, fit, pred.measurement)
            out.append(replace(row, inside_prediction=row.pi.low <= m.estimate <= row.pi.high))
    return out


def measured_blocks(ratio: LogRatio) -> int | None:
    """The blocks a measured ratio was paired over, its degrees of freedom and one (which its blocks,
    where it carries them, are checked to give); None for a summary on a normal's infinite df."""
    return int(round(ratio.df)) + 1 if math.isfinite(ratio.df) else None


def prediction_frame(rows: Iterable[PredictionRow]) -> pd.DataFrame:
    """The leave-one-platform-out rows as a table (one line per job and platform)."""
    records = []
    for r in rows:
        records.append(
            {
                "job": r.job,
                "platform": r.platform,
                **{f"measured{k}": v for k, v in _interval_columns(r.measured).items()},
                **{f"predicted{k}": v for k, v in _interval_columns(r.predicted).items()},
                **{f"error{k}": v for k, v in _interval_columns(r.error).items()},
                "pi_low": None if r.measurement is None else r.measurement.low,
                "pi_high": None if r.measurement is None else r.measurement.high,
                "agrees": r.agrees,
                "inside_prediction": r.inside_prediction,
                "design_rows": len(r.design),
            }
        )
    return pd.DataFrame(records)


def _interval_columns(iv: Interval) -> dict[str, float | None]:
    return {"": iv.estimate, "_low": iv.low, "_high": iv.high}


def part_of_slowdown(
    part: LogRatio, whole: LogRatio, rng: np.random.Generator, n: int = DEFAULT_DRAWS, conf: float = DEFAULT_CONF
) -> Interval:
    """(part - 1) / (whole - 1): the part of one planted level's extra time (`whole`, e.g. every
    system call stopped) that a lesser level gives (`part`, only the process calls stopped), both
    ratios to the same baseline runs, with a percentile interval of joint draws over their blocks
    (`joint_log_draws`: the baseline's noise in a block moves both alike). No estimate when `whole`
    holds no slowdown to divide (its interval reaches 1): the part of nothing is not a number."""
    iv = whole.interval(conf)
    if iv.low <= 1.0 <= iv.high:
        return Interval(None, None, None, f"the whole level's ratio {iv.estimate:.3g} has an interval holding 1")
    d = np.exp(joint_log_draws([part, whole], rng, n))
    low, high = np.percentile((d[:, 0] - 1) / (d[:, 1] - 1), [50 * (1 - conf), 50 * (1 + conf)])
    return Interval((part.estimate - 1) / (whole.estimate - 1), float(low), float(high))


def parts_of_slowdown(
    ratios: Iterable[JobRatio],
    part_at: str,
    whole_at: str,
    rng: np.random.Generator,
    n: int = DEFAULT_DRAWS,
    conf: float = DEFAULT_CONF,
) -> tuple[tuple[str, Interval], ...]:
    """`part_of_slowdown` for every job timed at both configurations, in JOBS' order; drawn in the
    jobs' names' order, so a seed gives the same numbers whoever asks (the paper, the selfbench reading)."""
    by = {(r.job, r.platform): r.ratio for r in ratios}
    timed = sorted(j.name for j in JOBS if (j.name, part_at) in by and (j.name, whole_at) in by)
    drawn = {j: part_of_slowdown(by[j, part_at], by[j, whole_at], rng, n, conf) for j in timed}
    return tuple((j.name, drawn[j.name]) for j in JOBS if j.name in drawn)


# --- Attribution --------------------------------------------------------------------------------


def attribute(fit: JobFit, costs: CostVector, measured: JobRatio | None = None, rest: str | None = None) -> Attribution:
    """Where the predicted overhead of `fit.job` on `costs`' platform goes, resource by resource,
    and (given the measured ratio) what the model leaves unexplained. `rest` (`predict`'s): the
    native time no fitted resource explains, priced at that resource's cost, is one more term,
    named REST_TERM.format(rest)."""
    if measured is not None and (measured.job != fit.job or measured.platform != costs.platform):
        raise ParamsError(
            "measured",
            f"a ratio of {measured.job!r} on {measured.platform!r} given for {fit.job!r} on {costs.platform!r}",
        )
    rest = checked_rest(fit.resources, rest)
    names = (*fit.resources, *([REST_TERM.format(rest)] if rest is not None else []))
    shares = np.append(fit.estimates, rest_share(fit.estimates)) if rest is not None else fit.estimates
    x = np.array([costs.ratio(r).estimate for r in priced_resources(fit.resources, rest)])
    extra = shares * (x - 1)
    predicted = float(1.0 + extra.sum())
    explained = math.log(predicted) if predicted > 0 else None
    total = float(extra.sum())
    notes = []
    if explained is None:
        notes.append("the fitted shares predict a non-positive time ratio: no log overhead to split")
    if total == 0:
        notes.append("the model predicts no overhead: no shares")
    terms = tuple(
        ResourceTerm(
            resource=r,
            cost_ratio=float(x[i]),
            time_share=float(shares[i]),
            extra_time=float(extra[i]),
            share=float(extra[i] / total) if total != 0 else None,
            log_overhead=float(extra[i] / total * explained) if total != 0 and explained is not None else None,
        )
        for i, r in enumerate(names)
    )
    measured_log = measured.ratio.log_estimate if measured is not None else None
    unexplained = measured_log - explained if measured_log is not None and explained is not None else None
    return Attribution(
        fit.job, costs.platform, terms, predicted, explained, measured_log, unexplained, "; ".join(notes)
    )


# --- From a campaign's samples --------------------------------------------------------------------


def _compared(samples: pd.DataFrame, benchmark: str, metric: str) -> pd.DataFrame:
    rows = samples[(samples["benchmark"] == benchmark) & (samples["metric"] == metric)]
    if "warmup" in rows.columns:
        rows = rows[~rows["warmup"].astype(bool)]
    return rows


def _paired_log_ratio(level: pd.DataFrame, baseline: pd.DataFrame, conf: float) -> LogRatio | None:
    """The level's paired ratio to the baseline (t over the blocks' mean log ratios) as a LogRatio;
    None without an interval (fewer than two pairs)."""
    pairs = pair_runs(level, baseline)
    paired = paired_ratio(pairs, conf=conf)
    if paired is None or not paired.ratio.bounded:
        return None
    iv = paired.ratio
    df = (paired.n_blocks - 1) if paired.n_blocks >= 2 else (paired.n_pairs - 1)
    ratio = LogRatio.from_interval(iv.estimate, iv.low, iv.high, df, conf)
    if paired.n_blocks < 2:
        return ratio  # t over a lone block's rounds: no blocks to draw jointly by
    # The t was over these block means: the record carries them for `joint_log_draws`.
    blocks = tuple(zip(pairs.block_names, (float(g.mean()) for g in pairs.by_block())))
    return LogRatio(ratio.log_estimate, ratio.log_se, ratio.df, blocks)


def _one_cell(rows: pd.DataFrame, what: str) -> pd.DataFrame:
    sizes = sorted({str(s) for s in rows["size"]}, key=natural_key) if "size" in rows.columns else []
    if len(sizes) > 1:
        raise ParamsError(
            "samples",
            (
                f"{what} was measured in several cells {sizes}: select one before the model "
                "(vbench predict --where factor=level)"
            ),
        )
    return rows


def _level_log_ratio(
    samples: pd.DataFrame, measured: Resource | Job, what: str, level: str, baseline: str, conf: float
) -> LogRatio | None:
    """`level`'s paired log ratio to `baseline` of what `measured` names (its benchmark's metric,
    in one cell): a cost vector's entry and a job's time ratio are made alike."""
    rows = _one_cell(_compared(samples, measured.benchmark, measured.metric), what)
    return _paired_log_ratio(rows[rows["platform"] == level], rows[rows["platform"] == baseline], conf)


def _levels(samples: pd.DataFrame, baseline: str) -> list[str]:
    levels = sorted({str(p) for p in samples["platform"]}, key=natural_key)
    if baseline not in levels:
        raise ParamsError("baseline", f"{baseline!r} is not among the samples' platforms {levels}")
    return [p for p in levels if p != baseline]


def _busy_cpus(samples: pd.DataFrame) -> pd.Series:
    """Per sample, the CPUs its run kept busy (`machine_cpu_s` / `machine_wall_s`); NaN where the
    run carries no reading or no wall time. Pure."""
    nan = pd.Series(np.nan, index=samples.index)
    cpu = pd.to_numeric(samples.get(MACHINE_CPU_FIELD, nan), errors="coerce")
    wall = pd.to_numeric(samples.get(MACHINE_WALL_FIELD, nan), errors="coerce")
    return cpu / wall.where(wall > 0)


def cpu_weighted(samples: pd.DataFrame, resources: Sequence[str]) -> pd.DataFrame:
    """`samples` with each named resource's calibration rows priced in the machine's CPU: a time
    per operation times the CPUs its run kept busy (`machine_cpu_s` / `machine_wall_s`, read
    around the run by the runner), a throughput divided by them (per busy CPU). Other rows are as
    they were. Refused (ParamsError naming the resource) where a named resource's row carries no
    reading: measured before the reading existed, or not on the local testbed. Pure."""
    out = samples.copy()
    busy = _busy_cpus(out)
    for name in _checked_resources(resources):
        res = RESOURCE_BY_NAME[name]
        rows = (out["benchmark"] == res.benchmark) & (out["metric"] == res.metric)
        if not rows.any():
            continue  # not measured here: the model's own refusal names it
        missing = rows & ~(busy > 0)
        if missing.any():
            raise ParamsError(
                "samples",
                f"{name}: {int(missing.sum())} of {int(rows.sum())} {res.benchmark} samples carry no machine CPU "
                f"reading ({MACHINE_CPU_FIELD}, {MACHINE_WALL_FIELD}): a cost in CPU needs runs on the local "
                "testbed measured since the runner reads it",
            )
        factor = 1 / busy[rows] if res.higher_is_better else busy[rows]
        out.loc[rows, "value"] = out.loc[rows, "value"].astype(float) * factor
    return out


@dataclass(frozen=True)
class BusyCpus:
    """The CPUs one configuration's runs of one resource's micro-benchmark kept busy: each run's
    machine CPU over its wall time, the median over the runs, and each block's median."""

    configuration: str
    resource: str
    median: float
    runs: int
    #: (block, the median over that block's runs), in block order.
    per_block: tuple[tuple[str, float], ...]


def busy_cpus_of(samples: pd.DataFrame, resources: Sequence[str]) -> tuple[BusyCpus, ...]:
    """Per configuration (platform or compared level) and named resource, the CPUs its runs kept
    busy (`machine_cpu_s` / `machine_wall_s`, one value per run), where the runs carry the reading;
    in natural order of configuration, then the resources' order. Pure."""
    if MACHINE_CPU_FIELD not in samples.columns or MACHINE_WALL_FIELD not in samples.columns:
        return ()
    out = []
    for name in _checked_resources(resources):
        res = RESOURCE_BY_NAME[name]
        rows = _compared(samples, res.benchmark, res.metric)
        rows = rows.assign(busy=_busy_cpus(rows)).dropna(subset=["busy"])
        runs = rows.drop_duplicates("run_id") if "run_id" in rows.columns else rows
        for level in sorted({str(p) for p in runs["platform"]}, key=natural_key):
            mine = runs[runs["platform"].astype(str) == level]
            blocks = sorted({str(b) for b in mine["block"]}, key=natural_key) if "block" in mine.columns else []
            per_block = tuple((b, float(mine.loc[mine["block"].astype(str) == b, "busy"].median())) for b in blocks)
            out.append(BusyCpus(level, name, float(mine["busy"].median()), len(mine), per_block))
    out.sort(key=lambda b: natural_key(b.configuration))  # stable: the resources' order within one
    return tuple(out)


def cost_vectors_of(
    samples: pd.DataFrame,
    *,
    baseline: str = DEFAULT_BASELINE,
    resources: Sequence[Resource] = RESOURCES,
    conf: float = DEFAULT_CONF,
) -> tuple[CostVector, ...]:
    """Each platform's (or compared level's, in a comparison view) cost vector against `baseline`
    from a campaign's calibration samples (`load_campaign(...).samples`); a resource the campaign
    did not measure, or measured in fewer than two blocks, is left out of the vector."""
    out = []
    for level in _levels(samples, baseline):
        costs = []
        for res in resources:
            ratio = _level_log_ratio(samples, res, f"{res.benchmark} {res.metric}", level, baseline, conf)
            if ratio is not None:
                costs.append(ResourceCost(res.name, ratio.inverse() if res.higher_is_better else ratio))
        out.append(CostVector(level, tuple(costs)))
    return tuple(out)


def job_ratios_of(
    samples: pd.DataFrame,
    *,
    baseline: str = DEFAULT_BASELINE,
    jobs: Sequence[Job] = JOBS,
    conf: float = DEFAULT_CONF,
) -> tuple[JobRatio, ...]:
    """Each platform's (or compared level's) job-time ratio to `baseline`, per job the campaign
    ran, paired by block."""
    out = []
    for level in _levels(samples, baseline):
        for job in jobs:
            ratio = _level_log_ratio(samples, job, job.name, level, baseline, conf)
            if ratio is not None:
                out.append(JobRatio(job.name, level, ratio))
    return tuple(out)


def merge_cost_vectors(*campaigns: Sequence[CostVector]) -> tuple[CostVector, ...]:
    """One cost vector per platform from several campaigns' (e.g. `sandbox`'s CPU, I/O and network
    with `costs`' system call, spawn and JVM start), each a ratio to its own campaign's native;
    a resource measured by two of them is refused, not averaged."""
    merged: dict[str, list[ResourceCost]] = {}
    for vectors in campaigns:
        for v in vectors:
            merged.setdefault(v.platform, []).extend(v.costs)
    return tuple(CostVector(p, tuple(c)) for p, c in sorted(merged.items(), key=lambda kv: natural_key(kv[0])))
