"""`vbench predict` names the machine (CPU model) each campaign it reads ran on and warns where the
fit's is not the predicted one's (vbench.stats.machines): the pure functions on hand-made sample
frames, then the command's text and JSON on test_predict_cmd's synthetic campaigns stamped with a
CPU model each."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.unit.test_predict_cmd import calibration_campaign, fit_campaign
from vbench.stats.campaign import load_campaign
from vbench.stats.cost_prediction import format_prediction, prediction_inputs, prediction_json, prediction_table
from vbench.stats.machines import (
    CALIBRATION,
    FIT,
    FIT_COSTS,
    MEASURED,
    NOT_RECORDED,
    CampaignMachines,
    machine_warning,
    machines_json,
    machines_lines,
    samples_cpu_models,
)

AMD, INTEL = "AMD EPYC", "Intel(R) Xeon(R) Processor"
#: Few bootstrap draws: these tests read the machines, not the predictions' numbers.
DRAWS = 50


def _frame(*models) -> pd.DataFrame:
    return pd.DataFrame({"platform": ["native"] * len(models), "cpu_model": list(models)})


def _machines(**by_role) -> tuple[CampaignMachines, ...]:
    """Each part (fit=..., calibration=..., measured=..., fit_costs=...) with its models."""
    return tuple(
        CampaignMachines(role.replace("_", " "), f"data/raw/{role}", tuple(models)) for role, models in by_role.items()
    )


# --- The pure functions -----------------------------------------------------------------------------


def test_a_campaigns_models_are_its_samples_distinct_ones_sorted():
    # A sample of two hosts names both (join_values); gVisor's placeholder is no machine's.
    frame = _frame(INTEL, AMD, AMD, f"{AMD}; unknown", "unknown")
    assert samples_cpu_models(frame) == (AMD, INTEL)


def test_a_campaign_without_the_stamp_names_no_model():
    assert samples_cpu_models(pd.DataFrame({"platform": ["native"]})) == ()
    assert samples_cpu_models(pd.DataFrame()) == ()
    assert samples_cpu_models(_frame(np.nan, None)) == ()
    # Some samples stamped, some not (a campaign resumed after the stamp): the stamped ones' model.
    assert samples_cpu_models(_frame(np.nan, AMD, None)) == (AMD,)


def test_the_same_machine_gives_no_warning():
    assert machine_warning(_machines(fit=[AMD], calibration=[AMD], measured=[AMD])) is None


def test_a_calibration_on_another_machine_is_warned_of_naming_both():
    warning = machine_warning(_machines(fit=[AMD], calibration=[INTEL]))
    assert warning.startswith(f"the fit ran on {AMD}, the calibration on {INTEL}: ")
    assert "issue #53" in warning and "55-60 % under" in warning


def test_measured_jobs_on_another_machine_are_warned_of():
    warning = machine_warning(_machines(fit=[AMD], calibration=[AMD], measured=[INTEL]))
    assert f"the fit ran on {AMD}, the measured jobs on {INTEL}: " in warning
    # Both elsewhere: both named.
    both = machine_warning(_machines(fit=[AMD], calibration=[INTEL], measured=[INTEL]))
    assert f"the calibration on {INTEL}, the measured jobs on {INTEL}" in both
    # A campaign spanning the fit's machine and another is not the fit's machine.
    assert f"the calibration on {AMD} and {INTEL}" in machine_warning(_machines(fit=[AMD], calibration=[AMD, INTEL]))


def test_a_side_without_a_recorded_model_gives_no_warning():
    assert machine_warning(_machines(fit=[], calibration=[INTEL])) is None
    assert machine_warning(_machines(fit=[AMD], calibration=[])) is None
    assert machine_warning(_machines(fit=[AMD], calibration=[], measured=[])) is None
    assert machine_warning(()) is None


def test_the_fits_costs_elsewhere_is_listed_not_warned_of():
    """The fit's costs calibrate the fit's own configurations: the warning is about carrying the fit
    to the platforms predicted, so only the calibration and the measured jobs are compared."""
    machines = _machines(fit=[AMD], fit_costs=[INTEL], calibration=[AMD])
    assert machines[1].role == FIT_COSTS and machine_warning(machines) is None
    assert f"CPU of the fit's costs (fit_costs): {INTEL}" in machines_lines(machines)


def test_the_lines_name_each_campaigns_models_or_that_none_was_recorded():
    lines = machines_lines(_machines(fit=[AMD], calibration=[], measured=[INTEL]))
    assert lines[:3] == [
        f"CPU of the fit (fit): {AMD}",
        f"CPU of the calibration (calibration): {NOT_RECORDED}",
        f"CPU of the measured jobs (measured): {INTEL}",
    ]
    assert lines[3].startswith(f"WARNING: the fit ran on {AMD}, the measured jobs on {INTEL}: ")
    assert len(machines_lines(_machines(fit=[AMD], calibration=[AMD]))) == 2


def test_the_json_list_survives_a_round_trip():
    doc = machines_json(_machines(fit=[AMD], calibration=[AMD, INTEL], measured=[]))
    assert json.loads(json.dumps(doc)) == doc
    assert doc == [
        {"role": FIT, "campaign": "data/raw/fit", "cpu_models": [AMD]},
        {"role": CALIBRATION, "campaign": "data/raw/calibration", "cpu_models": [AMD, INTEL]},
        {"role": MEASURED, "campaign": "data/raw/measured", "cpu_models": []},
    ]


# --- The command on synthetic campaigns ------------------------------------------------------------


@pytest.fixture
def machines_data(tmp_path):
    """DATA with raw/costs-fit on the AMD machine, raw/amdplat calibrated there and raw/intelplat
    on the Intel one (its jobs timed too), raw/oldplat unstamped (measured before the stamp)."""
    raw = tmp_path / "raw"
    fit_campaign(raw / "costs-fit", cpu_model=AMD)
    calibration_campaign(raw / "amdplat", cpu_model=AMD)
    calibration_campaign(raw / "intelplat", jobs=True, seed=3, cpu_model=INTEL)
    calibration_campaign(raw / "oldplat")
    return tmp_path


def _table(data, calibration, measured=None):
    raw = data / "raw"
    inputs = prediction_inputs(
        load_campaign(raw / "costs-fit"),
        load_campaign(raw / calibration),
        measured_in=(load_campaign(raw / measured),) if measured is not None else (),
    )
    return prediction_table(inputs, n_draws=DRAWS, seed=0)


def test_the_inputs_carry_each_campaigns_machine(machines_data):
    raw = machines_data / "raw"
    inputs = _table(machines_data, "amdplat", measured="intelplat").inputs
    assert inputs.machines == (
        CampaignMachines(FIT, str(raw / "costs-fit"), (AMD,)),
        CampaignMachines(CALIBRATION, str(raw / "amdplat"), (AMD,)),
        CampaignMachines(MEASURED, str(raw / "intelplat"), (INTEL,)),
    )


def test_the_text_names_the_machines_and_warns_near_its_top(machines_data):
    text = format_prediction(_table(machines_data, "intelplat"))
    head = text.split("\n\n")[0].splitlines()
    assert head[0].startswith("Fit: ")
    assert head[1:3] == [f"CPU of the fit (costs-fit): {AMD}", f"CPU of the calibration (intelplat): {INTEL}"]
    assert head[3].startswith(f"WARNING: the fit ran on {AMD}, the calibration on {INTEL}: ")
    assert head[4].startswith("Resources: ")


def test_the_json_names_the_machines_and_the_warning_and_survives_a_round_trip(machines_data):
    raw = machines_data / "raw"
    doc = prediction_json(_table(machines_data, "intelplat"))
    assert json.loads(json.dumps(doc))["machines"] == doc["machines"]
    assert doc["machines"] == [
        {"role": FIT, "campaign": str(raw / "costs-fit"), "cpu_models": [AMD]},
        {"role": CALIBRATION, "campaign": str(raw / "intelplat"), "cpu_models": [INTEL]},
    ]
    assert doc["machine_warning"].startswith(f"the fit ran on {AMD}, the calibration on {INTEL}: ")


def test_the_same_machine_or_an_unrecorded_one_is_named_without_a_warning(machines_data):
    same = _table(machines_data, "amdplat")
    assert "WARNING" not in format_prediction(same) and prediction_json(same)["machine_warning"] is None
    old = _table(machines_data, "oldplat")
    assert f"CPU of the calibration (oldplat): {NOT_RECORDED}" in format_prediction(old)
    doc = prediction_json(old)
    assert doc["machine_warning"] is None and doc["machines"][1]["cpu_models"] == []


def test_the_command_warns_of_measured_jobs_on_another_machine(machines_data, capsys):
    from vbench import cli

    argv = ["predict", "amdplat", "--fit", "costs-fit", "--measured", "intelplat", "--data", str(machines_data)]
    assert cli.main([*argv, "--draws", str(DRAWS)]) == 0
    out = capsys.readouterr().out
    assert f"CPU of the measured jobs (intelplat): {INTEL}" in out
    assert f"WARNING: the fit ran on {AMD}, the measured jobs on {INTEL}: " in out
    assert cli.main([*argv, "--draws", str(DRAWS), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [m["role"] for m in doc["machines"]] == [FIT, CALIBRATION, MEASURED]
    assert doc["machine_warning"].startswith(f"the fit ran on {AMD}, the measured jobs on {INTEL}: ")
