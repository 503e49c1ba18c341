"""The planted-effect test (selfbench/planted.py, issue #51 item 2): its analysis, a pure function of
the samples tables, on synthetic campaigns with a known planted ratio: a protocol that recovers
the truth gets coverage near 95 % and a bias interval holding 0, one with a bias of its own is
flagged "not for verdicts"; the rule's arithmetic by hand; the designs through the loader; the
refusal on a loaded machine; the plan; the report rebuilt from a directory."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.unit import selfbench_scripts
from tests.unit.builders import planted_campaign_dir

REPO = Path(__file__).resolve().parents[2]
#: The planted levels' true ratios to 1.0 (what the synthetic campaigns plant).
TRUE = {"1.0": 1.0, "0.93": 1.02, "0.85": 1.05, "0.75": 1.10}
RESAMPLES = 99  # the bootstrap rows are never the preferred ones here; keep them cheap


@pytest.fixture(scope="module")
def planted():
    return selfbench_scripts.load("planted")


def synthetic_campaign(
    rng: np.random.Generator,
    blocks: int,
    rounds: int,
    *,
    bias: float = 0.0,
    sd_block: float = 0.05,
    sd_instance: float = 0.01,
    sd_run: float = 0.02,
) -> pd.DataFrame:
    """Tidy samples of one campaign of the planted levels (the comparison view: `platform` is the
    level): log time = log 30 + block + instance (block x level) + run + log(true ratio), and for
    the planted levels a protocol's own `bias` on top (a ratio, 0: none). The block term is shared
    by every level of a block, as the machine's state is, and cancels in the paired ratios."""
    rows = []
    for b in range(blocks):
        block = rng.normal(0, sd_block)
        for level, ratio in TRUE.items():
            instance = rng.normal(0, sd_instance)
            planted = math.log(ratio) + (math.log1p(bias) if level != "1.0" else 0.0)
            for r in range(rounds):
                value = 30.0 * math.exp(block + instance + planted + rng.normal(0, sd_run))
                rows.append(
                    {
                        "experiment": "planted",
                        "platform": level,
                        "benchmark": "terasort",
                        "metric": "terasort_job_time",
                        "unit": "s",
                        "size": "128MB",
                        "value": value,
                        "repetition": b * rounds + r,
                        "block": b,
                        "round": r,
                        "warmup": False,
                    }
                )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def report(planted):
    rng = np.random.default_rng(51)
    truth = synthetic_campaign(rng, 40, 5)  # at length: its interval narrow against the effects
    honest = tuple(synthetic_campaign(rng, 4, 3) for _ in range(40))
    biased = tuple(synthetic_campaign(rng, 4, 3, bias=0.05) for _ in range(40))
    return planted.analyse(
        [
            planted.ProtocolSamples("honest", truth, honest, planned=40),
            planted.ProtocolSamples("biased", truth, biased, planned=40),
        ],
        n_resamples=RESAMPLES,
    )


def _row(report, protocol: str, level: str):
    return next(r for r in report.rows if (r.protocol, r.level) == (protocol, level))


def test_the_truth_is_the_truth_campaigns_preferred_ratio(report):
    for level in ("0.93", "0.85", "0.75"):
        t = _row(report, "honest", level).truth
        assert t.method == "paired-t (blocks)"
        assert t.ci_low < TRUE[level] < t.ci_high and t.half_width_pct < 1.5
    assert {r.level for r in report.rows} == {"0.93", "0.85", "0.75"}  # the baseline is no row
    assert [r.level for r in report.rows if r.protocol == "honest"] == ["0.93", "0.85", "0.75"]


def test_a_protocol_that_recovers_the_truth_covers_it_and_is_unbiased(report):
    for level in ("0.93", "0.85", "0.75"):
        r = _row(report, "honest", level)
        assert r.with_interval == 40 and r.planned == 40
        assert 0.85 <= r.coverage <= 1.0  # 95 % intervals; 40 repetitions
        assert r.bias.low < 0 < r.bias.high and abs(r.bias.bias) < 0.01
        assert r.for_verdicts is True and r.verdict == "for verdicts"
        assert r.bias.estimate == pytest.approx(TRUE[level], rel=0.01)
    v = next(v for v in report.protocols if v.protocol == "honest")
    assert v.for_verdicts is True and "for verdicts" in v.line()


