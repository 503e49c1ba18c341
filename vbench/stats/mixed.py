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
exactly the paired-t interval over blocks (the unit tests hold it to that). Fitted by REML with
statsmodels' `MixedLM`. The variance components say where the noise lives: a large block share
means pairing (and more blocks rather than more rounds within one) buys the precision; a large
instance share means only more blocks do.

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

from vbench.stats.keys import natural_key
from vbench.stats.paired import BLOCK, ROUND, level_text
from vbench.stats.records import Interval

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
    keys = {"platform": x["platform"].astype(str), BLOCK: x[BLOCK].map(level_text)}
    if with_round:
        keys[ROUND] = x[ROUND].map(level_text)
    units = (
        pd.DataFrame({**keys, "value": x["value"].astype(float)})
        .groupby(list(keys), sort=False, as_index=False)["value"]
        .mean()
    )
    if (units["value"] <= 0).any():
        return NoFit("a value is not positive: no log metric")
    order = units.apply(lambda r: tuple(natural_key(r[k]) for k in keys), axis=1)
    units = units.assign(_o=order.to_numpy()).sort_values("_o", kind="stable").drop(columns="_o")
    return units.reset_index(drop=True), with_round


def fit_mixed(frame: pd.DataFrame, baseline: str, *, conf: float = 0.95) -> MixedFit | NoFit:
    """Fit log(value) ~ platform + (1 | block) [+ (1 | block:platform)] and read off every
    platform's ratio to `baseline` and the variance at each level."""
    got = model_units(frame)
    if isinstance(got, NoFit):
        return got
    units, with_round = got
    base_blocks = set(units.loc[units["platform"] == baseline, BLOCK])
    if len(base_blocks) < 2:
        return NoFit(f"the baseline '{baseline}' ran in {len(base_blocks)} block(s): the model needs 2")
    others = sorted((p for p in units["platform"].unique() if p != baseline), key=natural_key)
    kept, left_out = [], {}
    for p in others:
        shared = base_blocks & set(units.loc[units["platform"] == p, BLOCK])
        if len(shared) < 2:
            left_out[p] = f"in {len(shared)} block(s) with the baseline: not in the mixed model"
        else:
            kept.append(p)
    if not kept:
        return NoFit("no platform shares two blocks with the baseline")
    units = units[units["platform"].isin([baseline, *kept])].reset_index(drop=True)
    units = units[units[BLOCK].isin(base_blocks)].reset_index(drop=True)
    # Columns of the model named by position: platform labels (native~aa, kvm-2) are not formula names.
    code = {p: f"p{i}" for i, p in enumerate([baseline, *kept])}
    data = pd.DataFrame(
        {
            "y": np.log(units["value"].to_numpy()),
            "g": units[BLOCK].to_numpy(),
            "inst": units["platform"].map(code).to_numpy(),
        }
    )
    for p in kept:
        data[code[p]] = (units["platform"] == p).astype(float).to_numpy()
    several = with_round and bool(units.groupby(["platform", BLOCK]).size().gt(1).any())
    try:
        fit, notes = _fit(data, [code[p] for p in kept], several)
    except (ValueError, np.linalg.LinAlgError) as exc:
        return NoFit(f"the mixed model could not be fitted: {exc}")
    n_blocks = int(data["g"].nunique())
    df = n_blocks - 1
    q = float(stats.t.ppf(0.5 + conf / 2, df))
    ratios = {}
    for p in kept:
        beta, se = float(fit.fe_params[code[p]]), float(fit.bse_fe[code[p]])
        blocks_p = len(base_blocks & set(units.loc[units["platform"] == p, BLOCK]))
        if not math.isfinite(se) or se < 0:
            ratios[p] = MixedRatio(
                Interval(math.exp(beta), note="the fit gave no standard error: no interval"), None, blocks_p
            )
            continue
        pval = float(2 * stats.t.sf(abs(beta) / se, df)) if se > 0 else (0.0 if beta else 1.0)
        ratios[p] = MixedRatio(
            Interval(math.exp(beta), math.exp(beta - q * se), math.exp(beta + q * se)), pval, blocks_p
        )
    block_var = float(np.asarray(fit.cov_re)[0, 0])
    instance = float(np.asarray(fit.vcomp)[0]) if several else None
    variance = MixedVariance(max(0.0, block_var), None if instance is None else max(0.0, instance), float(fit.scale))
    return MixedFit(ratios, variance, len(data), n_blocks, with_round, tuple(notes), left_out)


def _fit(data: pd.DataFrame, platform_cols: list[str], instance_term: bool):
    """REML fit; statsmodels' warnings come back as notes instead of output.

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
            "a variance component is on the boundary (estimated as 0)" if boundary else "",
            how,
            "the optimiser did not converge: read the interval with care" if not fit.converged else "",
            "the Hessian is not positive definite: the standard error is approximate"
            if not boundary and any("Hessian" in t for t in texts)
            else "",
        )
        if n
    ]
    return fit, notes
