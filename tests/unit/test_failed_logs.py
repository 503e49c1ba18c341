"""The end of a failed cluster's daemon logs kept in the campaign directory before teardown
(issue #52, vbench.campaign.failed_logs): the remote command and its answer read back, the paths,
the copy on test doubles of a cluster (its shell lines run by a local bash on a directory of this
test's: no host), a host that does not answer or fails, an interrupt during the copy, and the
runner's failure records naming where the copies are."""

from __future__ import annotations

import shlex
import signal
import subprocess
import threading
import time
import types
from pathlib import Path

import pytest

from vbench.campaign import failed_logs as fl
from vbench.campaign import runner
from vbench.campaign.design import expand, make_experiment, sessions
from vbench.campaign.runner import run_campaign
from vbench.errors import JobFailed
from vbench.host import Host, SshEndpoint
from vbench.ledger import read_ledger
from vbench.params import HadoopParams, TestbedParams

from tests.unit.builders import two_platform_design

SSH = SshEndpoint("10.213.0.10", "root", Path("/k"), Path("/kh"))


def bash(line: str) -> types.SimpleNamespace:
    """`line` run by a local bash, answered as HadoopCluster.sh answers."""
    r = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=10)
    return types.SimpleNamespace(ok=r.returncode == 0, exit_code=r.returncode, stdout=r.stdout, stderr=r.stderr)


class Cluster:
    """A cluster's test double: each host's logs are files under `work/<host>/logs/` here, its
    shell lines are run by a local bash; `answers` (host name -> a function of the line) stands
    in for a host that hangs or is gone."""

    def __init__(self, work: Path, names=("master", "worker1")):
        self.work = work
        self.hosts = [
            Host(n, "master" if n == "master" else "worker", "native", "10.213.0.10", str(work / n), SSH) for n in names
        ]
        self.lines: list[tuple[str, str, float | None]] = []
        self.answers: dict[str, object] = {}

    def log_files(self, host: Host) -> list[str]:
        daemons = ("namenode", "resourcemanager", "historyserver") if host.role == "master" else ("datanode",)
        return [f"{host.work_dir}/logs/{d}.log" for d in daemons]

    def sh(self, host: Host, line: str, timeout: float | None = None):
        self.lines.append((host.name, line, timeout))
        answer = self.answers.get(host.name)
        return answer(line) if answer is not None else bash(line)

    def write(self, host: str, name: str, data: bytes) -> Path:
        p = self.work / host / "logs" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        return p


# -- pure parts ------------------------------------------------------------------------------


def test_the_tail_command_quotes_every_path_and_bounds_each_file():
    line = fl.tail_command(["/w/a b/logs/namenode.log", "/w/it's/x.log"], "M")
    assert f"tail -c {fl.TAIL_BYTES} -- '/w/a b/logs/namenode.log'" in line
    assert "tail -c 262144 -- '/w/it'\"'\"'s/x.log'" in line
    assert line.count("tail -c") == 2 and line.endswith("exit 0")
    assert "[ ! -L '/w/a b/logs/namenode.log' ]" in line  # a symlink is not followed
    assert shlex.split(line)  # one well-formed shell line


def test_the_tail_command_run_by_a_shell_reads_back_each_files_exact_end_and_nothing_else(tmp_path):
    a = tmp_path / "a dir" / "namenode.log"
    a.parent.mkdir()
    a.write_bytes(b"old line\n" * 50 + b"could only be written to 0 of the 1 minReplication nodes\n")
    b = tmp_path / "datanode.log"
    b.write_bytes(b"no newline at the end")
    link = tmp_path / "linked.log"
    link.symlink_to(b)
    paths = [str(a), str(tmp_path / "missing.log"), str(b), str(link)]
    # A login shell's noise before the first marker is not a file's.
    r = bash("echo 'welcome'; " + fl.tail_command(paths, "MARK-1", nbytes=60))
    assert r.ok
    tails = fl.parse_tails(r.stdout, "MARK-1", paths)
    assert tails == {str(a): a.read_text()[-60:], str(b): "no newline at the end"}


