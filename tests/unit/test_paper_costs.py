"""The paper's cost-model section (vbench.paper.costs, issue #53 item 5) on synthetic campaigns with a
known answer, and its absence while params/paper.yaml's `cost_fit_campaign` is empty.

The campaigns are test_predict_cmd's: a fit shaped like params/experiments/costs-fit-nodelay.yaml
(native under the 2^3 factorial of planted slowdowns without the delay, against "1.0", 5 blocks) and
a calibration that timed the suite's jobs too, shaped like the sandbox study: native beside gVisor
(with test_predict_cmd's "sandboxed" costs: a 7.3x round trip, which a fit without the delay cannot
fit) and "slowvm". The jobs are TeraSort and NNBench create/write, so each table has 2 x 2 rows.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from tests.unit.builders import cli_runner
from tests.unit.test_predict_cmd import DRAWS, JOBS, NODELAY, PLATFORMS, calibration_campaign, fit_campaign
from vbench.errors import ParamsError
from vbench.paper import costs as C
from vbench.paper.fmt import sig_digits
from vbench.paper.inputs import PaperInputs, committed_inputs
from vbench.paper.review import strip_comments
from vbench.stats import cost_model as cm
from vbench.stats.campaign import load_campaign
from vbench.stats.cost_prediction import prediction_inputs, prediction_table
from vbench.stats.records import Interval
from vbench.wording import JOB_NAMES, RESOURCE_NAMES

ROOT = Path(__file__).resolve().parents[2]
#: The calibration's platforms besides native: gVisor with test_predict_cmd's sandbox costs.
COSTS = {"gvisor": PLATFORMS["sandboxed"], "slowvm": PLATFORMS["slowvm"]}
FIT, CALIBRATION = "costs-fit-nodelay", "sandbox"
KEY = "params/paper.yaml: paper.cost_fit_campaign"


def _needs_figures() -> None:
    pytest.importorskip("matplotlib")
    pytest.importorskip("seaborn")


@pytest.fixture(scope="module")
def raw(tmp_path_factory) -> Path:
    """DATA/raw with the fit and the calibration (gVisor written with the sandboxed platform's costs)."""
    raw = tmp_path_factory.mktemp("data") / "raw"
    fit_campaign(raw / FIT, factors=NODELAY, baseline="1.0")
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(PLATFORMS, "gvisor", COSTS["gvisor"])
        calibration_campaign(raw / CALIBRATION, platforms=("native", *COSTS), jobs=True, seed=3)
    return raw


@pytest.fixture(scope="module")
def study(raw) -> C.CostStudy:
    return C.cost_study(load_campaign(raw / FIT), load_campaign(raw / CALIBRATION), n_draws=DRAWS)


# --- the rows ------------------------------------------------------------------------------------


def test_the_table_has_one_row_per_job_and_platform_predicted(study):
    assert [(r.job, r.platform) for r in study.rows] == list(itertools.product(sorted(JOBS), ["gvisor", "slowvm"]))
    # Fitted: what costs-fit-nodelay's slowdowns move. Not: what the calibration measured besides.
    assert study.resources == ("cpu", "net_throughput", "disk_seq_write")
    assert study.unfitted == ("membw", "round_trip")
    designs = dict(study.designs)
    for r in study.rows:
        # Each platform predicted from shares fitted on the fit's 7 configurations alone: none in its fit.
        assert r.design == designs[r.job] and len(r.design) == 7 and not set(r.design) & set(COSTS)
        assert r.fit.design == r.design


def test_the_predictions_are_vbench_predicts_with_the_fits_design_seed(raw, study):
    """The rows' predictions and the attribution's are one computation's: `vbench predict sandbox
    --fit costs-fit-nodelay` (prediction_table, the fit's design seed 53001) gives the same numbers:
    the rows' one fit per job, reused for the attribution, is the command's."""
    assert study.seed == 53001
    inputs = prediction_inputs(load_campaign(raw / FIT), load_campaign(raw / CALIBRATION))
    table = prediction_table(inputs, n_draws=DRAWS, seed=53001)
    by = {(r.job, r.platform): r for r in table.rows}
    for r in study.rows:
        want = by[(r.job, r.platform)].predicted
        assert (r.predicted.estimate, r.predicted.low, r.predicted.high) == pytest.approx(
            (want.estimate, want.low, want.high)
        ), r
    fits = {fj.fit.job: fj.fit for fj in table.fits}
    for r in study.rows:
        assert r.fit == fits[r.job] and np.array_equal(r.fit.draws, fits[r.job].draws), r
    for a in study.attributions:
        assert a.predicted == by[(a.job, a.platform)].predicted
        assert a.measured == by[(a.job, a.platform)].measured
        assert a.attribution == by[(a.job, a.platform)].attribution
    assert study.rejected == tuple(fj.fit.job for fj in table.fits if fj.rejected)


def test_the_error_column_is_measured_over_predicted_less_one(study):
    table = C.table_costs(study)
    frame = C.cost_frame(study)
    assert len(frame) == len(study.rows)
    for r, (_, line) in zip(study.rows, frame.iterrows()):
        assert r.error.estimate == pytest.approx(r.measured.estimate / r.predicted.estimate - 1)
        # one error: cost_model's own (measured / predicted - 1), in the table and the CSV alike
        assert line["error"] == pytest.approx(line["measured"] / line["predicted"] - 1)
        assert C.pct_text(r.error.estimate, signed=True).removesuffix(r"\,\%") in table
    assert set(frame["fit_campaign"]) == {FIT} and set(frame["calibration_campaign"]) == {CALIBRATION}
    # gVisor's NNBench waits on round trips, which no planted slowdown moved: predicted far short.
    nnbench = next(r for r in study.rows if r.job == "nnbench_create_write" and r.platform == "gvisor")
    assert nnbench.error.estimate > 0.6


def test_the_summary_counts_the_rows(study):
    s = study.summary
    assert s.rows == 4
    assert s.covered == sum(r.measurement.low <= r.measured.estimate <= r.measurement.high for r in study.rows)
    assert s.agrees == sum(p.agrees for p in study.rows)
    errors = sorted(abs(p.measured.estimate / p.predicted.estimate - 1) for p in study.rows)
    assert s.median_abs_error == pytest.approx((errors[1] + errors[2]) / 2)
    assert s.coverage == pytest.approx(s.covered / 4)
    assert f"in {s.covered} of 4" in C.summary_text(study)


def _row(measured: float, predicted: float, covered: bool, agrees: bool) -> cm.PredictionRow:
    measured_iv = Interval(measured, measured * 0.9, measured * 1.1)
    error = measured / predicted - 1
    error_iv = Interval(error, error - 0.1, error + 0.1)
    return cm.PredictionRow(
        "terasort", "lxc", measured_iv, Interval(predicted, 0.5, 3.0), error_iv, agrees, covered, ("a",)
    )


def test_the_summary_of_hand_made_rows():
    rows = [_row(1.1, 1.0, True, True), _row(1.6, 2.0, False, False), _row(1.05, 1.0, True, False)]
    assert [r.error.estimate for r in rows] == pytest.approx([0.10, -0.20, 0.05])
    s = C.cost_summary(rows)
    assert (s.rows, s.covered, s.agrees) == (3, 2, 1)
    assert s.median_abs_error == pytest.approx(0.10) and s.coverage == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        C.cost_summary([])


def test_a_row_counts_coverage_from_the_prediction_interval_and_agreement_from_the_error():
    iv, predicted, error = Interval(1.0, 0.9, 1.1), Interval(1.3, 1.2, 1.4), Interval(-0.2, -0.3, 0.05)
    p = cm.PredictionRow("terasort", "lxc", iv, predicted, error, True, False, ("a",))
    s = C.cost_summary([p])
    assert (s.covered, s.agrees) == (0, 1) and s.median_abs_error == pytest.approx(0.2)


# --- the attribution -------------------------------------------------------------------------------


def test_gvisors_terasort_and_nnbench_are_attributed_with_their_unexplained_rest(study):
    assert [a.job for a in study.attributions] == list(C.ATTRIBUTED_JOBS)
    assert {a.platform for a in study.attributions} == {"gvisor"}
    for a in study.attributions:
        parts = a.parts()
        assert [p.resource for p in parts] == list(study.resources)
        # each part is its log overhead over log(measured); with the rest they are the whole
        for p, t in zip(parts, a.attribution.terms):
            assert p.share == pytest.approx(t.log_overhead / math.log(a.measured.estimate))
        assert sum(p.share for p in parts) + a.rest == pytest.approx(1.0)
    terasort, nnbench = study.attributions
    # TeraSort on gVisor: TCP throughput explains most of what is explained; the round trip, unfitted, is left.
    assert max(terasort.parts(), key=lambda p: abs(p.share)).resource == "net_throughput"
    assert terasort.rest > 0.2
    # NNBench create/write's overhead is its round trips': almost all of it unexplained.
    assert nnbench.rest > 0.8


def _attribution(measured: Interval, predicted: float = 1.4) -> C.AttributedJob:
    terms = (
        cm.ResourceTerm("cpu", 1.2, 0.5, 0.1, 0.25, 0.25 * math.log(predicted)),
        cm.ResourceTerm("net_throughput", 4.0, 0.1, 0.3, 0.75, 0.75 * math.log(predicted)),
    )
    m = math.log(measured.estimate)
    a = cm.Attribution("terasort", "gvisor", terms, predicted, math.log(predicted), m, m - math.log(predicted))
    return C.AttributedJob("terasort", "gvisor", a, measured, Interval(predicted, 1.2, 1.6))


def test_an_attribution_splits_the_measured_log_overhead():
    a = _attribution(Interval(2.0, 1.8, 2.2))
    assert [p.share for p in a.parts()] == pytest.approx(
        [0.25 * math.log(1.4) / math.log(2), 0.75 * math.log(1.4) / math.log(2)]
    )
    assert a.rest == pytest.approx(1 - math.log(1.4) / math.log(2))
    # A measured ratio whose interval holds 1 has no overhead to split: nothing is attributed.
    unresolved = _attribution(Interval(1.02, 0.95, 1.1))
    assert unresolved.parts() == () and unresolved.rest is None
    assert "no overhead resolved" in C._attribution_clause(unresolved)


# --- the LaTeX -------------------------------------------------------------------------------------


def test_the_latex_names_jobs_resources_and_platforms_as_a_reader_knows_them(study):
    text = C.table_costs(study) + C.section_tex(study) + C.figure_caption(study)
    assert "_" not in text and "@" not in text  # no identifier (nnbench_create_write, net_throughput)
    for job, design in study.designs:
        labels = [config for config in design if "/" in config]  # the fit's level labels ("0.5/1000/100MB")
        assert labels and not any(config in text for config in labels), job
    assert "TeraSort" in text and "NNBench create/write" in text and "TCP throughput" in text
    assert "gVisor" in text and "gvisor" not in text
    assert r"\label{tab:costs}" in text and r"\toprule" in text and r"\midrule" in text
    assert r"\texttt{costs-fit-nodelay}" in text and r"\texttt{sandbox}" in text  # in the table's note
    assert "network round trips" in text  # what the model leaves out, said


def test_the_section_says_what_was_fitted_how_well_and_where_gvisors_time_went(study):
    tex = C.section_tex(study)
    assert r"\section{" in tex and r"\label{sec:costs}" in tex
    assert r"\input{generated/tables/costs.tex}" in tex and r"\input{generated/figures/costs.tex}" in tex
    s = study.summary
    assert "7 planted configurations in 5 blocks" in tex
    assert C.pct_text(s.median_abs_error) in tex and f"in {s.covered} of {s.rows}" in tex
    assert f"agreed in {s.agrees} of {s.rows}" in tex
    assert "On gVisor, TeraSort's measured ratio" in tex and "is unexplained" in tex


def test_every_resource_and_job_of_the_model_has_a_readers_name():
    assert {r.name for r in cm.RESOURCES} <= set(RESOURCE_NAMES)
    assert {j.name for j in cm.JOBS} <= set(JOB_NAMES)
    assert not any("_" in name for name in (*RESOURCE_NAMES.values(), *JOB_NAMES.values()))


@pytest.fixture(scope="module")
def weakdisk(raw) -> C.CostStudy:
    """The study with a fit whose disk throttle did not move the disk's cost where the CPU quota is
    planted beside it (test_predict_cmd's "101", the configuration "0.5/100MB"): rule 1 leaves the
    disk out, as costs-fit-nodelay's committed disk level was."""
    fit_campaign(raw / "weakdisk", factors=NODELAY, baseline="1.0", costs_in={"101": {"disk_seq_write": 1.2}})
    return C.cost_study(load_campaign(raw / "weakdisk"), load_campaign(raw / CALIBRATION), n_draws=DRAWS)


def test_a_resource_rule_one_left_out_is_said_apart_from_those_never_planted(study, weakdisk):
    assert weakdisk.resources == ("cpu", "net_throughput")
    assert [c.resource for c in weakdisk.left_out] == ["disk_seq_write"]
    # Not among the unfitted, whose reason ("no planted slowdown moved them") would be false for it.
    assert weakdisk.unfitted == ("membw", "round_trip")
    [failed] = weakdisk.left_out[0].failed
    tex = C.section_tex(weakdisk)
    assert "sequential disk writes" in tex and "1 of the 4 configurations planting it" in tex
    assert rf"\num{{{sig_digits(failed.low, 2)}}}" in tex and "left out of the model" in tex
    assert "sequential disk writes, left out because the slowdown planted on it did not move the cost" in tex
    table = C.table_costs(weakdisk)
    assert "Planted but left out of the model" in table and "sequential disk writes; what a platform" in table
    assert "own): memory bandwidth and network round trips;" in table
    # With every planted level moving its cost, nothing is said of the rule; the section stays one paragraph.
    assert study.left_out == () and C.left_out_sentence(study) == ""
    assert "Planted but left out" not in C.table_costs(study) and "left out of the model" not in C.section_tex(study)
    for s in (study, weakdisk):
        prose = C.section_tex(s).split(r"\input{")[0].strip()
        assert "\n\n" not in prose


def test_without_a_fit_the_section_is_comments_alone():
    tex = C.section_tex(None)
    assert tex == C.OMITTED_TEX and strip_comments(tex).strip() == ""
    assert "cost_fit_campaign" in tex  # the comment says which key would build it


def test_the_figure_draws_predicted_against_measured_on_log_axes(study, tmp_path, monkeypatch):
    _needs_figures()
    from vbench.paper import style

    drawn = []

    def save(fig, out_dir, name):
        drawn.append((fig, name))
        return [out_dir / f"{name}.pdf"]

    monkeypatch.setattr(style, "save", save)
    assert C.fig_costs(study, tmp_path) == [tmp_path / "costs.pdf"]
    fig, name = drawn[0]
    [ax] = fig.axes
    assert name == "costs" and ax.get_xscale() == "log" and ax.get_yscale() == "log"
    x0, x1 = ax.get_xlim()
    assert any(list(line.get_xdata()) == [x0, x1] and list(line.get_ydata()) == [x0, x1] for line in ax.lines)
    assert len(ax.containers) == len(study.rows)
    for r, c in zip(study.rows, ax.containers):
        point = c.lines[0]
        xy = (point.get_xdata()[0], point.get_ydata()[0])
        assert xy == pytest.approx((r.measured.estimate, r.predicted.estimate))
        assert c.has_xerr and c.has_yerr
    # Apart in greyscale: a marker per platform, a fill per job.
    markers = {r.platform: c.lines[0].get_marker() for r, c in zip(study.rows, ax.containers)}
    fills = {r.job: c.lines[0].get_fillstyle() for r, c in zip(study.rows, ax.containers)}
    assert len(set(markers.values())) == 2 and len(set(fills.values())) == 2
    # The legend, every platform's and job's entry, lies within the figure: a row wider than it is cut.
    [legend] = fig.legends
    assert [t.get_text() for t in legend.get_texts()][:2] == ["gVisor", "slowvm"]
    fig.canvas.draw()
    box, page = legend.get_window_extent(), fig.bbox
    assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0, (box, page)


# --- params/paper.yaml's key ---------------------------------------------------------------------


def test_the_committed_key_is_set_exactly_when_the_stage_depends_on_its_samples():
    """Set, the paper stage must depend on the fit's samples (or DVC would not rebuild the section
    when they change); empty, it must not (data/raw/None/samples.jsonl does not exist)."""
    paper = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]
    assert "cost_fit_campaign" in paper
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["paper"]
    assert "-p cost_fit_campaign ${paper.cost_fit_campaign}" in stage["cmd"]
    deps = [d if isinstance(d, str) else next(iter(d)) for d in stage["deps"]]
    depends = "data/raw/${paper.cost_fit_campaign}/samples.jsonl" in deps
    assert bool(paper["cost_fit_campaign"]) == depends, (paper["cost_fit_campaign"], depends)
    assert [d for d in deps if "cost_fit_campaign" in d] == (
        ["data/raw/${paper.cost_fit_campaign}/samples.jsonl"] if depends else []
    )
    if paper["cost_fit_campaign"]:
        assert (ROOT / "data" / "raw" / str(paper["cost_fit_campaign"]) / "samples.jsonl").is_file()


