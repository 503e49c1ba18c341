"""vbench.hadoop.daemons: the shell lines that start, stop and probe the daemons."""

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vbench.hadoop import daemons as dm
from vbench.hadoop.config import HostLayout

OPENS = "--add-opens=java.base/java.lang=ALL-UNNAMED"
JAVA_HOME = "/usr/lib/jvm/java-17-openjdk-amd64"
#: Above any pid_max Linux allows (2**22), so no process can have it.
DEAD_PID = 2**22 + 12345
LAYOUT = HostLayout(work_dir="/var/tmp/vb/hosts/master/work", lib_dir="/cache/lib")


@pytest.mark.parametrize("daemon", [dm.RESOURCEMANAGER, dm.NODEMANAGER, dm.HISTORYSERVER])
def test_yarn_daemons_and_history_server_open_java_lang(daemon):
    assert OPENS in daemon.jvm_flags
    assert OPENS in dm.start_line(daemon, JAVA_HOME, LAYOUT, 256)


@pytest.mark.parametrize("daemon", [dm.NAMENODE, dm.DATANODE])
def test_hdfs_daemons_do_not_open_java_lang(daemon):
    assert OPENS not in daemon.jvm_flags
    assert "--add-opens" not in dm.start_line(daemon, JAVA_HOME, LAYOUT, 256)


def test_daemon_roles():
    assert {d.name for d in dm.DAEMONS if d.role == "master"} == {"namenode", "resourcemanager", "historyserver"}
    assert {d.name for d in dm.DAEMONS if d.role == "worker"} == {"datanode", "nodemanager"}


def _lone_ampersands(line: str) -> list[int]:
    """Positions of `&` that background a command (not `&&`, not `2>&1`)."""
    return [m.start() for m in re.finditer(r"(?<![&>])&(?![&>])", line)]


def test_start_line_backgrounds_only_the_java_command_and_records_its_pid():
    line = dm.start_line(dm.NAMENODE, JAVA_HOME, LAYOUT, 384)
    amps = _lone_ampersands(line)
    assert len(amps) == 1
    before, after = line[: amps[0]], line[amps[0] + 1 :]
    # The backgrounded simple command is `nohup <java> >> log 2>&1 < /dev/null`.
    simple = before[before.rindex("; ") + 2 :]
    assert simple.startswith("nohup env ")
    assert simple.rstrip().endswith(f">> {LAYOUT.log_file('namenode')} 2>&1 < /dev/null")
    assert after.strip().startswith(f"echo $! > {LAYOUT.pid_file('namenode')};")


def _fake_java_home(tmp_path: Path) -> tuple[str, Path]:
    """A JAVA_HOME whose bin/java notes that it ran, then sleeps like a daemon."""
    mark = tmp_path / "java-ran"
    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    # It keeps its arguments in its command line, as the JVM would (stop_line checks them).
    java.write_text(f'#!/bin/sh\necho "$@" > {mark}\nexec {sys.executable} -c \'import time; time.sleep(30)\' "$@"\n')
    java.chmod(0o755)
    return str(tmp_path / "jdk"), mark


def test_start_line_skips_a_daemon_whose_pid_file_names_the_jvm_vbench_started(tmp_path):
    layout = HostLayout(work_dir=str(tmp_path / "work"), lib_dir="/nonexistent")
    java_home, mark = _fake_java_home(tmp_path)
    proc = _fake_daemon(layout, dm.DATANODE)
    try:
        r = subprocess.run(
            ["bash", "-c", dm.start_line(dm.DATANODE, java_home, layout, 192)], capture_output=True, text=True
        )
        assert r.stdout.strip() == "running" and not mark.exists()
    finally:
        proc.kill()
        proc.wait()


