"""`preferred_rows` picks, in one pass, the row `preferred_row` picks of each comparison."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd

from vbench.stats.table.cells import COMPARISON_ROW_KEY, preferred_row, preferred_rows


def _table(seed: int, n: int = 200) -> pd.DataFrame:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        rows.append(
            {
                "experiment": rng.choice(["a", "b"]),
                "benchmark": rng.choice(["terasort", "dfsio"]),
                "size": rng.choice(["", "100MB"]),
                "metric": rng.choice(["job_time", "throughput"]),
                "platform": rng.choice(["lxc", "oci", "qemu"]),
                "baseline": "native",
                # As a table holds it: bools, their text from a CSV, or nothing.
                "preferred": rng.choice([True, False, "True", "false", None, np.nan]),
                "order": i,
            }
        )
    return pd.DataFrame(rows)


def test_each_comparisons_row_is_the_one_preferred_row_picks_in_first_seen_order():
    for seed in range(20):
        t = _table(seed)
        expected = [preferred_row(g)["order"] for _, g in t.groupby(COMPARISON_ROW_KEY, sort=False)]
        assert preferred_rows(t)["order"].tolist() == expected


def test_a_comparison_preferring_none_gives_its_first_row_and_one_preferring_two_its_first_preferred():
    t = pd.DataFrame(
        {
            **{c: ["x"] * 4 for c in COMPARISON_ROW_KEY},
            "preferred": [False, "True", True, False],
            "order": [0, 1, 2, 3],
        }
    )
    assert preferred_rows(t)["order"].tolist() == [1]
    assert preferred_rows(t.assign(preferred=False))["order"].tolist() == [0]


def test_an_empty_table_gives_an_empty_one():
    t = _table(0).iloc[0:0]
    assert preferred_rows(t).empty
