"""A linear mixed model on the log metric: platform fixed, block random (Kalibera & Jones, ISMM 2013).

The paired methods (vbench.stats.paired) compare one platform with the baseline at a time, through
within-pair log ratios. The mixed model describes the whole metric at once:

    log y = mu + beta_platform + b_block [+ c_block,platform] + e

* `b_block`, shared by every configuration of a block: what the machine was like while that block
  ran (other load, page cache, thermal state). It cancels in every ratio, as pairing intends.
* `c_block,platform`, the cluster instance: each configuration gets a fresh testbed and HDFS in
  each block, and that instance has its own luck (block placement, JVM layout). It does not cancel;
  it is separable from the run-to-run noise only when an instance ran several rounds, so the term
  is fitted only then.
* `e`, round to round within one instance (without rounds: instance and run together).

The ratio to the baseline is exp(beta) with a Wald interval whose quantile is Student-t on
(blocks - 1) degrees of freedom: the blocks are the replication that carries the instance
variation, and for a balanced design with one run per block and platform the interval is then
exactly the paired-t interval over blocks (the unit tests hold it to that), unless the block
variance is estimated at 0: REML then pools the blocks' sum of squares into the residual, and
the interval is narrower. Fitted by REML: in closed form where the layout is balanced (every
platform in every block, as many rounds each: `balanced_reml`), else with statsmodels'
`MixedLM`. The variance components say where the noise lives: a large block share means pairing
(and more blocks rather than more rounds within one) buys the precision; a large instance share
means only more blocks do.

Runs of one platform in one (block, round), e.g. the hosts of a micro benchmark, are averaged
first, as the paired methods do. Non-positive values, fewer than two blocks holding the baseline,
or a fit that fails leave no mixed rows, and the reason is returned.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from vbench.stats.describe import t_quantile
from vbench.stats.keys import natural_key
from vbench.stats.paired import BLOCK, ROUND, level_text
from vbench.stats.records import Interval
from vbench.wording import count

MIXED = "mixed model (REML)"


@dataclass(frozen=True)
class MixedVariance:
    """Variance of the log metric at each level of the design."""

    block: float  # shared by every configuration of a block (the machine at that time)
    instance: float | None  # a configuration's cluster in one block; None when not separable (no rounds)
    residual: float  # round to round within an instance (without rounds: instance and run together)

    def shares(self) -> dict[str, float]:
        parts = {"block": self.block, "instance": self.instance or 0.0, "residual": self.residual}
        total = sum(parts.values())
        return {k: (v / total if total > 0 else 0.0) for k, v in parts.items()}


@dataclass(frozen=True)
class MixedRatio:
    """One platform's ratio to the baseline from the model."""

    ratio: Interval
    p_value: float | None  # two-sided, H0: ratio = 1, t on (blocks - 1) df
    n_blocks: int  # blocks holding both this platform and the baseline


@dataclass(frozen=True)
class MixedFit:
    ratios: dict[str, MixedRatio]
    variance: MixedVariance
    n_units: int  # observations after averaging within (platform, block, round)
    n_blocks: int
    has_rounds: bool
    notes: tuple[str, ...] = field(default=())  # what the optimiser said
    #: Platforms not in the model, and why.
    left_out: dict[str, str] = field(default_factory=dict)

    @property
    def note(self) -> str:
        return "; ".join(self.notes)


@dataclass(frozen=True)
class NoFit:
    """Why there is no mixed model for a metric."""

    reason: str


def model_units(frame: pd.DataFrame) -> tuple[pd.DataFrame, bool] | NoFit:
    """(one row per platform, block and round with the mean value, whether rounds are a level).

    `frame` holds `platform`, `value`, `block` and optionally `round`. Pure."""
    if BLOCK not in frame.columns:
        return NoFit("the samples carry no block: unpaired design")
    x = frame[frame[BLOCK].notna()]
    if x.empty:
        return NoFit("no run carries a block: unpaired design")
    with_round = ROUND in x.columns and bool(x[ROUND].notna().all())
    names = ["platform", BLOCK, ROUND] if with_round else ["platform", BLOCK]
    levels = [x["platform"].astype(str).tolist(), [level_text(v) for v in x[BLOCK].tolist()]]
    if with_round:
        levels.append([level_text(v) for v in x[ROUND].tolist()])
    # One unit per (platform, block[, round]) in order of appearance, as a groupby over those
    # columns numbers them, and pandas' grouped mean over the unit's number (the same sums).
    code: dict[tuple, int] = {}
    unit_of = np.array([code.setdefault(k, len(code)) for k in zip(*levels)], dtype=np.intp)
    means = x["value"].astype(float).groupby(unit_of, sort=True).mean().to_numpy()
    if (means <= 0).any():
        return NoFit("a value is not positive: no log metric")
    keys = list(code)
    order = sorted(range(len(keys)), key=lambda i: tuple(natural_key(c) for c in keys[i]))
    columns = {name: [keys[i][j] for i in order] for j, name in enumerate(names)}
    return pd.DataFrame({**columns, "value": means[order]}), with_round


