"""A job's resource profile (issue #53 item 1) from JobHistory output captured on two Hadoop versions.

tests/data/hadoop/history-<version>/ holds one WordCount job (2 MB, 2 reduces) of a real 1 master + 2
worker native cluster of that version, captured by `selfbench/capture_history.py`: the REST answers
(jh_*.json), the one-trip stream vbench reads them through (jh_stream.txt) and the client's output.
Each version's stream is cut (`history_fetch.split_stream`), parsed, turned into the samples a run
records (`history.job_samples`), written and read back as a campaign, and profiled
(`vbench.stats.profile`): the profile must hold what JobHistory said, on both versions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vbench.hadoop import history, history_fetch, jobs
from vbench.samples import append_records
from vbench.stats.campaign import load_campaign
from vbench.stats.profile import job_profiles

DATA = Path(__file__).resolve().parents[1] / "data" / "hadoop"
VERSIONS = ("3.3.6", "3.4.2")
#: What WordCount ran with (selfbench/capture_history.py's defaults).
SIZE_BYTES, REDUCES = 2 * 1024**2, 2


def captured(version: str, name: str) -> str:
    return (DATA / f"history-{version}" / name).read_text()


@pytest.fixture(params=VERSIONS)
def version(request) -> str:
    return request.param


def job_id_of(version: str) -> str:
    (job_id,) = jobs.job_ids(captured(version, "wordcount.stderr"))
    return job_id


def test_each_version_was_captured_from_a_cluster_of_that_version(version):
    # The client names the jar it ran (hadoop-mapreduce-examples-<version>.jar) in its log, or JobHistory
    # does in the job's configuration; the job id in the client's log is the one JobHistory answered for.
    job = json.loads(captured(version, "jh_job.json"))["job"]
    assert job["id"] == job_id_of(version) and job["state"] == "SUCCEEDED"
    readme = (DATA / f"history-{version}" / "README.md").read_text()
    assert f"Hadoop {version}" in readme


def test_the_one_trip_stream_gives_what_each_rest_answer_gives(version):
    job_id = job_id_of(version)
    resources = history_fetch.split_stream(captured(version, "jh_stream.txt"), job_id)
    assert all(r.status == 200 for r in resources.values())
    assert history_fetch.parse_job(resources, job_id) == history.parse_job(captured(version, "jh_job.json"))
    detail = history_fetch.parse_detail(resources, job_id)
    assert detail.counters == history.parse_counters(captured(version, "jh_counters.json"))
    tasks = history.parse_task_ids(captured(version, "jh_tasks.json"))
    assert len(resources) == 3 + len(tasks)  # the job, its counters, its tasks, each task's attempts
    for kind in ("map", "reduce"):
        one = history.parse_attempts(captured(version, f"jh_attempts_{kind}.json"))
        assert one and all(a in detail.attempts for a in one)


def _profile(version: str, tmp_path: Path):
    job_id = job_id_of(version)
    resources = history_fetch.split_stream(captured(version, "jh_stream.txt"), job_id)
    job = history_fetch.parse_job(resources, job_id)
    detail = history_fetch.parse_detail(resources, job_id)
    meta = {"experiment": "e", "platform": "native", "run_id": "r1", "block": 0, "round": 0, "repetition": 0}
    samples = history.job_samples("wordcount", "wordcount", job, detail.counters, detail.attempts, meta)
    append_records(tmp_path / "samples.jsonl", samples)
    (profile,) = job_profiles(load_campaign(tmp_path))
    return job, detail, profile


def test_the_profile_holds_what_jobhistory_counted(version, tmp_path):
    job, detail, p = _profile(version, tmp_path)
    c, counted = p.counters, detail.counters
    assert p.job_id == job.job_id and p.job_time_s == pytest.approx(job.elapsed_s) and p.job_time_s > 0
    # What the job used: CPU and GC time, bytes through HDFS and the local disks, the shuffle.
    assert c.cpu_ms == counted["TaskCounter.CPU_MILLISECONDS"] > 0
    assert c.gc_ms == counted["TaskCounter.GC_TIME_MILLIS"] >= 0
    assert c.hdfs_bytes_read >= SIZE_BYTES and 0 < c.hdfs_bytes_written < SIZE_BYTES
    assert c.local_bytes_written > 0 and c.local_bytes_read > 0
    assert c.shuffle_bytes > 0 and c.spilled_records > 0 and c.map_output_records > c.reduce_input_records > 0
    assert c.launched_maps == job.maps >= 1 and c.launched_reduces == job.reduces == REDUCES


def test_the_profile_says_where_the_time_went(version, tmp_path):
    job, detail, p = _profile(version, tmp_path)
    # VMware's two phases add up to the job; every reducer's three phases to its attempt.
    assert p.map_shuffle_phase_s > 0 and p.reduce_merge_phase_s > 0
    assert p.map_shuffle_phase_s + p.reduce_merge_phase_s == pytest.approx(p.job_time_s, abs=1e-6)
    succeeded = [a for a in detail.attempts if a.state == "SUCCEEDED"]
    assert p.map_attempts.n == sum(a.task_type == "MAP" for a in succeeded) == job.maps
    assert p.reduce_attempts.n == p.reducer_shuffle.n == p.reducer_merge.n == p.reducer_reduce.n == REDUCES
    for a in (a for a in succeeded if a.task_type == "REDUCE"):
        assert sum(a.phases_s.values()) == pytest.approx(a.elapsed_s, abs=1e-6)
        assert a.shuffle_finish_ms <= a.merge_finish_ms <= a.finish_ms
    assert 0 < p.map_attempts.max_s < p.job_time_s and 0 < p.reduce_attempts.max_s < p.job_time_s
