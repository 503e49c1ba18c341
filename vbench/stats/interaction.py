"""Factor x platform interactions: does a platform's ratio to the baseline change with the level
of a design factor?

A design with a factor (`factors: {hadoop.speculative: [true, false]}`) runs every platform at
every level in each block, and the statistics compare each platform with the baseline within a
level (`ratio_to_baseline`, one cell per level). Whether the factor changes that ratio is a
question of its own: comparing two intervals by eye is not a test of their difference, and two
cells' runs are not independent either, since a block's runs share its machine state. The
interaction is the ratio of the two ratios, paired on block: per block, the mean log ratio at
one level minus that at the reference level, then Student-t over the blocks, exponentiated (the
same t over block means as `paired_ratio`).

Two cells form a pair when they share their size label and every factor level but one; the
reference level is the first of the two in natural order (`speculative=False` before
`speculative=True`), so a row reads "the ratio at `size` over the ratio at the reference".
Pure: nothing here reads a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from vbench.stats.keys import natural_key
from vbench.stats.paired import Pairs, t_on_logs
from vbench.stats.records import Interval
from vbench.stats.tidy import TIME_INDEX_COLUMNS, size_levels
from vbench.wording import count, noun

INTERACTION = "interaction"


@dataclass(frozen=True)
class LevelPair:
    """Two cells of one experiment, benchmark and metric that differ in one factor's level."""

    reference: str  # the size key of the reference cell (the denominator)
    other: str  # the size key of the other cell (the numerator)
    factor: str


@dataclass(frozen=True)
class InteractionResult:
    ratio: Interval  # (ratio at `other`) / (ratio at `reference`)
    n_blocks: int
    p_value: float | None  # two-sided, H0: the factor does not change the ratio


def level_pairs(sizes: Sequence[str]) -> list[LevelPair]:
    """Every pair of cells (size keys) with the same size label and the same factors, differing in
    exactly one design factor's level; the reference is the first in natural order. Pure."""
    parsed = {s: size_levels(s) for s in dict.fromkeys(sizes)}
    ordered = sorted(parsed, key=natural_key)
    out = []
    for i, a in enumerate(ordered):
        label_a, levels_a = parsed[a]
        for b in ordered[i + 1 :]:
            label_b, levels_b = parsed[b]
            if label_a != label_b or not levels_a or levels_a.keys() != levels_b.keys():
                continue
            differ = [f for f in levels_a if levels_a[f] != levels_b[f]]
            if len(differ) == 1 and differ[0] not in TIME_INDEX_COLUMNS:  # "interval=2 over interval=1" asks nothing
                out.append(LevelPair(a, b, differ[0]))
    return out


def _block_means(pairs: Pairs) -> dict[str, float]:
    return {name: float(d.mean()) for name, d in zip(pairs.block_names, pairs.by_block())}


def interaction_ratio(reference: Pairs, other: Pairs, *, conf: float = 0.95) -> InteractionResult | str:
    """The ratio of the paired ratios at two levels, t over the blocks that hold both; or why there
    is none (fewer than two common blocks, every block giving the same difference)."""
    ref, oth = _block_means(reference), _block_means(other)
    common = sorted((b for b in ref if b in oth), key=natural_key)
    if len(common) < 2:
        holds = noun(len(common), "holds", "hold")
        return f"{count(len(common), 'block')} {holds} both levels with both platforms: needs 2"
    d = np.array([oth[b] - ref[b] for b in common])
    if np.ptp(d) == 0:
        return "every block gives the same difference: a t interval would have zero width"
    iv, p = t_on_logs(d, conf)
    return InteractionResult(iv, len(common), p)