def test_a_protocol_with_a_bias_of_its_own_is_flagged(report):
    for level in ("0.93", "0.85", "0.75"):
        r = _row(report, "biased", level)
        assert r.bias.bias == pytest.approx(0.05, abs=0.01) and r.bias.low > 0
        assert r.coverage < 0.9
        assert r.for_verdicts is False and r.verdict.startswith("not for verdicts: coverage")
        assert "excludes 0" in r.verdict
    v = next(v for v in report.protocols if v.protocol == "biased")
    assert v.for_verdicts is False and v.line().startswith("biased: NOT FOR VERDICTS (level 0.93: coverage")


def test_the_mean_half_width_and_coverage_are_over_the_repetitions_intervals(report):
    r = _row(report, "honest", "0.85")
    widths = [e.half_width_pct for e in r.estimates]
    assert r.mean_half_width_pct == pytest.approx(np.mean(widths))
    assert r.covered == sum(e.ci_low <= r.truth.ratio <= e.ci_high for e in r.estimates)
    lo, hi = r.coverage_ci
    assert lo < r.coverage <= hi


def test_bias_by_hand(planted):
    z = 1.959963984540054  # normal, 97.5 %: the truth's log half-width is 1.96 standard errors of 0.01
    truth = planted.Interval("0.9", 1.10, 1.10 / math.exp(z * 0.01), 1.10 * math.exp(z * 0.01), "paired-t (blocks)", 40)
    assert truth.log_se == pytest.approx(0.01)
    ratios = [1.10 * math.exp(d) for d in (-0.02, 0.0, 0.02, 0.04)]
    b = planted.bias_of(ratios, truth)
    logs = np.array([-0.02, 0.0, 0.02, 0.04])
    se = math.sqrt(logs.var(ddof=1) / 4 + 0.01**2)
    q = 3.182446305284263  # t, 3 degrees of freedom, 97.5 %
    assert b.bias == pytest.approx(math.exp(0.01) - 1)
    assert b.estimate == pytest.approx(1.10 * math.exp(0.01))
    assert (b.low, b.high) == pytest.approx((math.exp(0.01 - q * se) - 1, math.exp(0.01 + q * se) - 1))
    assert not b.excludes_zero
    # One repetition: an estimate, no interval, no verdict.
    one = planted.bias_of([1.2], truth)
    assert one.low is None and planted.judge(1.0, one, 1) == (
        None,
        "no verdict: fewer than 2 repetitions with an interval",
    )


def test_the_rule_fixed_in_the_designs(planted):
    fine = planted.Bias(1.0, 0.01, -0.01, 0.03)
    off = planted.Bias(1.0, 0.04, 0.01, 0.07)
    assert planted.judge(0.9, fine, 10) == (True, "for verdicts")  # one miss in 10 meets the target
    ok, why = planted.judge(0.8, fine, 10)
    assert ok is False and why == "not for verdicts: coverage 80 % < 90 %"
    ok, why = planted.judge(1.0, off, 10)
    assert ok is False and why == "not for verdicts: bias interval [+1.0, +7.0] % excludes 0"
    assert planted.judge(1.0, planted.Bias(1.0, 0.0, None, None), 10)[0] is None  # a truth without an interval
    lo, hi = planted.coverage_interval(9, 10)
    assert lo == pytest.approx(0.555, abs=0.001) and hi == pytest.approx(0.9975, abs=0.001)


def test_a_repetition_without_an_interval_is_counted_as_missing_not_as_a_miss(planted):
    truth = planted.Interval("0.9", 1.1, 1.09, 1.11, "paired-t (blocks)", 40)
    hit = planted.Interval("0.9", 1.1, 1.0, 1.2, "paired-t (blocks)", 4)
    miss = planted.Interval("0.9", 1.3, 1.25, 1.35, "paired-t (blocks)", 4)
    row = planted.planted_row("p", truth, [hit, None, miss, hit], planned=10)
    assert (row.covered, row.with_interval, row.planned) == (2, 3, 10)
    assert row.coverage == pytest.approx(2 / 3) and row.for_verdicts is False


