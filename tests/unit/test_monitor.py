"""Monitoring: the sampler's command and parser, rates, machine-side parsers, per-node table,
data-volume checks. Sampler text is real output captured on this machine (tests/data/monitor/)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from vbench.monitor import machine, sampler, series
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
    lines = [
        "Inter-|   Receive",
        " face |bytes packets",
        "    lo: 1000 1 0 0 0 0 0 0 1000 1 0 0 0 0 0 0",
        "  eth0: 300 2 0 0 0 0 0 0 700 3 0 0 0 0 0 0",
    ]
    assert sampler.parse_net_dev(lines) == (300, 700)


def test_start_returns_with_the_first_snapshot_written(tmp_path):
    # The baseline must exist before the monitored work starts, however late the loop runs.
    out, pid = tmp_path / "s.txt", tmp_path / "s.pid"
    r = subprocess.run(
        ["sh", "-c", sampler.start_line(str(out), str(pid), 5)], check=True, capture_output=True, text=True
    )
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


def test_blkio_counting_is_switched_on_in_the_testbeds_parent_cgroup_only(tmp_path):
    from vbench.monitor import machine

    sys_block = tmp_path / "sys" / "block"
    for name, dev in (("vda", "254:0"), ("vda1", "254:1"), ("loop0", "7:0")):
        (sys_block / name).mkdir(parents=True)
        (sys_block / name / "dev").write_text(dev + "\n")
    assert machine.whole_disks(sys_block) == ["254:0"]
    root = tmp_path / "cg"
    parent = root / "blkio" / "vbench-tb"
    (parent / "worker1").mkdir(parents=True)
    own = parent / "worker1" / "blkio.throttle.write_bps_device"
    own.write_text("254:0 1048576\n")  # the host's own limit
    (parent / "blkio.throttle.write_bps_device").write_text("")
    rels = ["vbench-tb/worker1", "vbench-vm/worker2"]  # the second has no blkio cgroup (a VM host)
    written = machine.enable_blkio_counting(rels, root=root, sys_block=sys_block)
    assert written == [parent / "blkio.throttle.write_bps_device"]
    assert written[0].read_text() == "254:0 0\n"  # no limit: counting on, nothing throttled
    assert own.read_text() == "254:0 1048576\n"


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
        if "@disk\n" in chunk
        else chunk
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
    assert machine.parse_blkio_bytes("8:0 Read 4096\n8:0 Write 8192\n8:0 Sync 0\n8:0 Total 12288\nTotal 12288\n") == (
        4096,
        8192,
    )
    stat = "1234 (qemu-system-x86 (x)) S 1 1234 1234 0 -1 4194560 100 0 0 0 700 250 0 0 20 0 3 0 100 1 1"
    assert machine.parse_pid_stat(stat) == (700, 250)
    spaced = "4242 (python3 (x) y) R 1 4242 4242 0 -1 4194304 100 0 0 0 321 12 0 0 20 0 1 0 5 0 0"
    assert machine.parse_pid_stat(spaced) == (321, 12)
    assert machine.parse_pid_io("rchar: 1\nwchar: 2\nread_bytes: 4096\nwrite_bytes: 512\n") == (4096, 512)


def test_machine_points_percent_of_machine_and_hidden_rows():
    snaps = [
        machine.MachineSnap(0.0, (0, 0), (0, 0), "cgroup cpuacct.stat", "cgroup blkio.throttle.io_service_bytes"),
        machine.MachineSnap(
            1.0, (100, 50), (0, 1 << 20), "cgroup cpuacct.stat", "cgroup blkio.throttle.io_service_bytes"
        ),
    ]
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


def test_job_windows_and_caption_sentence():
    from vbench.paper.monitoring import checks_sentence, job_windows

    run = pd.DataFrame(
        [
            {"metric": "terasort_job_time", "step": "terasort", "job_start_ms": 20_000, "job_finish_ms": 50_000},
            {"metric": "teragen_job_time", "step": "teragen", "job_start_ms": 1_000, "job_finish_ms": 15_000},
            {"metric": "counter.teragen.x", "step": "teragen", "job_start_ms": 1_000, "job_finish_ms": 15_000},
        ]
    )
    assert job_windows(run) == [("teragen", 1.0, 15.0), ("terasort", 20.0, 50.0)]
    checks = pd.DataFrame(
        [
            {"check": "a", "ok": True, "ratio": 1.0},
            {"check": "terasort_spills", "ok": False, "ratio": 3.0},
            {"check": "teragen_disk_written", "ok": None, "ratio": None},
        ]
    )
    s = checks_sentence(checks)
    assert "1 of 2 pass" in s and "terasort_spills" in s


def test_timeseries_figure_draws_machine_counter_once(tmp_path):
    from vbench.monitor.monitor import one_per_counter
    from vbench.paper.figures import fig_timeseries

    out = sampler.parse(native_text())
    pts = series.guest_points(out, "master", "native") + series.guest_points(out, "worker1", "native")
    ts = pd.DataFrame(series.to_records(pts)).assign(series="r1")
    once = one_per_counter(ts)
    cpu_hosts = set(once[once["metric"] == "cpu_user_pct"]["host"])
    assert cpu_hosts == {"machine"}  # not master and worker1 both
    assert set(once[once["metric"] == "net_rx_Bps"]["host"]) == {"master", "worker1"}
    paths = fig_timeseries(
        pd.DataFrame(), pd.DataFrame(), tmp_path, timeseries=ts, jobs=[("teragen", ts["time"].min(), ts["time"].max())]
    )
    assert {p.suffix for p in paths} == {".pdf", ".png"} and all(p.stat().st_size > 0 for p in paths)
    assert fig_timeseries(pd.DataFrame(), pd.DataFrame(), tmp_path, timeseries=None) == []
