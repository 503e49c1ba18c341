"""The reproduction delta: published.yaml validates, the verdict rule on synthetic cases."""

from __future__ import annotations

import copy
import re

import numpy as np
import pandas as pd
import pytest
import yaml

from vbench.errors import ParamsError
from vbench.params import PLATFORMS
from vbench.paper import delta as D
from vbench.paper.published import NEEDS


def test_published_yaml_validates():
    pub = D.load_published()
    assert len(pub.findings) >= 10
    assert {f.study for f in pub.findings} == {"vasconcelos", "xavier", "liu", "jeong", "vmware"}
    for f in pub.findings:
        assert f.source and f.claim and f.benchmark and f.metric
        for side in (f.a, f.b):
            assert side.local is None or side.local in PLATFORMS
        if f.kind == "magnitude":
            assert f.published_ratio > 0 and f.tolerance_pct > 0
        elif f.kind == "equivalence":
            assert 0 < f.margin_pct <= 20 and f.expect is None
        else:
            assert f.expect in ("less", "greater")
        # Every finding is classified and carries the command that tests it.
        assert f.test.needs and set(f.test.needs) <= set(NEEDS), f.id
        assert f.test.command.startswith(("vbench campaign run params/", "vbench isolation run --preset params/"))
        if not f.test.here:
            assert "--inventory params/inventories/" in f.test.command or f.test.machine, f.id
    for name, local in pub.platform_map.items():
        assert local is None or local in PLATFORMS, name


def _doc():
    return yaml.safe_load(D.default_published_path().read_text())


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d["findings"][0].pop("source"), "findings[0].source: is required"),
        (lambda d: d["findings"][0].update(sorce="Table 5"), "findings[0].sorce: is not a known field"),
        (lambda d: d["findings"][0].pop("test"), "findings[0].test: is required"),
        (lambda d: d["findings"][0]["test"].update(needs=["here", "patched-kernel"]), "findings[0].test.needs"),
        (lambda d: d["findings"][0]["test"].update(needs=["qemu"]), "findings[0].test.needs[0]"),
        (lambda d: d["findings"][18]["test"].pop("machine"), "findings[18].test.machine"),
        (lambda d: d["findings"][0]["test"].update(design="/etc/passwd"), "findings[0].test.design"),
        (lambda d: d["findings"][0].update(margin_pct=5), "findings[0].margin_pct: is not used"),
        (lambda d: d["findings"][11].pop("margin_pct"), "findings[11].margin_pct"),
        (lambda d: d["labels"].update(Hyper_V="hyperv"), "labels.Hyper_V"),
        (lambda d: d.pop("version"), "version: is required"),
        (lambda d: d["findings"][0].update(kind="vibes"), ".kind"),
        (lambda d: d["findings"][0].update(study="nobody"), ".study"),
        (
            lambda d: d["findings"][0].update(compare=[{"published": "Hyper-V"}, {"published": "native"}]),
            "not in platform_map",
        ),
        (lambda d: d["platform_map"].update(OpenVZ="docker"), "platform_map.OpenVZ"),
        (lambda d: d["findings"][0].update(expect=None), ".expect"),
        (lambda d: d["findings"][10].pop("tolerance_pct"), ".tolerance_pct"),
        (lambda d: d["findings"][0].update(metric="nonsense"), ".metric"),
        (lambda d: d["findings"][1].update(id=d["findings"][0]["id"]), "duplicate id"),
    ],
)
def test_published_yaml_errors_name_the_field(mutate, field):
    doc = copy.deepcopy(_doc())
    mutate(doc)
    with pytest.raises(ParamsError, match=re.escape(field)) as err:
        D.parse_published(doc, "params/published.yaml")
    assert str(err.value).startswith("params/published.yaml: ")


def test_verdict_rule_direction():
    assert D.verdict_direction(0.90, 0.97, "less") == D.REPRODUCED
    assert D.verdict_direction(1.03, 1.10, "less") == D.CONTRADICTED
    assert D.verdict_direction(0.95, 1.05, "less") == D.INCONCLUSIVE
    assert D.verdict_direction(1.03, 1.10, "greater") == D.REPRODUCED
    assert D.verdict_direction(None, None, "less") == D.INCONCLUSIVE


def test_verdict_rule_magnitude():
    # published ratio 1.02 (+2 %), tolerance 5 points: band [0.97, 1.07]
    assert D.verdict_magnitude(0.99, 1.05, 1.02, 5) == D.REPRODUCED
    assert D.verdict_magnitude(1.20, 1.40, 1.02, 5) == D.CONTRADICTED
    assert D.verdict_magnitude(0.80, 0.95, 1.02, 5) == D.CONTRADICTED
    assert D.verdict_magnitude(1.00, 1.15, 1.02, 5) == D.INCONCLUSIVE
    assert D.verdict_magnitude(None, 1.1, 1.02, 5) == D.INCONCLUSIVE


def _samples(a_values, b_values, a="lxc", b="qemu", benchmark="pi", metric="job_wall_time", **extra):
    rows = []
    for platform, values in ((a, a_values), (b, b_values)):
        for i, v in enumerate(values):
            rows.append(
                {
                    "experiment": "platforms",
                    "platform": platform,
                    "benchmark": benchmark,
                    "metric": metric,
                    "unit": "s",
                    "value": float(v),
                    "repetition": i + 1,
                    "size_label": "",
                    "size": "",
                    **extra,
                }
            )
    return pd.DataFrame(rows)