def test_an_answer_cut_short_or_foreign_gives_only_whole_known_files():
    paths = ["/l/a.log"]
    assert fl.parse_tails("", "M", paths) == {}
    assert fl.parse_tails("\nM 0\nabc\nM 7\nxyz\nM end\n", "M", paths) == {"/l/a.log": "abc"}
    assert fl.parse_tails("\nM 0", "M", paths) == {}  # torn before the file's bytes


def test_paths_stay_inside_the_campaigns_failed_logs_directory(tmp_path):
    assert fl.run_dir("pi-20261129T051200-abc123") == "failed-logs/pi-20261129T051200-abc123"
    assert fl.configuration_dir(3, "native[network=nat]", 0) == "failed-logs/b3-native-network=nat-19700101T000000"
    for bad in ("..", ".", "", "a/../../b", "/etc/passwd"):
        name = fl.safe_name(bad)
        assert "/" not in name and name not in ("", ".", "..")
    to = fl.destination(tmp_path, fl.run_dir("r/../x"), "../master", "/w/logs/../../etc/namenode.log")
    assert to.resolve().is_relative_to((tmp_path / fl.DIR).resolve()) and to.name == "namenode.log"


# -- the copy, on a cluster's test double ----------------------------------------------------


def test_the_end_of_each_hosts_daemon_logs_is_kept_under_the_hosts_name(tmp_path):
    c = Cluster(tmp_path / "hosts")
    c.write("master", "namenode.log", b"x" * (fl.TAIL_BYTES + 100) + b"\nSafe mode is ON\n")
    c.write("worker1", "datanode.log", b"DataNode: No space left on device\n")
    c.write("worker1", "secret.txt", b"not a log vbench's cluster names\n")
    log: list[str] = []
    assert fl.keep(c, tmp_path / "camp", "failed-logs/r1", log.append) == "failed-logs/r1"
    kept = sorted(p.relative_to(tmp_path / "camp").as_posix() for p in (tmp_path / "camp").rglob("*") if p.is_file())
    assert kept == ["failed-logs/r1/master/namenode.log", "failed-logs/r1/worker1/datanode.log"]
    nn = (tmp_path / "camp" / "failed-logs/r1/master/namenode.log").read_bytes()
    assert len(nn) == fl.TAIL_BYTES and nn.endswith(b"Safe mode is ON\n")
    assert not log
    # One command per host, each with the timeout (the hosts are asked at once: in any order).
    assert sorted((h, t) for h, _, t in c.lines) == [("master", fl.HOST_TIMEOUT_S), ("worker1", fl.HOST_TIMEOUT_S)]


def test_at_most_a_fixed_number_of_files_per_host_are_asked_for(tmp_path):
    c = Cluster(tmp_path / "hosts", names=("master",))
    c.log_files = lambda host: [f"{host.work_dir}/logs/{i}.log" for i in range(50)]
    fl.keep(c, tmp_path / "camp", "failed-logs/r", lambda _l: None)
    (line,) = [x for _, x, _ in c.lines]
    assert line.count("tail -c") == fl.MAX_FILES_PER_HOST


def test_a_host_that_does_not_answer_is_skipped_with_one_line_within_the_timeout(tmp_path):
    c = Cluster(tmp_path / "hosts")
    c.write("master", "namenode.log", b"NameNode up\n")
    gone = threading.Event()
    c.answers["worker1"] = lambda line: gone.wait(30)  # a dead container: no answer at all
    log: list[str] = []
    t0 = time.monotonic()
    try:
        assert fl.keep(c, tmp_path / "camp", "failed-logs/r", log.append, timeout_s=0.3) == "failed-logs/r"
    finally:
        gone.set()
    assert time.monotonic() - t0 < 5
    assert log == ["  logs of worker1 not kept: no answer in 0.3 s"]
    assert (tmp_path / "camp/failed-logs/r/master/namenode.log").read_text() == "NameNode up\n"


