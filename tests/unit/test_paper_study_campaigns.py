"""Issue #20 item 5: the studies' here-design campaigns feed the paper beside the default one.
Every design names its comparison `platforms`, so two campaigns' experiments must be told apart
(`distinct_experiments`), and a finding is judged on its own study's campaign first."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.unit.builders import block_campaign_dir
from vbench.paper import delta as D
from vbench.paper.inputs import campaign_list
from vbench.paper.results import lookup_of, paper_statistics
from vbench.stats.campaign import distinct_experiments, load_campaign, merge_campaigns
from vbench.stats.campaign_stats import StatsConfig
from vbench.validate import check_plain_name

ROOT = Path(__file__).resolve().parents[2]
FINDINGS = {f.id: f for f in D.load_published().findings}


def _campaign_dir(
    root: Path, name: str, times: dict[str, list[float]], benchmark="terasort", metric="terasort_time"
) -> Path:
    """A campaign directory of one benchmark's runs in blocks (TeraSort by default), platform -> one time per block."""
    return block_campaign_dir(
        root, name, times, lambda p: {"experiment": "platforms", "platform": p, "size_mb": 128}, benchmark, {metric: 1}
    )


@pytest.fixture
def two_campaigns(tmp_path):
    # The default campaign: LXC 10 % slower. The study's: LXC 2 % slower, as Xavier et al. found.
    main = _campaign_dir(tmp_path, "reference", {"native": [100, 101, 99, 100], "lxc": [110, 111, 109, 110]})
    study = _campaign_dir(tmp_path, "xavier2014-terasort", {"native": [50, 51, 49, 50], "lxc": [51, 52.1, 49.9, 51]})
    return load_campaign(main), load_campaign(study)


def test_a_second_campaigns_clashing_experiment_is_shown_under_its_campaigns_name(two_campaigns):
    main, study = two_campaigns
    with pytest.raises(Exception, match="more than one campaign"):
        merge_campaigns(main, [study])  # why the renaming exists
    main2, study2 = distinct_experiments([main, study])
    assert main2 is main  # the first keeps its names
    assert set(study2.samples["experiment"]) == {"platforms@xavier2014-terasort"}
    assert study2.renamed == {"platforms": "platforms@xavier2014-terasort"}
    assert any("platforms@xavier2014-terasort" in n for n in study2.notes)
    merged = merge_campaigns(main2, [study2])
    assert sorted(set(merged.samples["experiment"])) == ["platforms", "platforms@xavier2014-terasort"]
    # Campaigns without a clash are left as they were.
    assert distinct_experiments([study]) == [study]


def test_the_statistics_of_a_renamed_campaign_carry_the_shown_name(two_campaigns):
    stats = paper_statistics(distinct_experiments(list(two_campaigns)), StatsConfig(n_resamples=200))[0].table
    assert set(stats["experiment"]) == {"platforms", "platforms@xavier2014-terasort"}
    means = stats[(stats["statistic"] == "mean") & (stats["method"] == "t") & (stats["platform"] == "lxc")]
    by_exp = dict(zip(means["experiment"], means["estimate"]))
    assert by_exp["platforms"] == pytest.approx(110) and by_exp["platforms@xavier2014-terasort"] == pytest.approx(51.0)
    # The paper looks rows up in it thousands of times: it carries no attrs for pandas to deep-copy each time.
    assert stats.attrs == {}


def test_renaming_applies_to_a_statistics_stage_table_read_from_disk(two_campaigns, tmp_path):
    # A renamed campaign's own stage output (data/processed/<c>/stats.parquet) holds the recorded
    # name; the paper shows the renamed one.
    from vbench.paper.results import campaign_statistics

    _, study = distinct_experiments(list(two_campaigns))
    table, note = campaign_statistics(study, StatsConfig(n_resamples=200))
    assert set(table["experiment"]) == {"platforms@xavier2014-terasort"}, note


def test_a_finding_is_judged_on_its_own_studys_campaign_first(two_campaigns):
    main, study = distinct_experiments(list(two_campaigns))
    samples = merge_campaigns(main, [study]).samples
    x1 = FINDINGS["X1"]  # LXC TeraSort overhead about 2 % (magnitude, tolerance 5 points)
    assert x1.test.campaign == "xavier2014-terasort"
    r = D.evaluate(x1, samples)
    assert r.campaign == "xavier2014-terasort" and r.ratio == pytest.approx(1.02, abs=0.005)
    assert r.verdict == D.REPRODUCED
    # Without the study's campaign the default one answers (and there LXC is 10 % slower).
    r = D.evaluate(x1, main.samples)
    assert r.campaign == "reference" and r.verdict == D.CONTRADICTED


def test_every_study_campaign_of_the_paper_is_a_dependency_of_the_paper_stage():
    paper = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]
    names = campaign_list(paper["study_campaigns"])
    assert names, "paper.study_campaigns names no campaign"
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["paper"]
    deps = [d if isinstance(d, str) else next(iter(d)) for d in stage["deps"]]
    assert "-p study_campaigns ${paper.study_campaigns}" in stage["cmd"]
    for name in names:
        check_plain_name(name)  # it becomes data/raw/<name>
        assert f"data/raw/{name}/samples.jsonl" in deps, f"dvc.yaml's paper stage lacks data/raw/{name}"
        assert (ROOT / "params" / "experiments" / f"{name}.yaml").is_file(), f"no design named {name}"


