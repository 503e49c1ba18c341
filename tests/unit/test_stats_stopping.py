"""Adaptive stopping (vbench.stats.stopping): the pure rule, and the rule on a simulated campaign's
samples through the statistics table's own code."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from vbench.stats.stopping import (
    BUDGET,
    CONTINUE,
    MAX_ROUNDS,
    TARGET_REACHED,
    ComparisonWidth,
    comparison_widths,
    decide,
    precision_decision,
)

from tests.unit.builders import paired_blocks, sample_row


def _w(hw, platform="lxc"):
    return ComparisonWidth("terasort", "terasort_time", "", platform, "paired-t (blocks)", 1.05, hw)


def _play(widths_by_round, **kw):
    """The round after which the rule stops (or None), carrying reached_at as the runner's hook does."""
    reached = None
    for k, widths in enumerate(widths_by_round, start=1):
        d = decide(widths, rounds_done=k, reached_at=reached, **kw)
        reached = d.reached_at
        if d.stop:
            return k, d
    return None, d


def test_stops_when_every_comparison_is_within_target_and_not_before():
    rounds = [
        [_w(None), _w(None, "kvm")],
        [_w(9.0), _w(12.0, "kvm")],
        [_w(4.0), _w(6.0, "kvm")],
        [_w(2.5), _w(3.5, "kvm")],
        [_w(2.4), _w(2.9, "kvm")],
        [_w(2.0), _w(2.5, "kvm")],
    ]
    stop, d = _play(rounds, target_pct=3.0, min_rounds=2, max_rounds=None)
    assert stop == 5 and d.verdict == TARGET_REACHED and d.reached_at == 5
    assert "kvm" in d.reason and "+/-2.9 %" in d.reason  # the widest is named


def test_the_target_counts_only_from_min_rounds():
    rounds = [[_w(2.0)]] * 6
    stop, d = _play(rounds, target_pct=3.0, min_rounds=4, max_rounds=None)
    assert stop == 4
    d2 = decide([_w(2.0)], rounds_done=3, target_pct=3.0, min_rounds=4, max_rounds=None)
    assert d2.verdict == CONTINUE and "only 3 of at least 4 rounds" in d2.reason


def test_extra_rounds_run_after_the_target_is_reached_even_if_it_slips():
    rounds = [[_w(5.0)], [_w(2.0)], [_w(3.2)], [_w(2.8)], [_w(3.1)], [_w(2.0)]]
    stop, d = _play(rounds, target_pct=3.0, min_rounds=2, max_rounds=None, extra_rounds=3)
    assert stop == 5 and d.verdict == TARGET_REACHED and d.reached_at == 2
    assert "3 more rounds run after the target was reached in round 2" in d.reason
    mid = decide([_w(3.2)], rounds_done=3, reached_at=2, target_pct=3.0, min_rounds=2, max_rounds=None, extra_rounds=3)
    assert mid.verdict == CONTINUE and "2 more rounds before stopping" in mid.reason


def test_with_rounds_per_block_the_extra_rounds_end_at_the_end_of_a_block():
    # Three rounds per block; the target holds from round 4 (block 2's first round) on.
    rounds = [[_w(5.0)]] * 3 + [[_w(2.0)]] * 12
    kw = dict(target_pct=3.0, min_rounds=3, max_rounds=None, extra_rounds=6)
    stop, d = _play(rounds, **kw, rounds_per_block=3)
    # 4 + 6 = 10 is mid-block (block 4 holds rounds 10-12): the stop waits for round 12.
    assert stop == 12 and d.verdict == TARGET_REACHED and d.reached_at == 4
    assert "8 more rounds run after the target was reached in round 4 (to the end of a block of 3" in d.reason
    mid = decide([_w(2.0)], rounds_done=10, reached_at=4, rounds_per_block=3, **kw)
    assert mid.verdict == CONTINUE and "2 more rounds before stopping" in mid.reason
    # One round per block: exactly extra_rounds after the target, as before.
    assert _play(rounds, **kw)[0] == 10
    # A boundary already reached stops there.
    assert _play(rounds, **{**kw, "extra_rounds": 5}, rounds_per_block=3)[0] == 9
    with pytest.raises(ValueError):
        decide([_w(2.0)], rounds_done=1, rounds_per_block=0, **kw)