def test_an_empty_key_builds_no_section(tmp_path):
    for empty in (None, ""):
        inputs = PaperInputs.from_params({"cost_fit_campaign": empty, "sandbox_campaign": "sb"})
        assert inputs.build_arguments(tmp_path)["cost_fit_dir"] is None
        assert all(flag != "cost-fit" for flag, _ in inputs.flags())


def _checked_arguments(paper: dict, raw: Path) -> dict:
    """`build_arguments` of params/paper.yaml's `paper` section, then the build's check of the fit
    campaign they name (what `generate` does first), told the key's name as the stage tells it."""
    from vbench.paper.inputs import check_cost_fit

    args = PaperInputs.from_params(paper).build_arguments(raw)
    check_cost_fit(args["cost_fit_dir"], args["sandbox_dir"], *args["cost_fit_fields"])
    return args


def test_a_set_key_naming_a_campaign_not_measured_is_refused_naming_the_field(raw):
    _needs_figures()  # the check is the build's, which imports matplotlib
    with pytest.raises(ParamsError) as err:
        _checked_arguments({"cost_fit_campaign": "costs-fit-gone", "sandbox_campaign": CALIBRATION}, raw)
    assert err.value.field == KEY
    assert "costs-fit-gone" in err.value.message and "vbench campaign run costs-fit-nodelay" in err.value.message
    for bad in ("../sandbox", "Costs"):
        # Not a plain name: refused by `build_arguments` itself, before any directory is looked at.
        with pytest.raises(ParamsError) as err:
            PaperInputs.from_params({"cost_fit_campaign": bad, "sandbox_campaign": CALIBRATION}).build_arguments(raw)
        assert err.value.field == KEY, bad
    # Measured, but without the sandbox campaign it predicts.
    with pytest.raises(ParamsError) as err:
        _checked_arguments({"cost_fit_campaign": FIT}, raw)
    assert err.value.field == KEY and "sandbox_campaign" in err.value.message
    ok = {"cost_fit_campaign": FIT, "sandbox_campaign": CALIBRATION}
    assert _checked_arguments(ok, raw)["cost_fit_dir"] == raw / FIT
    assert ("cost-fit", FIT) in PaperInputs.from_params(ok).flags()


