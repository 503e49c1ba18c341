"""Names as a reader knows them (issue #54 item 3): a figure legend that shows factor levels names
the factor ("VMs per host: 2", not "2"), and wherever the paper prints a configuration, the A/A
self-check's copy of the baseline reads "native (A/A copy)", never its internal key `native~aa`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from vbench.paper import abstract as A
from vbench.paper.fmt import configuration_tex
from vbench.paper.results import lookup_of
from vbench.paper.tables.micro import table_bonnie_block, table_pi_digits
from vbench.paper.tables.terasort import table_tera_elapsed
from vbench.samples import aa_label
from vbench.wording import configuration_name, factor_name, level_label, metric_name, platform_label

from tests.unit.builders import ESTIMATE_COLUMNS, STATS_KEY_COLUMNS

COLS = [*STATS_KEY_COLUMNS, "size", *ESTIMATE_COLUMNS, "size_label", "replication", "baseline"]
AA = aa_label("native")
AA_NAME = "native (A/A copy)"


def _row(experiment, platform, metric, statistic, method, est, *, bench="terasort", size="64MB", **extra):
    """A row of the statistics table, its interval 5 % either side; `extra`: replication, baseline."""
    unit = "KiB/s" if bench == "bonnie" else "s"
    row = [experiment, platform, bench, metric, unit, size, statistic, method, est, est * 0.95, est * 1.05, 3, size]
    return [*row, extra.get("replication", "2"), extra.get("baseline", "")]


def _stats(rows):
    return lookup_of(pd.DataFrame(rows, columns=COLS))


# --- the names themselves -------------------------------------------------------------------------


def test_the_aa_copy_is_named_after_its_baseline_in_tables_and_in_figures():
    assert platform_label(AA) == AA_NAME and platform_label(aa_label("lxc")) == "LXC (A/A copy)"
    assert configuration_tex(AA) == AA_NAME and "~" not in configuration_tex(AA)


def test_a_table_names_a_platform_as_the_figure_beside_it_does():
    # Before: tables printed the recorded "lxc", "oci", "gvisor" beside figures' "LXC", "OCI", "gVisor".
    assert [configuration_tex(p) for p in ("native", "lxc", "oci", "gvisor", "qemu")] == [
        "native",
        "LXC",
        "OCI",
        "gVisor",
        "QEMU",
    ]
    # A configuration vbench has no reader name for (an inventory's label) prints as recorded.
    assert configuration_tex("kvm_host") == r"kvm\_host"


def test_a_level_is_named_with_its_factor():
    assert level_label({"vms_per_host": "2"}) == "VMs per host: 2"
    assert level_label({"network.mode": "bridge+nat"}) == "network: bridge + NAT"
    assert level_label({"am_heartbeat_ms": "100", "nodemanager_heartbeat_ms": "200"}) == (
        "AM heartbeat (ms): 100; NodeManager heartbeat (ms): 200"
    )
    # A factor vbench has no reader name for is still named, by its own name.
    assert level_label({"some.factor": "x"}) == "some.factor: x" and factor_name("some.factor") == "some.factor"


def test_the_prose_names_the_aa_copy_as_the_tables_do():
    assert A.reader_name(AA) == AA_NAME and A.reader_name("native") == "native hosts"


# --- tables ---------------------------------------------------------------------------------------


def _samples(platforms) -> pd.DataFrame:
    n = len(platforms)
    return pd.DataFrame(
        {
            "platform": list(platforms),
            "benchmark": ["terasort"] * n,
            "metric": ["terasort_time"] * n,
            "value": [1.0] * n,
        }
    )


def test_the_terasort_table_prints_the_aa_copy_by_its_reader_name():
    rows = [_row("platforms", p, "terasort_time", "mean", "t", est) for p, est in (("native", 56.0), (AA, 55.0))]
    tex = table_tera_elapsed(_stats(rows), _samples(("native", AA)), "native")
    assert any(line.startswith(f"{AA_NAME} &") for line in tex.splitlines())
    assert "aa" not in tex.replace(AA_NAME, "")


def test_a_column_per_platform_table_heads_the_aa_copy_by_its_reader_name():
    rows = [
        _row("micro", p, "seq_write_bw", "mean", "t", est, bench="bonnie", size="")
        for p, est in (("native", 150000.0), (AA, 151000.0))
    ]
    tex = table_bonnie_block(_stats(rows), _samples(("native", AA)), "native")
    header = next(line for line in tex.splitlines() if line.startswith("Test &") or " & native" in line)
    assert AA_NAME in header
    assert "textasciitilde" not in tex and "~aa" not in tex


def test_a_column_per_platform_table_names_no_factor_level_as_an_unmeasured_platform():
    """A merged factor study's levels stand where platforms go in its comparison view; the note
    once read "Not measured in this table: 1, 2, 4, bridge, ..." as if they were platforms."""
    rows = [_row("micro", "native", "time", "mean", "t", 12.0, bench="pi_digits", size="10000")]
    levels = pd.DataFrame(
        {"platform": ["1", "2"], "host_platform": ["native"] * 2, "level.vms_per_host": ["1", "2"]}
        | {"benchmark": ["terasort"] * 2, "metric": ["terasort_time"] * 2, "value": [1.0] * 2}
    )
    samples = pd.concat([_samples(("native", "lxc", AA)), levels], ignore_index=True)
    tex = table_pi_digits(_stats(rows), samples, "native")
    assert f"Not measured in this table: LXC, {AA_NAME}." in tex


# --- figures --------------------------------------------------------------------------------------

pytest.importorskip("matplotlib")


def _factor_rows(studies=(("vms-per-host", "1", ("2", "4")), ("network", "bridge", ("nat", "bridge+nat")))):
    """Two factor studies in one panel, as the paper merges them: VMs per host (1, 2, 4) and
    network modes (bridge, NAT, bridge + NAT), each against its own baseline level."""
    return [
        _row(experiment, level, "teragen_time", "ratio_to_baseline", "fieller", 1.1 + 0.1 * k, baseline=base)
        for experiment, base, levels in studies
        for k, level in enumerate(levels)
    ]


def _factor_samples() -> pd.DataFrame:
    """The comparison views' samples (vbench.stats.compare): each level under `level.<factor>`."""
    vms = [("vms-per-host", lv, float(lv), None) for lv in ("1", "2", "4")]  # a column with gaps holds floats
    net = [("network", lv, None, lv) for lv in ("bridge", "nat", "bridge+nat")]
    return pd.DataFrame(vms + net, columns=["experiment", "platform", "level.vms_per_host", "level.network.mode"])