def test_a_host_that_fails_is_skipped_and_the_others_are_kept(tmp_path):
    c = Cluster(tmp_path / "hosts")
    c.write("worker1", "datanode.log", b"DataNode up\n")

    def refused(line):
        raise OSError("[Errno 111] Connection refused\nmore")

    c.answers["master"] = refused
    log: list[str] = []
    assert fl.keep(c, tmp_path / "camp", "failed-logs/r", log.append) == "failed-logs/r"
    assert log == ["  logs of master not kept: [Errno 111] Connection refused"]
    c.answers["master"] = lambda line: types.SimpleNamespace(ok=False, exit_code=255, stdout="", stderr="gone\n")
    log.clear()
    fl.keep(c, tmp_path / "camp", "failed-logs/r2", log.append)
    assert log == ["  logs of master not kept: exit 255: gone"]


def test_nothing_found_keeps_nothing_and_names_no_directory(tmp_path):
    c = Cluster(tmp_path / "hosts")  # no log written: the cluster failed before any daemon started
    assert fl.keep(c, tmp_path / "camp", "failed-logs/r", lambda _l: None) is None
    assert not (tmp_path / "camp").exists()


def test_a_copy_that_cannot_be_written_is_said_in_one_line_and_never_raises(tmp_path):
    c = Cluster(tmp_path / "hosts")
    c.write("master", "namenode.log", b"NameNode up\n")
    (tmp_path / "camp").write_text("a file where the campaign directory should be")
    log: list[str] = []
    assert fl.keep(c, tmp_path / "camp", "failed-logs/r", log.append) is None
    assert len(log) == 1 and log[0].startswith("  daemon logs not kept: ")
    c.log_files = None  # a cluster that cannot even say its logs
    assert fl.keep(c, tmp_path / "camp2", "failed-logs/r", log.append) is None and len(log) == 2


def test_a_ctrl_c_during_the_copy_is_raised_at_once(tmp_path):
    c = Cluster(tmp_path / "hosts")
    c.write("worker1", "datanode.log", b"DataNode up\n")
    gone = threading.Event()
    c.answers["master"] = lambda line: gone.wait(30)
    main = threading.get_ident()
    old = signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal's foreground job has it
    timer = threading.Timer(0.3, lambda: signal.pthread_kill(main, signal.SIGINT))
    t0 = time.monotonic()
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            fl.keep(c, tmp_path / "camp", "failed-logs/r", lambda _l: None, timeout_s=30)
        took = time.monotonic() - t0
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, old)
        gone.set()
    assert took < 0.3 + 2.0 + 1.0  # the interrupt, on_each's grace for the calls under way, slack


# -- the runner's failure records ------------------------------------------------------------


def _records(camp: Path) -> list[dict]:
    return read_ledger(camp / "samples.jsonl").records


def test_a_lost_configurations_logs_are_kept_before_its_teardown_and_its_records_say_where(
    tmp_path, fake_machine, monkeypatch
):
    asked: list[tuple[str, str]] = []

    def keep(cluster, root, rel, log, timeout_s=fl.HOST_TIMEOUT_S):
        asked.append((cluster.testbed, rel))
        fake_machine.events.append(("keep logs", cluster.testbed))
        assert root == tmp_path / "c"
        return rel

    monkeypatch.setattr(runner.failed_logs, "keep", keep)
    e = two_platform_design(repetitions=1, suite=[{"benchmark": "pi"}, {"benchmark": "terasort"}])
    plan = [c for s in sessions(e, expand(e)) for c in s.runs]
    n = [i for i, c in enumerate(plan, 1) if c.platform == "lxc" and c.variant.kind == "hadoop"][1]
    fake_machine.raise_on_run[n] = RuntimeError("DataNode on worker1 exited during start-up")
    log: list[str] = []
    run_campaign(e, TestbedParams(), HadoopParams(), tmp_path / "c", log=log.append, hosts_source=fake_machine.source)
    (testbed, rel), *_ = asked
    assert len(asked) == 1 and testbed == "vb" and rel.startswith("failed-logs/b0-lxc-")
    ev = fake_machine.events
    assert ev[ev.index(("keep logs", "vb")) + 1] == ("cluster down", "vb")  # then its teardown
    failed = [r for r in _records(tmp_path / "c") if r["metadata"].get("configuration_failed")]
    assert failed and all(r["metadata"]["failed_logs"] == rel for r in failed)
    assert any(f"the end of its daemons' logs is kept in {tmp_path / 'c' / rel}" in line for line in log)