def test_the_arguments_are_pure_and_name_the_key_for_the_builds_refusal(tmp_path):
    """`build_arguments` looks at no directory: a key naming a campaign not measured goes through,
    with the names the build's check refuses it by."""
    inputs = PaperInputs.from_params({"cost_fit_campaign": "costs-fit-gone", "sandbox_campaign": CALIBRATION})
    args = inputs.build_arguments(tmp_path / "nowhere")
    assert args["cost_fit_dir"] == tmp_path / "nowhere" / "costs-fit-gone"
    assert args["cost_fit_fields"] == (KEY, "paper.sandbox_campaign")


def test_the_committed_rebuild_refuses_a_set_key_it_cannot_read(raw, tmp_path):
    _needs_figures()  # a set key is checked by the build's check, which imports matplotlib
    params = tmp_path / "params"
    params.mkdir()
    (params / "pipeline.yaml").write_text(yaml.safe_dump({"pipeline": {"monitoring_campaign": "mon"}}))
    paper = {"sandbox_campaign": CALIBRATION, "cost_fit_campaign": "costs-fit-gone"}
    (params / "paper.yaml").write_text(yaml.safe_dump({"paper": paper}))
    with pytest.raises(ParamsError) as err:
        committed_inputs(params, raw)
    assert err.value.field == f"{params / 'paper.yaml'}: paper.cost_fit_campaign"
    (params / "paper.yaml").write_text(yaml.safe_dump({"paper": {**paper, "cost_fit_campaign": FIT}}))
    assert committed_inputs(params, raw) == [("sandbox", CALIBRATION), ("cost-fit", FIT)]


