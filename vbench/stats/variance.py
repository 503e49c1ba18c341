"""Where the variance lives: the log metric's variance split by the design's levels (issue #51 item 3).

For one configuration's runs of one metric and cell, on the log scale,

    log y = mu + beta x + u_block + v_block,round + e_run

* `drift`: beta x, the machine's speed as the quiet gate's CPU probe read it before the round or
  session (x = log probe, vbench.campaign.quiet); its variance is beta^2 var(x);
* `instance`: u, the block, which for one configuration is its cluster instance (a fresh testbed
  and HDFS per block) together with whatever the machine did during that block beyond the probe;
* `round`: v, one round of a block around the block's level (the same clusters measured again);
* `run`: e, the runs of one round (a micro benchmark's hosts): the residual.

For a comparison, the same split of the within-pair log ratio to the baseline, d =
log(platform / baseline) per (block, round) as vbench.stats.paired pairs them: what is left
after pairing, and what the paired interval's width depends on (t over the blocks' mean d). Its
covariate is the log ratio of the two sides' probes when each side was gated on its own (`every:
session`), else the probe both shared (then a slope says one side slows more on a slow machine).

How: the slope first, fitted where the probe varies (within blocks, on round means less their
block's mean, when it was read per round; else between blocks, on block means), so that no
block's own luck enters it. Then the nested ANOVA of y - beta x: each stratum's mean square
(run within round, round within block, block) estimates an increasing sum of the variances.
Where the layout is balanced the estimates are the mean squares where they increase and pool
where they do not: REML in closed form, as vbench.stats.mixed.balanced_reml (Thompson 1962);
elsewhere the method of moments with the unbalanced coefficients (Searle, Casella & McCulloch,
Variance Components, ch. 3), a negative estimate set to 0. The fitted slope costs its stratum a
degree of freedom. The drift variance is (beta^2 - se^2) var(x), at least 0: beta's own noise
would otherwise give a probe that predicts nothing a share by chance.

A level with one unit per level above it has no stratum of its own: with one run per round
the round holds the run's variance too, with one round per block the instance holds the
round's, and with both every value is a block's (`Component.holds` says which, and the note).
Everything here is pure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np
import pandas as pd
from scipy import stats

from vbench.samples import QUIET_CPU_PROBE
from vbench.stats.keys import natural_key
from vbench.stats.mixed import pooled_nondecreasing
from vbench.stats.paired import BLOCK, ROUND, level_text
from vbench.stats.warmup import measured_samples
from vbench.wording import count

DRIFT, INSTANCE, ROUND_LEVEL, RUN = "drift", "instance", "round", "run"
#: Outermost first, as the tables show them.
LEVELS = (DRIFT, INSTANCE, ROUND_LEVEL, RUN)

LOG_METRIC = "log metric"
LOG_RATIO = "log ratio to the baseline"

BALANCED = "nested ANOVA, balanced (REML)"
UNBALANCED = "nested ANOVA, unbalanced (method of moments)"

PROBE = "log CPU probe"
PROBE_RATIO = "log CPU probe ratio (each side's own reading)"
PROBE_SHARED = "log CPU probe (one reading shared by both sides)"

#: Probe readings closer than this on the log scale are one reading (a round's samples repeat it).
_SAME = 1e-9


@dataclass(frozen=True)
class Layout:
    """How many blocks, rounds per block and runs per round the decomposition saw."""

    blocks: int
    rounds: tuple[int, int]  # fewest and most rounds in a block
    runs: tuple[int, int]  # fewest and most runs in a round
    units: int

    @property
    def balanced(self) -> bool:
        return self.rounds[0] == self.rounds[1] and self.runs[0] == self.runs[1]

    def text(self) -> str:
        """blocks x rounds x runs, e.g. "4 x 1 x 3" or "8 x 1-2 x 1"."""

        def span(lo: int, hi: int) -> str:
            return str(lo) if lo == hi else f"{lo}-{hi}"

        return f"{self.blocks} x {span(*self.rounds)} x {span(*self.runs)}"


@dataclass(frozen=True)
class Slope:
    """The log metric (or log ratio) on the covariate: % per % of probe time."""

    estimate: float
    se: float
    low: float
    high: float
    df: int
    level: str  # where the probe varies and the slope was fitted: "round" (within blocks) or "block"
    covariate: str
    readings: int  # the probe readings it was fitted on


@dataclass(frozen=True)
class Component:
    level: str  # the outermost level it holds, one of LEVELS
    variance: float
    holds: tuple[str, ...]  # every level it holds: ("round", "run") with one run per round
    df: int  # of its stratum (drift: of the slope)


@dataclass(frozen=True)
class Decomposition:
    layout: Layout
    components: tuple[Component, ...]  # outermost first
    slope: Slope | None
    method: str
    notes: tuple[str, ...] = ()

    @property
    def total(self) -> float:
        return float(sum(c.variance for c in self.components))

    def component(self, level: str) -> Component | None:
        return next((c for c in self.components if c.level == level), None)

    def share(self, level: str) -> float | None:
        """The level's share of the total; None where the level has no component of its own."""
        c = self.component(level)
        if c is None:
            return None
        return c.variance / self.total if self.total > 0 else 0.0