def test_markdown_and_json_say_the_same(report, planted):
    quiet = planted.LoadRecord(1.0, 0.3, (0.5, 0.7))
    text = planted.markdown(report, quiet)
    first, *rest = text.splitlines()
    assert first == "# vbench planted-effect test (the known-answer test)"
    r = _row(report, "biased", "0.75")
    line = next(x for x in rest if x.startswith("| biased | 0.75 |"))
    assert f"| {r.covered}/40 = " in line and "| 40 of 40 | not for verdicts" in line
    assert f"{100 * r.bias.bias:+.1f} %" in line
    assert any(x.startswith("- biased: NOT FOR VERDICTS") for x in rest)
    doc = json.loads(json.dumps(planted.report_json(report, quiet), allow_nan=False))
    assert doc["first_line"] == first and doc["loaded"] is False and doc["baseline"] == "1.0"
    j = next(x for x in doc["rows"] if (x["protocol"], x["level"]) == ("biased", "0.75"))
    assert j["covered"] == r.covered and j["for_verdicts"] is False
    assert j["truth_effect_pct"] == pytest.approx(100 * (r.truth.ratio - 1))
    loaded = planted.LoadRecord(1.0, 1.4, (), allowed_loaded=True)
    assert planted.markdown(report, loaded).startswith("# LOADED machine (load average 1.40")


@pytest.fixture(scope="module")
def candidates(planted):
    """Two protocols of the lean shape (4 blocks x 3 rounds): one whose cluster instances add
    nothing to the ratio, one whose instances do (s.d. 0.04 against the rounds' 0.02)."""
    rng = np.random.default_rng(52)
    found = []
    for name, sd_instance in (("no-instance", 0.0), ("instance", 0.04)):
        truth = synthetic_campaign(rng, 40, 5, sd_instance=sd_instance)
        reps = tuple(synthetic_campaign(rng, 4, 3, sd_instance=sd_instance) for _ in range(40))
        found.append(planted.ProtocolSamples(name, truth, reps, planned=40))
    return planted.analyse(found, n_resamples=RESAMPLES)


def test_every_other_ratio_method_is_a_candidate_judged_against_the_same_truth(candidates):
    methods = {r.method for r in candidates.candidate_rows}
    assert methods == {"paired-t (rounds)", "hierarchical bootstrap", "mixed model (REML)", "fieller", "bca_bootstrap"}
    assert all(r.preferred and r.method == "paired-t (blocks)" for r in candidates.rows)
    assert not any(r.preferred for r in candidates.candidate_rows)
    truth = {(r.protocol, r.level): r.truth for r in candidates.rows}
    assert all(r.truth == truth[(r.protocol, r.level)] for r in candidates.candidate_rows)
    assert all(r.with_interval == 40 for r in candidates.candidate_rows)
    assert len(candidates.candidates) == 2 * len(methods)
    # The protocols' verdicts come from the preferred rows alone, which hold in both.
    assert [v.method for v in candidates.protocols] == ["", ""]
    assert all(v.for_verdicts for v in candidates.protocols)


def test_the_rounds_candidate_passes_where_instances_add_nothing_and_is_flagged_where_they_do(candidates):
    rows = {(r.protocol, r.level): r for r in candidates.candidate_rows if r.method == "paired-t (rounds)"}
    preferred = {(r.protocol, r.level): r for r in candidates.rows}
    for level in ("0.93", "0.85", "0.75"):
        clean, shared = rows[("no-instance", level)], rows[("instance", level)]
        assert clean.coverage >= 0.85 and clean.bias.low < 0 < clean.bias.high
        # Its gain: 11 degrees of freedom instead of 3.
        assert clean.mean_half_width_pct < 0.8 * preferred[("no-instance", level)].mean_half_width_pct
        assert shared.coverage < 0.9 and shared.for_verdicts is False
        assert preferred[("instance", level)].coverage >= 0.85
    verdict = {(v.protocol, v.method): v for v in candidates.candidates}
    assert (
        verdict[("instance", "paired-t (rounds)")]
        .line()
        .startswith("instance, candidate paired-t (rounds): NOT FOR VERDICTS (level 0.93: coverage")
    )


def test_the_candidates_are_in_the_markdown_and_the_json(candidates, planted):
    quiet = planted.LoadRecord(1.0, 0.3, (0.5,))
    text = planted.markdown(candidates, quiet)
    r = next(r for r in candidates.candidate_rows if (r.protocol, r.method, r.level) == ("instance", "fieller", "0.75"))
    line = next(x for x in text.splitlines() if x.startswith("| instance, fieller | 0.75 |"))
    assert f"| {r.covered}/40 = " in line and line.endswith(f"| {r.verdict} |")
    assert "- instance, candidate paired-t (rounds): NOT FOR VERDICTS" in text
    doc = json.loads(json.dumps(planted.report_json(candidates, quiet), allow_nan=False))
    assert len(doc["candidate_rows"]) == len(candidates.candidate_rows)
    assert {c["method"] for c in doc["candidates"]} == {r.method for r in candidates.candidate_rows}