def test_the_command_refuses_a_fit_it_cannot_read(raw, tmp_path, capsys):
    _needs_figures()
    from vbench.paper.synthetic import write_synthetic_campaign

    main = write_synthetic_campaign(tmp_path / "main", platforms=("native", "lxc"), repetitions=2)
    run = cli_runner(capsys)
    argv = ("paper", "build", "--campaign", str(main), "--out", str(tmp_path / "paper"), "--no-pdf")
    rc, err = run(*argv, "--cost-fit", str(raw / "costs-fit-gone"), "--sandbox", str(raw / CALIBRATION))
    assert rc == 2 and "--cost-fit" in err
    rc, err = run(*argv, "--cost-fit", str(raw / FIT))
    assert rc == 2 and "--cost-fit" in err and "--sandbox" in err
    assert not (tmp_path / "paper" / "generated").exists()


# --- the build ---------------------------------------------------------------------------------------


def test_without_a_fit_campaign_the_build_omits_the_section_and_says_so_once(main_campaign, raw, tmp_path):
    from vbench.paper.build import generate

    res = generate(main_campaign, tmp_path, n_resamples=200, sandbox_dir=raw / CALIBRATION)
    gen = tmp_path / "generated"
    assert (gen / "costs.tex").read_text() == C.OMITTED_TEX
    assert not (gen / "tables" / "costs.tex").exists() and not list((gen / "figures").glob("costs.*"))
    assert not (gen / "costs.csv").exists()
    listed = res.tables_with_data + res.tables_absent + res.figures_with_data + res.figures_absent
    assert "costs" not in listed  # not counted where the text counts tables and figures
    assert sum("cost model's section is omitted" in n for n in res.notes) == 1
    assert "vbHasTableCosts" not in (gen / "macros.tex").read_text()


