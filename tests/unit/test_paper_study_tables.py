"""The studies' tables that had no renderer: Liu et al.'s disk speed per node, Vasconcelos & Freitas'
Hadoop Pi."""

from __future__ import annotations

import json
import re

import pandas as pd

from tests.unit.builders import block_campaign_dir
from vbench.paper.results import lookup_of
from vbench.paper.tables.grid import has_data
from vbench.paper.tables.jobs import table_hadoop_pi
from vbench.paper.tables.micro import table_node_disks
from vbench.paper.tables.terasort import table_racks, table_vms_per_host

MIXED = json.dumps({"master": "native", "worker1": "native", "worker2": "native", "worker3": "qemu"})


def _disk_samples(values_by_node: dict[str, list[float]], bench="dd", metric="write_bw", unit="MB/s"):
    rows = []
    for node, values in values_by_node.items():
        for v in values:
            rows.append(
                {
                    "experiment": "liu",
                    "platform": "native",  # a mixed cluster labels every sample with the campaign's platform
                    "benchmark": bench,
                    "metric": metric,
                    "unit": unit,
                    "value": v,
                    "host": node,
                    "host_platforms": MIXED,
                }
            )
    return pd.DataFrame(rows)


def _cells(tex: str, first: str) -> list[str]:
    line = next(ln for ln in tex.splitlines() if ln.startswith(first))
    return [c.strip() for c in line.rstrip("\\ ").split("&")]


def test_a_mixed_clusters_nodes_get_their_own_platform_and_a_ratio_to_the_others():
    dd = _disk_samples({"worker1": [100, 110, 90], "worker2": [200, 210, 190], "worker3": [30, 33, 27]})
    hd = _disk_samples({"worker1": [400, 400], "worker3": [100, 100]}, "hdparm", "buffered_read_bw", "MiB/s")
    tex = table_node_disks(None, pd.concat([dd, hd], ignore_index=True), "native")
    assert has_data(tex) and r"\label{tab:node-disks}" in tex
    # worker3 is the QEMU node: its row says so, and its dd mean is 30 / mean(100, 200) = 0.20 of the others'.
    w3 = _cells(tex, "QEMU & worker3")
    assert w3[4] == r"\num{0.20}" and w3[5] == r"\num{0.25}"
    # A baseline node is set against the other baseline nodes only: worker1 100 / 200.
    assert _cells(tex, "native & worker1")[4] == r"\num{0.50}"
    # worker2 ran no hdparm: a dash, said in the notes; n is every repeat on a node.
    assert _cells(tex, "native & worker2")[3] == r"\textemdash" and "not measured" in tex
    assert "$n=2$--$3$" in tex
    assert re.search(r"dd write \(\\unit\{[^}]*\}\)", tex)


def test_no_dd_or_hdparm_sample_is_an_empty_table():
    other = _disk_samples({"worker1": [1.0]}, "terasort", "terasort_time", "s")
    assert not has_data(table_node_disks(None, other, "native"))
    assert not has_data(table_node_disks(None, other.iloc[0:0], "native"))


def _mean(experiment, platform, benchmark, metric, estimate=10.0, **fields):
    """A statistics-table row: a platform's mean with a t interval of +/- 1."""
    row = {
        "experiment": experiment,
        "platform": platform,
        "baseline": "native",
        "benchmark": benchmark,
        "metric": metric,
        "unit": "s",
        "statistic": "mean",
        "method": "t",
        "estimate": estimate,
        "ci_low": estimate - 1,
        "ci_high": estimate + 1,
        "n": 3,
    }
    return row | fields


def test_the_hadoop_pi_table_reads_the_pi_jobs():
    stats = pd.DataFrame(
        [
            _mean("platforms", p, "pi", "job_wall_time", est, size="maps=6", size_label="6 maps")
            for p, est in (("native", 40.0), ("lxc", 41.0))
        ]
    )
    samples = pd.DataFrame({"platform": ["native", "lxc"], "benchmark": ["pi"] * 2, "metric": ["job_wall_time"] * 2})
    tex = table_hadoop_pi(lookup_of(stats), samples, "native")
    assert has_data(tex) and r"\label{tab:hadoop-pi}" in tex
    assert r"\num{40.0 \pm 1.0}" in tex and r"\num{41.0 \pm 1.0}" in tex


