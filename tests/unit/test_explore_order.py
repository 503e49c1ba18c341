"""vbench.explore.order: values in the order the campaign made its runs, per block."""

from __future__ import annotations

from pathlib import Path

import pytest

from vbench.explore import order

from tests.unit.explore_campaigns import committed

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"


def test_values_in_run_order_with_their_block():
    d = committed("reference")
    f = order.run_order(d, "terasort", "terasort_time")
    s = d.samples[(d.samples["benchmark"] == "terasort") & (d.samples["metric"] == "terasort_time")]
    assert len(f) == len(s) == 12  # 4 blocks x (native, lxc, native~aa)
    assert list(f["order"]) == sorted(f["order"]) and list(f["start"]) == sorted(f["start"])
    by_run = s.set_index("run_id")
    for _, r in f.iterrows():
        assert r["value"] == by_run.loc[r["run_id"], "value"] and r["block"] == str(by_run.loc[r["run_id"], "block"])
    # Positions count every run of the campaign: the calibration stage ran first.
    assert f["order"].min() > len(d.samples[d.samples["benchmark"] == "cpu"]["run_id"].unique())


def test_per_block_means_are_the_block_values():
    d = committed("poll-interval")
    f = order.run_order(d, "terasort", "terasort_time")
    t = order.per_block(f)
    assert list(t.columns) == ["100", "5000"] and list(t.index.get_level_values("block")) == ["0", "1", "2", "3"]
    for _, r in f.iterrows():
        assert t.loc[(r["cell"], r["block"]), r["level"]] == pytest.approx(r["value"])