@dataclass(frozen=True)
class NoDecomposition:
    reason: str


def decompose(units: pd.DataFrame, *, covariate: str = PROBE, conf: float = 0.95) -> Decomposition | NoDecomposition:
    """Split the variance of `units["y"]` (log values) by the nested levels `block` > `round` > run
    (rows), with `x` (optional, the covariate) as the drift term; see the module's docstring."""
    if units.empty:
        return NoDecomposition("no value")
    y = units["y"].to_numpy(dtype=float)
    if not np.isfinite(y).all():
        return NoDecomposition("a value is not finite on the log scale")
    blocks = units[BLOCK].map(level_text).to_numpy(dtype=str)
    block = _codes(blocks)
    cell = _codes(np.char.add(np.char.add(blocks, "\x1f"), units[ROUND].map(level_text).to_numpy(dtype=str)))
    n_blocks, n = int(block.max()) + 1, len(units)
    if n_blocks < 2:
        return NoDecomposition("one block: the cluster instance's variation was not sampled")
    per_cell = np.bincount(cell)
    cell_block = np.zeros(len(per_cell), dtype=int)
    cell_block[cell] = block
    rounds = np.bincount(cell_block)  # rounds per block
    layout = Layout(n_blocks, (int(rounds.min()), int(rounds.max())), (int(per_cell.min()), int(per_cell.max())), n)
    notes: list[str] = []

    slope = None
    x = units["x"].to_numpy(dtype=float) if "x" in units.columns else None
    if x is None or np.isnan(x).all():
        notes.append("no CPU probe reading in the samples: no drift term")
        x = None
    elif np.isnan(x).any() or not np.isfinite(x[~np.isnan(x)]).all():
        notes.append(f"{int((~np.isfinite(x)).sum())} of {n} units have no CPU probe reading: no drift term")
        x = None
    else:
        got = fit_slope(y, x, block, cell, covariate, conf)
        if isinstance(got, str):
            notes.append(got)
        else:
            slope = got

    yr = y - slope.estimate * x if slope is not None else y
    strata = _strata(yr, block, cell, slope)
    if layout.balanced:
        parts, pooled = _balanced(strata, layout)
        method = BALANCED
        if pooled:
            notes.append("a level is estimated at 0: its mean square was no larger than the level's below (pooled)")
    else:
        parts, truncated = _unbalanced(strata, block, cell)
        method = UNBALANCED
        if truncated:
            notes.append("a level's estimate fell below 0 and is set to 0")
    components = list(parts)
    if slope is not None:
        signal = slope.estimate**2 - slope.se**2
        if signal <= 0:
            notes.append("the probe's slope is within its standard error: drift taken as 0")
        drift = max(0.0, signal) * float(np.var(x, ddof=1))
        components.insert(0, Component(DRIFT, drift, (DRIFT,), slope.df))
    confounded = confounding(layout)
    if confounded:
        notes.append(confounded)
    return Decomposition(layout, tuple(components), slope, method, tuple(notes))


def confounding(layout: Layout) -> str:
    """What the layout cannot tell apart, in words; "" when every level has its own stratum."""
    one_round, one_run = layout.rounds[1] == 1, layout.runs[1] == 1
    if one_round and one_run:
        return "one round per block and one run per round: instance, round and run are confounded (all in instance)"
    if one_round:
        return "one round per block: round and instance are confounded (in instance)"
    if one_run:
        return "one run per round: round and run are confounded (in round)"
    return ""


