"""The notebook's comparison is the statistics stage's: the same ratio, interval and method as
`vbench.pipeline.statistics` writes for the same committed campaign."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pandas as pd
import pytest
import yaml

from vbench import pipeline
from vbench.explore import compare, data

from tests.unit.explore_campaigns import committed, preferred_ratio

ROOT = Path(__file__).resolve().parents[2]
RAW = ROOT / "data" / "raw"


@pytest.fixture(scope="module")
def stage_table(tmp_path_factory):
    """What dvc.yaml's statistics stage writes for a campaign, with params/pipeline.yaml's settings,
    read back from the files it wrote."""
    settings = yaml.safe_load((ROOT / "params" / "pipeline.yaml").read_text())["pipeline"]
    tables = {}

    def table(name: str):
        if name not in tables:
            out = tmp_path_factory.mktemp(name)
            pipeline.statistics(
                RAW / name,
                out,
                baseline=settings["baseline"],
                equivalence_pct=settings["equivalence_pct"],
                n_resamples=settings["resamples"],
                seed=settings["seed"],
            )
            tables[name] = pd.read_parquet(out / "stats.parquet")
        return tables[name]

    return table


@lru_cache(maxsize=None)
def shown(name: str, metric: str) -> dict:
    """The notebook's ratios of `name`'s TeraSort `metric`, by level."""
    d = committed(name)
    return {r.level: r for r in compare.ratios(campaign_table(d), "terasort", metric)}


_tables: dict = {}


def campaign_table(d: data.CampaignData):
    if d.name not in _tables:
        _tables[d.name] = compare.campaign_statistics(d).table
    return _tables[d.name]


@pytest.mark.parametrize(
    ("name", "metric", "level"),
    [
        ("reference", "terasort_time", "lxc"),
        ("reference", "terasort.job_time", "lxc"),
        ("poll-interval", "terasort_time", "100"),  # a factor design: the stage takes the design's baseline
    ],
)
def test_the_ratio_interval_and_method_are_the_stage_s(stage_table, name, metric, level):
    r = shown(name, metric)[level]
    stage = preferred_ratio(stage_table(name), "terasort", metric, level)
    assert (r.ratio, r.low, r.high, r.method) == (
        pytest.approx(stage["estimate"], rel=1e-12),
        pytest.approx(stage["ci_low"], rel=1e-12),
        pytest.approx(stage["ci_high"], rel=1e-12),
        stage["method"],
    )
    assert (r.n, r.n_baseline, r.n_pairs, r.baseline) == (
        stage["n"],
        stage["n_baseline"],
        stage["n_pairs"],
        stage["baseline"],
    )
    assert r.text().startswith(f"{compare.fmt(stage['estimate'])} [{compare.fmt(stage['ci_low'])}, ")


def test_a_comparison_without_a_number_says_why():
    d = committed("isolation")  # LXC only, under five stresses: no native baseline
    rs = compare.ratios(compare.campaign_statistics(d).table, "terasort", "terasort_time")
    assert [r.cell for r in rs] == [f"16MB, stress={s}" for s in ("cpu", "forkbomb", "io", "memory", "none")]
    for r in rs:
        assert r.ratio is None and "no baseline 'native'" in r.note and r.text().startswith("no ratio: ")


def test_a_one_sided_level_gets_its_point_ratio_and_no_interval():
    d = committed("netmodes")
    nat = {
        (r.cell, r.level): r for r in compare.ratios(compare.campaign_statistics(d).table, "terasort", "terasort_time")
    }[("16MB, vms_per_host=1", "nat")]
    assert nat.n == 1 and nat.low is None and nat.method == "fieller" and "(no interval)" in nat.text()


def test_a_campaign_with_one_level_has_nothing_to_compare():
    st = compare.campaign_statistics(committed("monitoring"))  # one native run, no experiment stamp
    assert st.problem == "" and compare.ratios(st.table, "terasort", "terasort_time") == []


def test_a_campaign_the_statistics_refuse_is_reported_not_raised(tmp_path):
    (tmp_path / "samples.jsonl").write_text(
        '{"kind": "sample", "benchmark": "b", "metric": "m", "value": 1, '
        '"unit": "s", "timestamp": 1.0, "metadata": {"platform": "", "run_id": "r"}}\n'
    )
    st = compare.campaign_statistics(data.load(tmp_path))
    assert st.table is None and st.problem.startswith("the statistics refuse this campaign's samples (platform: ")


def test_the_values_behind_the_ratio_are_the_headline_samples():
    d = committed("reference")
    v = compare.level_values(d, "terasort", "terasort_time")
    assert sorted(v["level"].value_counts().items()) == [("lxc", 4), ("native", 4), ("native~aa", 4)]
    assert set(v["block"]) == {0, 1, 2, 3} and (v["unit"] == "s").all()
    assert compare.ratio_frame(compare.ratios(campaign_table(d), "terasort", "terasort_time"))["level"].tolist() == [
        "lxc",
        "native~aa",
    ]
