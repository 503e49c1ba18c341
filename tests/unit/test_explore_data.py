"""vbench.explore.data: a committed campaign seen through the design's comparison or another."""
from __future__ import annotations

from pathlib import Path

import pytest

from vbench.campaign.compare import Comparison
from vbench.errors import ParamsError
from vbench.explore import data

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"


def test_what_each_committed_campaign_can_compare():
    assert data.compare_choices(RAW / "reference") == [("platform",)]
    assert data.compare_choices(RAW / "netmodes") == [("network.mode",), ("vms_per_host",)]
    assert data.compare_choices(RAW / "poll-interval") == [("client_poll_ms",)]
    assert data.compare_choices(RAW / "monitoring") == [("platform",)]  # one platform: nothing else varies


def test_the_design_comparison_keeps_the_stage_baseline():
    d = data.load(RAW / "netmodes")
    assert d.comparison == Comparison(("network.mode",), "bridge") and d.is_declared
    assert d.levels() == ["bridge", "bridge+nat", "nat"]
    # Without a design baseline the stage's setting holds, present in the samples or not.
    assert data.load(RAW / "isolation").baseline == "native"
    assert data.load(RAW / "reference", settings=data.StageSettings(baseline="lxc")).baseline == "lxc"


def test_another_factor_becomes_the_levels_and_the_design_factor_a_cell():
    d = data.load(RAW / "netmodes", ("vms_per_host",))
    assert not d.is_declared and d.levels() == ["1", "2"] and d.baseline == "1"
    terasort = d.samples[(d.samples["benchmark"] == "terasort") & (d.samples["metric"] == "terasort_time")]
    assert set(terasort["size"]) == {"16MB, network.mode=bridge", "16MB, network.mode=bridge+nat", "16MB, network.mode=nat"}
    assert data.load(RAW / "netmodes", ("vms_per_host",), "2").baseline == "2"


def test_a_failed_run_is_a_level_of_the_compared_factor():
    f = data.load(RAW / "netmodes").failures
    assert list(f["platform"]) == ["nat"] and list(f["host_platform"]) == ["native"]


def test_benchmarks_and_metrics_are_those_the_statistics_compare():
    d = data.load(RAW / "reference")
    assert d.benchmarks() == ["cpu", "dd", "dfsio", "fio", "iperf3", "membw", "pi", "terasort"]
    metrics = d.metrics("terasort")
    assert "terasort_time" in metrics and not any(m.startswith(("counter.", "map_attempt")) for m in metrics)


def test_stage_settings_come_from_params_pipeline_yaml(tmp_path):
    assert data.stage_settings(RAW.parent) == data.StageSettings("native", 5.0)  # the repository's own
    assert data.stage_settings(tmp_path / "data") == data.StageSettings()  # no params file: the stage's defaults
    (tmp_path / "params").mkdir()
    (tmp_path / "params" / "pipeline.yaml").write_text("pipeline:\n  baseline: lxc\n  equivalence_pct: 2\n")
    assert data.stage_settings(tmp_path / "data") == data.StageSettings("lxc", 2.0)
    (tmp_path / "params" / "pipeline.yaml").write_text("pipeline:\n  equivalence_pct: -1\n")
    with pytest.raises(ParamsError, match=r"pipeline.yaml: pipeline.equivalence_pct: must be a positive number"):
        data.stage_settings(tmp_path / "data")


@pytest.mark.parametrize(("levels", "wanted", "expected"), [
    (["lxc", "native"], None, "native"), (["lxc", "native"], "lxc", "lxc"), (["1", "2"], "7", "1"), ([], "x", "x"),
])
def test_pick_baseline(levels, wanted, expected):
    assert data.pick_baseline(levels, wanted) == expected
