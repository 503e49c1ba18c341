"""Rounds per block from the variance at each level and the costs (vbench.stats.allocation), and
the statistics stage's advice in stats.json."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vbench.samples import Sample, append_records
from vbench.stats.allocation import block_costs, suggest_rounds_per_block
from vbench.stats.campaign import load_campaign
from vbench.stats.campaign_stats import STATS_META, StatsConfig, campaign_stats, write_campaign_stats


def _cost(r, vb, vr, cb, cr):
    """Variance of the mean of block means x machine time, for k = 1 block."""
    return (vb + vr / r) * (cb + r * cr)


@pytest.mark.parametrize(
    "vb, vr, cb, cr",
    [(1e-4, 4e-4, 600.0, 60.0), (4e-4, 1e-4, 300.0, 100.0), (1e-5, 9e-4, 900.0, 30.0), (2e-4, 2e-4, 50.0, 50.0)],
)
def test_the_suggestion_is_the_whole_number_with_the_least_variance_per_machine_time(vb, vr, cb, cr):
    s = suggest_rounds_per_block(vb, vr, cb, cr)
    assert s.optimum == pytest.approx(math.sqrt((cb / cr) * (vr / vb)))
    # A brute-force search over whole numbers agrees (bounded to >= 1).
    best = min(range(1, 500), key=lambda r: _cost(r, vb, vr, cb, cr))
    assert s.rounds == best
    assert (s.var_block, s.var_round, s.cost_block_s, s.cost_round_s) == (vb, vr, cb, cr)


def test_bounds_and_the_cases_without_an_answer():
    # Blocks vary much more than rounds and cost little: one round, never zero.
    assert suggest_rounds_per_block(1e-2, 1e-6, 10.0, 100.0).rounds == 1
    assert suggest_rounds_per_block(1e-3, 0.0, 10.0, 1.0).rounds == 1
    assert suggest_rounds_per_block(1e-3, 1e-2, 1000.0, 1.0, max_rounds=5).rounds == 5
    no_block = suggest_rounds_per_block(0.0, 1e-3, 600.0, 60.0)
    assert no_block.rounds is None and "budget" in no_block.note
    assert suggest_rounds_per_block(0.0, 1e-3, 600.0, 60.0, max_rounds=4).rounds == 4
    for args in [(None, 1e-3, 1.0, 1.0), (1e-3, 1e-3, None, 1.0), (1e-3, 1e-3, 1.0, 0.0)]:
        s = suggest_rounds_per_block(*args)
        assert s.rounds is None and s.note


def _timed(blocks=3, rounds=4, bring_up=500.0, round_s=60.0, t0=1000.0):
    rows, t = [], t0
    for b in range(blocks):
        t += bring_up
        for r in range(rounds):
            t += round_s
            for p in ("native", "lxc"):
                rows.append(dict(block=b, round=r, timestamp=t - (1.0 if p == "native" else 0.0), platform=p))
    return pd.DataFrame(rows)


def test_block_and_round_costs_come_from_the_timestamps():
    c = block_costs(_timed(bring_up=500.0, round_s=60.0))
    assert c.round_s == pytest.approx(60.0) and c.block_s == pytest.approx(500.0) and c.n_blocks == 3
    assert block_costs(_timed(rounds=1)).round_s is None
    assert block_costs(_timed(blocks=1)).block_s is None
    assert "round" in block_costs(_timed().drop(columns="round")).note


def test_the_statistics_stage_writes_the_advice_with_its_inputs(tmp_path):
    rng = np.random.default_rng(4)
    recs, t = [], 1000.0
    for b in range(4):
        t += 400.0  # a block's bring-up
        inst = {p: rng.normal(0, 0.02) for p in ("native", "lxc")}
        for r in range(3):
            t += 50.0  # a round
            for p, mu in (("native", 0.0), ("lxc", math.log(1.05))):
                meta = {"experiment": "platforms", "platform": p, "repetition": 3 * b + r, "block": b, "round": r}
                v = 100 * math.exp(mu + inst[p] + rng.normal(0, 0.02))
                recs.append(Sample("terasort", "terasort_time", v, "s", meta, timestamp=t))
    raw = tmp_path / "raw" / "c"
    raw.mkdir(parents=True)
    append_records(raw / "samples.jsonl", recs)
    cfg = StatsConfig(n_resamples=200)
    table = campaign_stats(load_campaign(raw), cfg)
    write_campaign_stats(table, cfg, raw, tmp_path / "out")
    advice = json.loads((Path(tmp_path / "out") / STATS_META).read_text())["rounds_per_block"]
    assert advice["costs"]["block_s"] == pytest.approx(400.0) and advice["costs"]["round_s"] == pytest.approx(50.0)
    (one,) = advice["comparisons"]
    assert (one["platform"], one["baseline"], one["metric"]) == ("lxc", "native", "terasort_time")
    between = table[(table.platform == "lxc") & (table.statistic == "variance_between_blocks")].iloc[0]
    within = table[(table.platform == "lxc") & (table.statistic == "variance_within_block")].iloc[0]
    assert one["var_block"] == pytest.approx(between.estimate) and one["var_round"] == pytest.approx(within.estimate)
    expected = suggest_rounds_per_block(between.estimate, within.estimate, 400.0, 50.0)
    assert one["rounds"] == expected.rounds
