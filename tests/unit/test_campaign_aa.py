"""The A/A self-check (issue #18 item 5): the design runs the baseline twice as two configurations,
the runner measures the second copy on the baseline's hosts under its own label, the statistics
mark its row, and the paper prints it beside every comparison."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vbench.campaign.design import Experiment, design_hash, expand, load_experiment
from vbench.campaign.runner import run_campaign
from vbench.ledger import read_ledger
from vbench.params import HadoopParams, TestbedParams
from vbench.stats import compute_stats

from tests.unit.builders import sample_row, two_platform_design

PARAMS = Path(__file__).resolve().parents[2] / "params"


def design(**kw) -> Experiment:
    return two_platform_design(**{"repetitions": 2, "suite": [{"benchmark": "pi"}], "aa": True, **kw})


def test_the_baseline_runs_twice_as_two_configurations_with_their_own_label():
    e = design()
    keys = [c.key for c in e.configurations()]
    assert keys == ["native", "lxc", "native~aa"]
    aa = e.configurations()[-1]
    assert aa.platform == "native" and aa.stamp()["platform"] == "native~aa"  # native hosts, its own samples
    cells = expand(e)
    assert sum(c.config.key == "native~aa" for c in cells) == 2  # one per block, like every configuration
    assert design_hash(e) != design_hash(design(aa=False))


def test_aa_off_leaves_a_design_and_its_hash_as_they_were():
    plain = Experiment.model_validate(
        {"name": "t", "platforms": ["native", "lxc"], "repetitions": 2, "seed": 7, "suite": [{"benchmark": "pi"}]}
    )
    assert design_hash(plain) == design_hash(design(aa=False)) and [c.key for c in plain.configurations()] == [
        "native",
        "lxc",
    ]


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"baseline": "lxc", "platforms": ["native"]}, "aa: the baseline platform 'lxc' is not among the platforms"),
        ({"factors": {"hadoop.replication": [1, 2]}, "compare": ["replication"]}, "aa: the A/A self-check repeats"),
    ],
)
def test_a_design_the_check_cannot_apply_to_is_refused_naming_aa(kw, words):
    with pytest.raises(Exception) as exc:
        design(**kw)
    assert words in str(exc.value)


def test_the_default_campaign_and_the_committed_reference_include_the_check():
    exp = load_experiment(PARAMS / "experiments" / "default.yaml")
    assert exp.aa and "native~aa" in [c.key for c in exp.configurations()]
    # The committed reference campaign was measured with the default design, A/A copy included,
    # and keeps the design it was measured with (its hash still matches its own record).
    import json

    ref = json.loads((PARAMS.parent / "data" / "raw" / "reference" / "campaign.json").read_text())
    assert ref["experiment"]["aa"] is True and ref["experiment"]["name"] == "default"
    assert design_hash(Experiment.model_validate(ref["experiment"])) == ref["design_hash"]


def test_the_runner_measures_the_copy_on_the_baselines_hosts_under_its_label(tmp_path, fake_machine):
    opened = []
    open_hosts = fake_machine.source.open

    def recording_open(platform, testbed):
        opened.append((platform, testbed.name, testbed.platform))
        return open_hosts(platform, testbed)

    fake_machine.source.open = recording_open
    e = design(rounds=2)
    run_campaign(
        e, TestbedParams(), HadoopParams(), tmp_path / "c", log=lambda _l: None, hosts_source=fake_machine.source
    )
    recs = [r for r in read_ledger(tmp_path / "c" / "samples.jsonl").records if r.get("kind") == "sample"]
    assert {r["metadata"]["platform"] for r in recs} == {"native", "lxc", "native~aa"}
    # Three clusters up together in each block; the copy on native hosts, a testbed of its own.
    assert fake_machine.most_testbeds_up == 3
    block0 = opened[:3]
    assert sorted(p for p, _, _ in block0) == ["lxc", "native", "native"]
    assert len({name for _, name, _ in block0}) == 3 and all(p == tbp for p, _, tbp in block0)


def _samples(ratio_aa: float, n_blocks: int = 6, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for b in range(n_blocks):
        shared = rng.normal(0, 0.05)
        for p, r in (("native", 1.0), ("lxc", 1.08), ("native~aa", ratio_aa)):
            rows.append(sample_row(p, 100 * r * math.exp(shared + rng.normal(0, 0.01)), b, block=b))
    return pd.DataFrame(rows)


def test_the_statistics_mark_the_aa_row_with_its_verdict():
    t = compute_stats(_samples(1.0), n_resamples=500)
    aa = t[t.statistic == "aa_check"]
    assert len(aa) == 1 and aa.iloc[0].platform == "native~aa" and aa.iloc[0].method == "paired-t (blocks)"
    assert aa.iloc[0].ci_low <= 1 <= aa.iloc[0].ci_high and aa.iloc[0].verdict.startswith("A/A passes")
    # The A/A copy is compared like any platform: it has its ratio rows too.
    assert ((t.platform == "native~aa") & (t.statistic == "ratio_to_baseline")).any()
    bad = compute_stats(_samples(1.10), n_resamples=500)
    assert bad[bad.statistic == "aa_check"].iloc[0].verdict.startswith("A/A FAILS")
    assert not (
        compute_stats(_samples(1.0)[lambda d: d.platform != "native~aa"], n_resamples=500).statistic == "aa_check"
    ).any()


def test_the_paper_prints_the_aa_ratio_beside_every_comparison():
    from vbench.paper.results import lookup_of
    from vbench.paper.tables.comparisons import table_overheads

    samples = _samples(1.0)
    tex = table_overheads(lookup_of(compute_stats(samples, n_resamples=500)), samples)
    assert "A/A [CI]" in tex
    body = [line for line in tex.splitlines() if line.startswith("TeraSort")]
    # One row, LXC's, with the A/A interval beside it; the copy has no row of its own.
    assert len(body) == 1 and "& LXC &" in body[0] and body[0].count("[") == 3 and body[0].endswith("] \\\\")
    assert "false-positive check" in tex
    failing = _samples(1.10)
    assert "\\dag" in table_overheads(lookup_of(compute_stats(failing, n_resamples=500)), failing)
    without = _samples(1.0)[lambda d: d.platform != "native~aa"]
    assert "A/A" not in table_overheads(lookup_of(compute_stats(without, n_resamples=500)), without)