def _drawn(monkeypatch, fig_fn, stats, samples, tmp_path) -> dict[str, list[str]]:
    """The legend entries and tick labels a figure function draws, read before the figure is saved."""
    from vbench.paper import figures as F

    seen: dict[str, list[str]] = {}

    def keep(fig, axes, out_dir, name):
        seen["legend"] = [lab for ax in axes for lab in ax.get_legend_handles_labels()[1]]
        seen["ticks"] = [t.get_text().replace("\n", " ") for ax in axes for t in ax.get_xticklabels()]
        seen["ylabel"] = [ax.get_ylabel() for ax in axes]
        return F.style.save(fig, out_dir, name)

    monkeypatch.setattr(F, "_finish", keep)
    assert fig_fn(stats, samples, tmp_path)
    return seen


def test_the_factor_figure_legend_names_each_level_with_its_factor(monkeypatch, tmp_path):
    from vbench.paper import figures as F

    seen = _drawn(monkeypatch, F.fig_factors, _stats(_factor_rows()), _factor_samples(), tmp_path)
    legend = seen["legend"]
    assert {"VMs per host: 2", "VMs per host: 4", "network: NAT", "network: bridge + NAT"} <= set(legend)
    assert not {"2", "4", "nat", "bridge+nat"} & set(legend)  # no bare level
    # Each cell says which baseline level it is normalised to, named the same way.
    assert any("vs VMs per host: 1" in t for t in seen["ticks"]) and any(
        "vs network: bridge" in t for t in seen["ticks"]
    )


def test_a_factor_figure_with_one_baseline_says_it_in_the_axis(monkeypatch, tmp_path):
    from vbench.paper import figures as F

    one = _factor_rows((("vms-per-host", "1", ("2", "4")),))
    seen = _drawn(monkeypatch, F.fig_factors, _stats(one), _factor_samples(), tmp_path)
    assert seen["ylabel"] == ["time / time at VMs per host: 1"]


def test_a_legend_of_platforms_and_replication_names_the_replication(monkeypatch, tmp_path):
    from vbench.paper import figures as F

    rows = []
    for size in ("64MB", "128MB"):
        for replication in ("1", "3"):
            for p in ("native", AA):
                est = 50.0 + (p == AA)
                rows.append(_row("platforms", p, "terasort_time", "mean", "t", est, size=size, replication=replication))
    seen = _drawn(monkeypatch, F.fig_terasort, _stats(rows), None, tmp_path)
    assert "native, HDFS replication: 3" in seen["legend"] and f"{AA_NAME}, HDFS replication: 1" in seen["legend"]
    assert not any("~aa" in lab or lab.endswith(", replication 3") for lab in seen["legend"])


