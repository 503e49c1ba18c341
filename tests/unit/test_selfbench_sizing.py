"""selfbench/sizing.py: the sizing sweep's table from a samples table (pure part)."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.unit.selfbench_scripts import load


def _sizing():
    return load("sizing")


def _rows(level, values_by_host, metric="bw"):
    return [
        {"runtime_s": level, "metric": metric, "value": v, "block": b, "host": h, "cell_id": f"b{b}/native/fio-{level}"}
        for h, vs in values_by_host.items()
        for b, v in enumerate(vs)
    ]


def test_cv_is_per_host_over_blocks_then_averaged_and_warmups_are_left_out():
    sizing = _sizing()
    short = _rows(3, {"master": [90.0, 100.0, 110.0], "worker1": [200.0, 200.0, 200.0]})
    long = _rows(30, {"master": [100.0, 100.0, 100.0], "worker1": [199.0, 200.0, 201.0]})
    warm = [{**short[0], "value": 10_000.0, "warmup": True}]
    d = pd.DataFrame(short + long + warm)
    d["warmup"] = d["warmup"].fillna(False)
    seconds = {"b0/native/fio-3": 5.0, "b1/native/fio-3": 7.0, "b2/native/fio-3": 6.0, "b0/native/fio-30": 33.0}
    rows = {r.level: r for r in sizing.sizing_rows(d, "runtime_s", seconds)}
    # master's CV 10 %, worker1's 0 %: the mean over hosts is 5 %; the warm-up's 10000 is not counted
    assert rows["3"].cv_pct == pytest.approx(5.0) and rows["3"].mean == pytest.approx(150.0)
    assert rows["30"].cv_pct == pytest.approx(0.25, rel=1e-3)
    assert rows["3"].n == 3 and rows["3"].seconds_per_run == 6.0 and rows["30"].seconds_per_run == 33.0
    text = sizing.markdown(list(rows.values()), "runtime_s", "head")
    assert "| 3 | bw | 3 | 150 | 5.0 | 6 |" in text


def test_one_block_has_no_cv():
    sizing = _sizing()
    (row,) = sizing.sizing_rows(pd.DataFrame(_rows(3, {"master": [90.0]})), "runtime_s", {})
    assert row.cv_pct is None and row.seconds_per_run is None


def test_hadoop_figures_have_no_host_and_counters_are_left_out():
    sizing = _sizing()
    rows = [
        {"size_mb": 32, "metric": m, "value": v, "block": b, "cell_id": f"b{b}/native/terasort"}
        for b, v in enumerate([10.0, 12.0])
        for m in ("terasort_job_time", "counter.terasort.TaskCounter.SPILLED_RECORDS")
    ]
    (row,) = sizing.sizing_rows(pd.DataFrame(rows), "size_mb", {})
    assert row.metric == "terasort_job_time" and row.n == 2 and row.cv_pct == pytest.approx(100 * 2**0.5 / 11)


def test_a_factor_campaign_s_levels_combine_its_factors_in_the_order_given():
    sizing = _sizing()
    d = pd.DataFrame({"factor.am_heartbeat_ms": [1000, 100], "nodemanager_heartbeat_ms": [200.0, 1000.0]})
    level = sizing.combined_level(d, ["am_heartbeat_ms", "nodemanager_heartbeat_ms"])
    assert list(level) == [
        "am_heartbeat_ms=1000, nodemanager_heartbeat_ms=200",
        "am_heartbeat_ms=100, nodemanager_heartbeat_ms=1000",
    ]
    with pytest.raises(SystemExit, match="factor.rack"):
        sizing.combined_level(d, ["rack"])
