"""HadoopCluster.start: the JobHistoryServer is started only once HDFS is out of safe mode, and a
daemon that dies before then is named. The hosts are scripted: every shell line a cluster sends
is recorded and answered from the state the script keeps (no SSH, no JVM)."""

from __future__ import annotations

import json
import time
import re
from pathlib import Path

import pytest

from vbench.errors import ClusterNotReady
from vbench.hadoop import daemons as dm
from vbench.hadoop.artifacts import HadoopDist
from vbench.hadoop.cluster import CommandResult, HadoopCluster
from vbench.host import Host, SshEndpoint
from vbench.params import hadoop_params


def _host(name: str, role: str) -> Host:
    ep = SshEndpoint(name, "root", Path("/k"), Path("/kh"))
    return Host(name, role, "native", name, f"/w/{name}", ep, shares_controller_fs=True)


class ScriptedCluster(HadoopCluster):
    """Answers the NameNode's JMX with safe mode on for `safe_polls` polls, then off; the
    daemons whose start lines were sent are alive, except those named in `dies`."""

    def __init__(self, safe_polls: int, dies: tuple[str, ...] = (), blips: tuple[str, ...] = ()):
        hosts = [_host("master", "master"), _host("worker1", "worker"), _host("worker2", "worker")]
        super().__init__(hosts, hadoop_params({}), HadoopDist("3.4.2", Path("/dist")), log=lambda m: None)
        self.safe_polls, self.dies = safe_polls, dies
        # Daemons read dead at their first look only: a starting JVM's pid mid-exec, its cmdline empty.
        self.blips = set(blips)
        self.sent: list[tuple[str, str]] = []  # (host, what): "start <daemon>" or "jmx"
        self.started: set[tuple[str, str]] = set()

    def sh(self, host: Host, line: str, timeout: float | None = None) -> CommandResult:
        out = ""
        if "nohup" in line:
            for d in dm.DAEMONS:
                if f"-Dhadoop.log.file={d.name}.log" in line:
                    self.sent.append((host.name, f"start {d.name}"))
                    self.started.add((host.name, d.name))
        elif " up; else echo " in line:  # alive_line
            names = re.findall(r"then echo (\w+) up", line)
            blipped = {n for n in names if n in self.blips and (host.name, n) in self.started}
            self.blips -= blipped
            out = "\n".join(
                f"{n} {'up' if (host.name, n) in self.started and n not in {*self.dies, *blipped} else 'down'}"
                for n in names
            )
        elif "NameNodeInfo" in line:
            self.sent.append((host.name, "jmx"))
            safe = sum(1 for _, w in self.sent if w == "jmx") <= self.safe_polls
            out = json.dumps({"beans": [{"LiveNodes": "{}", "Safemode": "Safe mode is ON." if safe else ""}]})
        return CommandResult(line, 0, out, "", 0.0)


@pytest.fixture(autouse=True)
def _no_sleep(monkeypatch):
    monkeypatch.setattr("vbench.hadoop.cluster.time.sleep", lambda s: None)


def test_the_history_server_starts_only_once_hdfs_is_out_of_safe_mode():
    c = ScriptedCluster(safe_polls=3)
    c.start(timeout_s=30)
    jhs = c.sent.index(("master", "start historyserver"))
    polls = [i for i, (_, w) in enumerate(c.sent) if w == "jmx"]
    assert len(polls) == 4 and polls[-1] < jhs  # three polls in safe mode, the fourth out of it
    before = {w for _, w in c.sent[:jhs] if w.startswith("start ")}
    assert before == {f"start {d.name}" for d in dm.DAEMONS if d is not dm.HISTORYSERVER}
    assert c.sent.count(("master", "start historyserver")) == 1


def test_a_namenode_that_dies_before_hdfs_answers_is_named_and_the_history_server_never_starts():
    c = ScriptedCluster(safe_polls=100, dies=("namenode",))
    with pytest.raises(ClusterNotReady, match="namenode on master exited during start-up"):
        c.start(timeout_s=30)
    assert ("master", "start historyserver") not in c.sent


def test_a_daemon_read_dead_once_while_starting_is_looked_at_again():
    """A live ResourceManager read dead at one look (its pid between nohup's, env's and java's
    images: /proc/<pid>/cmdline empty) is not a death; a CI run was refused so, all logs empty."""
    c = ScriptedCluster(safe_polls=2, blips=("resourcemanager",))
    c.start(timeout_s=30)
    assert not c.blips and ("master", "start historyserver") in c.sent


def test_a_daemon_read_dead_at_the_deadline_gets_its_second_look_and_is_named():
    """Past the deadline a daemon read dead is still looked at once more, and then named as dead,
    not hidden behind "not ready"."""
    c = ScriptedCluster(safe_polls=10**9, dies=("resourcemanager",))
    with pytest.raises(ClusterNotReady, match="resourcemanager on master exited during start-up"):
        c.start(timeout_s=0.0)


def test_hdfs_still_in_safe_mode_at_the_deadline_says_so():
    c = ScriptedCluster(safe_polls=10**9)
    with pytest.raises(ClusterNotReady, match="not ready after 0 s: HDFS out of safe mode"):
        c.start(timeout_s=0.05)
    assert ("master", "start historyserver") not in c.sent


def test_the_history_server_and_the_rest_share_one_deadline_from_the_start_of_the_bring_up():
    """`up` gives start() and wait_ready() the same start time: the second wait has what the
    first left, and a deadline already passed still looks once and names what is missing."""
    c = ScriptedCluster(safe_polls=0)
    long_ago = time.monotonic() - 200
    c.start(timeout_s=120, since=long_ago)  # HDFS answers at the first look: no wait needed
    assert ("master", "start historyserver") in c.sent
    with pytest.raises(ClusterNotReady, match=r"not ready after 120 s: DataNode on worker1, DataNode on worker2"):
        c.wait_ready(timeout_s=120, since=long_ago)