def test_the_default_rule_counts_min_and_extra_rounds_in_blocks():
    from vbench.campaign.design import PRECISION_EXTRA_BLOCKS, PRECISION_MIN_BLOCKS, Experiment

    def exp(rounds, **precision):
        return Experiment.model_validate(
            {
                "name": "t",
                "platforms": ["native", "lxc"],
                "repetitions": 40,
                "rounds": rounds,
                "seed": 7,
                "suite": [{"benchmark": "terasort"}],
                "precision": {"target_pct": 3, **precision},
            }
        )

    one, three = exp(1), exp(3)
    assert (one.precision_min_rounds, one.precision_extra_rounds) == (PRECISION_MIN_BLOCKS, PRECISION_EXTRA_BLOCKS)
    assert (three.precision_min_rounds, three.precision_extra_rounds) == (
        3 * PRECISION_MIN_BLOCKS,
        3 * PRECISION_EXTRA_BLOCKS,
    )
    assert exp(3, extra_rounds=5).precision_extra_rounds == 5
    # Played with these defaults, a campaign whose target holds from its 31st round on stops at
    # the end of block 10 + 8 (round 54 with 3 rounds per block), not 8 rounds later.
    widths = [[_w(2.0)]] * 120
    stop, d = _play(
        widths,
        target_pct=3.0,
        min_rounds=three.precision_min_rounds,
        max_rounds=120,
        extra_rounds=three.precision_extra_rounds,
        rounds_per_block=three.rounds,
    )
    assert stop == 54 and d.reached_at == 30


def test_max_rounds_and_budget_stop_with_the_status_said():
    d = decide([_w(8.0)], rounds_done=10, target_pct=3.0, min_rounds=3, max_rounds=10)
    assert d.verdict == MAX_ROUNDS and "max_rounds (10) reached" in d.reason and "+/-8.0 %" in d.reason
    d = decide([_w(8.0)], rounds_done=5, target_pct=3.0, min_rounds=3, max_rounds=10, over_budget=True)
    assert d.verdict == BUDGET and d.stop
    d = decide([], rounds_done=5, target_pct=3.0, min_rounds=3, max_rounds=10)
    assert d.verdict == CONTINUE and "no primary comparison" in d.reason
    assert (
        decide([_w(2.0), _w(None, "kvm")], rounds_done=5, target_pct=3.0, min_rounds=3, max_rounds=None).verdict
        == CONTINUE
    )  # a comparison without an interval is not precise


def _campaign(n_blocks: int, seed: int = 3) -> pd.DataFrame:
    """Tidy samples of a paired campaign: one TeraSort per platform per block (round 0)."""
    rows = []
    for rng, b, p, mu, shared in paired_blocks(n_blocks, seed):
        terasort = math.exp(math.log(100) + mu + shared + rng.normal(0, 0.02))
        rows.append(sample_row(p, terasort, b, block=b, round=0, warmup=False))
        pi = float(rng.normal(30, 3))
        rows.append(sample_row(p, pi, b, benchmark="pi", metric="job_wall_time", block=b, round=0, warmup=False))
    return pd.DataFrame(rows)


def test_on_a_simulated_campaign_the_rule_stops_at_the_first_round_the_paired_interval_allows():
    full = _campaign(40)
    target, min_rounds = 2.5, 4
    # The paired-t half-width after each block, computed here from the log ratios.
    tera = full[full.benchmark == "terasort"].pivot(index="block", columns="platform", values="value")
    d = np.log(tera["lxc"] / tera["native"]).to_numpy()
    expected = None
    for k in range(min_rounds, 41):
        half = stats.t.ppf(0.975, k - 1) * d[:k].std(ddof=1) / math.sqrt(k)
        est = math.exp(d[:k].mean())
        if 100 * (math.exp(d[:k].mean() + half) - math.exp(d[:k].mean() - half)) / 2 / est <= target:
            expected = k
            break
    assert expected is not None and expected > min_rounds  # the case the test is about: not reached at once
    reached, stopped = None, None
    for k in range(1, 41):
        dec = precision_decision(
            full[full.block < k],
            "native",
            [("terasort", "terasort_time")],
            rounds_done=k,
            target_pct=target,
            min_rounds=min_rounds,
            max_rounds=40,
            reached_at=reached,
            n_resamples=200,
        )
        reached = dec.reached_at
        if dec.stop:
            stopped = k
            break
    assert stopped == expected and dec.verdict == TARGET_REACHED
    assert [w.method for w in dec.widths] == ["paired-t (blocks)"]


def test_widths_are_those_of_the_preferred_rows_of_the_primary_metrics_only():
    camp = _campaign(6)
    widths = comparison_widths(camp, "native", [("pi", "job_wall_time")], n_resamples=200)
    assert [(w.benchmark, w.platform, w.method) for w in widths] == [("pi", "lxc", "paired-t (blocks)")]
    pi = camp[camp.benchmark == "pi"].pivot(index="block", columns="platform", values="value")
    d = np.log(pi["lxc"] / pi["native"]).to_numpy()
    half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    expected = 100 * (math.exp(d.mean() + half) - math.exp(d.mean() - half)) / 2 / math.exp(d.mean())
    assert widths[0].half_width_pct == pytest.approx(expected, rel=1e-9)
    assert comparison_widths(_campaign(6), "kvm", [("pi", "job_wall_time")]) == []  # no baseline: nothing to judge