def test_the_abstract_names_each_workloads_cost_and_the_findings_that_held(tmp_path, two_campaigns):
    from vbench.paper.macros import findings_sentence, workloads_sentence

    mrbench = _campaign_dir(
        tmp_path, "mr", {"native": [17.0, 17.5, 16.5, 17.2], "lxc": [18.7, 19.2, 18.2, 18.9]}, "mrbench", "avg_job_time"
    )
    cfg = StatsConfig(n_resamples=200)
    stats, _ = paper_statistics(distinct_experiments([*two_campaigns, load_campaign(mrbench)]), cfg)
    text = workloads_sentence(stats, "native")
    # The main campaign's TeraSort has a sentence of its own; the study's design is named apart.
    assert text.startswith(
        r"In the studies' designs, relative to native hosts: TeraSort time (128 MB, \texttt{platforms@xavier2014-terasort}) by "
    )
    assert r"; MRBench job time (all runs, \texttt{platforms@mr}) by" in text and "on LXC" in text
    terasort = stats.table[stats.table["benchmark"] == "terasort"]
    assert workloads_sentence(lookup_of(terasort[terasort["experiment"] == "platforms"]), "native") == ""
    main, study = distinct_experiments(list(two_campaigns))
    rows = [D.evaluate(FINDINGS["X1"], merge_campaigns(main, [study]).samples)]
    assert findings_sentence(rows) == "Held here: X1 (LXC TeraSort overhead is about 2 \\%)."
    assert findings_sentence([D.evaluate(FINDINGS["X1"], main.samples)]).startswith("Did not hold: X1")


def test_the_studies_terasort_clause_reads_the_design_comparing_most_platforms_then_most_pairs(tmp_path):
    from vbench.paper.macros import study_experiment

    def camp(name, times):
        return load_campaign(_campaign_dir(tmp_path, name, times))

    main = camp("reference", {"native": [25.0, 25.5, 24.8], "lxc": [24.0, 24.4, 24.1]})
    two = camp("xavier2014-terasort", {"native": [21.0, 20.5, 21.2, 20.9, 21.1], "lxc": [21.2, 20.8, 21.0, 21.3, 21.0]})
    short = camp("xavier2014-gated", {"native": [21.0, 20.5, 21.2], "lxc": [21.2, 20.8, 21.0]})
    three = camp("xavier2014-oci", {"native": [21.0, 20.5, 21.2], "lxc": [21.2, 20.8, 21.0], "oci": [20.9, 20.6, 21.1]})
    cfg = StatsConfig(n_resamples=200)

    def study(campaigns):
        stats, _ = paper_statistics(distinct_experiments(campaigns), cfg)
        return study_experiment(stats, "terasort", "terasort_time", exclude="platforms")

    assert study([main, two, short]) == "platforms@xavier2014-terasort"  # 5 pairs beat 3
    assert study([main, two, short, three]) == "platforms@xavier2014-oci"  # 3 platforms beat 2
    assert study([main]) is None


def test_each_workloads_clause_reads_and_names_its_most_precise_study_design(tmp_path):
    """A study re-measured in a dedicated design (X4's WordCount in `xavier2014-wordcount`) is
    quoted from it, not from the first design that ran the workload."""
    from vbench.paper.macros import workloads_sentence

    def camp(name, times):
        return load_campaign(_campaign_dir(tmp_path, name, times, "wordcount", "job_wall_time"))

    first = camp("xavier2014", {"native": [30.0, 31.0, 29.0], "lxc": [33.0, 34.1, 31.9]})  # LXC +10 %
    dedicated = camp(
        "xavier2014-wordcount", {"native": [30.0, 31.0, 29.0, 30.5, 29.5], "lxc": [29.1, 30.1, 28.1, 29.6, 28.6]}
    )  # LXC -3 %
    stats, _ = paper_statistics(distinct_experiments([first, dedicated]), StatsConfig(n_resamples=200))
    text = workloads_sentence(stats, "native")
    assert r"WordCount job time (128 MB, \texttt{platforms@xavier2014-wordcount}) by \num{-3" in text, text
    assert "xavier2014}" not in text


def test_the_abstract_names_and_counts_no_claim_judged_only_on_stand_ins(two_campaigns):
    """A verdict on stand-ins (e.g. an emulated VM for KVM) stays in the delta table, marked there."""
    import dataclasses

    from vbench.paper.macros import findings_sentence

    main, study = distinct_experiments(list(two_campaigns))
    row = D.evaluate(FINDINGS["X1"], merge_campaigns(main, [study]).samples)
    assert row.tested and findings_sentence([row]).startswith("Held here: X1")
    elsewhere = dataclasses.replace(row.finding, test=D.Test(("hardware-virtualisation",)))
    stand_in = dataclasses.replace(row, finding=elsewhere)
    assert stand_in.verdict == row.verdict and not stand_in.tested
    assert findings_sentence([stand_in]) == ""
    tested, on_stand_ins = D.counts([row]), D.counts([stand_in])
    assert tested[row.verdict] == 1 and tested[D.STAND_INS] == 0
    assert on_stand_ins[row.verdict] == 0 and on_stand_ins[D.STAND_INS] == 1
