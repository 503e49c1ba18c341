"""vbench.campaign.quiet_remote: the quiet gate on an inventory's hosts, read over SSH.

The script is run here by a real shell on this machine's /proc (what sshd would run on a host);
the hook is driven with fake readings."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.unit.builders import quiet_readings
from vbench.campaign import quiet as Q
from vbench.campaign import quiet_remote as R
from vbench.host import Host, SshEndpoint
from vbench.inventory.model import distinct_hosts


def _run_script(pid_files, window_s=0.5) -> R.HostState:
    out = subprocess.run(
        ["bash", "-c", R.state_script(pid_files, window_s)], capture_output=True, text=True, check=True
    )
    return R.parse_state_output(out.stdout)


def _spinner() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def test_the_script_reads_this_machine_as_the_local_gate_does(tmp_path):
    st = _run_script([])
    local = Q.read_state()
    assert st.before.cpus == local.cpus and st.clk_tck == os.sysconf("SC_CLK_TCK")
    assert st.before.meminfo.startswith("MemTotal:") and st.after.cpu_line.startswith("cpu ")
    procs = Q.parse_proc_stats(st.after.procs)
    assert os.getpid() in procs and len(procs) > 5  # every process, one stat line each
    assert len(st.own) == 1  # only the reading shell: no pid file given


def test_a_busy_process_counts_as_outside_unless_its_pid_file_names_it(tmp_path):
    spin = _spinner()
    try:
        time.sleep(0.3)
        pid_file = tmp_path / "run" / "nodemanager.pid"
        pid_file.parent.mkdir()
        st = _run_script([str(tmp_path / "run" / "namenode.pid")], window_s=1.0)  # absent: ignored
        outside = R.readings_of(st.before, st.after, st.own, 1.0, st.clk_tck)
        spin_pct = {pid: pct for pid, _n, pct in outside.top_outside}.get(spin.pid, 0.0)
        assert spin_pct > 50 and outside.outside_cpu_pct >= spin_pct
        pid_file.write_text(f"{spin.pid}\n")
        st = _run_script([str(pid_file)], window_s=1.0)
        assert spin.pid in st.own
        own = R.readings_of(st.before, st.after, st.own, 1.0, st.clk_tck)
        # Per process, not the total: other test workers on this machine load it too, and
        # their share moves between the two windows.
        assert spin.pid not in [pid for pid, _n, _p in own.top_outside]
    finally:
        spin.kill()
        spin.wait()


def test_a_pid_file_path_is_data_to_the_shell_never_code(tmp_path):
    marker = tmp_path / "ran"
    evil = f"{tmp_path}/x; touch {marker}; $(touch {marker}).pid"
    st = _run_script([evil])
    assert not marker.exists() and len(st.own) == 1


def test_output_without_its_snapshots_is_refused():
    with pytest.raises(ValueError, match="snapshots"):
        R.parse_state_output("@@nproc\n2\n")


def _host(name, address="10.0.0.1", port=22, role="worker", work_dir="/srv/vbench"):
    ep = SshEndpoint(address=address, user="u", key_file=Path("/k"), known_hosts=Path("/kh"), port=port)
    return Host(name=name, role=role, platform="native", address=address, work_dir=work_dir, ssh=ep)


def test_the_pid_files_are_those_of_the_daemons_of_the_host_s_role():
    assert R.own_pid_files(_host("m", role="master", work_dir="/w")) == [
        "/w/run/namenode.pid",
        "/w/run/resourcemanager.pid",
        "/w/run/historyserver.pid",
    ]
    assert R.own_pid_files(_host("w", work_dir="/w")) == ["/w/run/datanode.pid", "/w/run/nodemanager.pid"]


def test_each_machine_is_read_once():
    hosts = [_host("a"), _host("b", port=2222), _host("a-again"), _host("c", address="10.0.0.2")]
    assert [h.name for h in distinct_hosts(hosts)] == ["a", "b", "c"]


def _readings(outside: float) -> Q.Readings:
    return quiet_readings(
        load1=1.0,
        busy_pct=10.0,
        mem_available_mb=20000,
        thp="never",
        outside_cpu_pct=outside,
        top_outside=((7, "java", outside),),
    )


def test_the_round_takes_the_worst_host_and_names_every_reason():
    recs = {
        "w1": Q.QuietRecord(Q.OK, _readings(3.0), (), 0.0, 1),
        "w2": Q.QuietRecord(Q.FLAGGED, _readings(80.0), ("busy",), 0.0, 1),
        "w3": Q.QuietRecord(Q.WAITED, _readings(90.0), (), 20.0, 3),
    }
    host, rec = R.combine(recs)
    assert host == "w2" and rec.verdict == Q.FLAGGED and rec.readings.outside_cpu_pct == 80.0
    assert rec.reasons == ("w2: busy",) and rec.waited_s == 20.0 and rec.checks == 5
    host, rec = R.combine({k: v for k, v in recs.items() if k != "w2"})
    assert host == "w3" and rec.verdict == Q.WAITED
    assert R.combine({}) == ("", Q.QuietRecord(Q.OFF))


def test_the_hook_reads_every_host_by_the_design_s_rules_and_stamps_the_round():
    said, read = [], []

    def measure(host, window_s):
        read.append((host.name, window_s))
        return _readings(60.0 if host.name == "w2" else 1.0)

    hook = R.InventoryQuietHook(Q.QuietParams(window_s=0.5), [_host("w1"), _host("w2")], said.append, measure)

    class Info:
        block, round = 2, 1

    stamp = hook.before_round(Info())
    assert sorted(read) == [("w1", 0.5), ("w2", 0.5)]
    assert stamp["quiet.verdict"] == "flagged" and stamp["quiet.host"] == "w2" and stamp["quiet.hosts"] == 2
    assert "w2: processes outside the testbed used 60 %" in stamp["quiet.reasons"]
    assert len(said) == 1 and said[0].startswith("b2/r1: on 2 hosts, readings of w2: quiet gate: flagged")
    assert hook.after_round(Info()) is None


def test_in_wait_mode_a_busy_host_is_read_again_until_quiet():
    said, busy = [], iter([80.0, 80.0, 2.0])
    hook = R.InventoryQuietHook(
        Q.QuietParams(mode="wait", retry_s=0.01, max_wait_s=5),
        [_host("w1")],
        said.append,
        lambda host, w: _readings(next(busy)),
    )

    class Info:
        block, round = 0, 0

    stamp = hook.before_round(Info())
    assert stamp["quiet.verdict"] == "waited" and hook.records[0][2]["w1"].checks == 3
    assert said[0].startswith("w1: quiet gate: waiting up to 5 s")


def test_a_host_that_cannot_be_read_has_no_verdict_and_the_round_goes_on():
    # CI of 2026-11-24: an inventory configuration on a dead address made the gate's SSH read raise
    # out of before_round, and the campaign died instead of recording that configuration's failure.
    def measure(host, window_s):
        if host.name == "ghost":
            raise OSError("No route to host")
        return _readings(1.0)

    said = []
    hook = R.InventoryQuietHook(Q.QuietParams(window_s=0.5), [_host("ghost"), _host("w1")], said.append, measure)

    class Info:
        block, round = 0, 0

    stamp = hook.before_round(Info())
    assert stamp["quiet.verdict"] == "ok" and stamp["quiet.host"] == "w1" and stamp["quiet.hosts"] == 2
    assert "ghost: not read over SSH (OSError: No route to host)" in stamp["quiet.reasons"]
    ghost = hook.records[0][2]["ghost"]
    assert ghost.verdict == Q.OFF and ghost.readings is None
    # Every host unreadable: no verdict at all, and the reasons say why.
    only = R.InventoryQuietHook(Q.QuietParams(window_s=0.5), [_host("ghost")], said.append, measure)
    stamp = only.before_round(Info())
    assert stamp["quiet.verdict"] == "off" and "ghost: not read over SSH" in stamp["quiet.reasons"]
