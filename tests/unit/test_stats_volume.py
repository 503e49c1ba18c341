"""vbench.stats.volume: do the bytes a TeraSort run moved add up (counters and disk-write series)?"""

from __future__ import annotations

import pandas as pd
import pytest

from vbench.stats import volume


def _terasort_run(size_mb=1, spilled=None, gen_written=None, ts_start=1000.0):
    D = 1024 * 1024 // 100 * 100
    base = {"run_id": "r", "size_mb": size_mb, "replication": 2}
    rec = [
        ("counter.teragen.FileSystemCounter.HDFS_BYTES_WRITTEN", gen_written if gen_written is not None else D),
        ("counter.terasort.FileSystemCounter.HDFS_BYTES_READ", D + 278),
        ("counter.terasort.FileSystemCounter.HDFS_BYTES_WRITTEN", D),
        ("counter.terasort.TaskCounter.SPILLED_RECORDS", spilled if spilled is not None else 2 * D // 100),
        ("counter.terasort.TaskCounter.MAP_OUTPUT_RECORDS", D // 100),
    ]
    rows = [{**base, "metric": m, "value": v} for m, v in rec]
    rows.append(
        {
            **base,
            "metric": "teragen_job_time",
            "value": 10.0,
            "job_start_ms": ts_start * 1000,
            "job_finish_ms": (ts_start + 10) * 1000,
        }
    )
    return pd.DataFrame(rows), D


def _ts(rate_Bps: float, start: float, seconds: int, hosts=("master", "worker1")):
    return pd.DataFrame(
        [
            {
                "time": start + i,
                "host": h,
                "side": "guest",
                "scope": "machine",
                "metric": "disk_write_Bps",
                "value": rate_Bps,
            }
            for h in hosts
            for i in range(seconds + 1)
        ]
    )


def test_volume_checks_pass_on_consistent_run():
    run, D = _terasort_run()
    ts = _ts(2 * D / 20, 1000.0, 60)  # 2 x dataset spread over 20 s, then more
    checks = {c.check: c for c in volume.terasort_checks(run, ts, flush_s=10)}
    assert all(
        checks[k].ok for k in ("teragen_hdfs_written", "terasort_hdfs_read", "terasort_hdfs_written", "terasort_spills")
    )
    disk = checks["teragen_disk_written"]
    # window (1000, 1020]: 20 intervals of 1 s, counted once although two hosts show the machine counter
    assert disk.ok and disk.measured == pytest.approx(2 * D) and "machine-wide" in disk.reason


def test_volume_checks_flag_spills_short_writes_and_missing_data():
    run, D = _terasort_run(spilled=3 * (1024 * 1024 // 100), gen_written=1000)
    checks = {c.check: c for c in volume.terasort_checks(run, _ts(1.0, 1000.0, 60), flush_s=10)}
    assert checks["terasort_spills"].ok is False and "unexpected spills" in checks["terasort_spills"].reason
    assert checks["teragen_hdfs_written"].ok is False
    assert checks["teragen_disk_written"].ok is False and "short" in checks["teragen_disk_written"].reason
    unmonitored = {c.check: c for c in volume.terasort_checks(run, None)}
    assert unmonitored["teragen_disk_written"].ok is None


def test_disk_written_sums_guest_series_without_machine_scope():
    ts = pd.DataFrame(
        [
            {"time": float(t), "host": h, "side": "guest", "scope": "host", "metric": "disk_write_Bps", "value": 100.0}
            for h in ("vm1", "vm2")
            for t in range(5)
        ]
    )
    total, how = volume.disk_written(ts, 0.0, 4.0)
    assert total == pytest.approx(800.0) and "sum" in how


def test_disk_written_counts_a_burst_in_the_first_interval_of_a_series():
    # The machine sampler's first row is the rate since its (unlisted) baseline snapshot: a write
    # right after the monitor started shows only there.
    ts = pd.DataFrame(
        [
            {
                "time": 10.5 + t / 2,
                "host": "c1",
                "side": "guest",
                "scope": "host",
                "metric": "disk_write_Bps",
                "value": v,
            }
            for t, v in enumerate([32.0 * 2**20, 0.0, 0.0, 0.0])
        ]
    )
    total, _ = volume.disk_written(ts, 10.0, 12.5)
    assert total == pytest.approx(16 * 2**20)
    assert volume.disk_written(ts, 10.5, 12.5)[0] == 0.0  # outside the window, not counted


def test_disk_written_is_the_exact_counter_increment_when_the_first_interval_is_short():
    # The sampler's first reading may come sooner after its baseline than the usual interval
    # (CI: 16 MiB written in the first 0.3 s was counted as 15.998 MiB from the median interval).
    from vbench.monitor.machine import MachineSnap, machine_points

    written = [0, 16 * 2**20, 16 * 2**20 + 4096, 16 * 2**20 + 4096]
    snaps = [
        MachineSnap(t, (0, 0), (0, w), "cgroup cpuacct.stat", "cgroup blkio.throttle.io_service_bytes")
        for t, w in zip([10.0, 10.3, 10.8, 11.3], written)
    ]
    ts = pd.DataFrame([p.__dict__ for p in machine_points(snaps, "worker1", ncpu=2)])
    ts = ts[ts["value"].notna()].assign(side="guest")
    total, _ = volume.disk_written(ts, 9.0, 12.0)
    assert total == pytest.approx(16 * 2**20 + 4096, rel=1e-12)


def test_reduce_merge_window_from_last_shuffle():
    run, D = _terasort_run()
    extra = pd.DataFrame(
        [
            {
                "run_id": "r",
                "size_mb": 1,
                "replication": 2,
                "output_replication": 1,
                "metric": "terasort_job_time",
                "value": 30.0,
                "step": "terasort",
                "job_start_ms": 1_020_000,
                "job_finish_ms": 1_050_000,
            },
            {
                "run_id": "r",
                "metric": "reduce_attempt_time",
                "value": 20.0,
                "step": "terasort",
                "shuffle_finish_ms": 1_030_000,
            },
            {
                "run_id": "r",
                "metric": "reduce_attempt_time",
                "value": 20.0,
                "step": "terasort",
                "shuffle_finish_ms": 1_040_000,
            },
        ]
    )
    run = pd.concat([run, extra], ignore_index=True)
    ts = _ts(D / 10, 1000.0, 80)  # D/10 per second: the window (1040, 1050 + 5] holds 15 s = 1.5 D
    (c,) = [c for c in volume.terasort_checks(run, ts, flush_s=5) if c.check == "reduce_merge_disk_written"]
    assert c.ok and c.measured == pytest.approx(1.5 * D) and c.expected == D
