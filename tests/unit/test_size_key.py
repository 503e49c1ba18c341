"""A cell's `size` key: built once (vbench.stats.tidy.size_key), read back by the paper with its
inverse instead of each reader splitting the string its own way."""

from __future__ import annotations

import pandas as pd

from vbench.paper.tables.terasort import scaling_sizes
from vbench.stats.tidy import add_cells, is_size_factor, size_key, size_levels, split_size_key


def test_split_size_key_inverts_size_key_with_and_without_a_size():
    for label, levels in [("160MB", ["replication=3"]), ("16MB", []), ("", ["stress=cpu", "mode=nat"])]:
        assert split_size_key(size_key(label, levels)) == (label, ", ".join(levels))


def test_size_levels_reads_each_factor_and_its_level_back():
    assert size_levels(size_key("160MB", ["replication=3", "hadoop.speculative=False"])) == (
        "160MB",
        {"replication": "3", "hadoop.speculative": "False"},
    )
    assert size_levels(size_key("16MB", [])) == ("16MB", {})
    assert size_levels(size_key("", ["stress=cpu", "mode=bridge+nat"])) == ("", {"stress": "cpu", "mode": "bridge+nat"})


def test_is_size_factor_is_only_the_runners_size_parameter():
    assert is_size_factor("factor.size_mb")
    assert not is_size_factor("size_mb") and not is_size_factor("factor.replication")


def test_add_cells_names_the_size_once_and_the_varying_factor():
    df = pd.DataFrame(
        {
            "experiment": ["e"] * 2,
            "benchmark": ["terasort"] * 2,
            "metric": ["terasort_time"] * 2,
            "size_label": ["160MB", "16MB"],
            "factor.size_mb": [160, 16],
            "factor.mode": ["nat", "bridge"],
        }
    )
    assert list(add_cells(df)["size"]) == ["160MB, mode=nat", "16MB, mode=bridge"]


def test_a_sizeless_cell_is_not_a_point_of_a_size_series():
    """Before, "replication=3" read as a size label of the series of cells with no other factor."""
    assert scaling_sizes(["replication=3", "16MB", "160MB"]) == (["16MB", "160MB"], "")
    assert scaling_sizes(["replication=1", "replication=3"]) == ([], "")
