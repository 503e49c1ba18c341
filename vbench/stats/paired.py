"""Paired ratios to the baseline: within-block log ratios, blocks as the upper level.

A blocked design runs every configuration in each block (a fresh cluster instance, taken at
the same time on the same machine), so whatever slows a block down slows every platform in it.
Treating the runs as independent (Fieller) puts that block-to-block variation into the ratio's
interval; comparing each platform run with the baseline run of the same block removes it, as
randomised multiple interleaved trials intend (Abedi & Brecht, ICPE 2017). Runs are therefore
paired on `block` (and `round` when the design has rounds), and the ratio and its interval come
from the within-pair log ratios d = log(platform / baseline):

* one pair per block (or several runs per block without rounds, e.g. one per host, averaged
  within the block first): Student-t on the mean of d across blocks, exponentiated
  (`PAIRED_T`); the estimate is the geometric mean of the block ratios;
* several rounds in a block: the same t over the block means of d (`PAIRED_T`: the block, a
  cluster instance, is the independent unit; on balanced blocks this is the mixed model's
  interval for the platform effect with block random), and the variance of d at each level
  (between blocks, within a block) by one-way random-effects ANOVA, which says whether more
  blocks or more rounds buy precision (`rounds_per_block` turns it into a design suggestion).
  A hierarchical bootstrap (Kalibera & Jones, ISMM 2013: resample blocks, then rounds within
  each chosen block) is kept beside it (`hierarchical_ratio`, `HIERARCHICAL`), never preferred:
  its percentile interval covers less than it claims with few blocks (about 88 % with five),
  and less still under adaptive stopping (docs/campaigns.md). So is the t over every round's log
  ratio as if rounds were independent (`rounds_ratio`, `PAIRED_T_ROUNDS`): on (pairs - 1) degrees
  of freedom instead of (blocks - 1) it is much narrower with few blocks, and right only where a
  cluster instance adds no variance of its own to the ratio. The planted-effect test judged it
  (docs/planted-effects.md, 2026-11-30): on the lean shape (a block's configurations on clusters
  up together, several rounds a block, 4 blocks of 3) it recovered both planted effects 10 times
  in 10, 1.2-1.5x narrower than the t over block means. So for designs of that shape
  (`rounds_are_units`: the campaign reader marks their samples with `PAIR_UNIT`) and at least
  `MIN_BLOCKS_FOR_ROUNDS` blocks it is the preferred row (`preferred_ratio`); elsewhere it is a
  candidate beside the t over block means, never preferred: no test has shown a cluster instance
  adds nothing there (one round a block has no such row at all).

Logs make the ratio symmetric (lxc/native and native/lxc have intervals that are reciprocals)
and need positive values; a non-positive value, or fewer than two pairs, leaves the comparison
to Fieller (`FIELLER`), and the caller says so in the note.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from vbench.stats.describe import t_quantile
from vbench.stats.hypothesis import TostResult
from vbench.stats.keys import natural_key
from vbench.stats.records import Interval
from vbench.wording import count

PAIRED_T = "paired-t (blocks)"
PAIRED_T_ROUNDS = "paired-t (rounds)"
HIERARCHICAL = "hierarchical bootstrap"
FIELLER = "fieller"
PAIRED_METHODS = (PAIRED_T, PAIRED_T_ROUNDS, HIERARCHICAL)

#: The design's columns that say which runs belong together, outermost first.
BLOCK, ROUND = "block", "round"
#: The samples' column that says which level of a pair is the independent unit: ROUND where the
#: campaign's design is of the shape the planted-effect test adopted the rounds' t for
#: (`rounds_are_units`, set by the campaign reader); absent, or anything else, the block.
PAIR_UNIT = "pair_unit"
#: Fewest blocks for which the rounds' t is preferred: the planted-effect test saw the cluster
#: instance add nothing at 4 blocks of 3 rounds; with fewer blocks that share is not sampled.
MIN_BLOCKS_FOR_ROUNDS = 4
#: Where the rounds' t is preferred, and on what evidence: said in every row that depends on it.
ROUNDS_PREFERRED_WHY = (
    "preferred for this design's shape (concurrent clusters, several rounds a block, at least "
    f"{MIN_BLOCKS_FOR_ROUNDS} blocks: the planted-effect test, docs/planted-effects.md)"
)


def rounds_are_units(experiment: Mapping[str, Any]) -> bool:
    """Whether a design (campaign.json's `experiment`) is of the lean shape, for which the rounds'
    t is adopted (docs/planted-effects.md, "Repetitions 6-10 and the decision"): several rounds a
    block, the block's configurations on clusters up together (`interleave: concurrent`, the
    default), one job at a time (no duet) and the idle clusters left running (no freeze). The
    planted-effect test measured that shape and no other; the job it ran is not part of it. Pure."""
    return (
        int(experiment.get("rounds") or 1) > 1
        and (experiment.get("interleave") or "concurrent") == "concurrent"
        and not experiment.get("duet")
        and (experiment.get("idle") or "run") == "run"
    )


@dataclass(frozen=True)
class Pairs:
    """Within-pair log ratios, one per (block, round) that holds both platforms, by block."""

    blocks: tuple[str, ...]  # the block of each pair, in the order of `log_ratios`
    log_ratios: np.ndarray
    has_rounds: bool  # the samples carry a round: pairs are (block, round), not whole blocks
    unpaired_runs: int = 0  # runs left out: their block (or round) lacks the other platform
    note: str = ""  # why there are no pairs, when there are none
    rounds_are_units: bool = False  # every run's design is of the lean shape (PAIR_UNIT)

    @property
    def n_pairs(self) -> int:
        return int(self.log_ratios.size)

    @property
    def block_names(self) -> list[str]:
        return list(dict.fromkeys(self.blocks))

    @property
    def n_blocks(self) -> int:
        return len(self.block_names)

    def by_block(self) -> list[np.ndarray]:
        b = np.asarray(self.blocks, dtype=object)
        return [self.log_ratios[b == name] for name in self.block_names]

    @property
    def several_rounds(self) -> bool:
        """Whether some block has more than one pair: the case for the hierarchical bootstrap."""
        return self.has_rounds and any(x.size > 1 for x in self.by_block())

    @property
    def rounds_preferred(self) -> bool:
        """Whether the rounds' t is the row read (`preferred_ratio`): a design of the lean shape,
        several rounds a block and at least MIN_BLOCKS_FOR_ROUNDS blocks."""
        return self.rounds_are_units and self.several_rounds and self.n_blocks >= MIN_BLOCKS_FOR_ROUNDS


@dataclass(frozen=True)
class VarianceComponents:
    """Variance of the log ratio at each level (one-way random-effects ANOVA, method of moments)."""

    between_blocks: float | None  # of the block's true mean log ratio (cluster instance)
    within_block: float | None  # of one pair around its block's mean (round to round)
    note: str = ""


@dataclass(frozen=True)
class PairedRatio:
    """A paired ratio platform / baseline with its interval and what produced it."""

    method: str  # PAIRED_T or HIERARCHICAL
    ratio: Interval  # exp(mean log ratio) and its interval
    n_pairs: int
    n_blocks: int
    p_value: float | None  # two-sided, H0: ratio = 1
    variance: VarianceComponents | None  # when the design has rounds
    note: str = ""


def level_text(v) -> str:
    """A block or round as text: 2.0 (a float column with gaps) and 2 are the same level."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _pair_key(df: pd.DataFrame, with_round: bool) -> pd.Series:
    cols = [BLOCK, ROUND] if with_round else [BLOCK]
    # Column by column as Python values, not a row-wise `apply` (a Series built per row).
    levels = zip(*(df[c].tolist() for c in cols))
    return pd.Series(["\x1f".join(level_text(v) for v in r) for r in levels], index=df.index, dtype=object)


