"""vbench.hadoop.daemons: the shell lines that start, stop and probe the daemons."""
import os
import re
import shlex
import subprocess

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
    before, after = line[: amps[0]], line[amps[0] + 1:]
    # The backgrounded simple command is `nohup <java> >> log 2>&1 < /dev/null`.
    simple = before[before.rindex("; ") + 2:]
    assert simple.startswith("nohup env ")
    assert simple.rstrip().endswith(f">> {LAYOUT.log_file('namenode')} 2>&1 < /dev/null")
    assert after.strip().startswith(f"echo $! > {LAYOUT.pid_file('namenode')};")


def test_start_line_skips_a_daemon_whose_pid_file_names_a_live_process():
    line = dm.start_line(dm.DATANODE, JAVA_HOME, LAYOUT, 192)
    pid = LAYOUT.pid_file("datanode")
    assert f"if [ -f {pid} ] && kill -0 $(cat {pid}) 2>/dev/null; then echo running; else " in line
    assert line.index("then echo running") < line.index("nohup")


def test_start_line_is_valid_shell():
    line = dm.start_line(dm.RESOURCEMANAGER, JAVA_HOME, LAYOUT, 384, ("-XX:TieredStopAtLevel=1",))
    assert subprocess.run(["bash", "-n", "-c", line]).returncode == 0


def _java_words(line: str) -> list[str]:
    simple = line[line.index("nohup ") + len("nohup "): line.index(" >> ")]
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


def test_stop_line_terms_then_kills_and_removes_the_pid_file():
    line = dm.stop_line(dm.NAMENODE, LAYOUT, grace_s=3)
    pid = LAYOUT.pid_file("namenode")
    assert line.index("kill $p") < line.index("kill -9 $p") < line.index(f"rm -f {pid}")
    assert "seq 15" in line  # 3 s in 0.2 s steps
    assert line.endswith("; true")


def _write_pid(layout: HostLayout, daemon: str, pid: int) -> None:
    os.makedirs(layout.run, exist_ok=True)
    with open(layout.pid_file(daemon), "w") as fh:
        fh.write(f"{pid}\n")


def test_stop_line_with_a_dead_pid_removes_the_pid_file_and_succeeds(tmp_path):
    layout = HostLayout(work_dir=str(tmp_path / "work"), lib_dir="/nonexistent")
    _write_pid(layout, "datanode", DEAD_PID)
    r = subprocess.run(["bash", "-c", dm.stop_line(dm.DATANODE, layout)], capture_output=True, text=True)
    assert r.returncode == 0
    assert not os.path.exists(layout.pid_file("datanode"))


def test_stop_line_without_a_pid_file_succeeds(tmp_path):
    layout = HostLayout(work_dir=str(tmp_path / "work"), lib_dir="/nonexistent")
    assert subprocess.run(["bash", "-c", dm.stop_line(dm.DATANODE, layout)]).returncode == 0


def test_alive_line_reports_live_dead_and_missing_pids(tmp_path):
    layout = HostLayout(work_dir=str(tmp_path / "my work"), lib_dir="/nonexistent")
    _write_pid(layout, "namenode", os.getpid())
    _write_pid(layout, "datanode", DEAD_PID)
    line = dm.alive_line([dm.NAMENODE, dm.DATANODE, dm.NODEMANAGER], layout)
    r = subprocess.run(["bash", "-c", line], capture_output=True, text=True, check=True)
    assert dm.parse_alive(r.stdout) == {"namenode": True, "datanode": False, "nodemanager": False}


def test_parse_alive_ignores_blank_lines():
    assert dm.parse_alive("namenode up\n\n  \ndatanode down\n") == {"namenode": True, "datanode": False}


def test_parse_alive_of_nothing_is_empty():
    assert dm.parse_alive("") == {}