def test_each_testdfsio_panel_comes_from_the_experiment_that_measured_it(monkeypatch, tmp_path):
    # Xavier et al. wrote only; Vasconcelos & Freitas wrote and read: the read panel must not be lost
    # to the design that ranks first for writes (more pairs), and a study campaign's panel names it.
    from vbench.paper import figures as F

    def mean(experiment, platform, metric, n_pairs):
        return _mean(experiment, platform, "dfsio", metric, size="5MB", size_label="5MB", n_pairs=n_pairs)

    rows = [mean("platforms@xavier2014", p, "write_throughput", 10) for p in ("native", "lxc")]
    rows += [
        mean("platforms@vasconcelos2015-hadoop", p, m, 8)
        for p in ("native", "lxc")
        for m in ("write_throughput", "read_throughput")
    ]
    # Pairs behind a comparison rank the designs (the paper's one ranking): xavier2014's 10 beat 8.
    rows += [
        {
            **mean(r["experiment"], "lxc", r["metric"], r["n_pairs"]),
            "statistic": "ratio_to_baseline",
            "method": "paired-t",
        }
        for r in list(rows)
        if r["platform"] == "lxc"
    ]
    drawn = []
    monkeypatch.setattr(F, "_replication_panels", lambda data, *a, **k: drawn.extend(t for _, t in data) or [])
    F.fig_dfsio(lookup_of(pd.DataFrame(rows)), pd.DataFrame(), tmp_path)
    assert drawn == ["TestDFSIO write\n(xavier2014)", "TestDFSIO read\n(vasconcelos2015-hadoop)"]


def _factor_campaign(
    root, name: str, factor: str, baseline: str, times: dict, metrics, size_mb: int, platform: str, experiment=""
):
    """A campaign directory of TeraSort-suite runs whose design compares levels of `factor`
    (level -> a time per block; `metrics`: metric -> its share of that time); its experiment is
    named after the campaign unless `experiment` is given."""
    experiment = experiment or name

    def run_meta(level):
        return {"experiment": experiment, "platform": platform, f"factor.{factor}": level, "size_mb": size_mb}

    d = block_campaign_dir(root, name, times, run_meta, metrics=metrics)
    design = {"experiment": experiment, "compare": [factor], "baseline": baseline, "platforms": [platform]}
    (d / "campaign.json").write_text(json.dumps({"experiment": design}))
    return d


def _vms_campaign(root, times: dict[int, list[float]]):
    """Guests per host compared: TeraSort's time per block, TeraGen and TeraValidate a fixed share of it."""
    shares = {"teragen_time": 1 / 3, "terasort_time": 1.0, "teravalidate_time": 1 / 2}
    return _factor_campaign(root, "vms-per-host", "vms_per_host", "1", times, shares, 160, "oci")


def test_the_vms_per_host_table_has_a_row_per_level_and_terasorts_ratio_to_the_baseline_level(tmp_path):
    from vbench.paper.results import campaign_statistics
    from vbench.stats.campaign import load_campaign
    from vbench.stats.campaign_stats import StatsConfig

    campaign = load_campaign(_vms_campaign(tmp_path, {1: [60, 62, 61, 59], 2: [54, 56, 55, 53], 4: [48, 50, 49.5, 47]}))
    stats, note = campaign_statistics(campaign, StatsConfig(n_resamples=200))
    tex = table_vms_per_host(lookup_of(stats), campaign.samples)
    assert has_data(tex) and r"\label{tab:vms-per-host}" in tex, note
    one, two, four = (_cells(tex, f"oci, {n}") for n in (1, 2, 4))
    assert "60.5" in one[2] and one[-1] == "1"  # the baseline level: its TeraSort mean, ratio 1
    assert "54.5" in two[2] and "48.6" in four[2]
    # TeraSort over the same block's with one guest per host: ~0.90 and ~0.80, intervals below 1.
    low, high = (float(x) for x in re.findall(r"\\num\{([0-9.]+)\}", four[-1])[1:3])
    assert high < 1 and 0.78 < low < 0.81
    assert "NUMA" in tex and "Campaign \\texttt{vms-per-host}" in tex


def test_an_experiment_is_named_by_its_campaign_and_by_its_own_name_only_beside_another_of_it():
    from vbench.paper.results import experiment_source, experiment_sources

    samples = pd.DataFrame(
        {
            "experiment": ["platforms", "platforms", "vms", "platforms@b", "x", "x"],
            "campaign": ["a", "a", "a", "b", "c", "d"],
        }
    )
    assert experiment_sources(samples) == {"platforms": "a (platforms)", "vms": "a (vms)", "platforms@b": "b"}
    assert experiment_source(samples, "x") == ""  # samples of two campaigns: no one source
    assert experiment_source(pd.DataFrame(), "platforms@b") == "b" and experiment_source(None, "platforms") == ""


def test_without_a_design_varying_guests_per_host_the_table_says_not_measured():
    assert not has_data(table_vms_per_host(lookup_of(pd.DataFrame()), pd.DataFrame()))