def fit_mixed(frame: pd.DataFrame, baseline: str, *, conf: float = 0.95) -> MixedFit | NoFit:
    """Fit log(value) ~ platform + (1 | block) [+ (1 | block:platform)] and read off every
    platform's ratio to `baseline` and the variance at each level."""
    got = model_units(frame)
    if isinstance(got, NoFit):
        return got
    units, with_round = got
    # The units' platforms and blocks as Python lists: the sets and masks below are over a few dozen units.
    platform, block = units["platform"].tolist(), units[BLOCK].tolist()
    blocks_of: dict[str, set] = {}
    for p, b in zip(platform, block):
        blocks_of.setdefault(p, set()).add(b)
    base_blocks = blocks_of.get(baseline, set())
    if len(base_blocks) < 2:
        return NoFit(f"the baseline '{baseline}' ran in {count(len(base_blocks), 'block')}: the model needs 2")
    others = sorted((p for p in blocks_of if p != baseline), key=natural_key)
    kept, left_out = [], {}
    for p in others:
        shared = base_blocks & blocks_of[p]
        if len(shared) < 2:
            left_out[p] = f"in {count(len(shared), 'block')} with the baseline: not in the mixed model"
        else:
            kept.append(p)
    if not kept:
        return NoFit("no platform shares two blocks with the baseline")
    modelled = {baseline, *kept}
    rows = [i for i, (p, b) in enumerate(zip(platform, block)) if p in modelled and b in base_blocks]
    platform, block = [platform[i] for i in rows], [block[i] for i in rows]
    # Columns of the model named by position: platform labels (native~aa, kvm-2) are not formula names.
    code = {p: f"p{i}" for i, p in enumerate([baseline, *kept])}
    data = pd.DataFrame(
        {
            "y": np.log(units["value"].to_numpy()[rows]),
            "g": np.array(block, dtype=object),
            "inst": np.array([code[p] for p in platform], dtype=object),
        }
    )
    for p in kept:
        data[code[p]] = np.array([1.0 if q == p else 0.0 for q in platform])
    several = with_round and len(set(zip(platform, block))) < len(rows)
    cols = [code[p] for p in kept]
    try:
        fit = balanced_reml(data, cols, several) or _fit(data, cols, several)
    except (ValueError, np.linalg.LinAlgError) as exc:
        return NoFit(f"the mixed model could not be fitted: {exc}")
    n_blocks = int(data["g"].nunique())
    df = n_blocks - 1
    q = t_quantile(0.5 + conf / 2, df)
    ratios = {}
    for p in kept:
        beta, se = fit.beta[code[p]], fit.se[code[p]]
        blocks_p = len(base_blocks & blocks_of[p])
        if not math.isfinite(se) or se < 0:
            ratios[p] = MixedRatio(
                Interval(math.exp(beta), note="the fit gave no standard error: no interval"), None, blocks_p
            )
            continue
        pval = float(2 * stats.t.sf(abs(beta) / se, df)) if se > 0 else (0.0 if beta else 1.0)
        ratios[p] = MixedRatio(
            Interval(math.exp(beta), math.exp(beta - q * se), math.exp(beta + q * se)), pval, blocks_p
        )
    inst = None if fit.instance is None else max(0.0, fit.instance)
    variance = MixedVariance(max(0.0, fit.block), inst, fit.residual)
    return MixedFit(ratios, variance, len(data), n_blocks, with_round, fit.notes, left_out)


@dataclass(frozen=True)
class Estimates:
    """A REML fit's numbers: each platform column's coefficient (log ratio to the baseline) and its
    standard error, the variance components, and what the fit said."""

    beta: dict[str, float]
    se: dict[str, float]
    block: float
    instance: float | None
    residual: float
    notes: tuple[str, ...] = ()


BOUNDARY_NOTE = "a variance component is on the boundary (estimated as 0)"


