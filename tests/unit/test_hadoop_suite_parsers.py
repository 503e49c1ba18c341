"""The Hadoop suite's pure parts against real outputs captured on this project's testbed
(tests/data/hadoop/suite/README.md says how each was made)."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from vbench.benchmarks.hadoop import dfsio, mrbench, nnbench, pi, sort, terasort, wordcount
from vbench.benchmarks.hadoop.steps import START_TIME, JavaStep, ReadStep, StepOutput, UploadStep
from vbench.errors import ParamsError, JobFailed
from vbench.hadoop import history, jobs

DATA = Path(__file__).resolve().parents[1] / "data" / "hadoop" / "suite"


def out(name: str, seconds: float = 10.0, info=None) -> StepOutput:
    return StepOutput((DATA / f"{name}.stdout").read_text(), (DATA / f"{name}.stderr").read_text(), seconds, info or {})


def report_value(name: str, label: str) -> float:
    """Read `label: value` from a captured report with a regex, independently of the parsers."""
    m = re.search(re.escape(label) + r": ([0-9.]+)", (DATA / f"{name}.stderr").read_text())
    return float(m.group(1))


# -- TestDFSIO ------------------------------------------------------------------------------
def test_dfsio_parses_hadoops_own_throughput_and_io_rate():
    cfg = dfsio.Config(files=2, file_size_mb=8)
    samples = {s.metric: s for s in dfsio.parse({"write": out("dfsio_write"), "read": out("dfsio_read")}, cfg)}
    assert samples["write_throughput"].value == report_value("dfsio_write", "Throughput mb/sec") == 19.44
    assert samples["read_avg_io_rate"].value == report_value("dfsio_read", "Average IO rate mb/sec")
    assert samples["write_exec_time"].unit == "s" and samples["read_throughput"].unit == "MiB/s"
    assert set(samples) == set(dfsio.METRICS)


def test_dfsio_steps_use_a_run_directory_and_the_replication():
    steps = dfsio.steps(dfsio.Config(files=3, file_size_mb=5, replication=3), "/vbench/r1")
    assert [s.name for s in steps] == ["write", "read"]
    args = steps[0].args
    assert "-Dtest.build.data=/vbench/r1/dfsio" in args and "-Ddfs.replication=3" in args
    assert args[args.index("-nrFiles") + 1] == "3" and args[args.index("-size") + 1] == "5MB"


def test_dfsio_read_alone_also_writes_first():
    assert dfsio.Config(operations=("read",)).operations == ("write", "read")


def test_dfsio_output_without_report_fails():
    with pytest.raises(JobFailed, match="Throughput"):
        dfsio.parse({"write": StepOutput("", "garbage", 1.0)}, dfsio.Config(operations=("write",)))


# -- NNBench --------------------------------------------------------------------------------
def test_nnbench_with_exceptions_is_a_failed_run():
    # Captured with NNBench's default block size of 1 byte, which the NameNode refuses:
    # 2000 exceptions, 0 successful operations. Such a run must never become samples.
    with pytest.raises(JobFailed, match="2000 exceptions"):
        nnbench.parse(
            {"create_write": out("nnbench_create_write"), "open_read": out("nnbench_open_read")}, nnbench.Config()
        )


def test_nnbench_parses_a_successful_report():
    text = (DATA / "nnbench_ok_create_write.stderr").read_text()
    text_r = (DATA / "nnbench_ok_open_read.stderr").read_text()
    samples = {
        s.metric: s
        for s in nnbench.parse(
            {"create_write": StepOutput("", text, 1), "open_read": StepOutput("", text_r, 1)}, nnbench.Config()
        )
    }
    assert set(samples) == set(nnbench.METRICS)
    tps = float(re.search(r"TPS: Create/Write/Close: ([0-9.]+)", text).group(1))
    assert samples["create_write_tps"].value == tps
    lat = float(re.search(r"Avg Lat \(ms\): Open: ([0-9.]+)", text_r).group(1))
    assert samples["open_avg_latency"].value == lat and samples["open_avg_latency"].unit == "ms"


#: Excerpts of captured client logs (data/raw/costs-gvisor-network/raw/<run>/create_write.stderr):
#: native, whose maps waited at the barrier, and gVisor, whose maps began ~56 s after it while
#: NNBench counted none late.
NNBENCH_NATIVE = """\
2026-12-01 12:58:02,574 INFO hdfs.NNBench:                Start time: 2026-12-01 12:58:21,0
2026-12-01 12:58:10,563 INFO mapreduce.Job:  map 0% reduce 0%
2026-12-01 12:58:22,823 INFO mapreduce.Job:  map 50% reduce 0%
2026-12-01 12:58:22,937 INFO mapreduce.Job:  map 100% reduce 0%
2026-12-01 12:58:27,799 INFO hdfs.NNBench:         # maps that missed the barrier: 0
2026-12-01 12:58:27,800 INFO hdfs.NNBench:        RAW DATA: Longest Map Time (ms): 1436.0
"""
NNBENCH_GVISOR = """\
2026-12-01 13:04:17,866 INFO hdfs.NNBench:                Start time: 2026-12-01 13:04:34,0
2026-12-01 13:04:55,109 INFO mapreduce.Job:  map 0% reduce 0%
2026-12-01 13:05:36,132 INFO mapreduce.Job:  map 50% reduce 0%
2026-12-01 13:05:36,710 INFO mapreduce.Job:  map 100% reduce 0%
2026-12-01 13:06:01,506 INFO hdfs.NNBench:         # maps that missed the barrier: 0
2026-12-01 13:06:01,507 INFO hdfs.NNBench:        RAW DATA: Longest Map Time (ms): 6687.0
"""


def test_nnbench_ops_start_at_the_barrier_when_the_maps_waited():
    # 12:58:22.937 - 1.436 s - 12:58:21.0
    assert nnbench.ops_start_after_barrier("NameNode Benchmark 0.4\n", NNBENCH_NATIVE) == 0.501


def test_nnbench_ops_start_long_after_the_barrier_of_a_late_map_nnbench_did_not_count():
    # 13:05:36.710 - 6.687 s - 13:04:34.0, with "# maps that missed the barrier: 0" in the same log.
    late = nnbench.ops_start_after_barrier("", NNBENCH_GVISOR)
    assert late == 56.023 and late > 10


@pytest.mark.parametrize("missing", ["Start time:", "map 100% reduce 0%", "Longest Map Time"])
def test_nnbench_output_without_a_line_has_no_barrier_reading(missing):
    text = "".join(line for line in NNBENCH_GVISOR.splitlines(keepends=True) if missing not in line)
    assert nnbench.ops_start_after_barrier("", text) is None


def test_nnbench_log_cut_inside_the_longest_map_has_no_barrier_reading():
    # "...Longest Map Time (ms): 66" of "6687.0": a killed client's last line is no number.
    assert nnbench.ops_start_after_barrier("", NNBENCH_GVISOR[: -len("87.0\n")]) is None


def test_nnbench_barrier_milliseconds_are_javas_unpadded_count():
    def barrier(stamp):
        return nnbench.barrier_time([f"2026-12-01 13:04:17,866 INFO hdfs.NNBench:   Start time: {stamp}"])

    assert barrier("2026-12-01 13:04:34,0") == datetime(2026, 12, 1, 13, 4, 34)
    assert barrier("2026-12-01 13:04:34,123") == datetime(2026, 12, 1, 13, 4, 34, 123000)
    assert barrier("2026-12-01 13:04:34,5") == datetime(2026, 12, 1, 13, 4, 34, 5000)  # 5 ms, not 500
    assert barrier("2026-12-01 13:04:34,1234") is None
    text = NNBENCH_GVISOR.replace("13:04:34,0", "13:04:34,123")
    assert nnbench.ops_start_after_barrier("", text) == 55.9


def test_nnbench_reads_no_time_from_a_line_that_swallowed_the_one_before():
    # A lost newline glues "map 50%" (13:05:36,132) to "map 100%": its time is not the maps' end.
    glued = NNBENCH_GVISOR.replace("map 50% reduce 0%\n", "map 50% reduce 0%#")
    assert nnbench.ops_start_after_barrier("", glued) is None


def test_nnbench_parse_gives_the_barrier_reading_only_where_the_log_has_it():
    text = (DATA / "nnbench_ok_create_write.stderr").read_text()
    text_r = (DATA / "nnbench_ok_open_read.stderr").read_text()
    no_longest = "".join(line for line in text_r.splitlines(keepends=True) if "Longest Map Time" not in line)
    samples = nnbench.parse(
        {"create_write": StepOutput("", text, 1), "open_read": StepOutput("", no_longest, 1)}, nnbench.Config()
    )
    # 01:27:06.929 - 2.643 s - 01:26:59.0, on every create/write sample, beside NNBench's own count
    written = [s for s in samples if s.metric.startswith("create_write") or s.metric == "close_avg_latency"]
    assert written and all(s.metadata[nnbench.BARRIER_KEY] == 5.286 for s in written)
    assert all(s.metadata["maps_missed_barrier"] == 0 for s in written)
    read = [s for s in samples if s.metric.startswith("open")]
    assert read and all(nnbench.BARRIER_KEY not in s.metadata for s in read)
    # metadata, not a metric: no ratio of a signed lateness to native's
    assert not any("barrier" in m for m in nnbench.METRICS)


def test_nnbench_steps_put_a_barrier_and_a_valid_block_size():
    steps = nnbench.steps(nnbench.Config(barrier_s=40), "/vbench/r")
    assert all(START_TIME in s.args and s.barrier_s == 40 for s in steps)
    assert steps[0].args[steps[0].args.index("-blockSize") + 1] == str(1024 * 1024)


# -- MRBench --------------------------------------------------------------------------------
def test_mrbench_average_job_time():
    samples = mrbench.parse({"mrbench": out("mrbench")}, mrbench.Config(runs=2, maps=2, reduces=1))
    assert [(s.metric, s.value, s.unit) for s in samples] == [("avg_job_time", 37.85, "s")]


def test_mrbench_refuses_a_result_for_other_maps():
    with pytest.raises(JobFailed, match="maps"):
        mrbench.parse({"mrbench": out("mrbench")}, mrbench.Config(maps=24, reduces=8))


# -- Pi -------------------------------------------------------------------------------------
def test_pi_time_and_estimate():
    samples = {s.metric: s for s in pi.parse({"pi": out("pi", seconds=33.0)}, pi.Config(maps=2, samples=1000))}
    assert samples["reported_time"].value == 30.308
    assert samples["job_wall_time"].value == 33.0
    est = float(re.search(r"Estimated value of Pi is ([0-9.]+)", (DATA / "pi.stdout").read_text()).group(1))
    assert samples["abs_error"].metadata["estimate"] == est


def test_pi_wrong_estimate_fails():
    bad = StepOutput("Job Finished in 3.0 seconds\nEstimated value of Pi is 3.50000000000000000000\n", "", 3.0)
    with pytest.raises(JobFailed, match="from pi"):
        pi.parse({"pi": bad}, pi.Config())


# -- Sort -----------------------------------------------------------------------------------
def test_sort_is_valid_only_with_sortvalidators_success():
    outputs = {
        "randomwriter": out("randomwriter", 27.7),
        "sort": out("sort", 34.0),
        "validate": out("sortvalidate", 20.0),
    }
    samples = {s.metric: s.value for s in sort.parse(outputs, sort.Config(size_mb=8))}
    assert samples["sort_time"] == 34.0 and samples["sort_throughput"] == pytest.approx(8 / 34.0)
    broken = {**outputs, "validate": StepOutput("", "java.io.IOException: Mismatch", 5.0)}
    with pytest.raises(JobFailed, match="SortValidator"):
        sort.parse(broken, sort.Config(size_mb=8))


def test_sort_steps_split_bytes_over_maps():
    steps = sort.steps(sort.Config(size_mb=10, maps=3), "/r")
    total = 10 * 1024**2
    assert f"-Dmapreduce.randomwriter.totalbytes={total}" in steps[0].args
    assert f"-Dmapreduce.randomwriter.bytespermap={-(-total // 3)}" in steps[0].args
    assert steps[-1].job_details is False


# -- WordCount ------------------------------------------------------------------------------
def test_wordcount_counts_must_add_up_to_the_corpus():
    counts = (DATA / "wordcount_output.stdout").read_text()
    # The captured input was 2000 lines of an 11-word sentence.
    assert wordcount.total_count(counts) == 22000
    outputs = {
        "upload": StepOutput("", "", 2.0, {"words": 22000, "bytes": 104000}),
        "wordcount": StepOutput("", "", 24.0),
        "counts": StepOutput(counts, "", 1.0),
    }
    samples = {s.metric: s.value for s in wordcount.parse(outputs, wordcount.Config(size_mb=1))}
    assert samples["job_wall_time"] == 24.0
    lost = {**outputs, "upload": StepOutput("", "", 2.0, {"words": 22001, "bytes": 104000})}
    with pytest.raises(JobFailed, match="22000"):
        wordcount.parse(lost, wordcount.Config(size_mb=1))


def test_wordcount_steps_upload_then_count_then_read():
    steps = wordcount.steps(wordcount.Config(size_mb=1), "/r")
    assert [type(s) for s in steps] == [UploadStep, JavaStep, ReadStep]
    assert steps[1].args[-2:] == ("/r/input", "/r/output")


# -- TeraSort -------------------------------------------------------------------------------
def test_terasort_gate_and_throughput():
    valid = StepOutput((DATA.parent / "teravalidate_report_valid.txt").read_text(), "", 3.0)
    outputs = {
        "teragen": StepOutput("", "", 20.0),
        "terasort": StepOutput("", "", 32.0),
        "teravalidate": StepOutput("", "", 15.0),
        "report": valid,
    }
    samples = {s.metric: s.value for s in terasort.parse(outputs, terasort.Config(size_mb=64))}
    assert samples["terasort_time"] == 32.0 and samples["terasort_throughput"] == 2.0
    bad = {**outputs, "report": StepOutput((DATA.parent / "teravalidate_report_misorder.txt").read_text(), "", 1)}
    with pytest.raises(JobFailed, match="TeraValidate"):
        terasort.parse(bad, terasort.Config())


def test_terasort_steps_carry_output_replication():
    steps = terasort.steps(terasort.Config(size_mb=1, output_replication=3), "/r")
    assert "-Dmapreduce.terasort.output.replication=3" in steps[1].args
    assert steps[0].args[-2] == str(1024**2 // 100)


def test_terasort_task_jit_reaches_the_sorts_jvms_alone_as_admin_options():
    gen, sort, _ = terasort.steps(terasort.Config(size_mb=1, task_jit="c1", gate="output_size"), "/r")
    c1 = "-XX:TieredStopAtLevel=1"
    admin = [a for a in sort.args if "admin" in a]
    assert admin == [
        f"-Dmapreduce.admin.map.child.java.opts={terasort.ADMIN_TASK_OPTS} {c1}",
        f"-Dmapreduce.admin.reduce.child.java.opts={terasort.ADMIN_TASK_OPTS} {c1}",
        f"-Dyarn.app.mapreduce.am.admin-command-opts={c1}",
    ]
    assert sort.args[-2:] == ("/r/gen", "/r/sorted")  # the -D options before the paths
    assert not any(c1 in a for a in gen.args)  # TeraGen keeps the JVM's default
    tiered = terasort.steps(terasort.Config(size_mb=1, gate="output_size"), "/r")[1]
    assert not any("admin" in a for a in tiered.args)
    with pytest.raises(ParamsError, match="task_jit: expected one of tiered, c1"):
        terasort.Config(task_jit="c2")


def test_terasort_generate_only_is_teragen_alone():
    cfg = terasort.Config(size_mb=2048, replication=3, generate_only=True)
    (gen,) = terasort.steps(cfg, "/r")
    assert gen.name == "teragen" and "-Ddfs.replication=3" in gen.args and gen.args[-1] == "/r/gen"
    samples = {s.metric: s.value for s in terasort.parse({"teragen": StepOutput("", "", 64.0)}, cfg)}
    assert samples == {"teragen_time": 64.0, "teragen_throughput": 32.0}


# -- JobHistory -----------------------------------------------------------------------------
def test_history_job_counters_and_reducer_phases():
    job = history.parse_job((DATA / "jh_job.json").read_text())
    raw = json.loads((DATA / "jh_job.json").read_text())["job"]
    assert job.elapsed_s == (raw["finishTime"] - raw["startTime"]) / 1000
    counters = history.parse_counters((DATA / "jh_counters.json").read_text())
    assert counters["TaskCounter.REDUCE_SHUFFLE_BYTES"] > 0
    assert "FileSystemCounter.HDFS_BYTES_WRITTEN" in counters
    attempts = history.parse_attempts((DATA / "jh_attempts_reduce.json").read_text())
    (r,) = attempts
    a = json.loads((DATA / "jh_attempts_reduce.json").read_text())["taskAttempts"]["taskAttempt"][0]
    assert r.node == a["nodeHttpAddress"].split(":")[0]
    assert r.phases_s == {
        "shuffle": a["elapsedShuffleTime"] / 1000,
        "merge": a["elapsedMergeTime"] / 1000,
        "reduce": a["elapsedReduceTime"] / 1000,
    }
    split = history.phase_split(job, attempts)
    assert split["map_shuffle"] + split["reduce_merge"] == pytest.approx(job.elapsed_s)


def test_history_samples_name_the_node_of_each_attempt():
    job = history.parse_job((DATA / "jh_job.json").read_text())
    attempts = history.parse_attempts((DATA / "jh_attempts_map.json").read_text()) + history.parse_attempts(
        (DATA / "jh_attempts_reduce.json").read_text()
    )
    samples = history.job_samples("wordcount", "wordcount", job, {}, attempts, {})
    per_attempt = [s for s in samples if "attempt_id" in s.metadata]
    assert {s.metadata["node"] for s in per_attempt} <= {"worker1", "worker2"}
    assert {s.metric for s in per_attempt} >= {"map_attempt_time", "reducer_shuffle_time", "reducer_merge_time"}
    job_level = {s.metric for s in samples if "attempt_id" not in s.metadata}
    assert {"wordcount_job_time", "wordcount_map_shuffle_phase_time", "wordcount_reduce_merge_phase_time"} <= job_level


def test_unsuccessful_attempts_are_counted_against_their_node_with_why():
    # Modelled on JobHistory's attempts of a map whose container on a TCG VM never launched.
    job = history.parse_job((DATA / "jh_job.json").read_text())
    attempts = history.parse_attempts((DATA / "jh_attempts_failed.json").read_text())
    assert [a.state for a in attempts] == ["FAILED", "SUCCEEDED", "KILLED"]
    samples = history.job_samples("terasort", "teragen", job, {}, attempts, {})
    bad = [s for s in samples if s.metric == "map_attempt_unsuccessful"]
    assert [(s.metadata["node"], s.metadata["attempt_state"], s.value, s.unit) for s in bad] == [
        ("worker2", "FAILED", 1, "count"),
        ("worker1", "KILLED", 1, "count"),
    ]
    assert "socket timeout" in bad[0].metadata["diagnostics"]
    assert len(bad[0].metadata["diagnostics"]) <= history.DIAGNOSTICS_CHARS
    # The failed attempt never started: no time is made up for it.
    timed = [s for s in samples if s.metric == "map_attempt_time"]
    assert [s.metadata["node"] for s in timed] == ["worker1"]


def test_job_ids_in_order_without_duplicates():
    log = (DATA / "mrbench.stderr").read_text()
    ids = jobs.job_ids(log)
    assert len(ids) == 2 and ids[0] < ids[1]
