"""The statistics stage's predicted-vs-measured rows (vbench.stats.predicted_rows, vbench.pipeline.
predictions, issue #53 item 5) on test_predict_cmd's synthetic campaigns, and dvc.yaml's statistics
stage declaring them.

The fit is shaped like params/experiments/costs-fit-nodelay.yaml (native under the 2^3 factorial of
planted slowdowns, against "1.0", 5 blocks, design seed 53001); the analysed campaign is shaped like
the pipeline's default design: native, its A/A copy and two platforms ("sandboxed", "slowvm"), each
calibrated and timing TeraSort and NNBench create/write. Its rows must be the engine's numbers:
`vbench predict analysed --fit costs-fit-nodelay` (prediction_table with the fit's design seed) for
the predictions and attributions, `cost_model.leave_one_platform_out` for the errors.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.unit.test_dvc_views import _campaign, _notebook_calls, _resolved, _stage
from tests.unit.test_predict_cmd import DRAWS, JOBS, NODELAY, PLATFORMS, calibration_campaign, fit_campaign
from vbench import pipeline
from vbench.errors import ParamsError
from vbench.paper import costs as C
from vbench.stats import cost_model as cm
from vbench.stats.campaign import load_campaign
from vbench.stats.cost_prediction import prediction_inputs, prediction_json, prediction_table
from vbench.stats import predicted_rows as predicted_rows_module
from vbench.stats.predicted_rows import (
    COST_FIT_KEY,
    PREDICTIONS_CSV,
    PREDICTIONS_JSON,
    held_out_predictions,
    predicted_rows,
    predictions_frame,
    predictions_json,
)

ROOT = Path(__file__).resolve().parents[2]
FIT, ANALYSED = "costs-fit-nodelay", "analysed"
FIT_SEED = 53001  # test_predict_cmd's fit_campaign writes it as the design's seed


@pytest.fixture(scope="module")
def raw(tmp_path_factory) -> Path:
    """DATA/raw with the fit and the analysed campaign (native, its A/A copy, sandboxed, slowvm)."""
    raw = tmp_path_factory.mktemp("data") / "raw"
    fit_campaign(raw / FIT, factors=NODELAY, baseline="1.0")
    calibration_campaign(raw / ANALYSED, platforms=("native", "native~aa", *PLATFORMS), jobs=True, seed=3)
    return raw


@pytest.fixture(scope="module")
def result(raw):
    return predicted_rows(load_campaign(raw / FIT), load_campaign(raw / ANALYSED), n_draws=DRAWS)


@pytest.fixture
def few_draws(monkeypatch):
    """The stage's function with the tests' draws (the stage itself takes vbench predict's 2000)."""

    def few(fit, calibration, **kw):
        return predicted_rows(fit, calibration, **{**kw, "n_draws": DRAWS})

    monkeypatch.setattr(predicted_rows_module, "predicted_rows", few)


def _interval(iv) -> tuple:
    return (iv.estimate, iv.low, iv.high)


# --- the rows are the engine's -------------------------------------------------------------------


def test_each_timed_job_on_each_platform_but_the_a_a_copy_is_a_row(result):
    assert not result.skipped and (result.fit_campaign, result.calibration_campaign) == (FIT, ANALYSED)
    assert [(r.job, r.platform) for r in result.rows] == list(itertools.product(sorted(JOBS), PLATFORMS))
    assert result.table.seed == FIT_SEED and result.table.n_draws == DRAWS
    assert result.table.inputs.resources == ("cpu", "net_throughput", "disk_seq_write")
    for r in result.rows:
        assert len(r.design) == 7 and not set(r.design) & {"native", "native~aa", *PLATFORMS}


def test_the_rows_are_vbench_predicts_numbers_with_the_error_beside(raw, result):
    """`vbench predict analysed --fit costs-fit-nodelay` (prediction_table, the fit's design seed)
    gives the rows' predictions, measured ratios and attributions; the error is measured /
    predicted - 1 and the prediction interval's verdict follows from the two."""
    inputs = prediction_inputs(load_campaign(raw / FIT), load_campaign(raw / ANALYSED))
    table = prediction_table(inputs, n_draws=DRAWS, seed=FIT_SEED)
    by = {(r.platform, r.job): r for r in table.rows}
    assert [(p.platform, p.job) for p in result.table.rows] == [(r.platform, r.job) for r in result.rows]
    for row, mine in zip(result.rows, result.table.rows):
        want = by[row.platform, row.job]
        assert _interval(row.predicted) == pytest.approx(_interval(want.predicted)), row
        assert _interval(row.measured) == pytest.approx(_interval(want.measured)), row
        assert mine.attribution == want.attribution and mine.predicted == row.predicted
        assert row.error.estimate == pytest.approx(row.measured.estimate / row.predicted.estimate - 1)
        assert row.inside_prediction == (row.predicted.low <= row.measured.estimate <= row.predicted.high)
    assert [(fj.fit.job, fj.rejected) for fj in result.table.fits] == [(fj.fit.job, fj.rejected) for fj in table.fits]
    # One function for the paper's section and the statistics stage.
    assert C.held_out_predictions is held_out_predictions


def test_the_files_hold_the_rows(raw, result, tmp_path, few_draws):
    out = tmp_path / "processed" / ANALYSED
    frame = pipeline.predictions(raw / ANALYSED, out, FIT, log=pytest.fail)
    written = pd.read_csv(out / PREDICTIONS_CSV)
    assert list(written.columns) == list(frame.columns) == list(predictions_frame(result).columns)
    assert list(written[["job", "platform"]].itertuples(index=False, name=None)) == [
        (r.job, r.platform) for r in result.rows
    ]
    for r, (_, line) in zip(result.rows, written.iterrows()):
        assert (line["measured"], line["measured_low"], line["measured_high"]) == pytest.approx(_interval(r.measured))
        assert (line["predicted"], line["predicted_low"], line["predicted_high"]) == pytest.approx(
            _interval(r.predicted)
        )
        assert line["error"] == pytest.approx(r.error.estimate) and line["inside_prediction"] == r.inside_prediction
        assert line["resources"] == "cpu,net_throughput,disk_seq_write" and pd.isna(line["left_out"])
        assert (line["fit_campaign"], line["calibration_campaign"], line["seed"]) == (FIT, ANALYSED, FIT_SEED)
    doc = json.loads((out / PREDICTIONS_JSON).read_text())
    assert doc["skipped"] is None and doc["left_out"] == [] and doc["seed"] == FIT_SEED and doc["draws"] == DRAWS
    assert (doc["fit_campaign"], doc["calibration_campaign"]) == (FIT, ANALYSED)
    # vbench predict --json's layout, each prediction with its error and verdicts beside.
    command = json.loads(json.dumps(prediction_json(result.table)))
    assert doc["resources"] == command["resources"] and doc["rule_1"] == command["rule_1"]
    assert doc["jobs"] == command["jobs"]
    for entry, same, r in zip(doc["predictions"], command["predictions"], result.rows, strict=True):
        assert {k: entry[k] for k in same} == same
        assert entry["error"]["estimate"] == pytest.approx(r.error.estimate)
        assert (entry["inside_prediction"], entry["agrees"], entry["design"]) == (
            r.inside_prediction,
            r.agrees,
            list(r.design),
        )
    assert predictions_json(result) == json.loads(json.dumps(predictions_json(result)))


def test_a_resource_rule_one_left_out_is_named_in_the_rows(raw, tmp_path):
    """test_predict_cmd's weak disk: the throttle moves the disk's cost to 1.2 in one configuration."""
    fit_campaign(
        raw.parent / "weak" / "weakdisk", factors=NODELAY, baseline="1.0", costs_in={"101": {"disk_seq_write": 1.2}}
    )
    result = predicted_rows(load_campaign(raw.parent / "weak" / "weakdisk"), load_campaign(raw / ANALYSED), n_draws=50)
    frame = predictions_frame(result)
    assert set(frame["resources"]) == {"cpu,net_throughput"} and set(frame["left_out"]) == {"disk_seq_write"}
    doc = predictions_json(result)
    assert doc["left_out"] == ["disk_seq_write"] and doc["resources"] == ["cpu", "net_throughput"]
    assert any(n.startswith("disk_seq_write left out of the fit (rule 1)") for n in doc["notes"])


# --- a campaign that cannot be predicted: the stage goes on, saying why ----------------------------


def _skipped(raw: Path, campaign: str, out: Path, fit=FIT) -> tuple[str, dict, list[str]]:
    said: list[str] = []
    frame = pipeline.predictions(raw / campaign, out, fit, log=said.append)
    assert list(frame.columns) == ["skipped"] and len(frame) == 1
    written = pd.read_csv(out / PREDICTIONS_CSV)
    assert list(written.columns) == ["skipped"] and written["skipped"].tolist() == frame["skipped"].tolist()
    return frame["skipped"].iloc[0], json.loads((out / PREDICTIONS_JSON).read_text()), said


def test_a_campaign_without_native_calibration_gets_the_reason_not_an_exception(raw, tmp_path, few_draws):
    calibration_campaign(raw / "alone", platforms=("sandboxed",), jobs=True)
    reason, doc, said = _skipped(raw, "alone", tmp_path / "alone")
    assert str(raw / "alone" / "samples.jsonl") in reason and "no native configuration" in reason
    assert doc == {"fit_campaign": FIT, "calibration_campaign": "alone", "skipped": reason}
    assert said == [f"predictions of alone: none ({reason})"]


def test_a_fitted_resource_not_calibrated_gets_the_reason(raw, tmp_path, few_draws):
    calibration_campaign(raw / "nothroughput", drop=("net_throughput",), jobs=True)
    reason, doc, _ = _skipped(raw, "nothroughput", tmp_path / "nothroughput")
    assert str(raw / "nothroughput" / "samples.jsonl") in reason
    assert "net_throughput (iperf3 throughput_mean)" in reason and doc["skipped"] == reason


def test_a_campaign_that_timed_no_job_gets_the_reason(raw, tmp_path, few_draws):
    calibration_campaign(raw / "microonly")
    reason, _, _ = _skipped(raw, "microonly", tmp_path / "microonly")
    assert reason.startswith(str(raw / "microonly" / "samples.jsonl"))
    assert "timed none of the jobs the fit fitted" in reason and "terasort" in reason


@pytest.mark.parametrize("fit", [None, ""])
def test_no_fit_campaign_gives_the_reason(raw, tmp_path, fit):
    reason, doc, said = _skipped(raw, ANALYSED, tmp_path / "none", fit=fit)
    assert reason == f"no fit campaign: {COST_FIT_KEY} is empty" and doc["fit_campaign"] == ""
    assert said and reason in said[0]


def test_a_fit_campaign_not_in_the_data_directory_gives_the_reason(raw, tmp_path):
    """A campaign of one's own under another data directory (the quick pipeline test's) has no
    committed fit beside it: its statistics stand, the predictions say why there are none."""
    reason, doc, said = _skipped(raw, ANALYSED, tmp_path / "gone", fit="costs-fit-gone")
    assert reason.startswith(f"{COST_FIT_KEY} names 'costs-fit-gone', but ")
    assert str(raw / "costs-fit-gone" / "samples.jsonl") in reason and said and reason in said[0]


def test_a_fit_campaign_that_cannot_be_fitted_is_refused(raw, tmp_path, few_draws):
    """The fit's own faults are not the analysed campaign's: refused, as the paper's build refuses them."""
    fit_campaign(raw / "fitnojobs", factors=NODELAY, baseline="1.0", jobs=False)
    with pytest.raises(ParamsError) as err:
        pipeline.predictions(raw / ANALYSED, tmp_path / "x", "fitnojobs")
    assert err.value.field == str(raw / "fitnojobs" / "samples.jsonl") and "no job of the suite" in err.value.message
    assert not (tmp_path / "x" / PREDICTIONS_CSV).exists()


# --- dvc.yaml's statistics stage -----------------------------------------------------------------


def _deps(stage: dict) -> list[str]:
    return [d if isinstance(d, str) else next(iter(d)) for d in stage["deps"]]


def test_the_statistics_stage_takes_the_papers_fit_campaign_and_depends_on_its_samples():
    """One key for both stages (params/paper.yaml's paper.cost_fit_campaign); set, each depends on
    the fit's samples, so DVC re-runs the statistics stage when they change; empty, neither does."""
    key = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]["cost_fit_campaign"]
    assert COST_FIT_KEY == "params/paper.yaml: paper.cost_fit_campaign"
    dep = "data/raw/${paper.cost_fit_campaign}/samples.jsonl"
    statistics, paper = _stage("statistics"), _stage("paper")
    for stage in (statistics, paper):
        assert "-p cost_fit_campaign ${paper.cost_fit_campaign}" in stage["cmd"]
        assert [d for d in _deps(stage) if "cost_fit_campaign" in d] == ([dep] if key else [])
    assert {"params/paper.yaml": ["paper.cost_fit_campaign"]} in statistics["params"]
    assert "pipeline.cost_fit_campaign" not in (ROOT / "dvc.yaml").read_text()  # no second key


def test_the_statistics_stage_writes_the_predictions_into_its_declared_output(monkeypatch, tmp_path):
    campaign = _campaign()
    (out,) = [_resolved(o, campaign) for o in _stage("statistics")["outs"]]
    seen = _notebook_calls(monkeypatch, tmp_path, campaign)
    raw, written, fit = seen["predictions"]
    assert raw == Path("data") / "raw" / campaign and written == Path(out) == seen["statistics"][1]
    assert (written / PREDICTIONS_CSV).is_relative_to(out) and (written / PREDICTIONS_JSON).is_relative_to(out)
    # Run by hand, the notebook predicts with the fit the stage is given.
    key = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]["cost_fit_campaign"]
    assert fit == key


def test_the_stage_takes_vbench_predicts_draws_level_and_seed():
    """The draws and level are vbench predict's defaults: the stage has no setting of its own."""
    import inspect

    defaults = inspect.signature(predicted_rows).parameters
    assert defaults["n_draws"].default == cm.DEFAULT_DRAWS and defaults["conf"].default == cm.DEFAULT_CONF
    assert defaults["seed"].default is None  # the fit's design seed, as the command takes it