def test_start_line_starts_a_daemon_whose_pid_file_names_someone_elses_process(tmp_path):
    """A stale pid file whose pid is now another process's: the daemon is started (not skipped
    as "running"), with its temporary files under the data directory."""
    layout = HostLayout(work_dir=str(tmp_path / "work"), lib_dir="/nonexistent")
    java_home, mark = _fake_java_home(tmp_path)
    stranger = subprocess.Popen(["sleep", "30"])
    _write_pid(layout, "datanode", stranger.pid)
    try:
        r = subprocess.run(
            ["bash", "-c", dm.start_line(dm.DATANODE, java_home, layout, 192)], capture_output=True, text=True
        )
        assert "running" not in r.stdout
        deadline = time.monotonic() + 10
        while not mark.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert f"-Djava.io.tmpdir={dm.jvm_tmp_dir(layout)}" in mark.read_text().split()
        assert os.path.isdir(dm.jvm_tmp_dir(layout)) and dm.jvm_tmp_dir(layout).startswith(layout.data)
        started = int(Path(layout.pid_file("datanode")).read_text())
        assert started != stranger.pid and stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()
        subprocess.run(["bash", "-c", dm.stop_line([dm.DATANODE], layout, grace_s=1)], check=True)
        assert not os.path.exists(layout.pid_file("datanode"))


def test_start_line_is_valid_shell():
    line = dm.start_line(dm.RESOURCEMANAGER, JAVA_HOME, LAYOUT, 384, ("-XX:TieredStopAtLevel=1",))
    assert subprocess.run(["bash", "-n", "-c", line]).returncode == 0


def _java_words(line: str) -> list[str]:
    simple = line[line.index("nohup ") + len("nohup ") : line.index(" >> ")]
    return shlex.split(simple)


def test_start_line_java_command_has_heap_flags_and_main_class_in_order():
    line = dm.start_line(dm.RESOURCEMANAGER, JAVA_HOME, LAYOUT, 384, ("-XX:TieredStopAtLevel=1",))
    words = _java_words(line)
    java = words.index(f"{JAVA_HOME}/bin/java")
    heap = words.index("-Xmx384m")
    opens = words.index(OPENS)
    extra = words.index("-XX:TieredStopAtLevel=1")
    main = words.index(dm.RESOURCEMANAGER.main_class)
    assert java < heap < opens < extra < main
    assert words[words.index("-cp") + 1] == f"{LAYOUT.work_dir}/conf:{LAYOUT.lib_dir}/*"
    assert f"HADOOP_CONF_DIR={LAYOUT.work_dir}/conf" in words[:java]
    assert f"VBENCH_HADOOP_LIB={LAYOUT.lib_dir}" in words[:java]  # expanded in task classpaths
    assert "-Dhadoop.log.file=resourcemanager.log" in words


def test_java_line_quotes_paths_with_spaces():
    layout = HostLayout(work_dir="/tmp/a dir/work", lib_dir="/lib dir")
    words = shlex.split(dm.java_line(JAVA_HOME, layout, 256, "Main", ["arg with space", "x"]))
    assert words[words.index("-cp") + 1] == "/tmp/a dir/work/conf:/lib dir/*"
    assert words[-3:] == ["Main", "arg with space", "x"]


def _write_pid(layout: HostLayout, daemon: str, pid: int) -> None:
    os.makedirs(layout.run, exist_ok=True)
    with open(layout.pid_file(daemon), "w") as fh:
        fh.write(f"{pid}\n")