def _codes(labels: np.ndarray) -> np.ndarray:
    """0..k-1 for each label (np.unique's inverse: the levels in sorted order)."""
    return np.unique(labels, return_inverse=True)[1].reshape(-1)


def _means(values: np.ndarray, codes: np.ndarray) -> np.ndarray:
    return np.bincount(codes, weights=values) / np.bincount(codes)


def fit_slope(
    y: np.ndarray, x: np.ndarray, block: np.ndarray, cell: np.ndarray, covariate: str, conf: float
) -> Slope | str:
    """y on x where x varies: within blocks (round means less their block's mean) when the probe was
    read per round, else between blocks (block means). Returns why not when it cannot be fitted.
    `block` and `cell` are the units' codes (`_codes`)."""
    cy, cx = _means(y, cell), _means(x, cell)
    cell_block = np.zeros(len(cy), dtype=int)
    cell_block[cell] = block
    within = cx - _means(cx, cell_block)[cell_block]
    n_blocks = int(cell_block.max()) + 1
    if (np.abs(within) > _SAME).any():
        level = ROUND_LEVEL
        a, c = cy - _means(cy, cell_block)[cell_block], within
        readings, df = len(cy), len(cy) - n_blocks - 1
    else:
        level = "block"
        by, bx = _means(cy, cell_block), _means(cx, cell_block)
        a, c = by - by.mean(), bx - bx.mean()
        readings, df = n_blocks, n_blocks - 2
    sxx = float(c @ c)
    if sxx <= _SAME**2:
        return "the CPU probe read the same before every round: no drift term"
    if df < 1:
        return f"{readings} probe readings leave no degree of freedom for the slope's error: no drift term"
    beta = float(a @ c) / sxx
    resid = a - beta * c
    se = math.sqrt(float(resid @ resid) / df / sxx)
    q = float(stats.t.ppf(0.5 + conf / 2, df))
    return Slope(beta, se, beta - q * se, beta + q * se, df, level, covariate, readings)


@dataclass(frozen=True)
class _Stratum:
    level: str
    ss: float
    df: int


def _strata(y: np.ndarray, block: np.ndarray, cell: np.ndarray, slope: Slope | None) -> list[_Stratum]:
    """Sums of squares of the strata that exist (innermost first): run within round, round within
    block, block. The slope takes its degree of freedom from the stratum it was fitted in."""
    cell_mean, block_mean = _means(y, cell)[cell], _means(y, block)[block]
    n, n_cells, n_blocks = len(y), int(cell.max()) + 1, int(block.max()) + 1
    fitted = slope.level if slope is not None else None
    out = []
    if n > n_cells:
        out.append(_Stratum(RUN, float(((y - cell_mean) ** 2).sum()), n - n_cells))
    if n_cells > n_blocks:
        df = n_cells - n_blocks - (fitted == ROUND_LEVEL)
        out.append(_Stratum(ROUND_LEVEL, float(((cell_mean - block_mean) ** 2).sum()), df))
    df = n_blocks - 1 - (fitted == "block")
    out.append(_Stratum(INSTANCE, float(((block_mean - y.mean()) ** 2).sum()), df))
    return out


def _holds(strata: list[_Stratum]) -> dict[str, tuple[str, ...]]:
    """The levels each stratum's component holds: its own and those below it that have none."""
    present = {s.level for s in strata}
    out, below = {}, []
    for level in (RUN, ROUND_LEVEL, INSTANCE):
        below.append(level)
        if level in present:
            out[level] = tuple(reversed(below))
            below = []
    return out


def _balanced(strata: list[_Stratum], layout: Layout) -> tuple[list[Component], bool]:
    """Balanced: the mean squares made nondecreasing (pooled where they are not), then each level's
    variance is its stratum's expectation less the one below, over the units it averages."""
    rounds, runs = layout.rounds[0], layout.runs[0]
    scale = {RUN: 1, ROUND_LEVEL: runs, INSTANCE: rounds * runs}
    expected = pooled_nondecreasing([s.ss / s.df for s in strata], [s.df for s in strata])
    pooled = any(a == b for a, b in zip(expected, expected[1:]))
    holds = _holds(strata)
    out, below = [], 0.0
    for s, e in zip(strata, expected):
        out.append(Component(s.level, max(0.0, (e - below) / scale[s.level]), holds[s.level], s.df))
        below = e
    return out[::-1], pooled