def test_the_factor_figure_names_the_levels_of_merged_campaigns_read_from_their_samples(monkeypatch, tmp_path):
    """End to end: two runs of the racks design, loaded and merged as the build does (the second's
    experiment renamed racks@<campaign> in the statistics and the samples alike)."""
    from vbench.paper import figures as F

    from tests.unit.test_paper_study_tables import _two_racks_runs

    stats, samples, _ = _two_racks_runs(tmp_path)
    seen = _drawn(monkeypatch, F.fig_factors, stats, samples, tmp_path / "fig")
    assert seen["legend"] == ["Hadoop topology: a rack per physical host"]
    assert sum("vs Hadoop topology: one rack" in t for t in seen["ticks"]) == 2


def test_a_level_has_one_colour_in_every_panel_of_the_factor_figure(monkeypatch, tmp_path):
    """A level missing from one panel (the network study timed no TeraGen here) must not shift the
    other levels' colours in that panel away from the legend's, which takes each level's first."""
    from vbench.paper import figures as F

    rows = [
        *([*r[:3], "terasort_time", *r[4:]] for r in _factor_rows()),  # both studies
        *_factor_rows((("network", "bridge", ("nat", "bridge+nat")),)),  # TeraGen: the network's only
    ]
    colours: dict[str, set] = {}

    def keep(fig, axes, out_dir, name):
        assert len(axes) == 2
        for ax in axes:
            for bars in ax.containers:
                if getattr(bars, "patches", None):
                    colours.setdefault(bars.get_label(), set()).add(bars.patches[0].get_facecolor())
        return F.style.save(fig, out_dir, name)

    monkeypatch.setattr(F, "_finish", keep)
    assert F.fig_factors(_stats(rows), _factor_samples(), tmp_path)
    assert {"network: NAT", "network: bridge + NAT"} <= set(colours)
    assert all(len(c) == 1 for c in colours.values()), colours
    assert len({next(iter(c)) for c in colours.values()}) == len(colours)  # and each level its own


def test_the_factor_figures_tick_labels_do_not_overlap(monkeypatch, tmp_path):
    """Five cells named by long campaign names in one panel, two in the other: each panel is as wide
    as its cells need and each label wrapped to its cell, so no two neighbours' labels touch."""
    from vbench.paper import figures as F

    names = [
        "jeong2017",
        "jeong2017-racks",
        "jeong2017-racks-confirm",
        "jeong2017-racks-nospec",
        "vmware2015-vms-per-host",
    ]
    rows = [
        _row(name, "rack", metric, "ratio_to_baseline", "fieller", 0.9, baseline="flat", size="256MB")
        for metric, chosen in (("teragen_time", names), ("terasort_time", names[:1] + names[-1:]))
        for name in chosen
    ]
    gaps: list[float] = []

    def keep(fig, axes, out_dir, name):
        renderer = fig.canvas.get_renderer()
        fig.canvas.draw()
        for ax in axes:
            boxes = sorted((t.get_window_extent(renderer) for t in ax.get_xticklabels()), key=lambda b: b.x0)
            gaps.extend(b.x0 - a.x1 for a, b in zip(boxes, boxes[1:]))
        return F.style.save(fig, out_dir, name)

    monkeypatch.setattr(F, "_finish", keep)
    assert F.fig_factors(_stats(rows), None, tmp_path)
    assert len(gaps) == 4 + 1 and min(gaps) > 0, gaps


def test_metrics_and_configurations_as_a_reader_knows_them():
    assert metric_name("read_throughput") == "read throughput"
    assert metric_name("terasort.attempt.reduce_merge_time") == "reduce merge time"  # a step's attempt metric
    assert metric_name("no_such_metric") == "no_such_metric"  # unknown: as recorded (the reviewer's check sees it)
    assert configuration_name("lxc", {"stress": "memory"}) == "LXC (stress: memory)"
    assert configuration_name("qemu", {"vms_per_host": 4}) == "QEMU (VMs per host: 4)"
    assert configuration_name("native", {}) == "native"


def test_every_metric_a_published_finding_compares_has_a_readers_name():
    published = yaml.safe_load((Path(__file__).resolve().parents[2] / "params" / "published.yaml").read_text())
    metrics = {f["metric"] for f in published["findings"] if "metric" in f}
    assert metrics and {m for m in metrics if metric_name(m) == m and m != "time"} == set()
