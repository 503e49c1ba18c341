"""vbench.stats.profile: a Hadoop job's resource profile from its JobHistory samples, and each
platform's median profile with its ratio to the baseline (issue #53 item 1)."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import pandas as pd
import pytest

from vbench.commands import campaign_cmd
from vbench.errors import ParamsError
from vbench.hadoop.history import COUNTERS
from vbench.samples import Failure, Sample, append_records
from vbench.stats import profile
from vbench.stats.campaign import load_campaign
from vbench.stats.profile import COUNTER_FIELDS, TaskTimes

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"

#: Every counter JobHistory gives vbench, as a job's samples would hold it.
ALL_COUNTERS = {
    "TaskCounter.CPU_MILLISECONDS": 41_000,
    "TaskCounter.GC_TIME_MILLIS": 900,
    "FileSystemCounter.HDFS_BYTES_READ": 134_217_728,
    "FileSystemCounter.HDFS_BYTES_WRITTEN": 134_217_700,
    "FileSystemCounter.FILE_BYTES_READ": 140_000_000,
    "FileSystemCounter.FILE_BYTES_WRITTEN": 280_000_000,
    "TaskCounter.REDUCE_SHUFFLE_BYTES": 139_000_000,
    "TaskCounter.MAP_OUTPUT_BYTES": 136_000_000,
    "TaskCounter.MAP_OUTPUT_RECORDS": 1_342_177,
    "TaskCounter.REDUCE_INPUT_RECORDS": 1_342_177,
    "TaskCounter.SPILLED_RECORDS": 2_684_354,
    "JobCounter.TOTAL_LAUNCHED_MAPS": 3,
    "JobCounter.TOTAL_LAUNCHED_REDUCES": 1,
    "JobCounter.DATA_LOCAL_MAPS": 2,
    "JobCounter.RACK_LOCAL_MAPS": 1,
    "JobCounter.OTHER_LOCAL_MAPS": 0,
}


def _job(
    run_id: str,
    platform: str,
    *,
    step: str = "terasort",
    job_id: str | None = None,
    job_time: float = 60.0,
    counters: dict[str, float] = ALL_COUNTERS,
    maps: tuple[float, ...] = (10.0, 14.0),
    failed_maps: int = 1,
    reducers: tuple[tuple[float, float, float], ...] = ((8.0, 2.0, 5.0),),
    warmup: bool = False,
    block: int = 0,
    t: float = 1000.0,
    machine: dict[str, float] | None = None,
) -> list[Sample]:
    """The samples vbench.hadoop.history.job_samples gives one job, stamped as the runner stamps them
    (`machine`: the machine's CPU over the step, as vbench.benchmarks.hadoop.execute stamps it)."""
    run = {
        "experiment": "platforms",
        "platform": platform,
        "run_id": run_id,
        "block": block,
        "round": 0,
        "repetition": block,
        "warmup": warmup,
        "cell_id": f"b{block}/{platform}/terasort" + ("/warmup" if warmup else ""),
        "size_mb": 128,
    }
    base = {**run, "step": step, "job_id": job_id or f"job_{run_id}_{step}", **(machine or {})}
    out = [
        Sample("terasort", f"{step}_job_time", job_time, "s", base, timestamp=t),
        Sample("terasort", f"{step}_map_shuffle_phase_time", job_time * 0.6, "s", base, timestamp=t),
        Sample("terasort", f"{step}_reduce_merge_phase_time", job_time * 0.4, "s", base, timestamp=t),
        # What the benchmark's parser gives beside JobHistory's record: not a job's sample.
        Sample("terasort", f"{step}_time", job_time + 3, "s", run, timestamp=t),
    ]
    unit = dict(COUNTERS)
    out += [Sample("terasort", f"counter.{step}.{k}", v, unit[k], base, timestamp=t) for k, v in counters.items()]
    for i, s in enumerate(maps):
        meta = {**base, "attempt_id": f"{run_id}_m{i}", "task_type": "MAP", "node": "worker1"}
        out.append(Sample("terasort", "map_attempt_time", s, "s", meta, timestamp=t))
    for i in range(failed_maps):
        meta = {**base, "attempt_id": f"{run_id}_mf{i}", "task_type": "MAP", "attempt_state": "FAILED"}
        out.append(Sample("terasort", "map_attempt_unsuccessful", 1, "count", meta, timestamp=t))
    for i, (shuffle, merge, reduce) in enumerate(reducers):
        meta = {**base, "attempt_id": f"{run_id}_r{i}", "task_type": "REDUCE", "node": "worker2"}
        out.append(Sample("terasort", "reduce_attempt_time", shuffle + merge + reduce, "s", meta, timestamp=t))
        out += [
            Sample("terasort", f"reducer_{phase}_time", v, "s", meta, timestamp=t)
            for phase, v in (("shuffle", shuffle), ("merge", merge), ("reduce", reduce))
        ]
    return out


def _campaign(tmp_path: Path, records: list) -> Path:
    append_records(tmp_path / "samples.jsonl", records)
    return tmp_path


def _by_run(profiles) -> dict[str, profile.JobProfile]:
    return {p.run.run_id: p for p in profiles}


def _row(frame: pd.DataFrame, **where) -> pd.Series:
    mask = pd.Series(True, index=frame.index)
    for k, v in where.items():
        mask &= frame[k] == v
    rows = frame[mask]
    assert len(rows) == 1, f"{len(rows)} rows for {where}"
    return rows.iloc[0]


# --- constructed records -------------------------------------------------------------------------


def test_every_counter_jobhistory_gives_has_a_profile_field():
    assert set(COUNTER_FIELDS.values()) == set(COUNTERS)  # units: history.COUNTERS


def test_a_job_with_every_counter(tmp_path):
    profiles = profile.load_profiles(_campaign(tmp_path, _job("r1", "native")))

    assert len(profiles) == 1
    p = profiles[0]
    assert p.key == ("r1", "terasort", "job_r1_terasort")
    assert p.run == profile.RunIdentity(
        run_id="r1",
        experiment="platforms",
        platform="native",
        benchmark="terasort",
        cell="128MB",
        cell_id="b0/native/terasort",
        block=0,
        round=0,
        warmup=False,
    )
    assert (p.job_time_s, p.map_shuffle_phase_s, p.reduce_merge_phase_s) == (60.0, 36.0, 24.0)
    c = p.counters
    assert (c.cpu_ms, c.gc_ms, c.shuffle_bytes, c.spilled_records) == (41_000, 900, 139_000_000, 2_684_354)
    assert (c.hdfs_bytes_read, c.local_bytes_written) == (134_217_728, 280_000_000)
    assert (c.launched_maps, c.launched_reduces, c.data_local_maps, c.other_local_maps) == (3, 1, 2, 0)
    assert p.map_attempts == TaskTimes(2, 12.0, 14.0)
    assert p.reduce_attempts == TaskTimes(1, 15.0, 15.0)
    assert (p.reducer_shuffle, p.reducer_merge, p.reducer_reduce) == (
        TaskTimes(1, 8.0, 8.0),
        TaskTimes(1, 2.0, 2.0),
        TaskTimes(1, 5.0, 5.0),
    )
    # Successful and failed map attempts are the attempts JobHistory counts as launched.
    assert p.unsuccessful_map_attempts == 1 and p.map_attempts.n + p.unsuccessful_map_attempts == c.launched_maps
    assert p.unsuccessful_reduce_attempts == 0


def test_missing_counters_are_none_never_zero(tmp_path):
    some = {k: v for k, v in ALL_COUNTERS.items() if not k.startswith("JobCounter.") and "GC" not in k}
    records = _job("r1", "native", step="teragen", counters=some, reducers=())
    p = profile.load_profiles(_campaign(tmp_path, records))[0]

    assert p.step == "teragen" and p.counters.cpu_ms == 41_000
    assert p.counters.gc_ms is None and p.counters.launched_maps is None and p.counters.rack_local_maps is None
    assert p.reduce_attempts == TaskTimes(0, None, None) and p.reducer_merge.median_s is None
    row = profile.profiles_frame([p]).iloc[0]
    assert row["cpu_ms"] == 41_000 and pd.isna(row["gc_ms"]) and pd.isna(row["launched_maps"])
    assert row["reduce_attempts_n"] == 0 and pd.isna(row["reduce_attempts_median_s"])


def test_the_machine_cpu_over_the_step_is_the_profiles_and_none_where_not_read(tmp_path):
    read = {"machine_cpu_s": 95.5, "machine_wall_s": 61.25, "sentry_cpu_s": 30.5}
    records = _job("r1", "gvisor", machine=read) + _job("r2", "native")
    by_run = _by_run(profile.load_profiles(_campaign(tmp_path, records)))

    assert (by_run["r1"].machine_cpu_s, by_run["r1"].machine_wall_s, by_run["r1"].sentry_cpu_s) == (95.5, 61.25, 30.5)
    assert (
        by_run["r2"].machine_cpu_s is None and by_run["r2"].machine_wall_s is None and by_run["r2"].sentry_cpu_s is None
    )
    frame = profile.profiles_frame(by_run.values())
    assert _row(frame, run_id="r1")["machine_cpu_s"] == 95.5 and pd.isna(_row(frame, run_id="r2")["machine_cpu_s"])
    assert profile.RESOURCE_UNITS["machine_cpu_s"] == "s"


def test_the_machines_kernel_entries_over_the_step_are_counts_of_the_profile(tmp_path):
    read = {"machine_cpu_s": 26.0, "machine_wall_s": 30.0, "machine_syscalls": 645_000, "machine_faults": 355_000}
    records = _job("r1", "native", machine={**read, "machine_switches": 78_000}) + _job("r2", "native", machine=read)
    by_run = _by_run(profile.load_profiles(_campaign(tmp_path, records)))
    r1, r2 = by_run["r1"], by_run["r2"]
    assert (r1.machine_syscalls, r1.machine_faults, r1.machine_switches) == (645_000, 355_000, 78_000)
    assert r2.machine_switches is None and r2.machine_syscalls == 645_000  # a field not read stays None
    assert r1.resources()["machine_faults"] == 355_000
    assert {profile.RESOURCE_UNITS[f] for f in ("machine_syscalls", "machine_faults", "machine_switches")} == {"count"}


def test_profiles_frame_has_one_row_per_job_with_identity_and_resources(tmp_path):
    records = _job("r1", "native") + _job("r1", "native", step="teravalidate", job_time=9.0)
    frame = profile.profiles_frame(profile.load_profiles(_campaign(tmp_path, records)))

    assert list(frame.columns) == profile.IDENTITY_COLUMNS + list(profile.RESOURCE_UNITS)
    assert sorted(frame["step"]) == ["terasort", "teravalidate"]
    assert _row(frame, step="teravalidate")["job_time_s"] == 9.0
    assert _row(frame, step="terasort")["launched_maps"] == 3 and str(frame["launched_maps"].dtype) == "Int64"


def test_several_jobs_of_one_step_are_a_profile_each(tmp_path):
    """MRBench runs its small job several times in one step: one profile per JobHistory job."""
    records = _job("r1", "native", step="mrbench", job_id="job_1") + _job(
        "r1", "native", step="mrbench", job_id="job_2", job_time=30.0
    )
    profiles = profile.load_profiles(_campaign(tmp_path, records))
    assert [(p.job_id, p.job_time_s, p.map_attempts.n) for p in profiles] == [("job_1", 60.0, 2), ("job_2", 30.0, 2)]


def test_a_failed_run_gives_no_profile(tmp_path):
    records = _job("ok", "native") + _job("failed", "native", job_time=999.0)[:5]
    records += [
        Failure("terasort", "terasort: exit 1", metadata={"run_id": "failed", "platform": "native"}, timestamp=1.0),
        Failure("terasort", "configuration failed", metadata={"platform": "native"}, timestamp=2.0),
    ]
    campaign = load_campaign(_campaign(tmp_path, records))
    assert "failed" in set(campaign.samples["run_id"])  # the partial run's samples are read...

    profiles = profile.job_profiles(campaign)
    assert [p.run.run_id for p in profiles] == ["ok"]  # ...but make no profile
    assert profile.failed_runs(campaign.failures) == {"failed"}


def test_medians_leave_warm_up_runs_out_and_ratios_are_to_the_baseline(tmp_path):
    cpu = "TaskCounter.CPU_MILLISECONDS"
    records = [
        *_job("n1", "native", job_time=50.0, counters={**ALL_COUNTERS, cpu: 100}, block=0),
        *_job("n2", "native", job_time=70.0, counters={**ALL_COUNTERS, cpu: 200}, block=1),
        *_job("warm", "native", job_time=500.0, counters={**ALL_COUNTERS, cpu: 9000}, warmup=True),
        *_job("g1", "gvisor", job_time=180.0, counters={**ALL_COUNTERS, cpu: 300}, maps=(30.0, 40.0, 50.0)),
    ]
    profiles = profile.load_profiles(_campaign(tmp_path, records))
    assert _by_run(profiles)["warm"].run.warmup is True

    frame = profile.platform_frame(profiles, baseline="native")
    native = _row(frame, platform="native", resource="job_time_s")
    assert (native["jobs"], native["recorded"], native["median"], native["ratio"]) == (2, 2, 60.0, 1.0)
    gvisor = _row(frame, platform="gvisor", resource="job_time_s")
    assert gvisor["median"] == 180.0 and gvisor["ratio"] == pytest.approx(3.0) and gvisor["baseline_median"] == 60.0
    assert _row(frame, platform="gvisor", resource="cpu_ms")["ratio"] == pytest.approx(2.0)
    assert _row(frame, platform="gvisor", resource="map_attempts_median_s")["ratio"] == pytest.approx(40.0 / 12.0)
    # The baseline comes first; every row of the group names it.
    assert list(dict.fromkeys(frame["platform"])) == ["native", "gvisor"]
    assert set(frame["baseline"]) == {"native"}


def test_a_ratio_that_cannot_be_taken_is_none_with_a_note(tmp_path):
    gc = "TaskCounter.GC_TIME_MILLIS"
    without_gc = {k: v for k, v in ALL_COUNTERS.items() if k != gc}
    records = [
        *_job("n1", "native", counters={**ALL_COUNTERS, "JobCounter.OTHER_LOCAL_MAPS": 0}),
        *_job("l1", "lxc", counters=without_gc),
        *_job("g1", "gvisor", counters={**without_gc, gc: 50}),
    ]
    profiles = profile.load_profiles(_campaign(tmp_path, records))
    frame = profile.platform_frame(profiles)

    zero = _row(frame, platform="lxc", resource="other_local_maps")
    assert pd.isna(zero["ratio"]) and "median is 0" in zero["note"]
    missing_here = _row(frame, platform="lxc", resource="gc_ms")
    assert pd.isna(missing_here["median"]) and pd.isna(missing_here["ratio"]) and missing_here["note"] == "not recorded"
    # Without native: no ratios at all, and the group says why.
    alone = profile.platform_frame([p for p in profiles if p.run.platform != "native"])
    assert alone["ratio"].isna().all() and set(alone["note"]) == {"no compared native jobs in this group"}


def test_format_shows_each_platform_median_and_ratio(tmp_path):
    records = _job("n1", "native", job_time=60.0) + _job("g1", "gvisor", job_time=180.0)
    text = profile.format_platform_table(profile.platform_frame(profile.load_profiles(_campaign(tmp_path, records))))

    head, *lines = text.splitlines()
    assert head == "terasort / terasort [128MB] (experiment platforms): compared jobs native 1, gvisor 1"
    job_time = next(line for line in lines if line.split()[0] == "job_time_s")
    assert job_time.split() == ["job_time_s", "s", "60.0", "180.0", "(3.00x)"]
    shuffle = next(line for line in lines if line.split()[0] == "shuffle_bytes")
    assert shuffle.split()[1:3] == ["MiB", f"{139_000_000 / 2**20:.1f}"]
    records = _job("n1", "native", counters={**ALL_COUNTERS, "TaskCounter.REDUCE_SHUFFLE_BYTES": 3000})
    small = profile.format_platform_table(
        profile.platform_frame(profile.load_profiles(_campaign(tmp_path / "s", records)))
    )
    assert next(line for line in small.splitlines() if "shuffle_bytes" in line).split()[1:] == ["KiB", "2.9"]
    assert profile.format_platform_table(profile.platform_frame([])) == "no Hadoop jobs with JobHistory samples\n"


# --- the command ----------------------------------------------------------------------------------


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="vbench")
    campaign_cmd.register(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["campaign", *argv])