def _unbalanced(strata: list[_Stratum], block: np.ndarray, cell: np.ndarray) -> tuple[list[Component], bool]:
    """Unbalanced: E[MS_run] = s_e, E[MS_round] = s_e + k1 s_r, E[MS_block] = s_e + k2 s_r + k3 s_b,
    with Searle's coefficients from the counts; solved from the inside out, negatives set to 0."""
    n_bc = np.bincount(cell).astype(float)
    bc = np.zeros(len(n_bc), dtype=int)
    bc[cell] = block
    n_b = np.bincount(bc, weights=n_bc)
    n, n_cells, n_blocks = float(n_b.sum()), len(n_bc), len(n_b)
    sq_within_block = float((np.bincount(bc, weights=n_bc**2) / n_b).sum())
    k1 = (n - sq_within_block) / (n_cells - n_blocks) if n_cells > n_blocks else 1.0
    k2 = (sq_within_block - float((n_bc**2).sum()) / n) / (n_blocks - 1)
    k3 = (n - float((n_b**2).sum()) / n) / (n_blocks - 1)
    ms = {s.level: s.ss / s.df for s in strata}
    holds = _holds(strata)
    v_run = ms.get(RUN, 0.0)
    v_round = (ms[ROUND_LEVEL] - v_run) / k1 if ROUND_LEVEL in ms else 0.0
    v_block = (ms[INSTANCE] - v_run - k2 * max(0.0, v_round)) / k3
    values = {RUN: v_run, ROUND_LEVEL: v_round, INSTANCE: v_block}
    truncated = any(values[s.level] < 0 for s in strata)
    out = [Component(s.level, max(0.0, values[s.level]), holds[s.level], s.df) for s in strata]
    return out[::-1], truncated


# --- a campaign's decompositions -------------------------------------------------------------------


@dataclass(frozen=True)
class VarianceRow:
    """One configuration's log metric, or one comparison's log ratio, in one cell, split by level."""

    experiment: str
    benchmark: str
    metric: str
    size: str
    configuration: str
    baseline: str  # the comparison's baseline for a log ratio; "" for a configuration's log metric
    result: Decomposition | NoDecomposition
    left_out: int = 0  # runs without a block, or pair units without a partner

    @property
    def quantity(self) -> str:
        return LOG_RATIO if self.baseline else LOG_METRIC

    def record(self) -> dict:
        """The row as stats.json keeps it: plain values, None for what is not there, never NaN."""
        r = self.result
        out = {
            "experiment": self.experiment,
            "benchmark": self.benchmark,
            "metric": self.metric,
            "size": self.size,
            "configuration": self.configuration,
            "baseline": self.baseline,
            "quantity": self.quantity,
        }
        if isinstance(r, NoDecomposition):
            notes = [r.reason]
            out.update(layout=None, blocks=None, units=None, method="", total=None, sd=None, slope=None)
            out["components"] = {level: None for level in LEVELS}
        else:
            notes = list(r.notes)
            total = r.total
            out.update(
                layout=r.layout.text(),
                blocks=r.layout.blocks,
                units=r.layout.units,
                method=r.method,
                total=total,
                sd=math.sqrt(total),
            )
            out["components"] = {
                level: (
                    None
                    if (c := r.component(level)) is None
                    else {"variance": c.variance, "share": r.share(level), "holds": list(c.holds), "df": c.df}
                )
                for level in LEVELS
            }
            s = r.slope
            out["slope"] = (
                None
                if s is None
                else {
                    "estimate": s.estimate,
                    "se": s.se,
                    "low": s.low,
                    "high": s.high,
                    "df": s.df,
                    "level": s.level,
                    "covariate": s.covariate,
                    "readings": s.readings,
                }
            )
        if self.left_out:
            notes.append(f"{count(self.left_out, 'unit')} without a block or a partner left out")
        out["note"] = "; ".join(notes)
        return out