def _unit_means(runs: pd.DataFrame, keys: list[str]) -> dict[str, float]:
    """The mean value of each pair unit (key), in order of first appearance."""
    means = runs["value"].astype(float).groupby(np.array(keys, dtype=object), sort=False).mean()
    return dict(zip(means.index.tolist(), means.to_numpy()))


def pair_runs(platform: pd.DataFrame, baseline: pd.DataFrame) -> Pairs:
    """Pair the runs of `platform` with those of `baseline` (frames with `value`, `block`, optional `round`).

    Several runs of one platform in one pair unit (the hosts of a micro benchmark) are averaged
    first: they measured the same cluster instance, so they are one observation of it."""
    empty = np.empty(0)
    if BLOCK not in platform.columns or BLOCK not in baseline.columns:
        return Pairs((), empty, False, len(platform) + len(baseline), "the samples carry no block: unpaired design")
    x = platform[platform[BLOCK].notna()]
    y = baseline[baseline[BLOCK].notna()]
    unkeyed = (len(platform) - len(x)) + (len(baseline) - len(y))
    if x.empty or y.empty:
        return Pairs((), empty, False, len(platform) + len(baseline), "no run carries a block: unpaired design")
    with_round = ROUND in x.columns and ROUND in y.columns and x[ROUND].notna().all() and y[ROUND].notna().all()
    units = with_round and all(PAIR_UNIT in side.columns and (side[PAIR_UNIT] == ROUND).all() for side in (x, y))
    kx, ky = _pair_key(x, with_round).tolist(), _pair_key(y, with_round).tolist()
    # Each unit's mean by pandas' grouped mean, then looked up by key in plain dicts.
    mx, my = (_unit_means(side, k) for side, k in ((x, kx), (y, ky)))
    both = [k for k in mx if k in my]
    shared = set(both)
    unpaired = unkeyed + sum(k not in shared for k in kx) + sum(k not in shared for k in ky)
    if not both:
        return Pairs((), empty, with_round, unpaired, "no block holds both platforms: unpaired design")
    if any(mx[k] <= 0 or my[k] <= 0 for k in both):
        return Pairs((), empty, with_round, unpaired, "a value is not positive: no log ratio")
    # Blocks (then rounds) in their natural order, so the bootstrap's draws do not depend on file order.
    both = sorted(both, key=lambda k: tuple(natural_key(p) for p in k.split("\x1f")))
    d = np.log(np.array([mx[k] for k in both]) / np.array([my[k] for k in both]))
    pairs = Pairs(tuple(k.split("\x1f")[0] for k in both), d, with_round, unpaired, rounds_are_units=units)
    if pairs.n_pairs >= 2 and np.ptp(_upper_level(pairs)) == 0:
        # Whole-unit readings (bonnie++'s CPU %) can give every block the same ratio while the
        # runs themselves vary: a t interval of zero width would claim a certainty they do not have.
        return Pairs(
            (),
            empty,
            with_round,
            len(platform) + len(baseline),
            "every block gives the same ratio (whole-unit readings): a paired t would have zero width; unpaired design",
        )
    return pairs