def test_campaign_profile_prints_the_table_and_writes_its_csv(tmp_path, capsys):
    campaign = _campaign(tmp_path, _job("n1", "native") + _job("l1", "lxc", job_time=66.0))
    args = _parse("profile", str(campaign), "--baseline", "native", "--out", str(tmp_path / "p.csv"))
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("terasort / terasort [128MB]") and "66.0 (1.10x)" in out
    assert set(pd.read_csv(tmp_path / "p.csv")["platform"]) == {"native", "lxc"}


def test_campaign_profile_refuses_a_baseline_that_ran_nothing(tmp_path):
    args = _parse("profile", str(_campaign(tmp_path, _job("n1", "native"))), "--baseline", "kvm")
    with pytest.raises(ParamsError, match="--baseline"):
        args.func(args)


def test_campaign_profile_finds_a_campaign_by_name_under_data(tmp_path):
    _campaign(tmp_path / "raw" / "mine", _job("n1", "native"))
    assert campaign_cmd.measured_dir(_parse("profile", "mine", "--data", str(tmp_path))) == tmp_path / "raw" / "mine"
    with pytest.raises(ParamsError):
        campaign_cmd.measured_dir(_parse("profile", "../elsewhere", "--data", str(tmp_path)))


# --- committed campaigns ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sandbox():
    campaign = load_campaign(RAW / "sandbox")
    return campaign, profile.job_profiles(campaign)


