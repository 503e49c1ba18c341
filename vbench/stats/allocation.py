"""How many rounds per block: the two-stage allocation from the variance at each level and the costs.

A paired comparison's interval is t over the blocks' mean log ratios (vbench.stats.paired), so
with k blocks of r rounds the variance of its estimate is

    var_block / k + var_round / (k r)

(var_block: between blocks, the cluster instance's own luck; var_round: between rounds of one
block). A block costs its bring-up, warm-ups and tear-down (cost_block) plus r rounds
(cost_round each), so k blocks take k (cost_block + r cost_round) of machine time. The product
of variance and time is smallest at the classic two-stage optimum (Cochran, Sampling Techniques,
ch. 10)

    r* = sqrt((cost_block / cost_round) * (var_round / var_block))

bounded below by 1. Rounds are cheap relative to blocks when bring-up dominates, and worth
having when the round-to-round noise dominates; when the blocks differ a lot, only more blocks
help. The functions here are pure: the statistics stage (vbench.stats.campaign_stats) feeds them
the variance components of each comparison and the costs measured from the samples' timestamps,
and writes the suggestion into stats.json; the runner's behaviour does not change.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from vbench.stats.paired import BLOCK, ROUND, level_text


@dataclass(frozen=True)
class BlockCosts:
    """Machine time of a block beyond its rounds, and of one round, in seconds."""

    block_s: float | None  # bring-up, warm-ups, tear-down: what a block costs besides its rounds
    round_s: float | None  # one round: every cell once
    n_blocks: int  # blocks the figures come from
    note: str = ""


@dataclass(frozen=True)
class RoundsSuggestion:
    """The rounds per block that minimise the interval's variance per unit of machine time."""

    rounds: int | None  # the whole number to use; None: no suggestion (see note)
    optimum: float | None  # r* before rounding and bounds; None when unbounded or undefined
    var_block: float | None
    var_round: float | None
    cost_block_s: float | None
    cost_round_s: float | None
    note: str = ""

    def record(self) -> dict:
        return asdict(self)


def _objective(r: float, var_block: float, var_round: float, cost_block: float, cost_round: float) -> float:
    """Variance of the estimate times machine time, per block (k cancels)."""
    return (var_block + var_round / r) * (cost_block + r * cost_round)


def suggest_rounds_per_block(
    var_block: float | None,
    var_round: float | None,
    cost_block_s: float | None,
    cost_round_s: float | None,
    *,
    max_rounds: int | None = None,
) -> RoundsSuggestion:
    """r* = sqrt((cost_block / cost_round) * (var_round / var_block)), as a whole number >= 1
    (and <= `max_rounds` when given): of the two whole numbers around r*, the one with the
    smaller variance x time. Pure."""
    inputs = dict(var_block=var_block, var_round=var_round, cost_block_s=cost_block_s, cost_round_s=cost_round_s)

    def none(note: str) -> RoundsSuggestion:
        return RoundsSuggestion(None, None, **inputs, note=note)

    if var_block is None or var_round is None:
        return none("the variance at each level is unknown: it needs blocks with several rounds")
    if cost_block_s is None or cost_round_s is None:
        return none("the cost of a block or of a round is unknown")
    if var_block < 0 or var_round < 0 or cost_block_s < 0 or cost_round_s <= 0:
        return none("a variance or cost is negative, or a round costs nothing: no allocation")
    if var_round == 0:
        return RoundsSuggestion(1, 0.0, **inputs, note="no round-to-round variance: one round per block")
    if var_block == 0:
        if max_rounds is None:
            return none(
                "no between-block variance estimated: more rounds per block are always cheaper "
                "than more blocks; bounded only by the budget"
            )
        return RoundsSuggestion(max_rounds, None, **inputs, note="no between-block variance estimated: the most rounds")
    opt = math.sqrt((cost_block_s / cost_round_s) * (var_round / var_block))
    lo = max(1, math.floor(opt))
    candidates = {lo, max(1, math.ceil(opt))}
    if max_rounds is not None:
        candidates = {min(c, max_rounds) for c in candidates}
    best = min(sorted(candidates), key=lambda r: _objective(r, var_block, var_round, cost_block_s, cost_round_s))
    bound = " (bounded)" if best < opt - 1 or best > opt + 1 else ""
    return RoundsSuggestion(best, opt, **inputs, note=f"r* = {opt:.2f}{bound}")


def block_costs(samples: pd.DataFrame) -> BlockCosts:
    """A block's cost beyond its rounds and a round's cost, from the samples' timestamps (the end
    of each run). Pure.

    A round's cost: within each block, the time from the end of its first round to the end of its
    last, over the rounds between (median over blocks). A block's: the time from the end of one
    block to the end of the next, less that block's rounds (median over blocks): bring-up,
    warm-up runs, tear-down and any wait for a quiet machine."""
    need = {"timestamp", BLOCK, ROUND}
    if not need <= set(samples.columns):
        return BlockCosts(None, None, 0, f"the samples carry no {', '.join(sorted(need - set(samples.columns)))}")
    x = samples[samples[BLOCK].notna() & samples[ROUND].notna() & samples["timestamp"].notna()]
    if x.empty:
        return BlockCosts(None, None, 0, "no sample carries a block, a round and a timestamp")
    ends = (
        pd.DataFrame(
            {
                "b": x[BLOCK].map(level_text),
                "r": x[ROUND].map(level_text),
                "t": x["timestamp"].astype(float),
            }
        )
        .groupby(["b", "r"])["t"]
        .max()
        .reset_index()
    )
    per_block = []
    for b, g in ends.groupby("b"):
        t = np.sort(g["t"].to_numpy())
        per_block.append((float(t[-1]), len(t), float((t[-1] - t[0]) / (len(t) - 1)) if len(t) > 1 else None))
    per_block.sort()
    rounds = [r for _end, _n, r in per_block if r is not None]
    if not rounds:
        return BlockCosts(None, None, len(per_block), "no block ran two rounds: a round's cost is unknown")
    round_s = float(np.median(rounds))
    gaps = [(end - prev_end) - n * round_s for (prev_end, _pn, _pr), (end, n, _r) in zip(per_block, per_block[1:])]
    if not gaps:
        return BlockCosts(None, round_s, len(per_block), "one block: a block's cost is unknown")
    block_s = float(np.median(gaps))
    note = ""
    if block_s < 0:
        note = "a block cost less than its rounds predict: taken as 0"
        block_s = 0.0
    return BlockCosts(block_s, round_s, len(per_block), note)
