"""Tables and number formatting of the paper stage, from small hand-made statistics frames."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from vbench.paper import fmt
from vbench.paper.tables import TABLES
from vbench.paper.tables.columns import EMULATED_MARK, emulated_platforms, untimed_tests
from vbench.paper.tables.grid import ABSENT_PREFIX, has_data
from vbench.paper.tables.jobs import table_pernode
from vbench.paper.tables.micro import table_bonnie_block
from vbench.paper.tables.terasort import table_tera_elapsed, table_tera_replication
from vbench.paper.tables.testbed import table_testbed
from vbench.paper.macros import overhead_sentence
from vbench.paper.results import lookup_of

from tests.unit.builders import ESTIMATE_COLUMNS, STATS_KEY_COLUMNS

COLS = [*STATS_KEY_COLUMNS, "size", *ESTIMATE_COLUMNS, "size_label", "replication"]


def _mean(platform, metric, est, half, n=3, size="64MB", unit="s", bench="terasort", experiment="platforms"):
    lo, hi = (est - half, est + half) if half is not None else (math.nan, math.nan)
    return [experiment, platform, bench, metric, unit, size, "mean", "t", est, lo, hi, n, size, "2"]


def _ratio(platform, metric, stat, est, lo, hi, size="64MB", bench="terasort", experiment="platforms"):
    return [experiment, platform, bench, metric, "s", size, stat, "fieller", est, lo, hi, 3, size, "2"]


@pytest.fixture
def stats():
    rows = [
        _mean("native", "terasort_time", 56.2, 3.1),
        _mean("native", "teragen_time", 24.9, 1.25),
        _mean("native", "teravalidate_time", 34.19, None, n=1),
        _mean("lxc", "terasort_time", 57.4, 2.0),
        _ratio("lxc", "terasort_time", "ratio_to_baseline", 1.0214, 0.95, 1.1),
        _ratio("lxc", "terasort_time", "overhead_pct", 2.14, -5.0, 10.0),
        _mean("native", "seq_write_bw", 151500.0, 7200.0, bench="bonnie", unit="KiB/s", experiment="micro", size=""),
    ]
    return pd.DataFrame(rows, columns=COLS)


@pytest.fixture
def samples():
    return pd.DataFrame(
        {
            "platform": ["native", "lxc"],
            "benchmark": ["terasort", "terasort"],
            "metric": ["terasort_time", "terasort_time"],
            "value": [56.0, 57.0],
        }
    )


def test_pm_rounds_to_two_significant_digits_of_the_half_width():
    assert fmt.num_pm(56.2134, 53.1, 59.3) == r"\num{56.2 \pm 3.1}"
    assert fmt.num_pm(4737075, 4725000, 4749000) == r"\num{4737000 \pm 12000}"
    assert fmt.num_pm(0.07751, 0.07451, 0.08051) == r"\num{0.0775 \pm 0.0030}"
    assert fmt.num_pm(107.9, 97.92, 117.88) == r"\num{108 \pm 10}"  # 9.98 -> 10, not 10.0
    assert fmt.num_pm(5.0, None, None) == r"\num{5.00}$^\dagger$"
    assert fmt.num_pm(float("nan")) == fmt.NOT_MEASURED


def test_units_interval_and_names():
    assert fmt.qty_pm(56.2, 53.1, 59.3, "s") == r"\qty{56.2 \pm 3.1}{\second}"
    assert fmt.qty_pm(29.0, 28.0, 30.0, "MiB/s") == r"\qty{29.0 \pm 1.0}{\mebi\byte\per\second}"
    assert fmt.interval_text(1.02, 0.99, 1.05, scale=100, offset=-100) == r"\num{2.0} [\num{-1.0}, \num{5.0}]"
    assert fmt.macro_name("TeraSort", "Overhead", "lxc") == "vbTeraSortOverheadLxc"
    assert fmt.macro_name("x", "64MB") == "vbXSixFourMB"
    assert fmt.tex_escape("a_b & 5%") == r"a\_b \& 5\%"
    assert fmt.size_display("2048MB") == "2 GB" and fmt.size_display("1000000") == "1000000"
    assert (
        fmt.plain_number(43.795) == "43.795"
        and fmt.plain_number(1.02) == "1.02"
        and fmt.plain_number(251367) == "251367"
    )


def test_tera_elapsed_cells(stats, samples):
    # A platform another merged campaign ran (oci) gets no row of dashes here, only a note; a
    # factor study's level (a network mode, in its comparison view) is no platform: not even that.
    others = {"platform": ["oci", "bridge"], "benchmark": ["terasort"] * 2, "level.network.mode": [None, "bridge"]}
    samples = pd.concat([samples, pd.DataFrame(others | {"host_platform": [None, "native"]})])
    tex = table_tera_elapsed(lookup_of(stats), samples, "native")
    assert not any(line.startswith(("bridge &", "OCI &")) for line in tex.splitlines())
    assert "Measured in other experiments only: OCI." in tex
    native_row = next(line for line in tex.splitlines() if line.startswith("native &"))
    cells = [c.strip() for c in native_row.rstrip("\\ ").split("&")]
    assert cells[1] == r"\num{24.9 \pm 1.2}"  # TeraGen
    assert cells[2] == r"\num{56.2 \pm 3.1}"  # TeraSort
    assert cells[3] == r"\num{34.2}$^\dagger$"  # one run: no interval
    assert cells[4] == r"\textemdash" and cells[5] == r"\textemdash"  # phases not measured
    assert r"\label{tab:tera-elapsed}" in tex and r"\toprule" in tex and r"\bottomrule" in tex
    assert "$^\\dagger$~one run only" in tex and "Not run in the campaigns this table reads: gVisor, QEMU." in tex
    lxc_row = next(line for line in tex.splitlines() if line.startswith("LXC &"))
    assert r"\num{57.4 \pm 2.0}" in lxc_row


def test_replication_table_groups_each_experiment_and_size_and_keeps_teragen_alone_runs():
    def m(experiment, size, rep, metric, est):
        return [experiment, "native", "terasort", metric, "s", size, "mean", "t", est, est - 1, est + 1, 8, size, rep]

    full, alone = "platforms@vmware2015", "platforms@vmware2015-teragen-large"
    rows = [
        m(full, "48MB, replication=3", "3", "teragen_time", 12.7),
        m(full, "48MB, replication=3", "3", "terasort_time", 19.5),
        m(full, "16MB, replication=1", "1", "teragen_time", 13.5),
        m(full, "48MB, replication=1", "1", "teragen_time", 14.3),
        m(full, "48MB, replication=1", "1", "terasort_time", 20.3),
        m(alone, "2048MB, replication=1", "1", "teragen_time", 27.4),  # TeraGen alone: no TeraSort row
        m(alone, "2048MB, replication=3", "3", "teragen_time", 35.6),
    ]
    samples = pd.DataFrame({"platform": ["native"], "benchmark": ["terasort"], "metric": ["teragen_time"]})
    tex = table_tera_replication(lookup_of(pd.DataFrame(rows, columns=COLS)), samples, "native")
    lines = [ln for ln in tex.splitlines() if ln.startswith(("\\multicolumn{7}", "1 &", "3 &"))]
    assert lines == [
        r"\multicolumn{7}{l}{\emph{vmware2015, 16MB}} \\",  # the campaign, never the statistics' key
        r"1 & native & \num{13.5 \pm 1.0} & \textemdash & \textemdash & \textemdash & \textemdash \\",
        r"\multicolumn{7}{l}{\emph{vmware2015, 48MB}} \\",
        r"1 & native & \num{14.3 \pm 1.0} & \num{20.3 \pm 1.0} & \textemdash & \textemdash & \textemdash \\",
        r"3 & native & \num{12.7 \pm 1.0} & \num{19.5 \pm 1.0} & \textemdash & \textemdash & \textemdash \\",
        r"\multicolumn{7}{l}{\emph{vmware2015-teragen-large, 2048MB}} \\",
        r"1 & native & \num{27.4 \pm 1.0} & \textemdash & \textemdash & \textemdash & \textemdash \\",
        r"3 & native & \num{35.6 \pm 1.0} & \textemdash & \textemdash & \textemdash & \textemdash \\",
    ]


def test_bonnie_block_layout(stats, samples):
    tex = table_bonnie_block(lookup_of(stats), samples, "native")
    assert r"Sequential write (\unit{\kibi\byte\per\second}) & \num{151500 \pm 7200} \\" in tex
    # The table is of one experiment (micro): lxc ran only in another, so it is no column of dashes.
    assert r"Test & native \\" in tex


def test_a_platform_of_the_tables_experiment_without_the_metric_is_a_dash(stats, samples):
    lxc_micro = stats.iloc[[-1]].assign(platform="lxc", metric="rewrite_bw", value=1.0)
    tex = table_bonnie_block(lookup_of(pd.concat([stats, lxc_micro], ignore_index=True)), samples, "native")
    assert r"Test & native & LXC \\" in tex
    assert r"Sequential write (\unit{\kibi\byte\per\second}) & \num{151500 \pm 7200} & \textemdash \\" in tex


def test_a_bonnie_test_every_run_finished_too_fast_to_time_is_untimed_not_unmeasured(stats, samples):
    lxc_micro = stats.iloc[[-1]].assign(platform="lxc", metric="rewrite_bw", value=1.0)
    both = lookup_of(pd.concat([stats, lxc_micro], ignore_index=True))
    runs = [  # native: both runs untimed on rewrite and read, one of them on the write too; lxc: none
        ("native", "r1", ["rewrite", "seq_read", "seq_write"]),
        ("native", "r2", ["rewrite", "seq_read"]),
        ("lxc", "r3", []),
    ]
    bonnie = pd.DataFrame(
        [
            {"platform": p, "benchmark": "bonnie", "experiment": "micro", "run_id": r, "too_fast": t, "value": 1.0}
            for p, r, t in runs
        ]
    )
    assert untimed_tests(bonnie, "micro") == {"native": {"rewrite", "seq_read"}, "lxc": set()}
    assert untimed_tests(bonnie, "another") == {}
    tex = table_bonnie_block(both, pd.concat([samples, bonnie], ignore_index=True), "native")
    assert r"Rewrite (\unit{\kibi\byte\per\second}) & \emph{untimed} & \num{151500 \pm 7200} \\" in tex
    # A test one run of the platform timed keeps its measured mean (native's write: r2 timed it).
    assert r"Sequential write (\unit{\kibi\byte\per\second}) & \num{151500 \pm 7200} & \textemdash \\" in tex
    assert r"Sequential read & \emph{untimed} & \textemdash \\" in tex
    assert "too fast to time" in tex
    # Without the runs' too_fast, the same cells are not measured, and no note says otherwise.
    plain = table_bonnie_block(both, samples, "native")
    assert "untimed" not in plain and r"Sequential read & \textemdash & \textemdash \\" in plain


def test_absent_table_still_compiles_as_one_row(samples):
    empty = lookup_of(pd.DataFrame(columns=COLS))
    for name, (fn, label, _src) in TABLES.items():
        tex = fn(empty, samples, "native") if name != "testbed" else fn(empty, samples, "native", facts=[])
        assert rf"\label{{{label}}}" in tex
        assert tex.count(r"\begin{tabular}") == 1 and tex.count(r"\end{tabular}") == 1
        if name != "testbed":
            assert not has_data(tex), name
            assert "not measured in this campaign" in tex
            assert ABSENT_PREFIX not in tex, name  # an empty table does not list absent platforms too
        assert not re.search(r"\bnan\b", tex.lower()), name


def test_overhead_sentence(stats):
    text = overhead_sentence(lookup_of(stats), "native")
    assert r"\num{2.1} [\num{-5.0}, \num{10.0}]\,\% on LXC" in text
    only_native = stats[stats["platform"] == "native"]
    assert "Only the baseline, native hosts," in overhead_sentence(lookup_of(only_native), "native")


def test_testbed_table_from_provenance_and_facts():
    samples = pd.DataFrame(
        {
            "platform": ["native", "qemu"],
            "kernel": ["6.1.0", "6.1.0"],
            "java_version": ['openjdk version "17.0.15" 2025-04-15'] * 2,
            "hadoop_version": ["3.4.2"] * 2,
        }
    )
    facts = [{"platform": "qemu", "cpu_model": "Some CPU", "vcpus": "2", "accelerator": "tcg"}]
    tex = table_testbed(None, samples, "native", facts=facts)
    # A row per platform; an attribute with one value on every platform is said once, in the note,
    # with the platforms that did not record it.
    assert r"Platform & Samples \\" in tex and r"QEMU & 1 \\" in tex
    assert "Java OpenJDK 17.0.15;" in tex
    assert "Accelerator tcg (not recorded for native)" in tex
    assert "vCPUs 2 (not recorded for native)" in tex
    two = samples.assign(kernel=["6.1.0", "6.2.0"], vbench_commit=["0123456789ab", "fedcba987654"])
    tex = table_testbed(None, two, "native", facts=facts)
    assert r"Platform & Kernel & vbench commit & Samples \\" in tex
    assert r"native & 6.1.0 & \texttt{0123456} & 1 \\" in tex


def test_testbed_table_has_a_row_per_platform_not_per_compared_level():
    # Before: a campaign comparing VMs per host printed rows "1", "2", "4" beside "native" and "LXC".
    samples = pd.DataFrame(
        {
            "platform": ["native", "lxc", "1", "2", "2"],
            "host_platform": [None, None, "oci", "oci", "oci"],
            "level.vms_per_host": [None, None, 1, 2, 2],
            "kernel": ["6.1.0", "6.1.0", "6.2.0", "6.2.0", "6.2.0"],
        }
    )
    tex = table_testbed(None, samples, "native")
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0]
    assert [line.split(" & ")[0] for line in body.strip().splitlines()] == ["native", "LXC", "OCI"]
    assert r"OCI & 6.2.0 & 3 \\" in body
    assert "Not run in the campaigns this table reads: gVisor, QEMU." in tex


def test_paper_map_lists_every_artifact():
    from pathlib import Path

    pytest.importorskip("matplotlib")
    pytest.importorskip("seaborn")
    from vbench.paper.figures import FIGURES

    text = (Path(__file__).resolve().parents[2] / "docs" / "paper-map.md").read_text()
    for name, (fn, label, _src) in TABLES.items():
        assert f"`{label}`" in text and fn.__name__ in text, name
    for name, (fn, label, _cap, _src) in FIGURES.items():
        assert f"`{label}`" in text and fn.__name__ in text, name


def test_pernode_table_shows_a_node_that_finished_nothing_and_names_the_straggler():
    hp = '{"worker1": "native", "worker2": "qemu"}'
    rows = [
        {
            "platform": "native",
            "benchmark": "terasort",
            "raw_metric": "map_attempt_time",
            "metric": "terasort.attempt.x",
            "value": v,
            "node": "worker1",
            "step": "terasort",
            "host_platforms": hp,
        }
        for v in (10.0, 12.0, 14.0)
    ]
    rows += [
        {
            "platform": "native",
            "benchmark": "terasort",
            "raw_metric": "map_attempt_unsuccessful",
            "metric": "y",
            "value": 1,
            "node": "worker2",
            "step": "terasort",
            "attempt_state": "FAILED",
            "host_platforms": hp,
        }
    ] * 3
    tex = table_pernode(None, pd.DataFrame(rows), "native")
    assert has_data(tex) and r"\label{tab:pernode}" in tex
    w1 = next(line for line in tex.splitlines() if " & worker1 & " in line)
    w2 = next(line for line in tex.splitlines() if " & worker2 & " in line)
    assert [c.strip() for c in w1.rstrip("\\ ").split("&")][4:7] == ["3", r"\num{12.0}", r"\num{14.0}"]
    cells = [c.strip() for c in w2.rstrip("\\ ").split("&")]
    assert cells[3] == "QEMU" and cells[4] == "0" and cells[5] == r"\textemdash" and cells[8] == "3"
    assert "worker2 (qemu) is the straggler" in tex


def test_an_emulated_platform_is_the_one_whose_host_ran_under_tcg_even_in_a_mixed_cluster():
    import json

    tidied = {"master": "native", "worker1": "native", "worker2": "qemu"}
    rows = pd.DataFrame(
        {
            "platform": ["native", "qemu", "native"],
            "host_platforms": [json.dumps(tidied), {"master": "qemu", "worker1": "qemu"}, None],
            "host_accelerators": [json.dumps({"worker2": "tcg"}), {"master": "tcg", "worker1": "tcg"}, None],
        }
    )
    assert emulated_platforms(rows) == {"qemu"}
    assert emulated_platforms(rows.assign(host_accelerators=[json.dumps({"worker2": "kvm"}), None, None])) == set()
    assert emulated_platforms(rows.drop(columns="host_accelerators")) == set()  # recorded before the stamp


def test_a_column_of_an_emulated_platform_is_marked_and_its_note_says_what_it_is(stats, samples):
    qemu_micro = stats.iloc[[-1]].assign(platform="qemu", value=2000.0, low=1900.0, high=2100.0)
    vm = {"platform": "qemu", "benchmark": "bonnie", "metric": "seq_write_bw", "value": 2000.0}
    both = lookup_of(pd.concat([stats, qemu_micro], ignore_index=True))
    plain = table_bonnie_block(both, pd.concat([samples, pd.DataFrame([vm])], ignore_index=True), "native")
    assert r"Test & native & QEMU \\" in plain and "TCG" not in plain
    stamped = {**vm, "host_platforms": {"master": "qemu"}, "host_accelerators": {"master": "tcg"}}
    tex = table_bonnie_block(both, pd.concat([samples, pd.DataFrame([stamped])], ignore_index=True), "native")
    assert r"Test & native & QEMU" + EMULATED_MARK + r" \\" in tex
    assert "software emulation" in tex
