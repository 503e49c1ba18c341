"""The paper's lookups in a statistics table (vbench.paper.results.rows): the rows whose columns
equal the values given as text, from a table whose text columns are computed once (the build
looks rows up thousands of times), never from another table that once had the same id."""

from __future__ import annotations

import gc

import numpy as np
import pandas as pd

from vbench.paper import results as R


def _table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "platform": pd.array(rng.choice(["native", "lxc", "oci"], n), dtype="string"),
            "size": pd.array(rng.choice([128, 1024], n), dtype="Int64"),
            "block": rng.choice([0.0, 1.0, np.nan], n),
            "value": rng.normal(size=n),
        },
        index=pd.RangeIndex(10, 10 + n),
    )


def _by_text(stats: pd.DataFrame, **where) -> pd.DataFrame:
    """What `rows` gives, the slow way it was first written."""
    mask = pd.Series(True, index=stats.index)
    for col, val in where.items():
        if val is not None:
            mask &= stats[col].astype(str) == R._plain(val)
    return stats[mask]


def test_rows_are_those_whose_columns_equal_the_values_as_text():
    t = _table(200, 1)
    for where in (
        {"platform": "lxc"},
        {"platform": "oci", "size": 1024},
        {"size": 128.0},
        {"block": 1},
        {"block": None},
    ):
        pd.testing.assert_frame_equal(R.rows(t, **where), _by_text(t, **where))
    assert R.rows(t, platform="gvisor").empty and R.rows(t, nothing="x").empty
    assert R.rows(pd.DataFrame(), platform="lxc").empty


def test_a_new_table_is_never_answered_from_an_earlier_ones_columns():
    for seed in range(3 * R._TABLES_KEPT):
        t = _table(50, seed)  # the last one is freed: its id may come back for the next
        pd.testing.assert_frame_equal(R.rows(t, platform="native"), _by_text(t, platform="native"))
        del t
        gc.collect()
    assert len(R._TEXT_COLUMNS) <= R._TABLES_KEPT
