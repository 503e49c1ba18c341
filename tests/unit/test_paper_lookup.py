"""The paper's lookups in a statistics table (vbench.paper.results.rows): the rows whose columns
equal the values given as text, answered from the table's lookup record (`StatisticsLookup`,
whose text columns are computed once when it is made: the build looks rows up thousands of
times) exactly as a comparison of each column as text would."""

from __future__ import annotations

import numpy as np
import pandas as pd

from vbench.paper import results as R
from vbench.stats.tidy import text_as_objects


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
    stats = R.lookup_of(t)
    for where in (
        {"platform": "lxc"},
        {"platform": "oci", "size": 1024},
        {"size": 128.0},
        {"block": 1},
        {"block": None},
    ):
        pd.testing.assert_frame_equal(R.rows(stats, **where), _by_text(text_as_objects(t), **where))
    assert R.rows(stats, platform="gvisor").empty and R.rows(stats, nothing="x").empty
    assert list(R.rows(stats, nothing="x").columns) == list(t.columns)  # a missing column: no rows, same columns
    assert R.rows(R.lookup_of(pd.DataFrame()), platform="lxc").empty


def test_each_table_is_answered_from_its_own_record():
    tables = [_table(50, seed) for seed in range(3)]
    records = [R.lookup_of(t) for t in tables]
    for t, stats in zip(tables, records):
        # The record holds the table's text as object columns (one block: its lookups' selections).
        pd.testing.assert_frame_equal(stats.table, text_as_objects(t))
        pd.testing.assert_frame_equal(R.rows(stats, platform="native"), _by_text(text_as_objects(t), platform="native"))


def test_the_record_drops_the_tables_attrs():
    t = _table(10, 0)
    t.attrs = {"problems": ["x"]}
    assert R.lookup_of(t).table.attrs == {} and t.attrs == {"problems": ["x"]}


def test_a_lookup_finds_the_rows_a_scan_of_every_column_finds():
    """`rows` intersects each named column's positions (`StatisticsLookup.positions`): the rows, in
    the table's order, that comparing every row's text finds, none where a value or column is not."""
    from tests.unit.test_paper_reader_names import _factor_rows, _stats

    stats = _stats(_factor_rows() + _factor_rows((("network", "bridge", ("nat",)),)))
    table = stats.table
    for where in (
        {"experiment": "network"},
        {"experiment": "network", "platform": "nat"},
        {"metric": "teragen_time", "size": "64MB", "platform": "4"},
        {"experiment": "vms-per-host", "platform": None},
        {"experiment": "nowhere"},
    ):
        scan = table
        for col, val in where.items():
            if val is not None:
                scan = scan[scan[col].astype(str) == val]
        assert R.rows(stats, **where).index.tolist() == scan.index.tolist(), where
    assert R.rows(stats, no_such_column="x").empty
    assert len(R.rows(stats)) == len(table)
