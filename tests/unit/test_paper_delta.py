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
from vbench.paper.published import NEEDS, margin_problems, paper_margin_pct, validate_published


def test_published_yaml_validates():
    pub = D.load_published()
    assert len(pub.findings) >= 10
    assert {f.study for f in pub.findings} == {"vasconcelos", "xavier", "liu", "jeong", "vmware"}
    for f in pub.findings:
        assert f.source and f.claim and f.benchmark and f.metric
        for side in (f.a, f.b):
            assert side.local is None or side.local in PLATFORMS
        if f.kind == "magnitude":
            lo, hi = f.band()
            # The band is the study's (a range, or its figure with a tolerance) and never reaches
            # past 1: a tolerance wider than the claimed effect would let no effect reproduce it.
            assert 0 < lo < hi and not (lo < 1 - 1e-9 and hi > 1 + 1e-9), f.id
            assert f.basis, f.id
        elif f.kind == "equivalence":
            assert 0 < f.margin_pct <= paper_margin_pct(D.default_published_path().parents[1]) and f.expect is None
            assert f.basis, f.id
        else:
            assert f.expect in ("less", "greater")
            # Direction only where the study gives no figure for the two sides.
            assert f.published_values is None, f.id
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
        (lambda d: d["findings"][1].update(expect=None), ".expect"),
        (lambda d: d["findings"][10].update(tolerance_pct=3), "findings[10].tolerance_pct: the band"),
        (lambda d: d["findings"][10].pop("basis"), "findings[10].basis"),
        (lambda d: d["findings"][11].pop("basis"), "findings[11].basis"),
        (lambda d: d["findings"][1].update(basis="Fig. 6"), "findings[1].basis"),
        (lambda d: d["findings"][10].update(published_range=[1.0, 1.1]), "findings[10].tolerance_pct: the study's"),
        (lambda d: d["findings"][21].update(published_range=[0.3, 1.2]), "findings[21].published_range: the band"),
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


def test_equivalence_margins_are_never_wider_than_the_papers():
    doc = copy.deepcopy(_doc())
    spec = validate_published(doc)
    margin_problems(spec, 5.0)  # the repository's: every margin is the paper's or narrower
    doc["findings"][11]["margin_pct"] = 10
    with pytest.raises(ParamsError, match=re.escape("findings[11].margin_pct")):
        margin_problems(validate_published(doc), 5.0, "published.yaml")
    doc["findings"][11]["margin_wider"] = "the study's own claim is within 10 %"
    margin_problems(validate_published(doc), 5.0)


def test_verdict_rule_magnitude():
    # published ratio 1.02 (+2 %), tolerance 5 % of it: band [0.969, 1.071]
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
    assert r.verdict == D.NOT_MEASURED_VERDICT and r.reason == "no samples of job time for OCI"


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


# --- Holm over the delta's verdicts (issue #54 item 2) -------------------------------------------


def _blocked(ratios, a="lxc", b="qemu"):
    """Paired samples: one run of each side per block, side A at `ratio` times side B."""
    rows = []
    for i, ratio in enumerate(ratios):
        for platform, value in ((a, 100.0 * ratio), (b, 100.0)):
            rows.append(
                {
                    "experiment": "platforms",
                    "platform": platform,
                    "benchmark": "pi",
                    "metric": "job_wall_time",
                    "unit": "s",
                    "value": value * (1 + 0.01 * (i % 3)),
                    "repetition": 1,
                    "block": f"b{i}",
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    "ratios, kind",
    [
        ([0.90, 0.92, 0.88, 0.91, 0.89], "direction"),
        ([0.97, 1.04, 0.93, 1.06, 0.99], "direction"),
        ([0.99, 1.01, 1.00, 0.98, 1.02], "equivalence"),
        ([0.97, 1.04, 0.93, 1.06, 0.99], "equivalence"),
        ([1.10, 1.20, 1.15, 1.12, 1.18], "equivalence"),
    ],
)
def test_a_verdicts_p_value_is_below_alpha_exactly_when_the_interval_decides(ratios, kind):
    extra = dict(expect=None, margin_pct=5) if kind == "equivalence" else {}
    r = D.evaluate(_finding(kind=kind, **extra), _blocked(ratios))
    assert r.method and r.p_value is not None and 0 < r.p_value <= 1
    assert (r.p_value <= 0.05) == (r.verdict != D.INCONCLUSIVE), (r.verdict, r.p_value, r.low, r.high)


def _row(p, verdict=D.REPRODUCED):
    return D.DeltaRow(_finding(), verdict, 1.0, 0.9, 1.1, p_value=p)


def test_holm_over_the_delta_keeps_a_verdict_only_where_its_adjusted_p_is_below_alpha():
    from vbench.stats.hypothesis import holm

    rows = [
        _row(0.01),
        _row(0.02, D.CONTRADICTED),
        _row(0.04),
        _row(0.5, D.INCONCLUSIVE),
        D.DeltaRow(_finding(), "not measured"),
    ]
    out = D.apply_holm(rows)
    adjusted = holm([0.01, 0.02, 0.04, 0.5])  # the statistics table's function, not a second one
    assert [r.p_holm for r in out[:4]] == pytest.approx(list(adjusted)) and out[4].p_holm is None
    for r, adj in zip(out[:4], adjusted):
        decided = r.unadjusted or r.verdict
        assert r.verdict == (decided if adj <= 0.05 or decided == D.INCONCLUSIVE else D.INCONCLUSIVE)
    assert out[0].verdict == D.REPRODUCED  # 0.01 x 4 = 0.04
    assert out[1].verdict == D.INCONCLUSIVE and out[1].unadjusted == D.CONTRADICTED  # 0.02 x 3 = 0.06
    assert out[2].verdict == D.INCONCLUSIVE and out[2].unadjusted == D.REPRODUCED
    assert D.apply_holm(out) == out  # idempotent: adjusted again from the p-values
    assert (D.counts(out)[D.REPRODUCED], D.counts(out, alone=True)[D.REPRODUCED]) == (1, 2)
    assert (D.counts(out)[D.CONTRADICTED], D.counts(out, alone=True)[D.CONTRADICTED]) == (0, 1)


def test_the_rule_the_paper_prints_names_the_margins_and_the_holm_family_the_code_uses():
    pub = D.load_published()
    rows = [_row(0.01), _row(0.5, D.INCONCLUSIVE), D.DeltaRow(_finding(), "not measured")]
    tex = D.rule_tex(pub, rows, 0.95, 5.0)
    assert r"$\pm$5\,\%" in tex and "the paper's margin" in tex
    assert "over the 2 verdicts with an interval" in tex and "Holm" in tex
    assert r"within 1 plus or minus the margin" in tex
