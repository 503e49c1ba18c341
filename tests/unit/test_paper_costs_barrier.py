"""The cost-model section's subsection on NNBench's barrier (vbench.paper.costs_barrier, issue #53):
the refit design's verdict as a rule, the subsection's sentences for each verdict, its reading of
the committed campaigns against selfbench/nnbench_barrier_levels.py's own, and its three keys of
params/paper.yaml (refused set in part, or without the levels campaign; passed on and depended on by
the paper stage)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.unit.selfbench_scripts import load
from tests.unit.test_paper_levels_keys import _resolved
from tests.unit.test_paper_costs_syscalls import CALIBRATION, FIT, SANDBOX, SYSCALL_FIT, _committed, _measured
from vbench.errors import ParamsError
from vbench.paper import costs_barrier as CB
from vbench.paper.inputs import check_barrier
from vbench.samples import read_records
from vbench.stats.campaign import load_campaign
from vbench.stats.cost_prediction import ApartCheck
from vbench.stats.nnbench_barrier import StepRatio, steps_of
from vbench.stats.records import Interval

ROOT = Path(__file__).resolve().parents[2]
RAW = ROOT / "data" / "raw"
KEYS = ("barrier_campaign", "barrier_fit_campaign", "barrier_calibration_campaign")
FLAGS = ("barrier", "barrier-fit", "barrier-calibration")
MEASURED, BEFORE, REFIT, COSTS = (
    "costs-nnbench-barrier",
    "costs-fit-process-confirm",
    "costs-fit-barrier",
    "costs-oneday-confirm",
)
LEVELS = "costs-fit-levels"


# --- the rule ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "refit, before, measured, expected",
    [
        (4.5, 3.4, 4.66, CB.HOLDS),  # within 15 % of 4.66
        (5.35, 3.4, 4.66, CB.HOLDS),  # just under the band's top (4.66 x 1.15 = 5.359)
        (5.4, 3.4, 4.66, CB.UNDECIDED),  # above it: not the first fit's, not the measured
        (3.9, 3.4, 4.66, CB.REJECTED),  # at or under 3.4 x 1.15 = 3.91
        (3.95, 3.4, 4.66, CB.UNDECIDED),  # between 3.91 and 4.05
        (None, 3.4, 4.66, CB.NOT_READ),  # its rule 1 failed: no prediction
    ],
)
def test_the_refits_verdict_is_its_designs_rule_2(refit, before, measured, expected):
    assert CB.verdict(refit, before, measured) == expected


# --- the sentences -----------------------------------------------------------------------------------


def _iv(est: float) -> Interval:
    return Interval(est, est * 0.8, est * 1.25)


def _reading(refit_open_read: float | None, verdict: str) -> CB.BarrierReading:
    measured = (StepRatio("create_write", _iv(3.17), 8, 0, 8), StepRatio("open_read", _iv(4.66), 8, 1, 8))
    before = CB.BarrierFit(
        BEFORE,
        20,
        4,
        ApartCheck((("spawn", "p"), ("syscall", "t")), ()),
        (("create_write", _iv(3.38)), ("open_read", _iv(3.39))),
    )
    predicted = () if refit_open_read is None else (("create_write", _iv(3.3)), ("open_read", _iv(refit_open_read)))
    apart = ApartCheck((("spawn", "p"),), ("syscall",)) if refit_open_read is None else before.apart
    refit = CB.BarrierFit(REFIT, 70, 4, apart, predicted)
    return CB.BarrierReading(MEASURED, "gvisor", 60, measured, COSTS, before, refit, verdict)


@pytest.mark.parametrize("verdict, refit", [(CB.HOLDS, 4.5), (CB.REJECTED, 3.5), (CB.UNDECIDED, 3.98)])
def test_the_subsection_says_what_was_timed_both_predictions_the_band_and_the_verdict(verdict, refit):
    lines = CB.barrier_tex(_reading(refit, verdict))
    assert lines[0] == rf"\subsection{{{CB.TITLE}}}\label{{{CB.LABEL}}}"
    text = " ".join(lines[1:])
    assert r"\texttt{costs-nnbench-barrier}" in text and "in the same 8 blocks" in text
    assert r"1 of 16 of its steps' last map began more than \num{2}\,s after the barrier" in text
    assert r"\num{4.7} [\num{3.7}, \num{5.8}] for NNBench open/read" in text
    assert r"its NNBench timed at a 20\,s barrier" in text and r"barrier at 70\,s (4 blocks)" in text
    assert r"\num{3.39}" in text or r"\num{3.4}" in text
    # The band fixed before the refit ran: 4.66 / 1.15 to 4.66 x 1.15, and the first fit's 3.39 x 1.15.
    assert r"(\num{4.05} to \num{5.36})" in text and r"(\num{3.90})" in text
    assert text.endswith(CB.VERDICT_TEXT[verdict])


def test_a_refit_whose_rule_1_failed_is_said_and_not_read():
    text = " ".join(CB.barrier_tex(_reading(None, CB.NOT_READ)))
    assert "its rule 1 failed" in text and "its fit is not read and the question stays open." in text
    assert "Its design said" not in text and not any(t in text for t in CB.VERDICT_TEXT.values())


# --- the committed campaigns -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def committed() -> CB.BarrierReading:
    return CB.barrier_reading(*(load_campaign(RAW / n) for n in (MEASURED, BEFORE, REFIT, COSTS)))


def test_the_measured_ratios_are_selfbench_s_reading_of_the_same_samples(committed):
    """The paper's reading and costs-nnbench-barrier's own script (its readings 1 and 5) agree."""
    levels = load("nnbench_barrier_levels")
    steps = steps_of(read_records(RAW / MEASURED / "samples.jsonl"))
    assert (committed.platform, committed.barrier_s) == ("gvisor", 60)
    for m in committed.measured:
        own = levels.readings(steps, "gvisor", m.op, 20, 60)
        assert m.ratio == own.ratio[60] and m.blocks == own.blocks, m.op
        late = next(r for r in levels.lateness(steps, 2.0) if (r.platform, r.barrier_s, r.op) == ("gvisor", 60, m.op))
        assert (m.late, m.timed) == (late.late, late.steps), m.op


def test_both_fits_predict_gvisor_from_the_one_calibration_and_the_verdict_follows_from_them(committed):
    assert (committed.before.name, committed.before.barrier_s) == (BEFORE, 20)
    assert (committed.refit.name, committed.refit.barrier_s) == (REFIT, 70)
    assert committed.before.apart.passes and {op for op, _ in committed.before.predicted} == {
        "create_write",
        "open_read",
    }
    tested = committed.measured_of("open_read").ratio.estimate
    refit = committed.refit.of("open_read")
    assert committed.verdict == CB.verdict(
        None if refit is None else refit.estimate, committed.before.of("open_read").estimate, tested
    )
    assert committed.verdict in CB.build_note(committed)


# --- the keys ----------------------------------------------------------------------------------------


def _barrier_keys(**given: str) -> dict[str, str]:
    return {"syscall_levels_campaign": LEVELS, **dict(zip(KEYS, (MEASURED, REFIT, COSTS))), **given}


BESIDE = (SANDBOX, FIT, SYSCALL_FIT, CALIBRATION, LEVELS)


def test_the_committed_rebuild_passes_the_three_campaigns_on_and_a_key_set_alone_is_refused(tmp_path):
    raw = _measured(tmp_path / "raw", *BESIDE, MEASURED, REFIT, COSTS)
    assert _committed(tmp_path, raw, **_barrier_keys())[-3:] == list(zip(FLAGS, (MEASURED, REFIT, COSTS)))
    fields = {key: f"{tmp_path / 'params' / 'paper.yaml'}: paper.{key}" for key in KEYS}
    for unset in KEYS:
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **_barrier_keys(**{unset: ""}))
        assert err.value.field == fields[next(k for k in KEYS if k != unset)], unset
        assert f"needs {fields[unset]} set too" in err.value.message and "set all three, or none" in err.value.message
    # It tests the levels' fit: not without the levels campaign.
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **_barrier_keys(syscall_levels_campaign=""))
    assert err.value.field == fields[KEYS[0]] and "needs paper.syscall_levels_campaign set too" in err.value.message


def test_the_build_s_check_names_its_arguments_or_the_options_it_is_told(tmp_path):
    raw = _measured(tmp_path / "raw", LEVELS, MEASURED, REFIT, COSTS)
    check_barrier(None, None, None, None)  # omitted
    check_barrier(raw / MEASURED, raw / REFIT, raw / COSTS, raw / LEVELS)
    flags = ("--barrier", "--barrier-fit", "--barrier-calibration", "--syscall-levels")
    with pytest.raises(ParamsError) as err:
        check_barrier(raw / MEASURED, raw / "gone", raw / COSTS, raw / LEVELS, *flags)
    assert err.value.field == "--barrier-fit" and "(`vbench campaign run gone`)" in err.value.message
    with pytest.raises(ParamsError) as err:
        check_barrier(raw / MEASURED, raw / REFIT, raw / COSTS, None, *flags)
    assert err.value.field == "--barrier" and "needs --syscall-levels set too" in err.value.message


def test_the_committed_keys_are_set_all_three_or_none_and_the_paper_stage_passes_and_depends_on_them():
    paper = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]
    pipeline = yaml.safe_load((ROOT / "params" / "pipeline.yaml").read_text())["pipeline"]
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["paper"]
    deps = [d if isinstance(d, str) else next(iter(d)) for d in stage["deps"]]
    assert len({bool(paper.get(key)) for key in KEYS}) == 1, "set all three or none"
    for key in KEYS:
        assert (f"-p {key} ${{paper.{key}}}" in stage["cmd"]) == (key in paper), key
    resolved = [_resolved(d, {"paper": paper, "pipeline": pipeline}) for d in deps]
    assert len(resolved) == len(set(resolved)), "a path twice"
    for key in KEYS:
        if paper.get(key):
            assert f"data/raw/{paper[key]}/samples.jsonl" in resolved, key
            assert paper["syscall_levels_campaign"]
