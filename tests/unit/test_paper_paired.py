"""The paper shows the paired comparison where the runs are paired, and names the method per row."""

from __future__ import annotations

import pandas as pd

from vbench.paper import results as R
from vbench.paper.tables.comparisons import table_overheads
from vbench.paper.tables.grid import has_data
from vbench.paper.macros import headline_macros, overhead_sentence

from tests.unit.builders import ESTIMATE_COLUMNS

COLS = ["experiment", "platform", "baseline", "benchmark", "metric", "unit", "size", *ESTIMATE_COLUMNS]
COLS += ["n_baseline", "n_pairs", "preferred", "size_label"]


def _row(platform, metric, statistic, method, est, lo, hi, *, bench="terasort", preferred=None, n_pairs=3):
    return [
        "platforms",
        platform,
        "native",
        bench,
        metric,
        "s",
        "32MB",
        statistic,
        method,
        est,
        lo,
        hi,
        3,
        3,
        n_pairs,
        preferred,
        "32MB",
    ]


def _stats(paired: bool) -> R.StatisticsLookup:
    rows = [
        _row("native", "terasort_time", "mean", "t", 56.0, 50.0, 62.0),
        _row("lxc", "terasort_time", "mean", "t", 58.0, 52.0, 64.0),
    ]
    if paired:
        rows += [
            _row("lxc", "terasort_time", "ratio_to_baseline", "paired-t (blocks)", 1.031, 0.985, 1.079, preferred=True),
            _row("lxc", "terasort_time", "overhead_pct", "paired-t (blocks)", 3.1, -1.5, 7.9, preferred=True),
        ]
    rows += [
        _row("lxc", "terasort_time", "ratio_to_baseline", "fieller", 1.03, 0.78, 1.34, preferred=not paired),
        _row("lxc", "terasort_time", "overhead_pct", "fieller", 3.0, -22.0, 34.0, preferred=not paired),
    ]
    return R.lookup_of(pd.DataFrame(rows, columns=COLS))


SAMPLES = pd.DataFrame(
    {
        "platform": ["native", "lxc"],
        "benchmark": ["terasort"] * 2,
        "metric": ["terasort_time"] * 2,
        "value": [56.0, 58.0],
    }
)


def test_the_paired_row_is_the_comparison_the_paper_shows():
    row = R.ratio_row(_stats(True), "platforms", "lxc", "terasort", "terasort_time", "32MB")
    assert row["method"] == "paired-t (blocks)" and row["ci_low"] == 0.985
    assert R.ratio_row(_stats(False), "platforms", "lxc", "terasort", "terasort_time", "32MB")["method"] == "fieller"
    one_each = R.comparison_rows(_stats(True), experiment="platforms")
    assert list(one_each["method"]) == ["paired-t (blocks)"]


def test_the_overhead_table_and_the_text_name_the_method():
    tex = table_overheads(_stats(True), SAMPLES, "native")
    assert r"\label{tab:overheads}" in tex and "paired-$t$" in tex and "within-block" in tex
    assert r"\num{1.031} [\num{0.985}, \num{1.079}]" in tex
    unpaired = table_overheads(_stats(False), SAMPLES, "native")
    assert "Fieller" in unpaired and "paired-$t$" not in unpaired
    said = overhead_sentence(_stats(True), "native")
    assert "on LXC" in said and "paired by block" not in said  # the method is named once, not per number
    assert headline_macros(_stats(True), "native")["vbTeraSortMethodLxc"] == "paired by block"
    assert has_data(tex) and not has_data(table_overheads(R.lookup_of(_stats(True).table.iloc[0:0]), SAMPLES, "native"))


def test_a_headline_flag_says_whether_its_number_was_measured():
    # The text's "and read at ..." is chosen by these flags, never printed as "read at not measured".
    m = headline_macros(_stats(True), "native")
    assert m["vbHasTeraSortNative"] == "1" and m["vbHasTeraSortLxc"] == "1"
    assert m["vbHasTeraSortQemu"] == "0" and m["vbHasDfsioReadNative"] == "0"
    assert "not measured" in m["vbDfsioReadNative"]