@pytest.fixture(scope="module")
def lean():
    campaign = load_campaign(RAW / "lean")
    return campaign, profile.job_profiles(campaign)


def _compared_runs(campaign, metric: str) -> pd.DataFrame:
    s = campaign.samples
    rows = s[(s["metric"] == metric) & ~s["warmup"].astype(bool)]
    assert len(rows), f"no {metric} samples"
    return rows


@pytest.mark.parametrize("which", ["sandbox", "lean"])
def test_every_compared_terasort_run_has_a_whole_profile(which, request):
    campaign, profiles = request.getfixturevalue(which)
    runs = _compared_runs(campaign, "terasort.job_time")
    by_key = {(p.run.run_id, p.step): p for p in profiles}
    assert len(by_key) == len(profiles)  # one job per run and step here

    for run_id, job_time in zip(runs["run_id"], runs["value"]):
        p = by_key[(run_id, "terasort")]
        assert p.job_time_s == job_time and not p.run.warmup
        c = p.counters
        recorded = (c.cpu_ms, c.gc_ms, c.hdfs_bytes_read, c.hdfs_bytes_written, c.local_bytes_read)
        recorded += (c.local_bytes_written, c.shuffle_bytes, c.spilled_records, c.launched_maps, c.data_local_maps)
        assert None not in recorded, p
        assert c.launched_maps == p.map_attempts.n + p.unsuccessful_map_attempts
        assert c.launched_reduces == p.reduce_attempts.n + p.unsuccessful_reduce_attempts
        assert p.reducer_merge.n == p.reduce_attempts.n > 0
        assert p.map_shuffle_phase_s + p.reduce_merge_phase_s == pytest.approx(p.job_time_s, abs=0.01)