def _fake_daemon(layout: HostLayout, daemon: dm.Daemon, ignore_term: bool = False) -> subprocess.Popen:
    """A process whose command line carries what java_line gives `daemon` in `layout`."""
    code = (
        "import signal, time\n"
        + ("signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if ignore_term else "")
        + "print('ready', flush=True)\ntime.sleep(60)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *dm.identity(daemon, layout).split(" ")], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "ready"
    _write_pid(layout, daemon.name, proc.pid)
    return proc


def test_stop_line_terms_every_daemon_at_once_and_removes_the_pid_files(tmp_path):
    layout = HostLayout(work_dir=str(tmp_path / "my work"), lib_dir="/nonexistent")
    procs = [_fake_daemon(layout, d) for d in (dm.DATANODE, dm.NODEMANAGER)]
    t0 = time.monotonic()
    r = subprocess.run(
        ["bash", "-c", dm.stop_line([dm.DATANODE, dm.NODEMANAGER], layout)], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert [p.wait(timeout=5) for p in procs] == [-signal.SIGTERM] * 2
    assert time.monotonic() - t0 < 3
    assert not os.path.exists(layout.pid_file("datanode")) and not os.path.exists(layout.pid_file("nodemanager"))


def test_stop_line_kills_a_daemon_that_ignores_term_after_the_grace_period(tmp_path):
    layout = HostLayout(work_dir=str(tmp_path / "work"), lib_dir="/nonexistent")
    proc = _fake_daemon(layout, dm.NAMENODE, ignore_term=True)
    t0 = time.monotonic()
    subprocess.run(["bash", "-c", dm.stop_line([dm.NAMENODE], layout, grace_s=1)], check=True)
    assert proc.wait(timeout=5) == -signal.SIGKILL
    assert 0.9 < time.monotonic() - t0 < 4


def test_stop_line_never_signals_a_process_vbench_did_not_start(tmp_path):
    """A stale pid file (after a crash or a reboot) whose pid now belongs to another process, or
    to the same daemon of another work dir: that process is left alone, the pid file removed."""
    layout = HostLayout(work_dir=str(tmp_path / "work"), lib_dir="/nonexistent")
    other = HostLayout(work_dir=str(tmp_path / "other"), lib_dir="/nonexistent")
    stranger = subprocess.Popen(["sleep", "60"])
    neighbour = _fake_daemon(other, dm.DATANODE)
    try:
        _write_pid(layout, "namenode", stranger.pid)
        _write_pid(layout, "datanode", neighbour.pid)
        line = dm.stop_line([dm.NAMENODE, dm.DATANODE], layout, grace_s=1)
        subprocess.run(["bash", "-c", line], check=True)
        assert stranger.poll() is None and neighbour.poll() is None
        assert not os.path.exists(layout.pid_file("namenode"))
        alive = subprocess.run(["bash", "-c", dm.alive_line([dm.DATANODE], other)], capture_output=True, text=True)
        assert dm.parse_alive(alive.stdout) == {"datanode": True}
    finally:
        stranger.kill()
        neighbour.kill()
        stranger.wait()
        neighbour.wait()


@pytest.mark.parametrize("content", [str(DEAD_PID), "", "../../self", "-1"])
def test_stop_line_with_a_dead_or_garbled_pid_removes_the_pid_file_and_succeeds(tmp_path, content):
    layout = HostLayout(work_dir=str(tmp_path / "work"), lib_dir="/nonexistent")
    os.makedirs(layout.run)
    Path(layout.pid_file("datanode")).write_text(content + "\n")
    r = subprocess.run(["bash", "-c", dm.stop_line([dm.DATANODE], layout)], capture_output=True, text=True)
    assert r.returncode == 0
    assert not os.path.exists(layout.pid_file("datanode"))


def test_stop_line_without_a_pid_file_succeeds(tmp_path):
    layout = HostLayout(work_dir=str(tmp_path / "work"), lib_dir="/nonexistent")
    assert subprocess.run(["bash", "-c", dm.stop_line([dm.DATANODE], layout)]).returncode == 0


def test_alive_line_reports_live_dead_missing_and_foreign_pids(tmp_path):
    layout = HostLayout(work_dir=str(tmp_path / "my work"), lib_dir="/nonexistent")
    proc = _fake_daemon(layout, dm.NAMENODE)
    try:
        _write_pid(layout, "datanode", DEAD_PID)
        _write_pid(layout, "resourcemanager", os.getpid())  # alive, but not the daemon vbench started
        line = dm.alive_line([dm.NAMENODE, dm.DATANODE, dm.NODEMANAGER, dm.RESOURCEMANAGER], layout)
        r = subprocess.run(["bash", "-c", line], capture_output=True, text=True, check=True)
        assert dm.parse_alive(r.stdout) == {
            "namenode": True,
            "datanode": False,
            "nodemanager": False,
            "resourcemanager": False,
        }
    finally:
        proc.kill()
        proc.wait()


def test_parse_alive_ignores_blank_lines():
    assert dm.parse_alive("namenode up\n\n  \ndatanode down\n") == {"namenode": True, "datanode": False}


def test_parse_alive_of_nothing_is_empty():
    assert dm.parse_alive("") == {}


def test_parse_alive_ignores_lines_it_did_not_print():
    text = "Welcome to Debian\nnamenode up\nresourcemanager down\n"
    assert dm.parse_alive(text) == {"namenode": True, "resourcemanager": False}