def _finding(kind="direction", **kw):
    base = dict(
        id="T1",
        study="s",
        source="Table 1",
        claim="A faster than B",
        benchmark="pi",
        metric="job_wall_time",
        kind=kind,
        a=D.Side("OpenVZ", "lxc"),
        b=D.Side("KVM", "qemu"),
        expect="less",
    )
    base.update(kw)
    return D.Finding(**base)


def test_evaluate_gives_each_verdict():
    rng = np.random.default_rng(1)
    fast, slow = 30 + rng.normal(0, 0.3, 5), 40 + rng.normal(0, 0.3, 5)
    assert D.evaluate(_finding(), _samples(fast, slow)).verdict == D.REPRODUCED
    assert D.evaluate(_finding(), _samples(slow, fast)).verdict == D.CONTRADICTED
    noisy = D.evaluate(_finding(), _samples(30 + rng.normal(0, 8, 3), 31 + rng.normal(0, 8, 3)))
    assert noisy.verdict == D.INCONCLUSIVE and noisy.low < 1 < noisy.high
    mag = _finding(kind="magnitude", expect=None, published_ratio=0.75, tolerance_pct=5)
    r = D.evaluate(mag, _samples(fast, slow))
    assert r.verdict == D.REPRODUCED and r.n_a == 5 and r.n_b == 5 and 0.74 < r.ratio < 0.76


def test_evaluate_not_measured_cases():
    s = _samples([30, 31, 32], [40, 41, 42])
    assert D.evaluate(_finding(b=D.Side("BRNAT", None)), s).verdict == D.NOT_MEASURED_VERDICT
    assert (
        D.evaluate(_finding(a=D.Side("OpenVZ", "lxc"), b=D.Side("LXC", "lxc")), s).reason == "both sides are lxc here"
    )
    r = D.evaluate(_finding(a=D.Side("x", "oci")), s)
    assert r.verdict == D.NOT_MEASURED_VERDICT and "samples for oci" in r.reason


def test_evaluate_where_selects_within_one_platform():
    s = pd.concat(
        [
            _samples([30, 31, 30.5], [], a="native", b="native", replication=1),
            _samples([40, 41, 40.5], [], a="native", b="native", replication=3),
        ],
        ignore_index=True,
    )
    f = _finding(a=D.Side("native", "native", {"replication": 1}), b=D.Side("native", "native", {"replication": 3}))
    r = D.evaluate(f, s)
    assert r.verdict == D.REPRODUCED and r.n_a == 3 and r.n_b == 3


def test_delta_table_tex_renders_every_finding():
    pub = D.load_published()
    rows = D.reproduction_delta(pub, pd.DataFrame())
    tex = D.delta_table_tex(rows, pub)
    assert tex.count(r"\emph{not measured}") == len(pub.findings)
    assert r"\label{tab:delta}" in tex and r"\begin{longtable}" in tex
    assert r"\citep{xavier2014}" in tex


def test_an_inconclusive_paired_row_says_how_many_blocks_would_settle_it():
    # Six blocks, A/B ~ 1.05 with ~4 % spread between blocks: the interval still holds 1.
    noise = [0.03, -0.05, 0.04, -0.02, 0.06, -0.06]
    a = [30.0 * 1.05 * (1 + e) for e in noise]
    s = _samples(a, [30.0] * 6)
    s["block"] = list(range(6)) * 2
    r = D.evaluate(_finding(expect="greater"), s)
    assert r.verdict == D.INCONCLUSIVE and r.method != D.FIELLER and r.n_blocks == 6
    assert r.blocks_to_settle is not None and r.blocks_to_settle > 6
    tex = D.delta_table_tex([r], D.Published({}, {"s": {"short": "S", "bibkey": "k"}}, [r.finding]))
    assert f"about {r.blocks_to_settle} blocks in all ({r.blocks_to_settle - 6} more than its 6)" in tex
    # A ratio sitting on the edge of an equivalence band: no number of blocks clears it.
    edge = _samples([30.0 * 1.10 * (1 + e) for e in noise], [30.0] * 6)
    edge["block"] = list(range(6)) * 2
    e = D.evaluate(_finding(kind="equivalence", expect=None, margin_pct=10), edge)
    assert e.verdict == D.INCONCLUSIVE and e.blocks_to_settle is None
    assert "more blocks would not settle it" in D.settle_text(e)


def test_blocks_that_all_give_one_ratio_are_judged_on_fiellers_interval_and_say_why():
    # Whole-percent readings (V7: bonnie++'s CPU %): every block's ratio is 47/44.5.
    s = _samples([46, 48, 47, 47, 48, 46], [44, 45, 45, 44, 44, 45])
    s["block"] = [0, 0, 1, 1, 2, 2] * 2
    r = D.evaluate(_finding(expect="greater"), s)
    assert r.method == D.FIELLER and r.n_pairs == 0 and "same ratio" in r.reason
    assert r.low < 47 / 44.5 < r.high and r.verdict == D.REPRODUCED
