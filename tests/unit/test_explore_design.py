"""vbench.explore.design on the committed campaigns: factors and levels, blocks, runs per cell,
failures, and the quiet-machine verdicts once samples carry them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd

from vbench.explore import data, design

from tests.unit.explore_campaigns import committed

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"


def campaign(name: str) -> data.CampaignData:
    return committed(name)


def raw_runs(name: str) -> dict[str, dict]:
    """run_id -> metadata of its first sample, read straight from samples.jsonl."""
    out = {}
    for line in (RAW / name / "samples.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r.get("kind") == "sample":
            out.setdefault(r["metadata"]["run_id"], r["metadata"])
    return out


def test_the_reference_design():
    s = design.design_summary(campaign("reference"))
    assert s.compare == ("platform",) and s.baseline == "native"
    assert [(f.name, f.levels, f.designed) for f in s.factors] == [("platform", ("lxc", "native"), ("native", "lxc"))]
    assert s.blocks == ("0", "1", "2", "3") and s.rounds == ("0",) and s.failures == 0
    assert s.aa_levels == ("native~aa",)  # the A/A copy runs on native hosts: not a platform level
    runs = raw_runs("reference")
    assert s.runs == len(runs)
    table = s.runs_per_cell()
    for bench in ("terasort", "cpu"):
        expected = pd.Series(
            [m["platform"] for m in runs.values() if m["run_id"].startswith(bench + "-")]
        ).value_counts()
        assert dict(table.xs(bench, level="benchmark").sum()) == dict(expected)
    lines = s.lines()
    assert "- rounds: 1 (0)" in lines and any(line.startswith("- A/A self-check: native~aa (") for line in lines)
    assert "- quiet-machine verdicts: ok: 156 run(s)" in lines
    # A campaign made before rounds and the A/A check says so.
    old = design.design_summary(campaign("netmodes"))
    assert old.aa_levels == () and not any(line.startswith("- A/A") for line in old.lines())
    assert any("rounds: none recorded" in line for line in old.lines())


def test_a_factor_design_with_a_failure():
    s = design.design_summary(campaign("netmodes"))
    assert s.compare == ("network.mode",) and s.baseline == "bridge" and s.failures == 1
    factors = {f.name: f for f in s.factors}
    assert factors["network.mode"].levels == ("bridge", "bridge+nat", "nat")
    assert factors["network.mode"].designed == ("bridge", "nat", "bridge+nat") and factors["network.mode"].missing == ()
    assert factors["vms_per_host"].levels == ("1", "2")
    table = s.runs_per_cell()
    # nat with one VM per host: one run per block was planned, the failed one gave no samples.
    assert table.loc[("terasort", "16MB, vms_per_host=1"), "nat"] == 1
    assert table.loc[("terasort", "16MB, vms_per_host=2"), "nat"] == 2
    assert "- runs: 11 with samples, 1 failed" in "\n".join(s.lines())


def test_a_campaign_without_a_design_file_lists_what_varies():
    s = design.design_summary(campaign("isolation"))
    assert {f.name: f.levels for f in s.factors} == {
        "platform": ("lxc",),
        "stress": ("cpu", "forkbomb", "io", "memory", "none"),
    }
    assert s.blocks == ("1", "2", "3") and s.description == ""


def test_run_table_is_in_run_order_one_row_per_run():
    runs = design.run_table(campaign("poll-interval").samples)
    assert list(runs["start"]) == sorted(runs["start"])
    assert len(runs) == len(raw_runs("poll-interval")) == 8
    assert list(runs["level"]) == ["100", "5000", "5000", "100", "100", "5000", "5000", "100"]


def test_quiet_verdicts_flat_or_nested_are_counted_per_run_and_level():
    s = campaign("netmodes").samples  # measured before the gate: the verdicts are added here
    runs = sorted(s["run_id"].unique())
    verdict = {r: ("flagged" if i % 4 == 0 else "quiet") for i, r in enumerate(runs)}
    flat = s.assign(**{design.QUIET_VERDICT: s["run_id"].map(verdict)})
    nested = s.assign(quiet=s["run_id"].map(lambda r: {"verdict": verdict[r], "load1": 0.3}))
    as_text = s.assign(quiet=s["run_id"].map(lambda r: json.dumps({"verdict": verdict[r]})))
    level = s.groupby("run_id")["platform"].first()
    expected = pd.DataFrame({"level": level, "verdict": pd.Series(verdict)}).value_counts().sort_index()
    for frame in (flat, nested, as_text):
        got = design.quiet_verdicts(frame).set_index(["level", "verdict"])["runs"].sort_index()
        assert dict(got) == dict(expected)
    assert design.quiet_verdicts(s).empty
    ref = campaign("netmodes")
    d = dataclasses.replace(ref, campaign=dataclasses.replace(ref.campaign, samples=flat))
    line = next(x for x in design.design_summary(d).lines() if x.startswith("- quiet-machine"))
    assert f"flagged: {sum(v == 'flagged' for v in verdict.values())} run(s)" in line


def test_the_cpu_probe_line_shows_a_campaigns_speed_and_its_ratio_to_the_reference_when_recorded():
    # xavier2014-wordcount probed before every session (50 readings) but predates the reference stamp.
    s = design.design_summary(campaign("xavier2014-wordcount"))
    assert s.cpu_probe_ms == 44.43 and s.machine_ref_ms is None
    assert "- CPU probe (the gate's, on a quiet machine): median 44.4 ms" in s.lines()
    # With the reference on the samples (a campaign measured since), the ratio follows.
    ref = campaign("xavier2014-wordcount")
    stamped = ref.samples.assign(**{"quiet.cpu_probe_machine_ms": 42.4})
    d = dataclasses.replace(ref, campaign=dataclasses.replace(ref.campaign, samples=stamped))
    assert "- CPU probe (the gate's, on a quiet machine): median 44.4 ms, x1.05 this machine's reference (42.4 ms)" in (
        design.design_summary(d).lines()
    )
    # A campaign measured before the probe has no line.
    assert not any("CPU probe" in line for line in design.design_summary(campaign("netmodes")).lines())
