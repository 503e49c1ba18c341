"""`vbench predict --measured A,B,C`: the predictions judged against each job's ratio pooled over
several campaigns (vbench.stats.campaign_pool), with prediction intervals for such a ratio."""

from __future__ import annotations

import json
import math
import statistics

import pytest

from tests.unit.builders import cli_runner
from tests.unit.test_predict_cmd import DRAWS, PLATFORMS, calibration_campaign, fit_campaign
from vbench.stats import cost_model as cm
from vbench.stats.campaign import load_campaign
from vbench.stats.cost_prediction import format_prediction, prediction_inputs, prediction_json, prediction_table

TIMED = ("timed1", "timed2", "timed3")


@pytest.fixture
def data(tmp_path):
    """DATA with raw/costs-fit, raw/newplat (calibration only) and three campaigns that timed the
    suite on every platform, each its own noise (seeds 3-5)."""
    fit_campaign(tmp_path / "raw" / "costs-fit")
    calibration_campaign(tmp_path / "raw" / "newplat")
    for seed, name in enumerate(TIMED, start=3):
        calibration_campaign(tmp_path / "raw" / name, jobs=True, seed=seed)
    return tmp_path


def _inputs(data, names=TIMED):
    return prediction_inputs(
        load_campaign(data / "raw" / "costs-fit"),
        load_campaign(data / "raw" / "newplat"),
        measured_in=tuple(load_campaign(data / "raw" / n) for n in names),
    )


def test_each_jobs_measured_ratio_is_the_campaigns_mean_log_ratio(data):
    inputs = _inputs(data)
    alone = {
        n: cm.job_ratios_of(load_campaign(data / "raw" / n).samples, baseline="native", jobs=cm.JOBS) for n in TIMED
    }
    assert inputs.measured_paths == tuple(data / "raw" / n for n in TIMED) and inputs.notes == ()
    assert len(inputs.pooled) == len(inputs.measured) == len(alone["timed1"]) >= 2 * len(PLATFORMS)
    for p in inputs.pooled:
        logs = [
            next(r.ratio.log_estimate for r in alone[n] if (r.job, r.platform) == (p.job, p.platform)) for n in TIMED
        ]
        assert p.campaigns == TIMED
        assert p.ratio.log_estimate == pytest.approx(statistics.fmean(logs))
        assert p.ratio.log_se == pytest.approx(statistics.stdev(logs) / math.sqrt(3)) and p.ratio.df == 2
        measured = next(m for m in inputs.measured if (m.job, m.platform) == (p.job, p.platform))
        assert measured.ratio == p.ratio


def test_each_row_is_judged_against_the_pooled_ratio_with_an_interval_for_one(data):
    table = prediction_table(_inputs(data), n_draws=DRAWS, seed=0)
    one = prediction_table(_inputs(data, TIMED[:1]), n_draws=DRAWS, seed=0)
    for row, single in zip(table.rows, one.rows):
        assert (row.platform, row.job) == (single.platform, single.job)
        assert row.predicted == single.predicted  # the prediction does not depend on what it is judged by
        assert row.campaigns == 3 and row.blocks is None and single.campaigns is None and single.blocks == 5
        # The pooled ratio's own error widens the prediction's interval.
        assert row.measurement.low < row.predicted.low and row.measurement.high > row.predicted.high
        pooled = next(p for p in table.inputs.pooled if (p.job, p.platform) == (row.job, row.platform))
        assert row.measured == pooled.ratio.interval(table.conf)
    text = format_prediction(table)
    assert "Measured ratios pooled over 3 campaigns:" in text and "(3 c)" in text
    assert f"measured jobs: {', '.join(str(data / 'raw' / n) for n in TIMED)}" in text
    doc = prediction_json(table)
    assert doc["measured"]["campaigns"] == [str(data / "raw" / n) for n in TIMED]
    assert {(p["platform"], p["job"]) for p in doc["measured"]["pooled"]} == {(r.platform, r.job) for r in table.rows}
    assert all(p["prediction_interval"]["campaigns"] == 3 for p in doc["predictions"])


def test_a_pooled_prediction_interval_is_as_wide_as_the_campaigns_spread():
    """cost_model.pooled_measurement: none added for campaigns that agree exactly; wider as they spread."""
    import numpy as np

    from vbench.stats.records import Interval

    draws = np.exp(np.random.default_rng(0).normal(math.log(3.0), 0.05, 2000))
    fit = type("Fit", (), {"seed": 1, "job": "terasort", "conf": 0.95})()
    pred = cm.Prediction("terasort", "gvisor", Interval(3.0, *np.percentile(draws, [2.5, 97.5])), draws)
    widths = [cm.pooled_measurement(fit, pred, cm.LogRatio(math.log(3.5), se, 3)) for se in (0.0, 0.05, 0.1)]
    assert (widths[0].low, widths[0].high) == pytest.approx((pred.ratio.low, pred.ratio.high))
    assert widths[0].high - widths[0].low < widths[1].high - widths[1].low < widths[2].high - widths[2].low
    assert all(w.estimate == 3.0 for w in widths)


def test_a_job_only_one_campaign_measured_is_left_out_with_a_note(data):
    sandboxed = next(iter(PLATFORMS))
    calibration_campaign(data / "raw" / "partial", ("native", sandboxed), jobs=True, seed=9)
    inputs = _inputs(data, ("timed1", "partial"))
    others = sorted(set(PLATFORMS) - {sandboxed})
    assert {p.platform for p in inputs.pooled} == {sandboxed}
    for platform in others:
        for job in {job for job, _ in inputs.designs}:
            assert f"{job} on {platform}: measured in one of the campaigns only (timed1), not pooled: left out" in (
                inputs.notes
            )
    assert f"no measured job ratio of {', '.join(others)} in {data / 'raw' / 'partial' / 'samples.jsonl'}" in " ".join(
        inputs.notes
    )
    table = prediction_table(inputs, n_draws=DRAWS, seed=0)
    assert all((r.measured is None) == (r.platform != sandboxed) for r in table.rows)


def test_the_command_pools_the_campaigns_it_is_given(data, capsys):
    from vbench import cli

    argv = ["predict", "newplat", "--fit", "costs-fit", "--data", str(data), "--draws", "50"]
    assert cli.main([*argv, "--measured", ",".join(TIMED), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["measured"]["campaigns"]) == 3 and doc["measured"]["pooled"]
    assert all(p["phases"] == [] for p in doc["predictions"]) and doc["attempts"] == [] and doc["task_cpu"] == []
    run = cli_runner(capsys)
    rc, err = run(*argv, "--measured", "timed1,timed2,timed1")
    assert rc == 2 and "--measured" in err and "timed1 named twice" in err
    rc, err = run(*argv, "--measured", "timed1,")
    assert rc == 2 and "--measured" in err and "empty campaign name" in err