def campaign_variance(
    samples: pd.DataFrame,
    baselines: Mapping[str, str],
    wanted: Callable[[str, str], bool],
    *,
    default_baseline: str = "native",
    conf: float = 0.95,
) -> tuple[VarianceRow, ...]:
    """Every wanted (benchmark, metric)'s decomposition per experiment, cell and configuration, then
    per comparison with the experiment's baseline (`baselines`: experiment -> baseline, else
    `default_baseline`). `samples`: tidy rows with experiment, platform, benchmark, metric, size,
    value, block, optional round, warmup and the probe column. Warm-up runs are left out, as the
    statistics' rule leaves them."""
    if samples.empty or BLOCK not in samples.columns:
        return ()
    df = measured_samples(samples)
    df = df[[wanted(b, m) for b, m in zip(df["benchmark"], df["metric"])]]
    if df.empty:
        return ()
    probe = pd.to_numeric(df[QUIET_CPU_PROBE], errors="coerce") if QUIET_CPU_PROBE in df.columns else np.nan
    frame = pd.DataFrame(
        {
            "experiment": df["experiment"].astype(str) if "experiment" in df.columns else "",
            "platform": df["platform"].astype(str),
            "benchmark": df["benchmark"].astype(str),
            "metric": df["metric"].astype(str),
            "size": df["size"].fillna("").astype(str) if "size" in df.columns else "",
            "value": df["value"].astype(float),
            BLOCK: df[BLOCK],
            ROUND: df[ROUND] if ROUND in df.columns else 0,
            "probe": probe,
        }
    )
    frame[ROUND] = frame[ROUND].fillna(0)
    rows: list[VarianceRow] = []
    keys = ["experiment", "benchmark", "metric", "size"]
    groups = sorted(frame.groupby(keys, sort=False), key=lambda kv: tuple(natural_key(k) for k in kv[0]))
    for (experiment, benchmark, metric, size), group in groups:
        baseline = baselines.get(experiment, default_baseline)
        configs = sorted(group["platform"].unique(), key=lambda p: (p != baseline, natural_key(p)))
        by_config = {p: group[group["platform"] == p] for p in configs}
        for p in configs:
            units, left = _metric_units(by_config[p])
            result = decompose(units, conf=conf) if isinstance(units, pd.DataFrame) else units
            rows.append(VarianceRow(experiment, benchmark, metric, size, p, "", result, left))
        if baseline not in by_config:
            continue
        for p in configs:
            if p == baseline:
                continue
            units, covariate, left = _ratio_units(by_config[p], by_config[baseline])
            result = decompose(units, covariate=covariate, conf=conf) if isinstance(units, pd.DataFrame) else units
            rows.append(VarianceRow(experiment, benchmark, metric, size, p, baseline, result, left))
    return tuple(rows)


def _metric_units(runs: pd.DataFrame) -> tuple[pd.DataFrame | NoDecomposition, int]:
    """(block, round, y = log value, x = log probe) per run, and the runs left out (no block)."""
    keyed = runs[runs[BLOCK].notna()]
    if keyed.empty:
        return NoDecomposition("no run carries a block: no levels to split"), len(runs)
    if (keyed["value"] <= 0).any():
        return NoDecomposition("a value is not positive: no log metric"), len(runs) - len(keyed)
    units = pd.DataFrame(
        {
            BLOCK: keyed[BLOCK].map(level_text),
            ROUND: keyed[ROUND].map(level_text),
            "y": np.log(keyed["value"].to_numpy()),
            "x": _log_probe(keyed["probe"]),
        }
    )
    return units, len(runs) - len(keyed)


def _log_probe(probe: pd.Series) -> np.ndarray:
    p = probe.to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), np.nan)