def variance_components(pairs: Pairs) -> VarianceComponents:
    """Between-block and within-block variance of the log ratio (unbalanced one-way ANOVA)."""
    groups = pairs.by_block()
    n = pairs.n_pairs
    k = len(groups)
    if n - k < 1:
        return VarianceComponents(None, None, "one pair per block: the levels cannot be separated")
    grand = float(pairs.log_ratios.mean())
    ssw = sum(float(((g - g.mean()) ** 2).sum()) for g in groups)
    msw = ssw / (n - k)
    if k < 2:
        return VarianceComponents(None, msw, "one block: no between-block variance")
    msb = sum(g.size * (float(g.mean()) - grand) ** 2 for g in groups) / (k - 1)
    n0 = (n - sum(g.size**2 for g in groups) / n) / (k - 1)
    between = max(0.0, (msb - msw) / n0)
    note = "between-block estimate truncated at 0 (blocks agree more than rounds predict)" if msb < msw else ""
    return VarianceComponents(between, msw, note)


def t_on_logs(d: np.ndarray, conf: float) -> tuple[Interval, float | None]:
    mean = float(d.mean())
    sd = float(d.std(ddof=1))  # > 0: `pair_runs` leaves blocks that all agree unpaired
    se = sd / math.sqrt(d.size)
    half = t_quantile(0.5 + conf / 2, d.size - 1) * se
    p = float(2 * stats.t.sf(abs(mean) / se, d.size - 1))
    return Interval(math.exp(mean), math.exp(mean - half), math.exp(mean + half)), p