def test_sandbox_ratio_rows_for_every_platform_and_gvisor_slower(sandbox):
    _, profiles = sandbox
    frame = profile.platform_frame(profiles, baseline="native")
    tera = frame[(frame["benchmark"] == "terasort") & (frame["step"] == "terasort")]

    assert set(tera["platform"]) == {"native", "lxc", "oci", "gvisor"}
    assert set(tera["jobs"]) == {3}
    job = tera[tera["resource"] == "job_time_s"].set_index("platform")
    # The sandbox study: gVisor's TeraSort about 3x native's, LXC's and OCI's near 1.
    assert job.loc["gvisor", "ratio"] > 2.0
    assert 0.8 < job.loc["lxc", "ratio"] < 1.25 and 0.8 < job.loc["oci", "ratio"] < 1.25
    # The same job on every platform: the data it reads and writes does not change.
    hdfs = tera[tera["resource"] == "hdfs_bytes_read"].set_index("platform")["ratio"]
    assert hdfs.to_dict() == pytest.approx({"native": 1.0, "lxc": 1.0, "oci": 1.0, "gvisor": 1.0})
    # Every Hadoop job of the suite has a group: TeraGen/Sort/Validate, WordCount, NNBench, DFSIO.
    steps = set(zip(frame["benchmark"], frame["step"]))
    assert {
        ("terasort", "teragen"),
        ("wordcount", "wordcount"),
        ("nnbench", "create_write"),
        ("dfsio", "write"),
    } <= steps


def test_sandbox_medians_are_the_statistics_stage_job_times(sandbox):
    campaign, profiles = sandbox
    frame = profile.platform_frame(profiles)
    runs = _compared_runs(campaign, "terasort.job_time")
    for platform, times in runs.groupby("platform")["value"]:
        row = _row(frame, benchmark="terasort", step="terasort", platform=platform, resource="job_time_s")
        assert row["median"] == statistics.median(times)


def test_lean_leaves_its_warm_up_runs_out_and_compares_the_aa_copy(lean):
    campaign, profiles = lean
    warm = [p for p in profiles if p.run.warmup and p.step == "terasort"]
    assert warm and all(p.run.cell_id.endswith("/warmup") for p in warm)

    frame = profile.platform_frame(profiles)
    tera = frame[(frame["step"] == "terasort") & (frame["resource"] == "job_time_s")].set_index("platform")
    compared = _compared_runs(campaign, "terasort.job_time").groupby("platform")["run_id"].nunique()
    assert tera["jobs"].to_dict() == compared.to_dict()
    assert set(tera.index) == {"native", "native~aa", "lxc"}
    assert tera.loc["native~aa", "ratio"] == pytest.approx(1.0, abs=0.25)