def _racks_campaign(root, times: dict[str, list[float]], name="racks"):
    """Hadoop topologies compared: TeraGen's time per block, in experiment `racks`."""
    return _factor_campaign(root, name, "topology", "flat", times, {"teragen_time": 1.0}, 256, "native", "racks")


def test_the_racks_table_has_a_row_per_topology_and_teragens_ratio_to_the_flat_one(tmp_path):
    from vbench.paper.results import campaign_statistics
    from vbench.stats.campaign import load_campaign
    from vbench.stats.campaign_stats import StatsConfig

    campaign = load_campaign(_racks_campaign(tmp_path, {"flat": [60, 64, 58, 62], "rack": [48, 51, 46.5, 50]}))
    stats, note = campaign_statistics(campaign, StatsConfig(n_resamples=200))
    tex = table_racks(lookup_of(stats), campaign.samples)
    assert has_data(tex) and r"\label{tab:racks}" in tex, note
    flat, rack = _cells(tex, "flat"), _cells(tex, "rack")
    assert "61" in flat[1] and flat[-1] == "1"  # the baseline level: its TeraGen mean, ratio 1
    assert "48.9" in rack[1]
    # TeraGen over the same block's without racks: ~0.80, its interval below 1.
    estimate, low, high = (float(x) for x in re.findall(r"\\num\{([0-9.]+)\}", rack[-1])[:3])
    assert 0.79 < estimate < 0.81 and low < estimate < high < 1
    assert "Campaign \\texttt{racks}" in tex and "vs flat" in tex


def _two_racks_runs(root):
    """Two campaigns of one design (experiment `racks` in both, as jeong2017-racks and its rerun
    with speculative execution off), merged as the paper merges its study campaigns: the second
    shown as racks@<campaign>. Rack over flat ~0.80 in the first, ~0.95 in the second."""
    from vbench.paper.results import campaign_statistics
    from vbench.stats.campaign import distinct_experiments, load_campaign, merge_campaigns
    from vbench.stats.campaign_stats import StatsConfig

    first = load_campaign(_racks_campaign(root, {"flat": [60, 64, 58, 62], "rack": [48, 51, 46.5, 50]}))
    again = load_campaign(_racks_campaign(root, {"flat": [60, 64, 58, 62], "rack": [57, 61, 55, 59]}, "racks-again"))
    main, *others = distinct_experiments([first, again])
    campaign = merge_campaigns(main, others)
    stats, note = campaign_statistics(campaign, StatsConfig(n_resamples=200))
    return lookup_of(stats), campaign.samples, note


def test_two_runs_of_the_racks_design_get_a_heading_each_and_their_own_ratios(tmp_path):
    """The table heads each run's rows with its campaign's name (never the statistics' racks@<campaign>
    key) and computes each ratio within its own blocks."""
    stats, samples, note = _two_racks_runs(tmp_path)
    tex = table_racks(stats, samples)
    heads = re.findall(r"\\multicolumn\{3\}\{l\}\{\\emph\{([^}]*)\}\}", tex)
    assert heads == ["racks", "racks-again"], (heads, note)
    assert "@" not in tex
    racks = [ln for ln in tex.splitlines() if ln.startswith("rack ")]
    ratios = [float(re.findall(r"\\num\{([0-9.]+)\}", ln.split("&")[-1])[0]) for ln in racks]
    assert len(racks) == 2 and 0.79 < ratios[0] < 0.81 and 0.94 < ratios[1] < 0.96


def test_the_factors_figure_gives_each_run_of_a_design_its_own_bar_and_label(tmp_path, monkeypatch):
    """Two experiments sharing a size and a level name (`rack`, 256 MB) are two cells, each
    labelled with its campaign and baseline, not one index label twice, and no label holds the
    statistics' `<experiment>@<campaign>` key."""
    from vbench.paper import figures as F

    stats, samples, _ = _two_racks_runs(tmp_path)
    drawn: list[str] = []
    real = F._tick_label
    monkeypatch.setattr(F, "_tick_label", lambda cell, *a: drawn.append(cell) or real(cell, *a))
    paths = F.fig_factors(stats, samples, tmp_path / "fig")
    assert [p.suffix for p in paths] == [".pdf", ".png"] and all(p.stat().st_size > 0 for p in paths)
    assert sorted(c.split(", ")[0] for c in drawn) == ["racks", "racks-again"], drawn
    label = F._tick_label("jeong2017-racks-nospec, 256MB, vs flat")
    assert label.splitlines()[-2:] == ["256MB", "vs flat"] and "nospec" in label
    assert max(len(line) for line in label.splitlines()) <= 14


def test_without_a_design_varying_the_topology_the_racks_table_says_not_measured():
    assert not has_data(table_racks(lookup_of(pd.DataFrame()), pd.DataFrame()))
