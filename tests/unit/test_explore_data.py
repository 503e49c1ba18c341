"""vbench.explore.data: a committed campaign seen through the design's comparison or another."""

from __future__ import annotations

from pathlib import Path

import pytest

from vbench.stats.campaign_stats import StatsConfig
from vbench.stats.compare import Comparison
from vbench.errors import ParamsError
from vbench.explore import data

from tests.unit.explore_campaigns import committed

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"


def test_what_each_committed_campaign_can_compare():
    assert data.compare_choices(RAW / "reference") == [("platform",)]
    assert data.compare_choices(RAW / "netmodes") == [("network.mode",), ("vms_per_host",)]
    assert data.compare_choices(RAW / "poll-interval") == [("client_poll_ms",)]
    assert data.compare_choices(RAW / "monitoring") == [("platform",)]  # one platform: nothing else varies


def test_the_design_comparison_keeps_the_stage_baseline():
    d = committed("netmodes")
    assert d.comparison == Comparison(("network.mode",), "bridge") and d.is_stage_comparison
    assert d.levels() == ["bridge", "bridge+nat", "nat"] and d.campaign.baselines
    # Without a design baseline the stage's setting holds, present in the samples or not.
    assert committed("isolation").baseline == "native"
    lxc = data.load(RAW / "reference", settings=StatsConfig(baseline="lxc"))
    assert lxc.baseline == lxc.config.baseline == "lxc" and lxc.is_stage_comparison
    # The reader's own baseline: the same comparison, not the stage's numbers.
    nat = data.load(RAW / "netmodes", baseline="nat")
    assert nat.baseline == "nat" and not nat.is_stage_comparison and nat.campaign.baselines == {}


def test_another_factor_becomes_the_levels_and_the_design_factor_a_cell():
    d = committed("netmodes", ("vms_per_host",))
    assert not d.is_stage_comparison and d.levels() == ["1", "2"] and d.baseline == "1"
    terasort = d.samples[(d.samples["benchmark"] == "terasort") & (d.samples["metric"] == "terasort_time")]
    assert set(terasort["size"]) == {
        "16MB, network.mode=bridge",
        "16MB, network.mode=bridge+nat",
        "16MB, network.mode=nat",
    }
    assert committed("netmodes", ("vms_per_host",), "2").baseline == "2"


def test_a_failed_run_is_a_level_of_the_compared_factor():
    f = committed("netmodes").failures
    assert list(f["platform"]) == ["nat"] and list(f["host_platform"]) == ["native"]


def test_benchmarks_and_metrics_are_those_the_statistics_compare():
    d = committed("reference")
    assert d.benchmarks() == ["cpu", "fio", "iperf3", "membw", "terasort"]  # the default design's
    metrics = d.metrics("terasort")
    assert {"terasort_time", "terasort.job_time", "terasort.attempt.reduce_shuffle_time"} <= set(metrics)
    assert not any(m.startswith("counter.") or ".attempt.map" in m for m in metrics)


def test_stage_settings_come_from_params_pipeline_yaml(tmp_path):
    ours = data.stage_settings(RAW.parent)  # the repository's own, as dvc.yaml passes them to the stage
    assert (ours.baseline, ours.equivalence_pct, ours.n_resamples, ours.seed) == ("native", 5.0, 9999, 20141)
    assert data.stage_settings(tmp_path / "data") == StatsConfig()  # no params file: the stage's defaults
    (tmp_path / "params").mkdir()
    (tmp_path / "params" / "pipeline.yaml").write_text("pipeline:\n  baseline: lxc\n  equivalence_pct: 2\n  seed: 7\n")
    assert data.stage_settings(tmp_path / "data") == StatsConfig(baseline="lxc", equivalence_pct=2.0, seed=7)
    (tmp_path / "params" / "pipeline.yaml").write_text("pipeline:\n  equivalence_pct: -1\n")
    with pytest.raises(ParamsError, match=r"pipeline.yaml: pipeline.equivalence_pct: must be a positive number"):
        data.stage_settings(tmp_path / "data")


@pytest.mark.parametrize(
    ("levels", "wanted", "expected"),
    [
        (["lxc", "native"], None, "native"),
        (["lxc", "native"], "lxc", "lxc"),
        (["1", "2"], "7", "1"),
        ([], "x", "x"),
    ],
)
def test_pick_baseline(levels, wanted, expected):
    assert data.pick_baseline(levels, wanted, "native") == expected


def test_a_campaign_is_read_again_only_when_its_files_change(tmp_path):
    from vbench.samples import Sample, append_records

    meta = {"platform": "native", "run_id": "r1", "experiment": "e", "repetition": 1}
    append_records(tmp_path / "samples.jsonl", [Sample("b", "m", 1.0, "s", meta, timestamp=1.0)])
    first = data.read(tmp_path)
    assert data.read(tmp_path) is first
    append_records(tmp_path / "samples.jsonl", [Sample("b", "m", 2.0, "s", {**meta, "run_id": "r2"}, timestamp=2.0)])
    again = data.read(tmp_path)
    assert again is not first and sorted(again.samples["value"]) == [1.0, 2.0]