def test_no_truth_no_row_and_no_verdict(planted):
    rng = np.random.default_rng(3)
    rep = synthetic_campaign(rng, 4, 3)
    empty = planted.analyse([planted.ProtocolSamples("p", rep.iloc[0:0], (rep,))], n_resamples=RESAMPLES)
    assert empty.rows == () and empty.protocols[0].for_verdicts is None
    assert "no planted level with a truth" in planted.markdown(empty, planted.LoadRecord(1.0, None))


def test_the_designs_load_and_say_what_the_test_runs(planted):
    from vbench.campaign.study import load_study

    studies = {n: load_study(REPO / "params", n) for p in planted.PROTOCOLS for n in (p.truth, p.design)}
    levels = {tuple(s.experiment.factors["testbed.slowdown.cpu_fraction"]) for s in studies.values()}
    assert len(levels) == 1  # every design plants the same levels, the truth's
    for s in studies.values():
        e = s.experiment
        assert e.platforms == ("native",) and e.compare == ("slowdown.cpu_fraction",) and e.baseline == "1.0"
        assert [(b.benchmark, b.config["size_mb"]) for b in e.suite] == [("terasort", 128)]
        assert e.factors["testbed.slowdown.cpu_fraction"][0] == 1.0
    default, lean = studies["planted-default"].experiment, studies["planted-lean"].experiment
    assert (default.rounds, default.warmup_blocks, default.repetitions) == (1, 1, 5)
    assert (lean.rounds, lean.interleave, lean.repetitions) == (3, "concurrent", 4)
    assert lean.suite[0].config == {"size_mb": 128, "generate": "once_per_cluster", "gate": "output_size"}
    # Each protocol's truth runs its job: speculation as the protocol has it, the same benchmark config.
    for p in planted.PROTOCOLS:
        truth, design = studies[p.truth], studies[p.design]
        assert truth.experiment.hadoop == design.experiment.hadoop
        assert truth.experiment.suite == design.experiment.suite
        assert truth.experiment.rounds > 1 and truth.experiment.repetitions >= 8
    assert studies["planted-lean"].experiment.hadoop == {"speculative": False}
    assert studies["planted-default"].experiment.hadoop == {} and studies["planted-default"].hadoop.speculative
    # The decision rule is in the protocol designs' own words, fixed before any run.
    for name in ("planted-default", "planted-lean"):
        text = (REPO / "params" / "experiments" / f"{name}.yaml").read_text()
        assert "Decision rule, fixed before any run" in text and "R = 10" in text and "not for verdicts" in text


def test_the_campaigns_run_truths_first_then_the_protocols_in_turn(planted):
    runs = planted.campaigns(repetitions=2)
    assert [c.directory for c in runs] == [
        "planted-truth-default",
        "planted-truth-lean",
        "planted-default/rep01",
        "planted-lean/rep01",
        "planted-default/rep02",
        "planted-lean/rep02",
    ]
    assert [c.seed_offset for c in runs] == [0, 0, 0, 0, 1, 1]
    from vbench.campaign.design import load_experiment

    exp = load_experiment(REPO / "params" / "experiments" / "planted-default.yaml")
    assert planted.with_seed(exp, 0) is exp
    moved = planted.with_seed(exp, 3)
    assert moved.seed == exp.seed + 3 and moved.factors == exp.factors


def test_the_plan_costs_every_campaign(planted):
    studies = planted.load_studies(REPO / "params")
    text = planted.plan_lines(studies)
    for p in planted.PROTOCOLS:
        assert f"design {p.design}:" in text and f"design {p.truth}:" in text
    assert text.count("runs 10 time(s)") == 2 and text.count("runs 1 time(s)") == 2
    assert "estimated total: 14h01m (22 campaigns)" in text  # docs/planted-effects.md quotes it


def test_one_protocol_runs_alone_its_truth_then_its_repetitions(planted):
    # --protocol default: the default protocol's test in sessions of its own (the whole test is 14 h).
    assert planted.chosen(None) == planted.PROTOCOLS and planted.chosen([]) == planted.PROTOCOLS
    default = planted.chosen(["default"])
    assert [p.name for p in default] == ["default"]
    runs = planted.campaigns(default, repetitions=2)
    assert [c.directory for c in runs] == ["planted-truth-default", "planted-default/rep01", "planted-default/rep02"]
    text = planted.plan_lines(planted.load_studies(REPO / "params", default), default)
    assert "design planted-lean:" not in text and "design planted-truth-lean:" not in text
    assert "estimated total: 6h49m (11 campaigns)" in text  # docs/planted-effects.md quotes it
    # The default protocol's designs run the main job's job: output-size gate, testbeds in cpu cgroups.
    from vbench.campaign.study import load_study

    main_job = load_study(REPO / "params", "default").experiment
    for name in ("planted-default", "planted-truth-default"):
        e = load_study(REPO / "params", name).experiment
        assert e.suite == main_job.suite and e.testbed == main_job.testbed == {"cpu_group": True}


