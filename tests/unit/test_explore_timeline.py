"""vbench.explore.timeline on committed runs: attempts per node with their times where recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vbench.explore import timeline

from tests.unit.explore_campaigns import committed

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"
LIU_RUN = "terasort-20261122T092623-47b599"  # native master and worker, a QEMU worker: speculation


def raw_attempts(name: str, run_id: str) -> list[dict]:
    out = []
    for line in (RAW / name / "samples.jsonl").read_text().splitlines():
        r = json.loads(line)
        if (
            r.get("kind") == "sample"
            and r["metadata"].get("run_id") == run_id
            and "attempt_id" in r["metadata"]
            and r["metric"].endswith(("_attempt_time", "_attempt_unsuccessful"))
        ):
            out.append(r)
    return out


@pytest.fixture(scope="module")
def liu():
    return timeline.timeline(committed("liu2012-terasort").samples, LIU_RUN)


def test_every_recorded_attempt_is_there_with_its_node_and_times(liu):
    raw = raw_attempts("liu2012-terasort", LIU_RUN)
    assert liu.timed and len(liu.attempts) == len(raw) == 18
    jobs = [json.loads(x) for x in (RAW / "liu2012-terasort" / "samples.jsonl").read_text().splitlines()]
    first_job = min(
        r["metadata"]["job_start_ms"]
        for r in jobs
        if r.get("metadata", {}).get("run_id") == LIU_RUN and r["metric"].endswith("_job_time")
    )
    assert liu.t0 == first_job / 1000
    by_id = liu.attempts.set_index("attempt_id")
    for r in raw:
        a, m = by_id.loc[r["metadata"]["attempt_id"]], r["metadata"]
        assert a["node"] == m["node"] and a["task_type"] == m["task_type"] and a["step"] == m["step"]
        if r["metric"].endswith("_attempt_time"):
            assert a["state"] == "SUCCEEDED" and a["elapsed_s"] == r["value"]
            assert a["start_s"] == pytest.approx((m["start_ms"] - first_job) / 1000)
            assert a["finish_s"] == pytest.approx((m["finish_ms"] - first_job) / 1000)
        else:
            assert a["state"] == m["attempt_state"] and a["diagnostics"] == m["diagnostics"]
            assert a["start_s"] != a["start_s"]  # NaN: JobHistory gives an unsuccessful attempt no times
    assert liu.nodes() == ["worker1", "worker2"]
    assert set(liu.attempts.loc[liu.attempts["node"] == "worker2", "platform"]) == {"qemu"}


def test_attempts_lie_within_their_job_and_reducer_phases_in_order(liu):
    jobs = liu.jobs.set_index("step")
    assert list(liu.jobs["step"]) == ["teragen", "terasort", "teravalidate"] and liu.jobs["start_s"].iloc[0] == 0
    ok = liu.attempts[liu.attempts["state"] == "SUCCEEDED"]
    for _, a in ok.iterrows():
        assert jobs.loc[a["step"], "start_s"] <= a["start_s"] < a["finish_s"] <= jobs.loc[a["step"], "finish_s"]
    reduces = ok[ok["task_type"] == "REDUCE"]
    assert len(reduces) == 3
    assert (
        (reduces["start_s"] <= reduces["shuffle_end_s"])
        & (reduces["shuffle_end_s"] <= reduces["merge_end_s"])
        & (reduces["merge_end_s"] <= reduces["finish_s"])
    ).all()


def test_speculative_races_mark_every_attempt_of_their_task(liu):
    raced = liu.attempts[liu.attempts["speculation"]]
    lost = liu.attempts[liu.attempts["diagnostics"].str.startswith("Speculation:")]
    assert len(lost) == 4 and set(lost["task_id"]) == set(raced["task_id"])
    for task, group in raced.groupby("task_id"):
        assert (group["state"] == "SUCCEEDED").sum() == 1, task  # the winner, and the copy that lost
    # A kill that was not a lost race (state missing from history) marks nothing.
    other = liu.attempts[
        (liu.attempts["state"] == "KILLED") & ~liu.attempts["diagnostics"].str.startswith("Speculation:")
    ]
    assert len(other) == 1 and not other["speculation"].any()


def test_runs_recorded_before_attempt_times_give_durations_only():
    d = committed("netmodes")  # measured before attempts carried their start times
    run_id = sorted(d.samples.loc[d.samples["benchmark"] == "terasort", "run_id"].unique())[0]
    tl = timeline.timeline(d.samples, run_id)
    raw = raw_attempts("netmodes", run_id)
    assert not tl.timed and tl.t0 is None and len(tl.attempts) == len(raw) == 9
    assert sorted(tl.attempts["elapsed_s"]) == sorted(r["value"] for r in raw)
    assert tl.attempts["start_s"].isna().all() and list(tl.jobs["step"]) == ["teragen", "terasort", "teravalidate"]


def test_timed_runs_are_those_with_a_real_timeline():
    for name in ("liu2012-terasort", "reference", "poll-interval", "netmodes"):
        s = committed(name).samples
        runs = s.loc[s["benchmark"] == "terasort", "run_id"].unique()
        assert timeline.timed_runs(s) == {r for r in runs if timeline.timeline(s, r).timed}
    assert timeline.timed_runs(committed("netmodes").samples) == set()
    reference = committed("reference").samples  # measured with attempt start times: every run is timed
    assert timeline.timed_runs(reference) == set(reference.loc[reference["benchmark"] == "terasort", "run_id"])


def test_a_run_without_attempts_has_an_empty_timeline():
    d = committed("reference")
    cpu = d.samples.loc[d.samples["benchmark"] == "cpu", "run_id"].iloc[0]
    tl = timeline.timeline(d.samples, cpu)
    assert tl.attempts.empty and tl.jobs.empty and not tl.timed


@pytest.mark.parametrize(
    ("attempt", "task"),
    [
        ("attempt_1795339400193_0002_m_000001_1", ("task_1795339400193_0002_m_000001", 1)),
        ("attempt_17_0001_r_000000_0", ("task_17_0001_r_000000", 0)),
        ("odd", ("odd", 0)),
    ],
)
def test_task_of(attempt, task):
    assert timeline.task_of(attempt) == task
