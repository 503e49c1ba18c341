"""The measured runs with a task attempt that did not succeed, beside `vbench predict`'s table
(vbench.stats.job_phases.unsuccessful_attempts): on the Intel days gVisor's TeraSort had an attempt
killed by speculation in every block and native none, time no calibrated cost prices
(docs/results.md, costs-jvm-sameday-confirm). Counted per platform and job from JobHistory's
samples, a speculative copy's win told from any other loss by the AM's diagnostics."""

from __future__ import annotations

import json

import pytest

from tests.unit.test_predict_cmd import BLOCKS, DRAWS, calibration_campaign, fit_campaign, platform_meta
from vbench.samples import Sample, append_records
from vbench.stats.campaign import load_campaign
from vbench.stats.cost_prediction import format_prediction, prediction_inputs, prediction_json, prediction_table
from vbench.stats.job_phases import AttemptRuns, unsuccessful_attempts

OUTRUN = "Speculation: attempt_1796317650153_0002_r_000001_0 succeeded first!"
#: (platform, block, task type, state, diagnostics): sandboxed has a reduce speculated in blocks 0-2 and
#: a map speculated too in block 1; slowvm one map failed in block 4; native one lost only in a warm-up run.
UNSUCCESSFUL = (
    ("sandboxed", 0, "REDUCE", "KILLED", OUTRUN),
    ("sandboxed", 1, "REDUCE", "KILLED", OUTRUN),
    ("sandboxed", 1, "MAP", "KILLED", OUTRUN),
    ("sandboxed", 2, "REDUCE", "KILLED", OUTRUN),
    ("slowvm", 4, "MAP", "FAILED", "Container launch failed for container_1: socket timeout"),
)


def _attempt(platform: str, run_id: str, meta: dict, i: int, task_type: str, state: str, why: str) -> Sample:
    """One unsuccessful attempt as vbench.hadoop.history.unsuccessful_attempt_sample records it."""
    return Sample(
        "terasort",
        f"{task_type.lower()}_attempt_unsuccessful",
        1,
        "count",
        metadata={
            **meta,
            "step": "terasort",
            "benchmark_kind": "hadoop",
            "node": "worker1",
            "attempt_id": f"attempt_{run_id}_{i}",
            "task_type": task_type,
            "attempt_state": state,
            "diagnostics": why,
        },
    )


@pytest.fixture
def data(tmp_path):
    """DATA with raw/costs-fit and raw/timed: the suite timed on every platform, with UNSUCCESSFUL's
    attempts, and a native warm-up run (not measured) with an attempt speculated."""
    fit_campaign(tmp_path / "raw" / "costs-fit")
    timed = calibration_campaign(tmp_path / "raw" / "timed", jobs=True, seed=3)
    records = [
        _attempt(p, f"cal-{p}-{b}", platform_meta(p, b, f"cal-{p}-{b}"), i, *rest)
        for i, (p, b, *rest) in enumerate(UNSUCCESSFUL)
    ]
    warm = {**platform_meta("native", 0, "warm-native-0"), "warmup": True}
    records.append(_attempt("native", "warm-native-0", warm, 99, "REDUCE", "KILLED", OUTRUN))
    append_records(timed / "samples.jsonl", records)
    return tmp_path


def test_runs_speculated_and_lost_are_counted_per_platform_and_job(data):
    got = unsuccessful_attempts(load_campaign(data / "raw" / "timed"))
    assert got == (
        # The warm-up run's attempt is not a measured run's.
        AttemptRuns("terasort", "native", BLOCKS, speculated=0, lost=0, maps=0, reduces=0),
        # Block 1's two attempts make one run; a speculation's kill is "speculated", nothing "lost".
        AttemptRuns("terasort", "sandboxed", BLOCKS, speculated=3, lost=0, maps=1, reduces=3),
        AttemptRuns("terasort", "slowvm", BLOCKS, speculated=0, lost=1, maps=1, reduces=0),
    )
    assert [a.any for a in got] == [False, True, True]


def test_a_campaign_without_unsuccessful_attempts_counts_runs_and_shows_nothing(data):
    calibration_campaign(data / "raw" / "clean", jobs=True, seed=3)
    clean = load_campaign(data / "raw" / "clean")
    got = unsuccessful_attempts(clean)
    assert {a.platform for a in got} == {"native", "sandboxed", "slowvm"}
    assert all(a.runs == BLOCKS and not a.any for a in got)
    inputs = prediction_inputs(load_campaign(data / "raw" / "costs-fit"), clean)
    table = prediction_table(inputs, attempts=got, n_draws=DRAWS, seed=0)
    assert "did not succeed" not in format_prediction(table) and "speculated:" not in format_prediction(table)
    assert len(prediction_json(table)["attempts"]) == 3


def test_the_command_prints_the_runs_in_text_and_json(data, capsys):
    from vbench import cli

    argv = ["predict", "timed", "--fit", "costs-fit", "--data", str(data), "--draws", "50"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    section = out.split("Measured runs with a task attempt that did not succeed (JobHistory):\n")[1].split("\n\n")[0]
    rows = [line.split() for line in section.splitlines()[1:]]
    assert [r[:2] for r in rows] == [["native", "terasort"], ["sandboxed", "terasort"], ["slowvm", "terasort"]]
    # "3 of 5" runs speculated, "0 of 5" lost, then the attempts "1, 3" (map, reduce).
    assert rows[1][2:] == ["3", "of", str(BLOCKS), "0", "of", str(BLOCKS), "1,", "3"]
    assert rows[2][2:] == ["0", "of", str(BLOCKS), "1", "of", str(BLOCKS), "1,", "0"]
    assert "speculated: a run in which YARN found a task slow enough to start a second attempt of it" in out

    assert cli.main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    by = {(a["platform"], a["job"]): a for a in doc["attempts"]}
    assert by[("sandboxed", "terasort")] == {
        "job": "terasort",
        "platform": "sandboxed",
        "runs": BLOCKS,
        "speculated": 3,
        "lost": 0,
        "maps": 1,
        "reduces": 3,
    }
    assert by[("native", "terasort")]["speculated"] == 0
