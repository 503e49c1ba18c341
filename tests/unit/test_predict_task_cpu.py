"""The CPU time a platform's tasks spent beside `vbench predict`'s table
(vbench.stats.job_phases.task_cpu): gVisor's tasks spent 2.8-6.7x native's CPU where the plant's
levels spent 1.2-1.4x for the same job slowdown (docs/results.md), which the calibrated costs, times
per operation, do not tell apart from waiting. Read as `vbench campaign profile` reads it
(profile.platform_medians), from JobHistory-shaped samples with a known answer."""

from __future__ import annotations

import json

import pytest

from tests.unit.test_predict_attempts import data  # noqa: F401 - the fixture
from tests.unit.test_predict_cmd import DRAWS
from tests.unit.test_stats_profile import ALL_COUNTERS, _job
from vbench.samples import append_records
from vbench.stats.campaign import load_campaign
from vbench.stats.cost_prediction import format_prediction, prediction_inputs, prediction_json, prediction_table
from vbench.stats.job_phases import TASK_CPU, task_cpu

CPU = "TaskCounter.CPU_MILLISECONDS"
#: Platform -> its TeraSort tasks' CPU ms in each of three blocks: medians 11 000, 44 000, 12 100.
RUNS = {"native": (10_000, 11_000, 12_000), "sandboxed": (40_000, 44_000, 50_000), "slowvm": (12_100, 9_000, 13_000)}


@pytest.fixture
def profiled(tmp_path):
    records = []
    for platform, values in RUNS.items():
        for block, cpu in enumerate(values):
            run = f"{platform}-{block}"
            records += _job(run, platform, block=block, counters={**ALL_COUNTERS, CPU: cpu})
            # TeraGen's tasks (not a suite job's time): not read.
            records += _job(run, platform, block=block, step="teragen", counters={**ALL_COUNTERS, CPU: 1})
        # A warm-up run: left out.
        records += _job(f"{platform}-w", platform, warmup=True, counters={**ALL_COUNTERS, CPU: 10**9})
    append_records(tmp_path / "samples.jsonl", records)
    return load_campaign(tmp_path)


def test_each_platform_s_task_cpu_is_its_median_over_the_baseline_s(profiled):
    got = task_cpu(profiled, "native")
    assert [(r.platform, r.step, r.resource) for r in got] == [
        ("sandboxed", "terasort", TASK_CPU),
        ("slowvm", "terasort", TASK_CPU),
    ]
    sandboxed, slowvm = got
    assert (sandboxed.median, sandboxed.baseline_median, sandboxed.recorded) == (44_000, 11_000, 3)
    assert sandboxed.ratio == pytest.approx(4.0) and slowvm.ratio == pytest.approx(1.1)
    assert task_cpu(profiled, "sandboxed")[0].platform == "native"  # against another baseline


def test_the_table_prints_it_in_text_and_json_and_nothing_without_it(data, profiled):  # noqa: F811
    inputs = prediction_inputs(load_campaign(data / "raw" / "costs-fit"), load_campaign(data / "raw" / "timed"))
    rows = task_cpu(profiled, "native")
    text = format_prediction(prediction_table(inputs, task_cpu=rows, n_draws=DRAWS, seed=0))
    section = text.split("Task CPU time over native's (JobHistory's CPU_MILLISECONDS, medians over the runs):\n")[1]
    lines = [line.split() for line in section.split("\n\n")[0].splitlines()]
    assert lines == [
        ["platform", "job", "native", "(ms)", "ms", "ratio"],
        ["sandboxed", "terasort", "11000", "44000", "4.00"],
        ["slowvm", "terasort", "11000", "12100", "1.10"],
    ]
    assert "Task CPU time: what the job's task attempts spent on a CPU" in text
    doc = json.loads(json.dumps(prediction_json(prediction_table(inputs, task_cpu=rows, n_draws=DRAWS, seed=0))))
    assert doc["task_cpu"][0] == {
        "platform": "sandboxed",
        "job": "terasort",
        "baseline": "native",
        "median_ms": 44_000,
        "baseline_median_ms": 11_000,
        "ratio": pytest.approx(4.0),
        "runs": 3,
        "note": "",
    }
    bare = prediction_table(inputs, n_draws=DRAWS, seed=0)
    assert "Task CPU" not in format_prediction(bare) and prediction_json(bare)["task_cpu"] == []