def test_a_fit_without_its_sandbox_campaign_is_refused_before_anything_is_written(main_campaign, raw, tmp_path):
    from vbench.paper.build import generate

    with pytest.raises(ParamsError) as err:
        generate(main_campaign, tmp_path, n_resamples=200, cost_fit_dir=raw / FIT)
    assert err.value.field == "cost_fit_dir" and "sandbox_dir" in err.value.message
    with pytest.raises(ParamsError) as err:
        generate(main_campaign, tmp_path, n_resamples=200, cost_fit_dir=raw / "gone", sandbox_dir=raw / CALIBRATION)
    assert err.value.field == "cost_fit_dir" and str(raw / "gone" / "samples.jsonl") in err.value.message
    assert not (tmp_path / "generated").exists()


def test_with_a_fit_campaign_the_build_writes_the_section_table_figure_and_rows(main_campaign, raw, tmp_path):
    from vbench.paper.build import generate

    res = generate(main_campaign, tmp_path, n_resamples=200, sandbox_dir=raw / CALIBRATION, cost_fit_dir=raw / FIT)
    gen = tmp_path / "generated"
    section = (gen / "costs.tex").read_text()
    assert r"\label{sec:costs}" in section and r"\input{generated/tables/costs.tex}" in section
    assert r"\label{tab:costs}" in (gen / "tables" / "costs.tex").read_text()
    assert (gen / "figures" / "costs.pdf").is_file() and (gen / "figures" / "costs.png").is_file()
    assert r"\includegraphics{generated/figures/costs.pdf}" in (gen / "figures" / "costs.tex").read_text()
    assert "costs" in res.tables_with_data and "costs" in res.figures_with_data
    rows = pd.read_csv(gen / "costs.csv")
    assert len(rows) == 4 and set(rows["platform"]) == set(COSTS)
    assert np.allclose(rows["error"], rows["measured"] / rows["predicted"] - 1)
    attribution = pd.read_csv(gen / "costs_attribution.csv")
    assert set(attribution["job"]) == set(C.ATTRIBUTED_JOBS) and "unexplained" in set(attribution["resource"])
    macros = (gen / "macros.tex").read_text()
    assert r"\newcommand{\vbHasTableCosts}{1}" in macros and r"\newcommand{\vbHasFigureCosts}{1}" in macros
    assert sum(n.startswith("cost model: fitted on costs-fit-nodelay") for n in res.notes) == 1
    assert not any("section is omitted" in n for n in res.notes)


