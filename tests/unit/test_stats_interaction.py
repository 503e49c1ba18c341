"""Factor x platform interactions (vbench.stats.interaction and its rows in compute_stats)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from vbench.stats import compute_stats
from vbench.stats.interaction import INTERACTION, LevelPair, level_pairs
from vbench.stats.paired import PAIRED_T

OFF, ON = "128MB, speculative=False", "128MB, speculative=True"


def _samples(values: dict[tuple[str, str], list[float]], metric: str = "terasort_time") -> pd.DataFrame:
    """values[(platform, size)][b] ran in block b."""
    rows = [
        dict(
            experiment="speculation",
            platform=platform,
            benchmark="terasort",
            metric=metric,
            unit="s",
            size=size,
            value=v,
            block=b,
            repetition=b,
        )
        for (platform, size), xs in values.items()
        for b, v in enumerate(xs)
    ]
    return pd.DataFrame(rows)


NATIVE_ON = [28.4, 30.1, 27.9, 29.0, 28.8, 31.0]
LXC_ON = [26.3, 28.9, 26.0, 27.7, 27.0, 29.1]
NATIVE_OFF = [26.5, 28.0, 26.1, 27.3, 26.6, 28.9]
LXC_OFF = [26.3, 28.6, 26.4, 27.5, 27.1, 29.3]


def _table(**kw) -> pd.DataFrame:
    values = {("native", ON): NATIVE_ON, ("lxc", ON): LXC_ON, ("native", OFF): NATIVE_OFF, ("lxc", OFF): LXC_OFF}
    return compute_stats(_samples(values), n_resamples=200, **kw)


def test_the_interaction_is_t_over_the_blocks_differences_of_log_ratios():
    table = _table()
    rows = table[table.statistic == INTERACTION]
    assert len(rows) == 1
    row = rows.iloc[0]
    # The reference level is the first in natural order: the row is the ratio at True over False.
    assert (row["platform"], row["size"], row["baseline"], row["method"]) == ("lxc", ON, "native", PAIRED_T)
    d = np.log(np.array(LXC_ON) / NATIVE_ON) - np.log(np.array(LXC_OFF) / NATIVE_OFF)  # by hand
    half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    assert row.estimate == pytest.approx(math.exp(d.mean()), rel=1e-12)
    assert row.ci_low == pytest.approx(math.exp(d.mean() - half), rel=1e-12)
    assert row.ci_high == pytest.approx(math.exp(d.mean() + half), rel=1e-12)
    assert row.p_value == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-10)
    assert row.n == row.n_pairs == 6 and bool(row.preferred)
    assert "speculative x platform" in row.note and "ratio at 128MB, speculative=False" in row.note
    # Alone in its Holm family here, so adjusting changes nothing.
    assert row.p_adjusted == pytest.approx(row.p_value) and row.verdict.endswith("(Holm)")


def test_it_is_the_ratio_of_the_two_paired_ratios_the_table_already_has():
    table = _table()
    paired = table[(table.statistic == "ratio_to_baseline") & (table.method == PAIRED_T)].set_index("size")
    row = table[table.statistic == INTERACTION].iloc[0]
    assert row.estimate == pytest.approx(paired.loc[ON, "estimate"] / paired.loc[OFF, "estimate"], rel=1e-12)


def test_only_blocks_holding_both_levels_count_and_too_few_give_a_note_not_a_number():
    values = {("native", ON): NATIVE_ON, ("lxc", ON): LXC_ON, ("native", OFF): NATIVE_OFF, ("lxc", OFF): LXC_OFF}
    df = _samples(values)
    # Blocks 1-5 lose their runs at one level: one block holds both.
    df = df[~((df["size"] == OFF) & (df["block"] >= 1))]
    df = pd.concat([df, _samples({("native", OFF): [26.0], ("lxc", OFF): [26.1]}).assign(block=0)])
    row = compute_stats(df, n_resamples=200).query("statistic == @INTERACTION").iloc[0]
    assert math.isnan(row.estimate) and "1 block holds both levels" in row.note


def test_a_platform_without_the_baseline_at_both_levels_gets_no_row():
    values = {("native", ON): NATIVE_ON, ("lxc", ON): LXC_ON, ("lxc", OFF): LXC_OFF}  # native only at one
    table = compute_stats(_samples(values), n_resamples=200)
    assert (table.statistic != INTERACTION).all()


def test_unblocked_samples_and_cells_without_factors_give_no_interaction():
    values = {
        ("native", "16MB"): NATIVE_ON,
        ("lxc", "16MB"): LXC_ON,
        ("native", "48MB"): NATIVE_OFF,
        ("lxc", "48MB"): LXC_OFF,
    }
    assert (compute_stats(_samples(values), n_resamples=200).statistic != INTERACTION).all()
    unblocked = _samples(
        {("native", ON): NATIVE_ON, ("lxc", ON): LXC_ON, ("native", OFF): NATIVE_OFF, ("lxc", OFF): LXC_OFF}
    )
    assert (compute_stats(unblocked.drop(columns="block"), n_resamples=200).statistic != INTERACTION).all()


@pytest.mark.parametrize(
    "sizes, expected",
    [
        ([OFF, ON], [LevelPair(OFF, ON, "speculative")]),
        # Two factors: pairs differ in exactly one; the diagonal is no pair.
        (
            ["a=1, b=x", "a=2, b=x", "a=1, b=y", "a=2, b=y"],
            [
                LevelPair("a=1, b=x", "a=1, b=y", "b"),
                LevelPair("a=1, b=x", "a=2, b=x", "a"),
                LevelPair("a=1, b=y", "a=2, b=y", "a"),
                LevelPair("a=2, b=x", "a=2, b=y", "b"),
            ],
        ),
        (["16MB, r=1", "48MB, r=3"], []),  # different sizes are not a level pair
        (["16MB", "48MB"], []),
        (["interval=1", "interval=2"], []),  # iperf3's reporting intervals: a time index, not a level
        (
            ["stress=cpu", "stress=io", "stress=none"],
            [
                LevelPair("stress=cpu", "stress=io", "stress"),
                LevelPair("stress=cpu", "stress=none", "stress"),
                LevelPair("stress=io", "stress=none", "stress"),
            ],
        ),
    ],
)
def test_level_pairs(sizes, expected):
    assert sorted(level_pairs(sizes), key=lambda p: (p.reference, p.other)) == sorted(
        expected, key=lambda p: (p.reference, p.other)
    )
