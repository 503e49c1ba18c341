"""Issue #20 items 1-2: every published finding classified with its command, and the delta able
to evaluate the findings it could never reach (J2, W3, L1-L3, W4), plus the abstract's count of
platforms. Each test builds the samples table by hand in the form the paper hands the delta."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from vbench.campaign.design import expand
from vbench.campaign.study import load_study
from vbench.errors import ParamsError
from vbench.paper import abstract as A
from vbench.paper import delta as D
from vbench.paper.published import check_commands, validate_published
from vbench.paper.results import lookup_of
from vbench.stats.campaign import load_campaign
from vbench.stats.compare import compared_levels, comparison_view, measured_platforms

from tests.unit.builders import time_record, write_samples

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = D.load_published()
FINDINGS = {f.id: f for f in PUBLISHED.findings}


def _rows(values, **meta):
    return [
        {"value": float(v), "unit": "s", "size_label": "16MB", "size": "16MB", "repetition": i, "block": i, **meta}
        for i, v in enumerate(values)
    ]


def _frame(*groups) -> pd.DataFrame:
    return pd.DataFrame([r for g in groups for r in g])


# --- item 1: classification and commands ---------------------------------------------------------


def test_every_command_names_a_design_and_inventory_that_load():
    spec = validate_published(yaml.safe_load(D.default_published_path().read_text()))
    check_commands(spec, ROOT)  # raises on a missing file, a refused design, a label missing
    needs = {f.id: f.test.needs for f in PUBLISHED.findings}
    assert needs["X1"] == ("here",) and needs["J2"] == ("here",) and needs["W4"] == ("here",)
    assert "patched-kernel" in needs["V1"] and "hardware-virtualisation" in needs["L1"]
    assert "cluster-scale" in needs["W1"]
    assert FINDINGS["X5"].test.command == "vbench isolation run --preset params/experiments/xavier2014.yaml"
    assert FINDINGS["V1"].test.command == (
        "vbench campaign run params/experiments/cluster/vasconcelos2015.yaml"
        " --inventory params/inventories/vasconcelos2015.yaml"
    )


def test_a_command_whose_inventory_lacks_a_platform_is_refused(tmp_path):
    doc = yaml.safe_load(D.default_published_path().read_text())
    (tmp_path / "params" / "experiments" / "cluster").mkdir(parents=True)
    (tmp_path / "params" / "inventories").mkdir()
    for rel in ("params/experiments/cluster/vasconcelos2015.yaml", "params/hadoop.yaml", "params/testbed.yaml"):
        (tmp_path / rel).write_text((ROOT / rel).read_text())
    inv = yaml.safe_load((ROOT / "params/inventories/vasconcelos2015.yaml").read_text())
    inv["inventory"]["hosts"] = [h for h in inv["inventory"]["hosts"] if h["platform"] != "openvz"]
    (tmp_path / "params/inventories/vasconcelos2015.yaml").write_text(yaml.safe_dump(inv))
    doc["findings"] = [f for f in doc["findings"] if f["id"] == "V1"]
    with pytest.raises(ParamsError, match=r"findings\[0\]\.test\.|openvz"):
        check_commands(validate_published(doc), tmp_path)
    doc["findings"][0]["test"]["design"] = "params/experiments/cluster/nosuch.yaml"
    with pytest.raises(ParamsError, match=r"findings\[0\]\.test\.design: V1: no such file"):
        check_commands(validate_published(doc), tmp_path)


def test_the_table_prints_the_class_and_the_command_of_untested_findings():
    rows = D.reproduction_delta(PUBLISHED, pd.DataFrame())
    tex = D.delta_table_tex(rows, PUBLISHED)
    assert tex.count("needs: ") == len(PUBLISHED.findings)
    # Nothing measured: every finding is named under one command, each command printed once.
    commands = {(f.test.command, f.test.machine or "") for f in PUBLISHED.findings}
    assert tex.count("To test") == len(commands) < len(PUBLISHED.findings)
    named = []
    for ids in re.findall(r"To test ([^(:]+?)(?: \(on |: )", tex):
        for part in ids.split(", "):
            first, _, last = part.partition("--")
            prefix = first.rstrip("0123456789")
            named += [f"{prefix}{n}" for n in range(int(first[len(prefix) :]), int((last or first)[len(prefix) :]) + 1)]
    assert sorted(named) == sorted(f.id for f in PUBLISHED.findings)
    assert r"params/\allowbreak{}inventories/\allowbreak{}vmware2015.yaml" in tex
    assert "a patched kernel" in tex and "a cluster of the study" in tex
    frame = D.delta_frame(rows)
    assert {"needs", "tested", "command"} <= set(frame.columns) and not frame["tested"].any()


def test_equivalence_claims_are_judged_against_their_margin():
    assert D.verdict_equivalence(0.97, 1.04, 5) == D.REPRODUCED
    assert D.verdict_equivalence(1.08, 1.20, 5) == D.CONTRADICTED
    assert D.verdict_equivalence(0.99, 1.08, 5) == D.INCONCLUSIVE
    x4 = FINDINGS["X4"]
    assert x4.kind == "equivalence" and x4.margin_pct == 5
    rng = np.random.default_rng(3)
    s = _frame(
        *(
            _rows(
                50 + rng.normal(0, 0.2, 4),
                platform=platform,
                benchmark="wordcount",
                metric="job_wall_time",
                experiment="platforms",
            )
            for platform in ("lxc", "native")  # the draws in this order
        )
    )
    assert D.evaluate(x4, s).verdict == D.REPRODUCED


# --- item 2: the faults ---------------------------------------------------------------------------


def _netmodes_campaign(tmp_path: Path) -> Path:
    """A network-mode study as the runner writes it: platform native, the mode a factor."""
    d = tmp_path / "netmodes"
    d.mkdir()
    (d / "campaign.json").write_text(json.dumps({"experiment": {"compare": ["network.mode"], "baseline": "bridge"}}))
    recs = []
    for block in range(4):
        for mode, t in (("bridge", 40.0), ("nat", 50.0), ("bridge+nat", 26.0)):
            meta = {
                "experiment": "network",
                "campaign": "netmodes",
                "platform": "native",
                "block": block,
                "repetition": block,
                "run_id": f"{mode}-{block}",
                "size_mb": 16,
                "factor.network.mode": mode,
                "factor.vms_per_host": 1,
            }
            recs.append(time_record("terasort", "teragen_time", t + 0.1 * block, block, meta))
    write_samples(d, recs)
    return d


def test_j2_compares_bridge_nat_with_bridge_in_a_network_mode_campaign(tmp_path):
    # Before: KVM BRNAT mapped to no platform, and the view dropped the mode: always "not measured".
    samples = load_campaign(_netmodes_campaign(tmp_path)).samples
    assert set(samples["platform"]) == {"bridge", "nat", "bridge+nat"}
    r = D.evaluate(FINDINGS["J2"], samples)
    assert r.verdict != D.NOT_MEASURED_VERDICT, r.reason
    assert r.n_a == 4 and r.n_b == 4 and 0.6 < r.ratio < 0.7
    assert r.verdict == D.REPRODUCED  # 26/40 = 0.65, the published ratio, within 10 points
    assert r.campaign == "netmodes" and r.experiment == "network"


def test_j3_compares_rack_grouping_with_one_default_rack_in_a_topology_campaign(tmp_path):
    d = tmp_path / "racks"
    d.mkdir()
    (d / "campaign.json").write_text(json.dumps({"experiment": {"compare": ["topology"], "baseline": "flat"}}))
    recs = []
    for block in range(5):
        for topology, t in (("flat", 50.0), ("rack", 38.0)):
            meta = {"experiment": "racks", "campaign": "racks", "platform": "native", "block": block}
            meta |= {"repetition": block, "run_id": f"{topology}-{block}", "size_mb": 256}
            meta |= {"factor.topology": topology, "factor.network.mode": "bridge+nat"}
            value = t + (0.4 if block % 2 else -0.4)
            recs.append(time_record("terasort", "teragen_time", value, block, meta))
    write_samples(d, recs)
    r = D.evaluate(FINDINGS["J3"], load_campaign(d).samples)
    assert r.n_a == 5 and r.n_b == 5 and 0.74 < r.ratio < 0.78, r.reason
    assert r.verdict == D.REPRODUCED  # 38/50 = 0.76, the published 1/1.31, within 10 points
    assert r.campaign == "racks" and r.experiment == "racks"


def test_the_comparison_view_keeps_the_compared_level_out_of_the_cell():
    df = pd.DataFrame({"platform": ["native", "native"], "factor.network.mode": ["nat", "bridge"], "value": [1, 2]})
    v = comparison_view(df, ["network.mode"])
    assert list(v["level.network.mode"]) == ["nat", "bridge"] and "factor.network.mode" not in v.columns
    assert measured_platforms(v) == ["native"] and compared_levels(v) == {"network.mode": ["nat", "bridge"]}


def test_w3_selects_vms_per_host_from_the_design_factor():
    # Before: `where: {vms_per_host: 4}` looked for a column the runner never writes
    # (it records factor.vms_per_host), so W3 was "not measured" whatever was run.
    meta = dict(platform="qemu", benchmark="terasort", metric="terasort_time", experiment="platforms")
    s = _frame(
        _rows([80, 81, 82], **meta, **{"factor.vms_per_host": 4}),
        _rows([100, 101, 102], **meta, **{"factor.vms_per_host": 1}),
        _rows([90, 91, 92], **meta, **{"factor.vms_per_host": 2}),
    )
    r = D.evaluate(FINDINGS["W3"], s)
    assert r.verdict == D.REPRODUCED and r.n_a == 3 and r.n_b == 3 and r.ratio == pytest.approx(81 / 101, rel=1e-3)


def test_w3_on_the_studys_own_platforms_needs_no_vms_per_host_column():
    meta = dict(benchmark="terasort", metric="terasort_time", experiment="platforms")
    s = _frame(
        _rows([80, 81, 82], platform="vmware-4vm", **meta), _rows([100, 101, 102], platform="vmware-1vm", **meta)
    )
    r = D.evaluate(FINDINGS["W3"], s)
    assert r.verdict == D.REPRODUCED and r.on_study_platforms and r.tested
    assert r.platforms == ("vmware-4vm", "vmware-1vm")


def _mixed(metric, benchmark, per_node: dict[str, list[float]], key: str) -> list[dict]:
    stamp = json.dumps({"master": "native", "worker1": "native", "worker2": "qemu"})
    rows = []
    for node, values in per_node.items():
        for i, v in enumerate(values):
            rows.append(
                {
                    "experiment": "platforms",
                    "campaign": "liu2012",
                    "platform": "native",  # the cluster's label: every sample of a mixed cluster says native
                    "host_platforms": stamp,
                    key: node,
                    "benchmark": benchmark,
                    "metric": metric,
                    "value": float(v),
                    "unit": "s",
                    "size_label": "",
                    "size": "",
                    "block": i,
                    "repetition": i,
                }
            )
    return rows


def test_l1_compares_the_vm_node_with_the_physical_nodes_of_a_mixed_cluster():
    # Before: the node's platform was only in host_platform(s); every sample said native, so the
    # VM side had no samples and L1-L2 could never be measured.
    s = pd.DataFrame(
        _mixed(
            "write_bw", "dd", {"worker1": [100, 101, 99], "master": [99, 100, 101], "worker2": [23, 23.1, 22.9]}, "host"
        )
    )
    r = D.evaluate(FINDINGS["L1"], s)
    assert r.verdict == D.REPRODUCED and r.platforms == ("qemu", "native")
    assert r.n_a == 3 and r.n_b == 6 and r.ratio == pytest.approx(23 / 100, rel=0.02)


def test_l3_falls_back_to_terasorts_sort_step_per_node():
    # Before: L3 was keyed to the Sort benchmark alone; the mixed cluster's campaign runs TeraSort.
    metric = "terasort.attempt.reduce_merge_time"
    s = pd.DataFrame(_mixed(metric, "terasort", {"worker1": [10, 10.1, 9.9], "worker2": [45, 45.5, 44.5]}, "node"))
    r = D.evaluate(FINDINGS["L3"], s)
    assert r.verdict == D.REPRODUCED and r.benchmark == "terasort" and r.metric == metric
    assert r"terasort standing in for sort" in D._here_text(r)


def test_a_mixed_clusters_whole_job_samples_are_not_native():
    rows = _mixed("terasort_time", "terasort", {"": [400, 410]}, "host")
    for r in rows:
        r.pop("host")
    s = D.prepare(pd.DataFrame(rows))
    assert set(s[D.MACHINE]) == {"mixed:native+qemu"}
    # A homogeneous cluster's label stands, the A/A copy included.
    aa = pd.DataFrame(
        [{"platform": "native~aa", "host": "worker1", "host_platforms": json.dumps({"worker1": "native"})}]
    )
    assert list(D.machine_platform(aa)) == ["native~aa"]


def test_two_campaigns_experiments_of_one_name_are_not_pooled():
    meta = dict(benchmark="dd", metric="write_bw", experiment="platforms")
    s = _frame(
        _rows([20, 21], platform="qemu", campaign="a", **meta),
        _rows([100, 99], platform="native", campaign="b", **meta),
    )
    r = D.evaluate(FINDINGS["L1"], s)
    assert r.verdict == D.NOT_MEASURED_VERDICT and "same experiment" in r.reason


def test_vmware2015_varies_replication_with_teragen():
    # Before: TeraGen stayed at replication 2 in every cell, so W4 (1 vs 3) had nothing to compare.
    study = load_study(ROOT / "params", "vmware2015")
    levels = {
        (c.variant.config.replication, c.variant.config.output_replication)
        for c in expand(study.experiment)
        if c.variant.benchmark == "terasort"
    }
    assert {(1, 1), (3, 3)} <= levels
    meta = dict(
        platform="native", benchmark="terasort", metric="teragen_time", experiment="platforms", size_label="64MB"
    )
    s = _frame(
        # 883 / 1072 s in VMware's Tables 2-3: a ratio of 0.824, which W4 states as a magnitude.
        _rows([33, 33.4, 32.6], replication=1, output_replication=1, **meta),
        _rows([40, 40.5, 39.5], replication=3, output_replication=3, **meta),
    )
    assert D.evaluate(FINDINGS["W4"], s).verdict == D.REPRODUCED


def test_a_size_given_as_a_design_level_names_the_cell_once():
    # Before: vmware2015's cell read "160MB, size_mb=160" (the size label and the runner's factor).
    meta = dict(platform="native", benchmark="terasort", metric="teragen_time", experiment="platforms")
    rows = []
    for size in (16, 160):
        for replication, values in ((1, [11.5, 11.6, 11.4]), (3, [14, 14.1, 13.9])):
            for r in _rows([v * size / 16 for v in values], replication=replication, **meta):
                rows.append({**r, "size_label": f"{size}MB", "size": f"{size}MB", "factor.size_mb": size})
    r = D.evaluate(FINDINGS["W4"], _frame(rows))
    assert r.cell == "160MB" and r.verdict == D.REPRODUCED


def test_the_abstract_counts_platforms_and_names_factor_levels_apart(tmp_path):
    # Before: "5 platform(s) (native, bridge, bridge+nat, lxc, nat)": the network campaign's
    # levels were counted as platforms.
    from vbench.paper.macros import MacroContext, macros_tex
    from vbench.stats.campaign import merge_campaigns

    main_rows = _rows([1, 2], platform="lxc", benchmark="pi", metric="job_wall_time", experiment="platforms")
    main_rows += _rows([1, 2], platform="native", benchmark="pi", metric="job_wall_time", experiment="platforms")
    d = tmp_path / "main"
    d.mkdir()
    keys = ("platform", "experiment", "block", "repetition")
    write_samples(
        d,
        [
            time_record(r["benchmark"], r["metric"], r["value"], i, {k: r[k] for k in keys})
            for i, r in enumerate(main_rows)
        ],
    )
    campaign = merge_campaigns(load_campaign(d), [load_campaign(_netmodes_campaign(tmp_path))])
    stats = lookup_of(pd.DataFrame())
    quotes = A.container_quotes(stats, "native")  # as the build computes them
    ctx = MacroContext(campaign, stats, "native", 0.95, 99, 1, 5.0, [], 5, {}, {}, quotes)
    tex = macros_tex(ctx)
    assert r"\newcommand{\vbNumPlatforms}{2}" in tex
    assert r"\newcommand{\vbPlatformList}{native, LXC}" in tex
    # The factor and its levels as a reader knows them, not network.mode's recorded names.
    assert r"\newcommand{\vbFactorLevels}{network: bridge, bridge + NAT, NAT}" in tex
    assert r"\newcommand{\vbFactorLevelsSentence}{ and the levels of network (bridge, bridge + NAT, NAT)}" in tex
    assert r"\newcommand{\vbPlatformsMissing}{OCI, gVisor, QEMU}" in tex


def test_a_platform_only_the_sandbox_study_measured_is_not_said_unmeasured(tmp_path):
    """The paper said "platforms this campaign did not measure: gvisor" above Section 4, which
    measures gvisor in the sandbox study's own campaign."""
    from vbench.paper.macros import MacroContext, macros_tex
    from vbench.paper.sandbox import SandboxStudy

    campaign = load_campaign(_netmodes_campaign(tmp_path))
    samples = pd.DataFrame({"platform": ["native", "gvisor"], "benchmark": ["cpu"] * 2, "metric": ["m"] * 2})
    sandbox = SandboxStudy("sandbox", lookup_of(pd.DataFrame()), samples)
    stats = lookup_of(pd.DataFrame())
    quotes = A.container_quotes(stats, "native")  # as the build computes them
    tex = macros_tex(MacroContext(campaign, stats, "native", 0.95, 99, 1, 5.0, [], 5, {}, {}, quotes, sandbox=sandbox))
    line = next(x for x in tex.splitlines() if x.startswith(r"\newcommand{\vbPlatformsMissing}"))
    assert "gVisor (measured in the sandbox study's own campaign, sandbox)" in line
    assert "LXC, OCI," in line and "QEMU}" in line  # the others as before, without a note