def _ratio_units(platform: pd.DataFrame, baseline: pd.DataFrame) -> tuple[pd.DataFrame | NoDecomposition, str, int]:
    """One unit per (block, round) holding both sides: d = log(mean platform / mean baseline), the
    runs of a side in one unit averaged first as vbench.stats.paired.pair_runs averages them; and
    the covariate: the log ratio of the sides' probes where they were read apart, else the shared one."""

    def side(runs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(unit keys, mean value, mean log probe, runs) per (block, round), keys sorted."""
        keyed = runs[runs[BLOCK].notna()]
        keys = np.char.add(
            np.char.add(keyed[BLOCK].map(level_text).to_numpy(dtype=str), "\x1f"),
            keyed[ROUND].map(level_text).to_numpy(dtype=str),
        )
        names, codes = np.unique(keys, return_inverse=True)
        codes = codes.reshape(-1)
        return (
            names,
            _means(keyed["value"].to_numpy(dtype=float), codes),
            _means(_log_probe(keyed["probe"]), codes),
            np.bincount(codes),
        )

    (kp, vp, xp, n_p), (kb, vb, xb, n_b) = side(platform), side(baseline)
    both, ip, ib = np.intersect1d(kp, kb, return_indices=True)
    left = int(len(platform) + len(baseline) - n_p[ip].sum() - n_b[ib].sum())
    if both.size == 0:
        return NoDecomposition("no block holds both configurations: nothing paired"), PROBE_RATIO, left
    vp, xp, vb, xb = vp[ip], xp[ip], vb[ib], xb[ib]
    if (vp <= 0).any() or (vb <= 0).any():
        return NoDecomposition("a value is not positive: no log ratio"), PROBE_RATIO, left
    apart = bool((np.abs(xp - xb) > _SAME).any())
    covariate = PROBE_RATIO if apart else PROBE_SHARED
    block_round = [k.split("\x1f") for k in both]
    units = pd.DataFrame(
        {
            BLOCK: [b for b, _ in block_round],
            ROUND: [r for _, r in block_round],
            "y": np.log(vp / vb),
            "x": xp - xb if apart else xb,
        }
    )
    return units, covariate, left


# --- how a reader sees them --------------------------------------------------------------------------


def variance_frame(records: list[dict]) -> pd.DataFrame:
    """The records (`VarianceRow.record`) as one table: each level's share of the total variance (NaN
    where the level has no component of its own: the note says which level holds it), the total as
    an s.d. of the log (about the CV), the probe's slope."""
    columns = [
        "experiment",
        "benchmark",
        "metric",
        "size",
        "configuration",
        "baseline",
        "quantity",
        "layout",
        "sd",
        *LEVELS,
        "slope",
        "slope_low",
        "slope_high",
        "method",
        "note",
    ]
    rows = []
    for r in records:
        slope = r.get("slope") or {}
        rows.append(
            {
                **{k: r.get(k) for k in ("experiment", "benchmark", "metric", "size", "configuration", "baseline")},
                "quantity": r["quantity"],
                "layout": r.get("layout"),
                "sd": r.get("sd"),
                **{level: (r["components"][level] or {}).get("share") for level in LEVELS},
                "slope": slope.get("estimate"),
                "slope_low": slope.get("low"),
                "slope_high": slope.get("high"),
                "method": r.get("method", ""),
                "note": r.get("note", ""),
            }
        )
    out = pd.DataFrame(rows, columns=columns)
    numbers = ["sd", *LEVELS, "slope", "slope_low", "slope_high"]
    out[numbers] = out[numbers].astype(float)  # a level without a component is NaN, not None
    return out


def _share(v) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.0f} %"


def markdown(records: list[dict]) -> str:
    """A Markdown table of the records, one line each: what varies, the workload as the reports name
    it (`terasort[128MB] terasort.job_time`), the layout (blocks x rounds x runs), the s.d. of the
    log, each level's share, the probe's slope with its interval, the note."""
    lines = [
        "| what | metric | blocks x rounds x runs | s.d. (log) | drift | instance | round | run | probe slope [95 %] | note |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        what = f"{r['configuration']} / {r['baseline']}" if r["baseline"] else r["configuration"]
        sd = "-" if r.get("sd") is None else f"{r['sd']:.3f}"
        s = r.get("slope")
        slope = "-" if not s else f"{s['estimate']:+.2f} [{s['low']:+.2f}, {s['high']:+.2f}]"
        shares = " | ".join(_share((r["components"][level] or {}).get("share")) for level in LEVELS)
        workload = f"{r['benchmark']}[{r['size']}] {r['metric']}" if r["size"] else f"{r['benchmark']} {r['metric']}"
        lines.append(f"| {what} | {workload} | {r.get('layout') or '-'} | {sd} | {shares} | {slope} | {r['note']} |")
    return "\n".join(lines) + "\n"