def test_a_ratio_s_low_limit_is_never_printed_as_zero():
    """A ratio's interval rounded to its width's place can lose its low limit (costs-oneday's
    gVisor TestDFSIO write, 4.10 [0.40, 42.1], printed "4 [0, 42]"): it keeps one significant
    digit; a difference (offset) may print 0, and an interval whose low limit shows is as before."""
    from vbench.paper.fmt import interval_text

    assert interval_text(4.10, 0.40, 42.1) == r"\num{4.1} [\num{0.4}, \num{42.1}]"
    assert interval_text(2.82, 2.59, 3.08) == r"\num{2.82} [\num{2.59}, \num{3.08}]"
    assert interval_text(30, 12, 90) == r"\num{30} [\num{12}, \num{90}]"
    assert interval_text(1.05, 0.9, 1.2, scale=100, offset=-100) == r"\num{5} [\num{-10}, \num{20}]"
    # A ratio's interval excluding 1 by less than its rounding never prints a limit of 1:
    # costs-jvm-native-amd's TeraSort, 1.099 [1.002, 1.205].
    assert interval_text(1.099, 1.002, 1.205) == r"\num{1.099} [\num{1.002}, \num{1.205}]"
    assert interval_text(0.90, 0.80, 0.9996) == r"\num{0.9000} [\num{0.8000}, \num{0.9996}]"
    assert interval_text(1.10, 1.0, 1.2) == r"\num{1.10} [\num{1.00}, \num{1.20}]"  # a limit at 1 holds it
    assert interval_text(1.2, 1.004, 20.0, scale=100, offset=-100) == r"\num{20} [\num{0}, \num{1900}]"


def test_a_signed_percentage_keeps_its_plus_through_siunitx():
    # siunitx drops an explicit plus unless told to keep it: the PDF printed "+31 %" as "31 %".
    assert C.pct_text(0.31, signed=True) == r"\num[retain-explicit-plus]{+31}\,\%"
    assert C.pct_text(-0.08, signed=True) == r"\num{-8.0}\,\%"
    assert C.pct_text(0.31) == r"\num{31}\,\%" and C.pct_text(0.0, signed=True) == r"\num{0}\,\%"