def hierarchical_means(pairs: Pairs, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap distribution of the mean of block means of d: blocks resampled, then pairs within each."""
    groups = pairs.by_block()
    k = len(groups)
    chosen = rng.integers(0, k, (n_resamples, k))
    # For every block, its resampled mean in every (resample, slot); then take the chosen block's.
    per_block = np.stack([g[rng.integers(0, g.size, (n_resamples, k, g.size))].mean(axis=-1) for g in groups])
    slots = np.arange(k)
    picked = per_block[chosen, np.arange(n_resamples)[:, None], slots[None, :]]
    return picked.mean(axis=1)


def _unpaired_note(pairs: Pairs) -> str:
    return f"; {count(pairs.unpaired_runs, 'run')} without a partner left out" if pairs.unpaired_runs else ""


def _upper_level(pairs: Pairs) -> np.ndarray:
    """What the t-interval treats as independent: the block means, or the rounds of a lone block."""
    return np.array([g.mean() for g in pairs.by_block()]) if pairs.n_blocks >= 2 else pairs.log_ratios


def _point(pairs: Pairs) -> float:
    """Mean of the block means: every block (cluster instance) weighs the same, whatever its rounds."""
    return float(np.mean([g.mean() for g in pairs.by_block()]))


def hierarchical_ratio(
    pairs: Pairs, *, conf: float = 0.95, n_resamples: int = 9999, rng: np.random.Generator | None = None
) -> PairedRatio | None:
    """The hierarchical bootstrap's ratio and percentile interval, when blocks hold several rounds
    (None otherwise). Reported beside the preferred t over block means, for comparison."""
    if not (pairs.several_rounds and pairs.n_blocks >= 2):
        return None
    rng = np.random.default_rng(rng)
    theta = _point(pairs)
    boot = hierarchical_means(pairs, n_resamples, rng)
    lo, hi = np.percentile(boot, [50 * (1 - conf), 50 * (1 + conf)])
    # Two-sided bootstrap p-value of "mean log ratio = 0" (the percentile interval's dual).
    tail = min(np.count_nonzero(boot <= 0), np.count_nonzero(boot >= 0))
    p = min(1.0, 2 * (tail + 1) / (boot.size + 1))
    note = (
        f"{pairs.n_pairs} pairs in {pairs.n_blocks} blocks; percentile interval of {n_resamples} resamples"
        + ("; with few blocks a percentile interval is too narrow: add blocks" if pairs.n_blocks < 5 else "")
        + "; not preferred: covers less than 95 % with few blocks (the t over "
        + ("every round" if pairs.rounds_preferred else "block means")
        + " is the answer)"
        + _unpaired_note(pairs)
    )
    iv = Interval(math.exp(theta), math.exp(float(lo)), math.exp(float(hi)), note)
    variance = variance_components(pairs)
    return PairedRatio(HIERARCHICAL, iv, pairs.n_pairs, pairs.n_blocks, p, variance, note)


def paired_ratio(pairs: Pairs, *, conf: float = 0.95) -> PairedRatio | None:
    """The preferred paired ratio and its interval: Student-t over the blocks' mean log ratios (or
    over the rounds of a lone block); None when there are fewer than two pairs (Fieller's case).

    With several rounds per block the block means are the independent observations: a round
    shares its cluster instance with the other rounds of its block, so treating rounds as
    independent (or resampling them, as the percentile bootstrap does) understates the
    uncertainty when there are few blocks."""
    if pairs.n_pairs < 2:
        return None
    variance = variance_components(pairs) if pairs.has_rounds else None
    d = _upper_level(pairs)
    iv, p = t_on_logs(d, conf)
    if pairs.n_blocks < 2:
        note = f"one block: t on its {d.size} rounds, cluster-instance variation not sampled"
    elif pairs.several_rounds:
        note = f"t on {d.size} block means of {pairs.n_pairs} round log ratios (a block is the independent unit)"
    else:
        note = f"t on {d.size} block log ratios"
    if pairs.rounds_preferred:
        note += f"; not preferred: the t on every round is ({PAIRED_T_ROUNDS}, {ROUNDS_PREFERRED_WHY})"
    note += _unpaired_note(pairs)
    return PairedRatio(
        PAIRED_T,
        Interval(iv.estimate, iv.low, iv.high, "; ".join(filter(None, [iv.note, note]))),
        pairs.n_pairs,
        pairs.n_blocks,
        p,
        variance,
        note,
    )


def rounds_ratio(pairs: Pairs, *, conf: float = 0.95) -> PairedRatio | None:
    """The candidate beside the preferred row: Student-t over every pair's log ratio, rounds
    counted as independent, when blocks hold several rounds (None otherwise: it would be the
    preferred row again).

    It assumes what the preferred row does not: that a block's cluster instances add nothing to
    the ratio beyond what its rounds already show (no instance variance). Where that holds, its
    (pairs - 1) degrees of freedom and its every-round standard error give the interval the data
    can carry; where it does not, it is too narrow, and the planted-effect test's coverage says so."""
    if not (pairs.several_rounds and pairs.n_blocks >= 2):
        return None
    iv, p = t_on_logs(pairs.log_ratios, conf)
    standing = ROUNDS_PREFERRED_WHY if pairs.rounds_preferred else "a candidate, not preferred"
    note = (
        f"t on {pairs.n_pairs} round log ratios as independent ({pairs.n_blocks} blocks): assumes no "
        f"cluster-instance variance; {standing}" + _unpaired_note(pairs)
    )
    variance = variance_components(pairs)
    return PairedRatio(
        PAIRED_T_ROUNDS, Interval(iv.estimate, iv.low, iv.high, note), pairs.n_pairs, pairs.n_blocks, p, variance, note
    )


def preferred_ratio(pairs: Pairs, *, conf: float = 0.95) -> PairedRatio | None:
    """The paired row every verdict reads: the rounds' t where the pairs' design is of the lean
    shape (`Pairs.rounds_preferred`), else the t over block means; None with fewer than two pairs."""
    return rounds_ratio(pairs, conf=conf) if pairs.rounds_preferred else paired_ratio(pairs, conf=conf)


#: The most blocks `blocks_to_clear` looks at: beyond it, more runs are no answer.
MAX_BLOCKS_TO_CLEAR = 100


def blocks_to_clear(
    low: float | None,
    high: float | None,
    blocks: int,
    edges: Sequence[float],
    conf: float = 0.95,
    rounds_per_block: int = 1,
) -> int | None:
    """How many blocks in all would give a paired-t interval clear of every edge, if the log ratios
    kept the spread and mean measured: their sd is backed out of the interval (half-width = t(units
    - 1) sd / sqrt(units)), the centre stays where it is. The units are the blocks (`paired_ratio`),
    or, where the rounds' t is the row read (`rounds_ratio`), blocks x `rounds_per_block` rounds.
    None: no interval to extrapolate from, or not within MAX_BLOCKS_TO_CLEAR (the estimate sits at
    an edge)."""
    values = (low, high)
    per = max(1, int(rounds_per_block))
    if blocks * per < 2 or any(v is None or not math.isfinite(v) or v <= 0 for v in values):
        return None
    lo, hi = math.log(low), math.log(high)  # type: ignore[arg-type]
    centre, half = (lo + hi) / 2, (hi - lo) / 2
    units = blocks * per
    sd = half * math.sqrt(units) / float(stats.t.ppf(0.5 + conf / 2, units - 1))
    gaps = [abs(centre - math.log(e)) for e in edges if e > 0]
    if not gaps:
        return None
    gap = min(gaps)
    for n in range(blocks, MAX_BLOCKS_TO_CLEAR + 1):
        m = n * per
        if m >= 2 and float(stats.t.ppf(0.5 + conf / 2, m - 1)) * sd / math.sqrt(m) < gap:
            return n
    return None


def paired_tost(pairs: Pairs, bound_pct: float, alpha: float = 0.05) -> TostResult:
    """TOST of "ratio within [1 - X/100, 1 + X/100]" on the paired log ratio, same units as the
    preferred row (`preferred_ratio`): two one-sided t-tests of the mean block log ratio (or, where
    the rounds' t is preferred, of every round's) against log(1 -/+ X/100). The result's interval
    is the dual (1 - 2 alpha) t interval."""
    lo, hi = math.log(1 - bound_pct / 100.0), math.log(1 + bound_pct / 100.0)
    if pairs.n_pairs < 2:
        return TostResult(Interval(None), None, None, None, False, bound_pct, "fewer than two pairs: no paired test")
    d = pairs.log_ratios if pairs.rounds_preferred else _upper_level(pairs)
    dual, _ = t_on_logs(d, 1 - 2 * alpha)
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    se = sd / math.sqrt(d.size)
    p_lower = float(stats.t.sf((mean - lo) / se, d.size - 1))
    p_upper = float(stats.t.cdf((mean - hi) / se, d.size - 1))
    p = float(max(p_lower, p_upper))
    return TostResult(dual, p, float(p_lower), float(p_upper), p < alpha, bound_pct)