def balanced_reml(data: pd.DataFrame, platform_cols: list[str], instance_term: bool) -> Estimates | None:
    """REML in closed form for a balanced layout, else None. Pure. `data` as `fit_mixed` builds
    it (y, g, inst); balanced: every block holds every platform, each the same number of rounds
    (one without the instance term, several with it).

    In a balanced layout the REML likelihood is a product over strata, each mean square (MS) a
    scaled chi-square whose expectation is a sum of variances: within an instance (round to
    round) sigma_e^2, block x platform sigma_e^2 + R sigma_c^2, block sigma_e^2 + R sigma_c^2 +
    P R sigma_b^2. The estimates are the MS themselves where they increase in that order (the
    ANOVA estimators), and where one does not the adjacent strata pool (their sums of squares over
    their degrees of freedom: isotonic regression, weights the degrees of freedom), giving a
    variance of 0 (Thompson 1962). The coefficients are the differences of platform means, each
    with variance 2 x (the block x platform stratum's estimate) / (B R).

    An optimiser only approaches this optimum: statsmodels stopped up to 1e-3 short of a zero block
    variance on the committed campaigns and gave no standard error for some, and it took ~40 ms a
    fit (~0.7 s with rounds), most of the statistics stage's and the paper build's time."""
    instances = data.groupby(["g", "inst"])["y"]
    counts = instances.size()
    blocks, platforms = data["g"].nunique(), data["inst"].nunique()
    rounds = int(counts.iloc[0])
    if len(counts) != blocks * platforms or (counts != rounds).any() or (rounds > 1) != instance_term:
        return None
    cell = instances.mean().unstack("inst")
    grand, by_block, by_platform = cell.to_numpy().mean(), cell.mean(axis=1), cell.mean(axis=0)
    interaction = cell.sub(by_platform, axis=1).sub(by_block, axis=0) + grand
    strata = []  # (sum of squares, degrees of freedom), innermost first
    if instance_term:
        within = data["y"] - instances.transform("mean")
        strata.append((float((within**2).sum()), blocks * platforms * (rounds - 1)))
    strata.append((rounds * float((interaction.to_numpy() ** 2).sum()), (blocks - 1) * (platforms - 1)))
    strata.append((platforms * rounds * float(((by_block - grand) ** 2).sum()), blocks - 1))
    expected = pooled_nondecreasing([ss / df for ss, df in strata], [df for _, df in strata])
    pooled = any(a == b for a, b in zip(expected, expected[1:]))
    residual, instance = expected[0], ((expected[1] - expected[0]) / rounds if instance_term else None)
    block = (expected[-1] - expected[-2]) / (platforms * rounds)
    se = math.sqrt(2.0 * expected[-2] / (blocks * rounds))
    baseline = next(c for c in cell.columns if c not in platform_cols)
    beta = {c: float(by_platform[c] - by_platform[baseline]) for c in platform_cols}
    return Estimates(
        beta, {c: se for c in platform_cols}, block, instance, residual, (BOUNDARY_NOTE,) if pooled else ()
    )


def pooled_nondecreasing(values: list[float], weights: list[float]) -> list[float]:
    """The weighted least-squares nondecreasing fit to `values` (pool adjacent violators). Pure."""
    runs: list[tuple[float, float, int]] = []  # (value, weight, how many values pooled)
    for v, w in zip(values, weights):
        runs.append((v, w, 1))
        while len(runs) > 1 and runs[-2][0] > runs[-1][0]:
            (v2, w2, n2), (v1, w1, n1) = runs.pop(), runs.pop()
            runs.append(((v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, n1 + n2))
    return [v for v, _, n in runs for _ in range(n)]


def _fit(data: pd.DataFrame, platform_cols: list[str], instance_term: bool) -> Estimates:
    """REML fit by statsmodels; its warnings come back as notes instead of output.

    The gradient optimisers statsmodels tries first fail when a variance is estimated at 0 (a
    block effect smaller than the noise, as on a loaded machine); Powell's derivative-free method
    then finds that boundary optimum, so it is the second try."""
    import statsmodels.formula.api as smf  # a second to import: only when a design has blocks

    formula = "y ~ " + " + ".join(platform_cols)
    vc = {"instance": "0 + C(inst)"} if instance_term else None
    model = smf.mixedlm(formula, data, groups="g", re_formula="1", vc_formula=vc)
    fit, how = None, ""
    for method in (None, "powell"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                fit = model.fit(reml=True, **({"method": method} if method else {}))
            except (ValueError, np.linalg.LinAlgError):
                if method is not None:
                    raise
                continue
        if fit.converged:
            how = "fitted by Powell's method (the gradient methods failed)" if method else ""
            break
    texts = [str(w.message) for w in caught]
    boundary = any("boundary" in t or "covariance is singular" in t for t in texts)
    notes = [
        n
        for n in (
            BOUNDARY_NOTE if boundary else "",
            how,
            "the optimiser did not converge: read the interval with care" if not fit.converged else "",
            "the Hessian is not positive definite: the standard error is approximate"
            if not boundary and any("Hessian" in t for t in texts)
            else "",
        )
        if n
    ]
    return Estimates(
        {c: float(fit.fe_params[c]) for c in platform_cols},
        {c: float(fit.bse_fe[c]) for c in platform_cols},
        float(np.asarray(fit.cov_re)[0, 0]),
        float(np.asarray(fit.vcomp)[0]) if instance_term else None,
        float(fit.scale),
        tuple(notes),
    )
