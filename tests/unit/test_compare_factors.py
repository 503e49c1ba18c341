"""Comparing environment-factor levels (network modes) instead of platforms (vbench.stats.compare),
through the statistics table and the paper."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from vbench.errors import ParamsError
from vbench.paper.figures import fig_factors
from vbench.paper.results import lookup_of, paper_statistics
from vbench.samples import Sample, append_records
from vbench.stats import format_table
from vbench.stats.campaign import load_campaign, merge_campaigns
from vbench.stats.campaign_stats import StatsConfig, campaign_stats
from vbench.stats.compare import Comparison, comparison_of, comparison_view, measured_platforms


def _campaign(d: Path, experiment: str, compare=None, baseline=None, modes=("bridge", "nat")) -> Path:
    d.mkdir(parents=True)
    if compare:
        (d / "campaign.json").write_text(json.dumps({"experiment": {"compare": compare, "baseline": baseline}}))
    recs = []
    for rep in range(4):
        for vms in (1, 2):
            for i, mode in enumerate(modes):
                t = 30.0 * (1 + 0.5 * i) * (1 + 0.1 * (vms - 1)) + rep * 0.3
                recs.append(
                    Sample(
                        "terasort",
                        "terasort_time",
                        t,
                        "s",
                        metadata={
                            "experiment": experiment,
                            "platform": "native",
                            "repetition": rep,
                            "size_mb": 16,
                            "factor.network.mode": mode,
                            "factor.vms_per_host": vms,
                            "run_id": f"{rep}{vms}{mode}",
                        },
                    )
                )
    append_records(d / "samples.jsonl", recs)
    return d


def test_the_view_compares_the_factor_and_keeps_the_platform_as_a_cell_factor():
    df = pd.DataFrame({"platform": ["native", "lxc"], "factor.network.mode": ["nat", "bridge"], "value": [1, 2]})
    v = comparison_view(df, ["network.mode"])
    assert list(v["platform"]) == ["nat", "bridge"]
    assert list(v["factor.platform"]) == ["native", "lxc"] and list(v["host_platform"]) == ["native", "lxc"]
    both = comparison_view(df, ["platform", "network.mode"])
    assert list(both["platform"]) == ["native/nat", "lxc/bridge"]
    assert comparison_view(df, ["platform"]) is df
    with pytest.raises(ParamsError, match="compare"):
        comparison_view(df, ["vms_per_host"])


def test_a_level_a_platform_lacks_is_left_out_of_its_label():
    df = pd.DataFrame(
        {
            "platform": ["native", "gvisor", "gvisor"],
            "factor.gvisor.network": [None, "sandbox", "host"],
            "value": [1, 2, 3],
        }
    )
    v = comparison_view(df, ["platform", "gvisor.network"])
    assert list(v["platform"]) == ["native", "gvisor/sandbox", "gvisor/host"]
    assert measured_platforms(v) == ["native", "gvisor"]


def test_a_campaign_without_a_design_compares_platforms(tmp_path):
    assert comparison_of(tmp_path) == Comparison()


def test_network_modes_are_compared_to_bridge_within_each_vms_per_host_cell(tmp_path):
    c = load_campaign(_campaign(tmp_path / "net", "netmodes", ["network.mode"], "bridge"))
    assert set(c.samples["platform"]) == {"bridge", "nat"}
    assert set(c.samples["size"]) == {"16MB, vms_per_host=1", "16MB, vms_per_host=2"}
    stats = campaign_stats(c, StatsConfig(n_resamples=200))
    r = stats[(stats["statistic"] == "ratio_to_baseline") & (stats["method"] == "fieller")]
    assert set(r["baseline"]) == {"bridge"} and set(r["platform"]) == {"nat"}
    assert len(r) == 2 and r["estimate"].between(1.45, 1.55).all()  # nat is 1.5 x bridge in both cells
    paths = fig_factors(lookup_of(stats), c.samples, tmp_path / "fig")
    assert [p.suffix for p in paths] == [".pdf", ".png"] and all(p.stat().st_size > 0 for p in paths)


def test_merged_campaigns_keep_each_experiment_against_its_own_baseline(tmp_path):
    main = load_campaign(_campaign(tmp_path / "main", "platforms"))  # compares platforms: one platform here
    net = load_campaign(_campaign(tmp_path / "net", "netmodes", ["network.mode"], "bridge"))
    both = merge_campaigns(main, [net])
    cfg = StatsConfig(n_resamples=200)
    looked_up, sources = paper_statistics([main, net], cfg)
    stats = looked_up.table
    bases = stats[stats["statistic"] == "ratio_to_baseline"].groupby("experiment")["baseline"].unique()
    assert list(bases["netmodes"]) == ["bridge"]
    assert sources == [
        "net: statistics computed here (not under a data/raw/ directory)",
        "main: statistics computed here (not under a data/raw/ directory)",
    ]
    # Each campaign's table, joined, is the table of the merged campaigns: every row, column and
    # factor cell ("" for a factor one campaign lacks), in the same order, whatever order they are given in.
    assert format_table(stats) == format_table(campaign_stats(both, cfg))
    assert format_table(paper_statistics([net, main], cfg)[0].table) == format_table(stats)
    assert fig_factors(lookup_of(campaign_stats(main, cfg)), main.samples, tmp_path / "f2") == []
    with pytest.raises(ParamsError, match="more than one campaign") as one:
        merge_campaigns(main, [main])
    assert one.value.message == "experiment ['platforms'] appears in more than one campaign"
    with pytest.raises(ParamsError) as several:
        merge_campaigns(both, [both])
    assert several.value.message == "experiments ['netmodes', 'platforms'] appear in more than one campaign"
    assert several.value.field == "paper.extra_campaigns"


def test_the_pipeline_statistics_compare_modes_against_the_designs_baseline(tmp_path):
    from vbench.pipeline import statistics

    raw = _campaign(tmp_path / "raw", "netmodes", ["network.mode"], "bridge")
    table = statistics(raw, tmp_path / "processed")
    r = table[(table["statistic"] == "ratio_to_baseline") & (table["method"] == "fieller")]
    assert set(r["baseline"]) == {"bridge"} and set(r["platform"]) == {"nat"}
    assert set(r["size"]) == {"16MB, vms_per_host=1", "16MB, vms_per_host=2"}


def test_a_design_comparing_platform_and_a_factor_without_a_baseline_is_normalised_to_native_at_its_first_level(
    tmp_path,
):
    # outside-load's design: compare [platform, cpu_group], no baseline; every level once had no ratio.
    d = tmp_path / "grouped"
    d.mkdir()
    design = {
        "platforms": ["native", "lxc"],
        "factors": {"testbed.cpu_group": [False, True]},
        "compare": ["platform", "cpu_group"],
    }
    (d / "campaign.json").write_text(json.dumps({"experiment": design}))
    recs = [
        Sample(
            "terasort",
            "terasort_time",
            30.0 * (1.2 if platform == "lxc" and not grouped else 1.0) + rep * 0.3,
            "s",
            metadata={
                "experiment": "platforms",
                "platform": platform,
                "repetition": rep,
                "size_mb": 16,
                "factor.cpu_group": grouped,
                "run_id": f"{rep}{platform}{grouped}",
            },
        )
        for rep in range(4)
        for platform in ("native", "lxc")
        for grouped in (False, True)
    ]
    append_records(d / "samples.jsonl", recs)
    assert comparison_of(d) == Comparison(("platform", "cpu_group"), "native/False")
    stats = campaign_stats(load_campaign(d), StatsConfig(n_resamples=200))
    r = stats[(stats["statistic"] == "ratio_to_baseline") & (stats["method"] == "fieller")].set_index("platform")
    assert set(r["baseline"]) == {"native/False"}
    assert sorted(r.index) == ["lxc/False", "lxc/True", "native/True"]
    assert r.loc["lxc/False", "estimate"] == pytest.approx(1.2, abs=0.02) and r.loc[
        "lxc/True", "estimate"
    ] == pytest.approx(1.0, abs=0.02)
