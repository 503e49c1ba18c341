"""vbench.explore.run: one execution in depth, on committed runs (a failure, a monitored run)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from vbench.explore import run

from tests.unit.explore_campaigns import committed

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"


def failure_records(name: str) -> list[dict]:
    return [
        r
        for r in map(json.loads, (RAW / name / "samples.jsonl").read_text().splitlines())
        if r.get("kind") == "failure"
    ]


def test_a_failed_run_gives_its_reason_and_the_log_lines_that_say_why():
    d = committed("netmodes")
    (f,) = failure_records("netmodes")
    run_id = f["metadata"]["run_id"]
    choices = dict((r, label) for label, r in run.run_choices(d, "terasort"))
    assert choices[run_id].startswith("FAILED nat block 0")
    detail = run.run_detail(d, run_id)
    assert detail.failure.reason == f["reason"] and detail.failure.step == "terasort"
    assert detail.log_file == "terasort.stderr" and detail.values.empty and detail.level == "nat"
    log = (RAW / "netmodes" / "raw" / run_id / "terasort.stderr").read_text()
    assert "Status : FAILED" in detail.log_excerpt and "failed with state FAILED" in detail.log_excerpt
    assert all(line in log.splitlines() for line in detail.log_excerpt.splitlines() if line != "...")
    assert detail.files == {p.name: p.stat().st_size for p in sorted((RAW / "netmodes" / "raw" / run_id).iterdir())}


def test_runs_are_offered_in_run_order():
    d = committed("poll-interval")
    choices = run.run_choices(d, "terasort")
    starts = d.samples.groupby("run_id")["timestamp"].min()
    assert [r for _, r in choices] == list(starts.sort_values().index)
    assert choices[0][0].startswith("#1 100 32MB block 0: ")


def test_a_monitored_run_carries_its_time_series():
    d = committed("monitoring")
    ((label, run_id),) = run.run_choices(d, "terasort")
    detail = run.run_detail(d, run_id)
    assert detail.monitored and detail.timeseries_file == f"timeseries/{run_id}.csv"
    on_disk = pd.read_csv(RAW / "monitoring" / detail.timeseries_file)
    assert len(detail.timeseries) == len(on_disk) and set(detail.timeseries["host"]) == set(on_disk["host"])
    assert not run.run_detail(committed("reference"), d.samples["run_id"].iloc[0]).monitored


def test_counters_sit_beside_every_other_run_of_the_benchmark():
    d = committed("reference")
    s = d.samples
    runs = sorted(s.loc[s["benchmark"] == "terasort", "run_id"].unique())
    mine = runs[2]
    t = run.counters_beside(d, mine)
    assert len(t.columns) == len(runs) + 1 and t.columns[0].startswith("this run: ")
    c = s[(s["benchmark"] == "terasort") & s["metric"].str.startswith("counter.")]
    assert len(t) == c["metric"].nunique()
    name = "terasort.TaskCounter.CPU_MILLISECONDS"
    values = c[c["metric"] == f"counter.{name}"].set_index("run_id")["value"]
    assert t.loc[name].iloc[0] == values[mine]
    others = values.drop(mine)
    assert t.loc[name, "this / median of others"] == pytest.approx(values[mine] / others.median())
    assert sorted(t.loc[name].iloc[2:]) == sorted(others)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\nb\nc\nERROR boom\nd\ne\nf\ng", "b\nc\nERROR boom\nd\ne"),
        ("one\ntwo", "one\ntwo"),  # nothing went wrong: the end of the log
        ("x1\nCaused by: y\nx2\nx3\nx4\nx5\nx6\nJob failed\nz", "x1\nCaused by: y\nx2\nx3\n...\nx5\nx6\nJob failed\nz"),
    ],
)
def test_log_excerpt(text, expected):
    assert run.log_excerpt(text) == expected