#: This machine (2 CPUs, 24 GiB), where four clusters up together were refused.
MACHINE = {"mem_total_mb": 24152, "cpus": 2}


def test_every_design_fits_this_machine_on_the_cluster_its_protocol_measures(planted):
    """The runner's own check passes for every design on this machine, and a truth measures the
    cluster of the protocol it judges (the same hosts, workers and Hadoop params, the slowdown
    aside) with as many clusters a block as the protocol and as the design it stands for."""
    from vbench.campaign.hosts_source import TestbedSource
    from vbench.campaign.runner import configuration_params
    from vbench.campaign.study import load_study
    from vbench.machine_fit import MachineFacts

    machine = MachineFacts(**MACHINE)
    studies = planted.load_studies(REPO / "params")
    for name, study in studies.items():
        assert selfbench_scripts.load("precision").block_refusal(study, machine) is None, name

    def clusters(study) -> list:
        params = configuration_params(
            study.experiment, study.testbed, study.hadoop, TestbedSource(), frozenset({"hadoop"}), machine
        )
        return [
            (hp.model_dump(), [(h.role, h.platform, h.limits) for h in tb.resolved_hosts()])
            for tb, hp in params.values()
        ]

    for p in planted.PROTOCOLS:
        truth, design = studies[p.truth], studies[p.design]
        assert all(c == clusters(design)[0] for c in clusters(truth) + clusters(design))
        assert truth.experiment.workers == design.experiment.workers == 2
        shape = load_study(REPO / "params", p.name).experiment  # the default and lean designs
        assert len(truth.experiment.configurations()) == len(design.experiment.configurations())
        assert len(design.experiment.configurations()) == len(shape.configurations()) == 3


def test_four_clusters_up_together_are_what_this_machine_refuses(planted):
    """Why the test plants two levels, not three: with a third, the concurrent designs ask for four
    clusters, 4 x 6208 MiB, and are refused in one line naming the design and the field."""
    from dataclasses import replace

    from vbench.machine_fit import MachineFacts

    study = planted.load_studies(REPO / "params")["planted-lean"]
    levels = {"testbed.slowdown.cpu_fraction": [1.0, 0.93, 0.85, 0.75]}
    four = replace(study, experiment=study.experiment.model_copy(update={"factors": levels}))
    line = selfbench_scripts.load("precision").block_refusal(four, MachineFacts(**MACHINE))
    assert line.startswith(
        "refused: design planted-lean (params/experiments/planted-lean.yaml): experiment.interleave: "
    )
    assert "need 24832 MiB together" in line and "this machine has 24152 MiB" in line


def write_campaign(raw: Path, df: pd.DataFrame) -> None:
    """Synthetic samples as a campaign directory: a ledger and the design's comparison."""
    planted_campaign_dir(
        raw,
        "terasort_job_time",
        [
            (
                float(r.platform),
                float(r.value),
                {
                    "repetition": int(r.repetition),
                    "block": int(r.block),
                    "round": int(r.round),
                    "size_mb": 128,
                    "run_id": f"{r.block}-{r.round}-{r.platform}",
                },
            )
            for r in df.itertuples()
        ],
    )


def test_the_report_is_rebuilt_from_a_directory(planted, tmp_path, capsys):
    rng = np.random.default_rng(7)
    out = tmp_path / "planted"
    truth = synthetic_campaign(rng, 8, 5)
    write_campaign(out / "planted-truth-default", truth)
    for r in (1, 2, 3):
        write_campaign(out / "planted-default" / f"rep{r:02d}", synthetic_campaign(rng, 4, 1))
    assert planted.main(["--campaign", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# vbench planted-effect test") and "load average (1 min): not recorded" in text
    doc = json.loads((out / planted.REPORT_FILE).read_text())
    assert {r["protocol"] for r in doc["rows"]} == {"default"}  # lean has no truth yet: left out
    assert {r["level"] for r in doc["rows"]} == {"0.93", "0.85", "0.75"}
    assert all(r["with_interval"] == 3 and r["planned"] == 10 for r in doc["rows"])