def test_a_configuration_whose_hosts_never_came_up_has_no_logs_to_keep(tmp_path, fake_machine, monkeypatch):
    asked = []
    monkeypatch.setattr(runner.failed_logs, "keep", lambda *a, **k: asked.append(a))
    fake_machine.cannot_open.add("lxc")
    e = two_platform_design(repetitions=1, suite=[{"benchmark": "pi"}])
    run_campaign(
        e, TestbedParams(), HadoopParams(), tmp_path / "c", log=lambda _l: None, hosts_source=fake_machine.source
    )
    failed = [r for r in _records(tmp_path / "c") if r["metadata"].get("configuration_failed")]
    assert failed and not asked and all("failed_logs" not in r["metadata"] for r in failed)


def test_a_failed_hadoop_runs_logs_are_copied_into_the_campaign_and_its_failure_names_them(
    tmp_path, fake_hadoop, monkeypatch
):
    work = tmp_path / "hosts"
    fake_hadoop.hosts = [
        Host(n, r, "native", "10.213.0.10", str(work / n), SSH) for n, r in (("master", "master"), ("w1", "worker"))
    ]
    (work / "master" / "logs").mkdir(parents=True)
    (work / "master" / "logs" / "namenode.log").write_text("could only be written to 0 of the 1 minReplication\n")

    class Logged(runner.HadoopCluster):  # fake_hadoop's cluster, with logs on this machine
        def log_files(self, host):
            return [f"{host.work_dir}/logs/namenode.log"] if host.role == "master" else []

        def sh(self, host, line, timeout=None):
            return bash(line)

    monkeypatch.setattr(runner, "HadoopCluster", Logged)

    def fails(module, cfg, run_dir):
        raise JobFailed("pi exited 1")

    fake_hadoop.execute = fails
    exp = make_experiment({"name": "f", "repetitions": 1, "suite": [{"benchmark": "pi"}]})
    result = run_campaign(
        exp, TestbedParams(), HadoopParams(), tmp_path / "camp", log=lambda _l: None, hosts_source=fake_hadoop.source()
    )
    assert result.failures == 1
    (f,) = [r for r in _records(tmp_path / "camp") if r["kind"] == "failure"]
    rel = f["metadata"]["failed_logs"]
    assert rel == f"failed-logs/{f['metadata']['run_id']}" and f["reason"] == "pi exited 1"
    kept = tmp_path / "camp" / rel / "master" / "namenode.log"
    assert kept.read_text() == "could only be written to 0 of the 1 minReplication\n"


def test_a_failed_run_whose_logs_cannot_be_kept_is_recorded_as_before(tmp_path, fake_hadoop, monkeypatch):
    class Broken(runner.HadoopCluster):
        def log_files(self, host):
            raise RuntimeError("no layout")

    monkeypatch.setattr(runner, "HadoopCluster", Broken)
    fake_hadoop.execute = lambda module, cfg, run_dir: (_ for _ in ()).throw(JobFailed("pi exited 1"))
    exp = make_experiment({"name": "f", "repetitions": 1, "suite": [{"benchmark": "pi"}]})
    log: list[str] = []
    result = run_campaign(
        exp, TestbedParams(), HadoopParams(), tmp_path / "camp", log=log.append, hosts_source=fake_hadoop.source()
    )
    (f,) = [r for r in _records(tmp_path / "camp") if r["kind"] == "failure"]
    assert result.failures == 1 and f["reason"] == "pi exited 1" and "failed_logs" not in f["metadata"]
    assert "  daemon logs not kept: no layout" in log
