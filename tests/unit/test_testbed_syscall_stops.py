"""Planted system-call stops (`testbed.slowdown.syscall_stops`, issue #53): params, the tracer's
command, the read-back of a host's tracer, and what samples say. The real tracer on a real host:
tests/integration/test_syscall_stops.py."""

from __future__ import annotations

import pytest

from vbench.errors import ParamsError, VbenchError
from vbench.params import testbed_params as make_testbed
from vbench.testbed import slowdown as S
from vbench.testbed import syscall_stops as T
from vbench.testbed.provisioner import TestbedContext, TestbedPaths


def refused(data) -> ParamsError:
    with pytest.raises(ParamsError) as info:
        make_testbed(data)
    return info.value


def test_it_is_a_planted_slowdown_named_in_what_samples_record():
    sd = make_testbed({"slowdown": {"syscall_stops": True}}).slowdown
    assert sd.active and not (sd.cpu or sd.network or sd.disk)
    assert sd.describe() == "syscall_stops=True"
    assert not make_testbed({"slowdown": {"syscall_stops": False}}).slowdown.active


@pytest.mark.parametrize("platform", ["lxc", "oci", "gvisor", "qemu"])
def test_other_platforms_are_refused_naming_the_field(platform):
    err = refused({"platform": platform, "slowdown": {"syscall_stops": True}})
    assert err.field == "testbed.slowdown.syscall_stops"
    assert f"not on {platform} hosts" in str(err) and "native hosts only" in str(err)


def test_a_mixed_testbed_with_a_container_is_refused_too():
    hosts = [{"name": "m", "role": "master"}, {"name": "w", "role": "worker", "platform": "lxc"}]
    assert refused({"hosts": hosts, "slowdown": {"syscall_stops": True}}).field == "testbed.slowdown.syscall_stops"


@pytest.mark.parametrize("value", ["sometimes", "Process", "%process", "%file", "files", "%memory", "mem", 1])
def test_a_value_that_is_no_level_is_refused_naming_the_field_and_every_level(value):
    err = refused({"slowdown": {"syscall_stops": value}})
    assert err.field == "testbed.slowdown.syscall_stops"
    assert "expected true, false, 'process', 'file' or 'memory'" in str(err)


@pytest.mark.parametrize("level", [T.PROCESS, T.FILE, T.MEMORY])
def test_the_partial_levels_are_planted_slowdowns_of_native_hosts_only(level):
    sd = make_testbed({"slowdown": {"syscall_stops": level}}).slowdown
    assert sd.active and sd.syscall_stops == level
    assert sd.describe() == f"syscall_stops={level}"
    assert refused({"platform": "lxc", "slowdown": {"syscall_stops": level}}).field == (
        "testbed.slowdown.syscall_stops"
    )


def test_the_command_runs_under_strace_stopping_every_call_and_printing_nothing():
    argv = T.traced_argv("/usr/bin/strace", ["/usr/sbin/sshd", "-D", "-f", "/a b/cfg"])
    assert argv[0] == "/usr/bin/strace" and argv[-4:] == ["/usr/sbin/sshd", "-D", "-f", "/a b/cfg"]
    flags = argv[1:-4]
    assert "-f" in flags and flags[-1] == "--"
    assert flags[flags.index("-o") + 1] == "/dev/null"
    assert "trace=none" in flags and "--seccomp-bpf" not in flags  # seccomp-bpf would stop only traced calls


def test_the_process_level_stops_only_process_calls_through_a_seccomp_filter():
    sshd = ["/usr/sbin/sshd", "-D"]
    argv = T.traced_argv("/usr/bin/strace", sshd, T.PROCESS)
    flags = argv[1:-2]
    assert argv[0] == "/usr/bin/strace" and argv[-2:] == sshd and flags[-1] == "--"
    assert "-f" in flags and "trace=none" not in flags
    # Without --seccomp-bpf every call would still stop, whatever -e trace= says.
    assert flags.index("--seccomp-bpf") < flags.index("trace=%process,set_robust_list")
    assert flags[flags.index("-o") + 1] == "/dev/null"
    assert T.traced_argv("/usr/bin/strace", sshd, True) == T.traced_argv("/usr/bin/strace", sshd)
    assert T.applied(True) == "strace -f"
    assert T.applied(T.PROCESS) == "strace -f --seccomp-bpf -e trace=%process,set_robust_list"


def test_the_file_level_stops_only_calls_naming_a_file_through_a_seccomp_filter():
    sshd = ["/usr/sbin/sshd", "-D"]
    flags = T.traced_argv("/usr/bin/strace", sshd, T.FILE)[1:-2]
    assert flags.index("--seccomp-bpf") < flags.index("trace=%file,set_robust_list")
    assert not any("%process" in f for f in flags)
    assert T.applied(T.FILE) == "strace -f --seccomp-bpf -e trace=%file,set_robust_list"