def test_the_abstract_says_the_a_a_copy_apart_from_the_platforms():
    # Before: "3 platform(s) (native, lxc, native~aa)" and native~aa's TeraSort "overhead" beside
    # LXC's: the campaign's false-positive check read as a platform.
    from vbench.paper.macros import MacroContext, macros_tex
    from vbench.stats.campaign_stats import StatsConfig, campaign_stats

    ref = load_campaign(Path(__file__).resolve().parents[2] / "data" / "raw" / "reference")
    stats = campaign_stats(ref, StatsConfig(n_resamples=99))
    quotes = A.container_quotes(lookup_of(stats), "native")  # as the build computes them
    assert quotes
    tex = macros_tex(MacroContext(ref, lookup_of(stats), "native", 0.95, 99, 1, 5.0, [], 5, {}, {}, quotes))
    assert r"\newcommand{\vbNumPlatforms}{2}" in tex and r"\newcommand{\vbPlatformList}{native, LXC}" in tex
    assert r"\newcommand{\vbAASentence}{ with an A/A self-check (native (A/A copy): the baseline" in tex
    sentence = next(line for line in tex.splitlines() if line.startswith(r"\newcommand{\vbTeraSortSentence}"))
    before, after = sentence.split("The A/A check")
    assert " on LXC (" in before and "aa" not in before and after.endswith("(0 expected).}")
    # The macros quote what they are given, not quotes of their own from the statistics.
    none = macros_tex(MacroContext(ref, lookup_of(stats), "native", 0.95, 99, 1, 5.0, [], 5, {}, {}, []))
    assert r"\newcommand{\vbContainerSentence}{}" in none and r"\newcommand{\vbContainerSentence}{}" not in tex


def test_whole_number_levels_are_named_as_whole_numbers():
    # Merged with campaigns that lack the factor, the column has gaps and holds floats: 1.0, 2.0.
    df = pd.DataFrame({"platform": ["native"] * 3, "factor.vms_per_host": [1.0, 2.0, 4.0], "value": [1, 2, 3]})
    assert compared_levels(comparison_view(df, ["vms_per_host"])) == {"vms_per_host": ["1", "2", "4"]}


def test_finding_ids_are_named_as_ranges_of_one_studys_consecutive_numbers():
    assert D.id_ranges(["V1", "V2", "V3", "V5", "V6", "X1", "J3"]) == "V1--V3, V5--V6, X1, J3"
    assert D.id_ranges(["V2", "V4"]) == "V2, V4" and D.id_ranges(["W1"]) == "W1"
    assert D.id_ranges(["X9", "V10", "V11"]) == "X9, V10--V11"
