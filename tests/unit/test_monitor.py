"""Monitoring: the sampler's command and parser, rates, machine-side parsers, per-node table,
data-volume checks. Sampler text is real output captured on this machine (tests/data/monitor/)."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from vbench.monitor import machine, pernode, sampler, series, volume
from vbench.monitor.monitor import load_timeseries, save_timeseries, timeseries_name

DATA = Path(__file__).parents[1] / "data" / "monitor"


def native_text() -> str:
    return (DATA / "sampler_native.txt").read_text()


def test_parse_real_sampler_output():
    out = sampler.parse(native_text())
    assert len(out.snapshots) == 3
    s = out.snapshots[0]
    assert s.cpu["user"] == 1500904 and s.cpu["steal"] == 5694
    # loop devices are not disks; vda is
    assert s.disk is not None and s.disk[0] > 0
    assert out.epoch(s.uptime) == pytest.approx(out.start_epoch + 0.01)


def test_torn_last_snapshot_is_dropped():
    text = native_text()
    torn = text + "@t 99999.0\n@stat\ncpu  1 2 3 4 5 6 7 8\n@disk\n"
    assert len(sampler.parse(torn).snapshots) == 3


def test_no_start_line_is_an_error():
    with pytest.raises(ValueError):
        sampler.parse("@t 1.0\n")


def test_whole_disks_only():
    assert sampler.is_whole_disk("vda") and sampler.is_whole_disk("sda") and sampler.is_whole_disk("nvme0n1")
    for part in ("vda1", "sda2", "nvme0n1p1", "loop0", "dm-0", "ram1"):
        assert not sampler.is_whole_disk(part), part


def test_net_dev_skips_loopback():
    lines = ["Inter-|   Receive", " face |bytes packets",
             "    lo: 1000 1 0 0 0 0 0 0 1000 1 0 0 0 0 0 0",
             "  eth0: 300 2 0 0 0 0 0 0 700 3 0 0 0 0 0 0"]
    assert sampler.parse_net_dev(lines) == (300, 700)


def test_start_returns_with_the_first_snapshot_written(tmp_path):
    # The baseline must exist before the monitored work starts, however late the loop runs.
    out, pid = tmp_path / "s.txt", tmp_path / "s.pid"
    r = subprocess.run(["sh", "-c", sampler.start_line(str(out), str(pid), 5)], check=True, capture_output=True,
                       text=True)
    try:
        assert len(sampler.parse(out.read_text()).snapshots) == 1
        assert r.stdout.strip() == pid.read_text().strip()
    finally:
        subprocess.run(["sh", "-c", sampler.stop_line(str(pid))], check=True)


def test_machine_sampler_start_returns_with_its_baseline(monkeypatch):
    from vbench.monitor import machine

    def slow_read(rel):
        time.sleep(0.3)
        return machine.MachineSnap(time.time(), None, None, "", "")
    monkeypatch.setattr(machine, "read_host", slow_read)
    ms = machine.MachineSampler({"worker1": "x"}, interval_s=5)
    ms.start()
    try:
        assert len(ms.snaps["worker1"]) == 1
    finally:
        ms.stop()


def test_script_runs_and_stops_by_pid(tmp_path):
    out, pid = tmp_path / "s.txt", tmp_path / "s.pid"
    subprocess.run(["sh", "-c", sampler.start_line(str(out), str(pid), 0.2)], check=True, capture_output=True)
    time.sleep(0.9)
    pid_value = int(pid.read_text())
    subprocess.run(["sh", "-c", sampler.stop_line(str(pid))], check=True)
    time.sleep(0.3)
    assert not Path(f"/proc/{pid_value}").exists() or "Z" in Path(f"/proc/{pid_value}/stat").read_text().split()[2]
    parsed = sampler.parse(out.read_text())
    assert len(parsed.snapshots) >= 2


def test_guest_points_rates_and_scopes():
    out = sampler.parse(native_text())
    pts = series.guest_points(out, "worker1", "native")
    by = {(p.metric, p.scope) for p in pts}
    assert ("cpu_user_pct", "machine") in by and ("net_rx_Bps", "host") in by
    cpu = [p for p in pts if p.metric.startswith("cpu_")]
    assert all(0 <= p.value <= 100 for p in cpu)
    assert len([p for p in pts if p.metric == "disk_write_Bps"]) == 2  # 3 snapshots, 2 intervals
    # a VM's /proc is its own
    assert {p.scope for p in series.guest_points(out, "w", "qemu")} == {"host"}


def test_hidden_counter_is_said_not_zeroed():
    text = native_text()
    # a host without /proc/diskstats: every snapshot says so
    hidden = "".join(
        chunk.split("@disk\n")[0] + "@disk\n@missing disk\n@net\n" + chunk.split("@net\n", 1)[1]
        if "@disk\n" in chunk else chunk
        for chunk in text.split("@t ")[0:1] + ["@t " + c for c in text.split("@t ")[1:]]
    )
    out = sampler.parse(hidden)
    assert all(s.disk is None and "disk" in s.missing for s in out.snapshots)
    pts = series.guest_points(out, "c1", "lxc")
    disk = [p for p in pts if p.metric.startswith("disk_")]
    assert disk and all(p.value is None and p.note.startswith("hidden") for p in disk)


def test_counter_reset_gives_no_rate():
    s1 = sampler.Snapshot(1.0, net=(1000, 1000))
    s2 = sampler.Snapshot(2.0, net=(10, 2000))
    out = sampler.SamplerOutput(100.0, 0.0, 1.0, [s1, s2])
    pts = [p for p in series.guest_points(out, "h", "native") if p.metric.startswith("net")]
    assert [(p.metric, p.value) for p in pts] == [("net_tx_Bps", 1000.0)]


def test_machine_side_parsers():
    assert machine.parse_cpuacct_stat("user 120\nsystem 30\n") == (120, 30)
    assert machine.parse_blkio_bytes("8:0 Read 4096\n8:0 Write 8192\n8:0 Sync 0\n8:0 Total 12288\nTotal 12288\n") == (4096, 8192)
    stat = "1234 (qemu-system-x86 (x)) S 1 1234 1234 0 -1 4194560 100 0 0 0 700 250 0 0 20 0 3 0 100 1 1"
    assert machine.parse_pid_stat(stat) == (700, 250)
    assert machine.parse_pid_io("rchar: 1\nwchar: 2\nread_bytes: 4096\nwrite_bytes: 512\n") == (4096, 512)


def test_machine_points_percent_of_machine_and_hidden_rows():
    snaps = [machine.MachineSnap(0.0, (0, 0), (0, 0), "cgroup cpuacct.stat", "cgroup blkio.throttle.io_service_bytes"),
             machine.MachineSnap(1.0, (100, 50), (0, 1 << 20), "cgroup cpuacct.stat", "cgroup blkio.throttle.io_service_bytes")]
    pts = machine.machine_points(snaps, "c1", ncpu=2, hz=100)
    val = {p.metric: p for p in pts if p.value is not None}
    assert val["cpu_user_pct"].value == pytest.approx(50.0)  # 1 CPU-second of 2 CPUs in 1 s
    assert val["cpu_system_pct"].value == pytest.approx(25.0)
    assert val["disk_write_Bps"].value == 1 << 20 and "write-back" in val["disk_write_Bps"].note
    assert {p.metric for p in pts if p.value is None} >= {"cpu_iowait_pct", "cpu_steal_pct"}


def test_save_and_load_timeseries(tmp_path):
    pts = series.guest_points(sampler.parse(native_text()), "m", "native")
    path = tmp_path / "c" / "timeseries" / timeseries_name("terasort[size_mb=64]#b1")
    save_timeseries(path, pts, {"run_id": "r1"})
    d = load_timeseries(tmp_path / "c")
    assert len(d) == len(pts) and set(d["run_id"]) == {"r1"}
    assert d["time"].iloc[0] > 1e9  # epoch seconds, not rounded away
    assert "/" not in path.name and "[" not in path.name


def _attempts(rows):
    return pd.DataFrame([{"metric": f"{t}_attempt_time", "value": v, "node": n, "step": "terasort", "platform": "native",
                          "host_platforms": '{"worker1": "native", "worker2": "qemu"}'} for t, n, v in rows])


def test_node_table_and_straggler():
    d = _attempts([("map", "worker1", 10), ("map", "worker1", 12), ("map", "worker1", 11),
                   ("map", "worker2", 40), ("map", "worker2", 44), ("map", "worker2", 42),
                   ("reduce", "worker1", 20), ("reduce", "worker2", 21)])
    rows = pernode.node_table(d)
    m2 = next(r for r in rows if r.node == "worker2" and r.task_type == "MAP")
    assert (m2.platform, m2.tasks, m2.mean_s, m2.max_s) == ("qemu", 3, 42.0, 44.0)
    assert m2.vs_others == pytest.approx(42 / 11)
    verdicts = {v.task_type: v for v in pernode.stragglers(rows)}
    assert verdicts["MAP"].node == "worker2" and "qemu" in verdicts["MAP"].verdict
    assert verdicts["REDUCE"].node is None  # 1.05x is no straggler


def _unsuccessful(rows, diagnostics=""):
    return pd.DataFrame([{"metric": f"{t}_attempt_unsuccessful", "value": 1, "node": n, "step": "terasort",
                          "platform": "native", "attempt_state": st, "diagnostics": diagnostics} for t, n, st in rows])


def test_a_slow_node_with_one_task_and_lost_speculative_races_is_the_straggler():
    # As measured on the mixed native + TCG VM cluster: one map finished on the VM in 270 s,
    # three of its attempts were killed because speculative copies on worker1 finished first.
    d = pd.concat([_attempts([("map", "worker1", 5.0), ("map", "worker1", 8.0), ("map", "worker1", 5.4),
                              ("map", "worker2", 269.7)]),
                   _unsuccessful([("map", "worker2", "KILLED")] * 3,
                                 diagnostics="Speculation: attempt_1_0002_m_000002_1 succeeded first!")])
    rows = {r.node: r for r in pernode.node_table(d)}
    assert (rows["worker2"].killed, rows["worker2"].lost_races, rows["worker2"].slow_evidence) == (3, 3, 4)
    (v,) = pernode.stragglers(list(rows.values()))
    assert v.node == "worker2" and "3 attempt(s) lost the race to a speculative copy" in v.verdict
    # Without the lost races, one task is too little to decide.
    (u,) = pernode.stragglers(pernode.node_table(d[d["metric"] != "map_attempt_unsuccessful"]))
    assert u.node is None and u.verdict.startswith("undecided")


def test_a_node_that_finished_nothing_has_a_row_and_is_the_straggler():
    d = pd.concat([_attempts([("map", "worker1", 10), ("map", "worker1", 12)]),
                   _unsuccessful([("map", "worker2", "FAILED"), ("map", "worker2", "FAILED"),
                                  ("map", "worker1", "KILLED")])])
    rows = {r.node: r for r in pernode.node_table(d)}
    w2 = rows["worker2"]
    assert (w2.platform, w2.tasks, w2.mean_s, w2.failed, w2.killed) == ("qemu", 0, None, 2, 0)
    assert (rows["worker1"].tasks, rows["worker1"].failed, rows["worker1"].killed) == (2, 0, 1)
    (v,) = pernode.stragglers(list(rows.values()))
    assert v.node == "worker2" and "finished no map task" in v.verdict and "2 attempt(s)" in v.verdict


def test_killed_attempts_alone_make_no_straggler():
    d = pd.concat([_attempts([("map", "worker1", 10), ("map", "worker2", 11)]),
                   _unsuccessful([("map", "worker2", "KILLED")])])
    (v,) = pernode.stragglers(pernode.node_table(d))
    assert v.node is None


def test_straggler_needs_enough_tasks():
    d = _attempts([("map", "worker1", 10), ("map", "worker1", 10), ("map", "worker2", 40)])
    (v,) = pernode.stragglers(pernode.node_table(d))
    assert v.node is None and v.verdict.startswith("undecided")


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
    rows.append({**base, "metric": "teragen_job_time", "value": 10.0, "job_start_ms": ts_start * 1000,
                 "job_finish_ms": (ts_start + 10) * 1000})
    return pd.DataFrame(rows), D


def _ts(rate_Bps: float, start: float, seconds: int, hosts=("master", "worker1")):
    return pd.DataFrame([{"time": start + i, "host": h, "side": "guest", "scope": "machine", "metric": "disk_write_Bps",
                          "value": rate_Bps} for h in hosts for i in range(seconds + 1)])


def test_volume_checks_pass_on_consistent_run():
    run, D = _terasort_run()
    ts = _ts(2 * D / 20, 1000.0, 60)  # 2 x dataset spread over 20 s, then more
    checks = {c.check: c for c in volume.terasort_checks(run, ts, flush_s=10)}
    assert all(checks[k].ok for k in ("teragen_hdfs_written", "terasort_hdfs_read", "terasort_hdfs_written", "terasort_spills"))
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
    ts = pd.DataFrame([{"time": float(t), "host": h, "side": "guest", "scope": "host", "metric": "disk_write_Bps",
                        "value": 100.0} for h in ("vm1", "vm2") for t in range(5)])
    total, how = volume.disk_written(ts, 0.0, 4.0)
    assert total == pytest.approx(800.0) and "sum" in how


def test_job_windows_and_caption_sentence():
    from vbench.paper.monitoring import checks_sentence, job_windows

    run = pd.DataFrame([
        {"metric": "terasort_job_time", "step": "terasort", "job_start_ms": 20_000, "job_finish_ms": 50_000},
        {"metric": "teragen_job_time", "step": "teragen", "job_start_ms": 1_000, "job_finish_ms": 15_000},
        {"metric": "counter.teragen.x", "step": "teragen", "job_start_ms": 1_000, "job_finish_ms": 15_000},
    ])
    assert job_windows(run) == [("teragen", 1.0, 15.0), ("terasort", 20.0, 50.0)]
    checks = pd.DataFrame([
        {"check": "a", "ok": True, "ratio": 1.0}, {"check": "terasort_spills", "ok": False, "ratio": 3.0},
        {"check": "teragen_disk_written", "ok": None, "ratio": None},
    ])
    s = checks_sentence(checks)
    assert "1 of 2 pass" in s and "terasort_spills" in s


def test_timeseries_figure_draws_machine_counter_once(tmp_path):
    from vbench.paper.figures import _one_per_counter, fig_timeseries

    out = sampler.parse(native_text())
    pts = series.guest_points(out, "master", "native") + series.guest_points(out, "worker1", "native")
    ts = pd.DataFrame(series.to_records(pts)).assign(series="r1")
    once = _one_per_counter(ts)
    cpu_hosts = set(once[once["metric"] == "cpu_user_pct"]["host"])
    assert cpu_hosts == {"machine"}  # not master and worker1 both
    assert set(once[once["metric"] == "net_rx_Bps"]["host"]) == {"master", "worker1"}
    paths = fig_timeseries(pd.DataFrame(), pd.DataFrame(), tmp_path, timeseries=ts,
                           jobs=[("teragen", ts["time"].min(), ts["time"].max())])
    assert {p.suffix for p in paths} == {".pdf", ".png"} and all(p.stat().st_size > 0 for p in paths)
    assert fig_timeseries(pd.DataFrame(), pd.DataFrame(), tmp_path, timeseries=None) == []


def test_reduce_merge_window_from_last_shuffle():
    run, D = _terasort_run()
    extra = pd.DataFrame([
        {"run_id": "r", "size_mb": 1, "replication": 2, "output_replication": 1, "metric": "terasort_job_time",
         "value": 30.0, "step": "terasort", "job_start_ms": 1_020_000, "job_finish_ms": 1_050_000},
        {"run_id": "r", "metric": "reduce_attempt_time", "value": 20.0, "step": "terasort", "shuffle_finish_ms": 1_030_000},
        {"run_id": "r", "metric": "reduce_attempt_time", "value": 20.0, "step": "terasort", "shuffle_finish_ms": 1_040_000},
    ])
    run = pd.concat([run, extra], ignore_index=True)
    ts = _ts(D / 10, 1000.0, 80)  # D/10 per second: the window (1040, 1050 + 5] holds 15 s = 1.5 D
    (c,) = [c for c in volume.terasort_checks(run, ts, flush_s=5) if c.check == "reduce_merge_disk_written"]
    assert c.ok and c.measured == pytest.approx(1.5 * D) and c.expected == D
