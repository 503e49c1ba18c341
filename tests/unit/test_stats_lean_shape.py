"""The rounds' t as the preferred paired row for designs of the lean shape (issue #51: adopted by
the planted-effect test, docs/planted-effects.md): which designs, what the table, the A/A check,
TOST, the paper's lookup and the reproduction delta then read, and what stays as it was."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tests.unit.builders import sample_row, time_record, write_samples
from vbench.stats import compute_stats
from vbench.stats.paired import (
    MIN_BLOCKS_FOR_ROUNDS,
    PAIR_UNIT,
    PAIRED_T,
    PAIRED_T_ROUNDS,
    ROUND,
    blocks_to_clear,
    pair_runs,
    paired_tost,
    preferred_ratio,
    rounds_are_units,
)

RESAMPLES = 500
LEAN = {"rounds": 3, "interleave": "concurrent", "duet": None, "idle": "run", "repetitions": 4}


@pytest.mark.parametrize(
    "change, expected",
    [
        ({}, True),
        ({"interleave": None, "idle": None}, True),  # the defaults: concurrent, idle clusters run
        ({"rounds": 1}, False),
        ({"interleave": "alternating"}, False),
        ({"duet": {"cpus": "shared"}}, False),
        ({"idle": "freeze"}, False),
    ],
)
def test_the_lean_shape_is_concurrent_clusters_several_rounds_no_duet_no_freeze(change, expected):
    assert rounds_are_units({**LEAN, **change}) is expected


def _lean_frame(blocks=4, rounds=3, seed=5, marked=True, aa=False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    platforms = {"native": 1.0, "lxc": 1.04, **({"native~aa": 1.0} if aa else {})}
    for b in range(blocks):
        for r in range(rounds):
            drift = rng.normal(1, 0.05)  # a round's machine, shared by its configurations
            for p, effect in platforms.items():
                value = 30.0 * effect * drift * rng.normal(1, 0.03)
                row = sample_row(p, value, b, metric="terasort.job_time", block=b, round=r)
                if marked:
                    row[PAIR_UNIT] = ROUND
                rows.append(row)
    return pd.DataFrame(rows)


def _ratio_rows(table: pd.DataFrame, platform="lxc", statistic="ratio_to_baseline") -> pd.DataFrame:
    return table[(table.platform == platform) & (table.statistic == statistic)]


def _preferred(rows: pd.DataFrame) -> pd.Series:
    chosen = rows[rows["preferred"].fillna(False).astype(bool)]
    assert len(chosen) == 1, rows[["method", "preferred"]]
    return chosen.iloc[0]


def test_a_marked_design_reads_the_t_over_every_round_and_keeps_the_block_means_t_beside_it():
    df = _lean_frame(aa=True)
    table = compute_stats(df, n_resamples=RESAMPLES)
    rows = _ratio_rows(table)
    pref = _preferred(rows)
    assert pref["method"] == PAIRED_T_ROUNDS and pref["n_pairs"] == 12
    lxc = df[df.platform == "lxc"].sort_values(["block", "round"])["value"].to_numpy()
    nat = df[df.platform == "native"].sort_values(["block", "round"])["value"].to_numpy()
    d = np.log(lxc / nat)
    half = stats.t.ppf(0.975, 11) * d.std(ddof=1) / math.sqrt(12)
    assert (pref["ci_low"], pref["ci_high"]) == pytest.approx((math.exp(d.mean() - half), math.exp(d.mean() + half)))
    assert "preferred for this design's shape" in pref["note"]
    blocks_t = rows[rows.method == PAIRED_T].iloc[0]
    assert (
        not bool(blocks_t["preferred"])
        and f"not preferred: the t on every round is ({PAIRED_T_ROUNDS}" in (blocks_t["note"])
    )
    # Everything that reads the preferred row follows it: overhead, TOST, the A/A check.
    assert _preferred(_ratio_rows(table, statistic="overhead_pct"))["method"] == PAIRED_T_ROUNDS
    eq = _preferred(_ratio_rows(table, statistic="equivalence"))
    assert eq["method"] == PAIRED_T_ROUNDS
    assert eq["ci_high"] == pytest.approx(math.exp(d.mean() + stats.t.ppf(0.95, 11) * d.std(ddof=1) / math.sqrt(12)))
    aa = table[(table.platform == "native~aa") & (table.statistic == "aa_check")]
    assert list(aa["method"]) == [PAIRED_T_ROUNDS]


def test_unmarked_samples_and_too_few_blocks_keep_the_t_over_block_means():
    for df in (_lean_frame(marked=False), _lean_frame(blocks=MIN_BLOCKS_FOR_ROUNDS - 1)):
        pref = _preferred(_ratio_rows(compute_stats(df, n_resamples=RESAMPLES)))
        assert pref["method"] == PAIRED_T
        cand = _ratio_rows(compute_stats(df, n_resamples=RESAMPLES))
        cand = cand[cand.method == PAIRED_T_ROUNDS].iloc[0]
        assert not bool(cand["preferred"]) and "a candidate, not preferred" in cand["note"]


def test_one_side_unmarked_is_not_of_the_shape():
    df = _lean_frame()
    df.loc[df.platform == "native", PAIR_UNIT] = None
    pairs = pair_runs(df[df.platform == "lxc"], df[df.platform == "native"])
    assert not pairs.rounds_are_units and preferred_ratio(pairs).method == PAIRED_T


def test_tost_counts_every_round_where_the_rounds_t_is_preferred():
    df = _lean_frame()
    marked = pair_runs(df[df.platform == "lxc"], df[df.platform == "native"])
    plain = pair_runs(df[df.platform == "lxc"].drop(columns=PAIR_UNIT), df[df.platform == "native"])
    d = marked.log_ratios
    lo, hi = math.log(0.95), math.log(1.05)
    se = d.std(ddof=1) / math.sqrt(d.size)
    expected = max(stats.t.sf((d.mean() - lo) / se, d.size - 1), stats.t.cdf((d.mean() - hi) / se, d.size - 1))
    assert paired_tost(marked, 5.0).p_value == pytest.approx(expected)
    assert paired_tost(plain, 5.0).p_value != pytest.approx(expected)


def test_blocks_to_clear_counts_a_block_as_its_rounds_where_every_round_is_a_unit():
    sd, centre, rounds = 0.06, math.log(1.03), 3
    edges = (1.0,)

    def interval(blocks):
        m = blocks * rounds
        half = stats.t.ppf(0.975, m - 1) * sd / math.sqrt(m)
        return math.exp(centre - half), math.exp(centre + half)

    low, high = interval(4)
    assert low < 1.0  # not clear at 4 blocks of 3
    n = blocks_to_clear(low, high, 4, edges, rounds_per_block=rounds)
    assert n is not None and interval(n)[0] > 1.0 and interval(n - 1)[0] < 1.0
    # Read as t over 4 blocks instead, the same interval asks for another count.
    assert blocks_to_clear(low, high, 4, edges) != n


def test_the_campaign_reader_marks_a_lean_design_and_no_other(tmp_path):
    from vbench.stats.campaign import load_campaign

    def campaign(name, experiment):
        d = tmp_path / name
        d.mkdir()
        (d / "campaign.json").write_text(json.dumps({"design_hash": "x", "experiment": experiment}))
        meta = {"experiment": "platforms", "block": 0, "round": 0, "repetition": 0}
        write_samples(
            d,
            [
                time_record("terasort", "job_wall_time", 30.0 + i, i, {**meta, "platform": p, "run_id": f"r{i}"})
                for i, p in enumerate(("native", "lxc"))
            ],
        )
        return load_campaign(d).samples

    lean = campaign("lean", LEAN)
    assert PAIR_UNIT in lean.columns and set(lean[PAIR_UNIT]) == {ROUND}
    duet = campaign("duet", {**LEAN, "duet": {"cpus": "shared"}})
    assert PAIR_UNIT not in duet.columns


def test_the_paper_shows_the_preferred_paired_t():
    from vbench.paper.results import comparison_rows, lookup_of, ratio_row

    for marked, method in ((True, PAIRED_T_ROUNDS), (False, PAIRED_T)):
        table = compute_stats(_lean_frame(marked=marked), n_resamples=RESAMPLES)
        table["size"] = ""
        lookup = lookup_of(table)
        row = ratio_row(lookup, "platforms", "lxc", "terasort", "terasort.job_time", "")
        assert row is not None and row["method"] == method
        shown = comparison_rows(lookup, platform="lxc")
        assert list(shown["method"]) == [method]