def test_the_memory_level_stops_only_calls_mapping_memory_through_a_seccomp_filter():
    sshd = ["/usr/sbin/sshd", "-D"]
    flags = T.traced_argv("/usr/bin/strace", sshd, T.MEMORY)[1:-2]
    assert flags.index("--seccomp-bpf") < flags.index("trace=%memory,set_robust_list")
    assert not any("%process" in f or "%file" in f for f in flags)
    assert T.applied(T.MEMORY) == "strace -f --seccomp-bpf -e trace=%memory,set_robust_list"


def test_tracer_pid_and_children_are_parsed():
    assert T.parse_tracer_pid("Name:\tsshd\nTracerPid:\t4242\nUid:\t0\n") == 4242
    assert T.parse_tracer_pid("Name:\tsshd\nTracerPid:\t0\n") == 0
    assert T.parse_tracer_pid("Name:\tsshd\n") == -1
    assert T.parse_children("12 345 \n") == [12, 345] and T.parse_children("") == []


def fake_proc(tmp_path, tracer: int, children: dict[int, int]):
    task = tmp_path / str(tracer) / "task" / str(tracer)
    task.mkdir(parents=True)
    (task / "children").write_text(" ".join(map(str, children)) + "\n")
    for child, traced_by in children.items():
        (tmp_path / str(child)).mkdir()
        (tmp_path / str(child) / "status").write_text(f"Name:\tsshd\nTracerPid:\t{traced_by}\n")
    return tmp_path


def test_the_read_back_wants_every_child_of_the_tracer_traced_by_it(tmp_path):
    assert T.tracer_problems(10, fake_proc(tmp_path / "a", 10, {11: 10})) == []
    assert T.tracer_problems(10, fake_proc(tmp_path / "b", 10, {11: 0})) == [
        "process 11 is traced by nothing, not by 10"
    ]
    assert T.tracer_problems(10, fake_proc(tmp_path / "c", 10, {})) == [
        "its tracer 10 has no child (the host's sshd is not running under it)"
    ]
    assert T.tracer_problems(99, tmp_path / "a") == ["its tracer 99 is gone"]


def test_a_missing_strace_is_refused_naming_the_package(monkeypatch):
    monkeypatch.setattr(T.shutil, "which", lambda _name: None)
    with pytest.raises(
        VbenchError, match=r"testbed.slowdown.syscall_stops: 'strace' is not installed \(Debian package strace\)"
    ):
        T.find_strace()


def slowdown_of(tmp_path, **sd) -> S.Slowdown:
    params = make_testbed({"name": "vb", "work_root": str(tmp_path / "wr"), "slowdown": sd})
    return S.Slowdown(TestbedContext(params, TestbedPaths(tmp_path / "wr" / "vb"), lambda k, v: None, lambda _m: None))


def test_a_native_hosts_sshd_starts_under_the_tracer_only_when_planted(tmp_path, monkeypatch):
    monkeypatch.setattr(T.shutil, "which", lambda name: f"/usr/bin/{name}")
    sshd = ["/usr/sbin/sshd", "-D"]
    assert slowdown_of(tmp_path / "a", syscall_stops=True).init_argv(sshd) == T.traced_argv("/usr/bin/strace", sshd)
    assert slowdown_of(tmp_path / "b").init_argv(sshd) == sshd
    assert slowdown_of(tmp_path / "c", cpu_fraction=0.5).init_argv(sshd) == sshd
    assert slowdown_of(tmp_path / "d", syscall_stops="process").init_argv(sshd) == T.traced_argv(
        "/usr/bin/strace", sshd, "process"
    )


def test_the_read_back_records_the_tracer_and_fails_without_it(tmp_path, monkeypatch):
    sd = slowdown_of(tmp_path, syscall_stops=True)
    spec = sd.ctx.params.resolved_hosts()[0]
    monkeypatch.setattr(S, "proc_cgroup", lambda _pid: "4:cpu:/\n")
    monkeypatch.setattr(S.syscall_stops, "tracer_problems", lambda _pid: [])
    assert sd.verify_host(spec, 1, 1234) == {
        "slowdown": "syscall_stops=True",
        "slowdown_applied": "syscall_stops=strace -f",
    }
    monkeypatch.setattr(S.syscall_stops, "tracer_problems", lambda pid: [f"its tracer {pid} is gone"])
    with pytest.raises(VbenchError, match=r"native host master: .*syscall_stops=True.* its tracer 1234 is gone"):
        sd.verify_host(spec, 1, 1234)


def test_the_read_back_says_which_calls_the_process_level_stops(tmp_path, monkeypatch):
    sd = slowdown_of(tmp_path, syscall_stops="process")
    monkeypatch.setattr(S, "proc_cgroup", lambda _pid: "4:cpu:/\n")
    monkeypatch.setattr(S.syscall_stops, "tracer_problems", lambda _pid: [])
    assert sd.verify_host(sd.ctx.params.resolved_hosts()[0], 1, 1234) == {
        "slowdown": "syscall_stops=process",
        "slowdown_applied": "syscall_stops=strace -f --seccomp-bpf -e trace=%process,set_robust_list",
    }
