"""Issue #20 item 5: the studies' here-design campaigns feed the paper beside the default one.
Every design names its comparison `platforms`, so two campaigns' experiments must be told apart
(`distinct_experiments`), and a finding is judged on its own study's campaign first."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.unit.builders import block_campaign_dir
from vbench.paper import delta as D
from vbench.paper.inputs import campaign_list
from vbench.paper.results import paper_statistics
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
    assert "experiment shown as platforms@xavier2014-terasort (platforms here)" in study2.notes
    # Two renamed: the note's noun agrees ("experiment(s)" left it to the reader).
    two = [replace(c, samples=pd.concat([c.samples, c.samples.assign(experiment="sizes")])) for c in two_campaigns]
    [note] = [n for n in distinct_experiments(two)[1].notes if "shown as" in n]
    assert note.startswith("experiments shown as platforms@xavier2014-terasort (platforms here), sizes@")
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


def test_the_abstract_names_the_findings_that_held(two_campaigns):
    from vbench.paper.macros import findings_sentence

    main, study = distinct_experiments(list(two_campaigns))
    rows = [D.evaluate(FINDINGS["X1"], merge_campaigns(main, [study]).samples)]
    assert findings_sentence(rows) == "Held here: X1 (LXC TeraSort overhead is about 2 \\%)."
    assert findings_sentence([D.evaluate(FINDINGS["X1"], main.samples)]).startswith("Did not hold: X1")


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
