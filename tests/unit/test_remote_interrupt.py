"""Issue #52: an interrupt (Ctrl-C, SIGTERM) while a remote command runs stops it on its host and
reaches the caller within seconds; fabric waited for a command without a pty to end by itself.

These tests drive the real invoke/fabric runner (vbench.host.KillableRemote: its threads, its wait,
its handling of KeyboardInterrupt) over a stand-in for a paramiko channel whose "remote" command is
a local `sh -c` in a session of its own, as sshd starts it: the command line vbench sends, the
pid file, the kill and the signals are all real. tests/integration/test_remote_interrupt.py does
the same through a real sshd."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import fabric.runners
import pytest
from invoke.exceptions import CommandTimedOut

from vbench.benchmarks.micro import fileopen, rpc
from vbench.host import Host, KillableRemote, SshEndpoint, connect, isolated_config, kill_line, recorded_command
from vbench.lifecycle import Terminated, interrupts_unwind

#: How long a stopped command may take to give the caller its interrupt back.
BOUND_S = 5.0


class LocalChannel:
    """The slice of paramiko's Channel that fabric's Remote runner and vbench's kill use, over a
    local `sh -c` started in a new session (sshd makes each session's shell a session leader)."""

    def __init__(self, commands: list[str], procs: list[subprocess.Popen]):
        self.commands, self.procs = commands, procs
        self.proc: subprocess.Popen | None = None
        self.closed = False
        self.status_event = threading.Event()

    def exec_command(self, command: str) -> None:
        self.commands.append(command)
        self.proc = subprocess.Popen(
            ["sh", "-c", command],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.procs.append(self.proc)
        threading.Thread(target=self._reap, daemon=True).start()

    def _reap(self) -> None:
        assert self.proc is not None
        self.proc.wait()
        self.status_event.set()

    def _read(self, pipe, n: int) -> bytes:
        # Like a channel: blocks until data or end of output (every writer gone), b"" once closed here.
        while not self.closed:
            if select.select([pipe], [], [], 0.05)[0]:
                return os.read(pipe.fileno(), n)
        return b""

    def recv(self, n: int) -> bytes:
        return self._read(self.proc.stdout, n)

    def recv_stderr(self, n: int) -> bytes:
        return self._read(self.proc.stderr, n)

    def exit_status_ready(self) -> bool:
        return self.proc is not None and self.proc.poll() is not None

    def recv_exit_status(self) -> int:
        code = self.proc.wait()
        return code if code >= 0 else -1  # paramiko: -1 when the command died of a signal

    def sendall(self, data) -> None:
        pass

    def shutdown_write(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True
        self.status_event.set()


class LocalConnection:
    """What the runner needs of a fabric Connection: its config and new sessions (the kill opens
    one on the connection's transport)."""

    def __init__(self):
        self.config = isolated_config()
        self.commands: list[str] = []
        self.procs: list[subprocess.Popen] = []
        self.transport = self

    def create_session(self) -> LocalChannel:
        return LocalChannel(self.commands, self.procs)

    def open_session(self, timeout=None) -> LocalChannel:
        return self.create_session()

    def is_active(self) -> bool:
        return True


def gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return True


def wait_gone(pid: int, within_s: float = 3.0) -> bool:
    end = time.monotonic() + within_s
    while not gone(pid) and time.monotonic() < end:
        time.sleep(0.05)
    return gone(pid)


@pytest.fixture
def conn():
    c = LocalConnection()
    yield c
    for p in c.procs:  # whatever a failed test left, by the pids this test started
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()


def runner(conn: LocalConnection, tmp_path: Path, cls=KillableRemote):
    r = cls(context=conn)
    r.pid_dir = str(tmp_path)
    return r


#: The "remote" command: a child that outlives its shell unless the group is killed, its pid said.
def long_command(tmp_path: Path) -> str:
    return f"sleep 60 & echo $! > {tmp_path}/child; sleep 60; echo finished"


def deliver(sig: signal.Signals, after_s: float) -> threading.Timer:
    t = threading.Timer(after_s, os.kill, (os.getpid(), sig))
    t.start()
    return t


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_kills_the_remote_command_and_returns_within_seconds(conn, tmp_path, sig):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    r = runner(conn, tmp_path)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C as in vbench
    try:
        with interrupts_unwind():  # SIGTERM -> Terminated, as vbench's commands set it
            timer = deliver(sig, 1.0)
            t0 = time.monotonic()
            with pytest.raises(KeyboardInterrupt) as raised:
                r.run(long_command(tmp_path), hide=True, warn=True, in_stream=False)
            took = time.monotonic() - t0 - 1.0
            timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    print(f"{sig.name}: back {took:.2f} s after delivery")
    assert took < BOUND_S, f"the interrupt came back {took:.1f} s after it was delivered"
    assert isinstance(raised.value, Terminated) == (sig == signal.SIGTERM)
    # The command's shell recorded its pid in the runner's file; the kill named that file alone.
    assert r.pid_file is not None and Path(r.pid_file).parent == tmp_path
    assert conn.commands[0] == recorded_command(long_command(tmp_path), r.pid_file)
    assert conn.commands[1:] == [kill_line(r.pid_file)]
    shell = conn.procs[0]
    assert wait_gone(shell.pid) and wait_gone(int((tmp_path / "child").read_text()))
    assert not Path(r.pid_file).exists()


def test_fabrics_own_runner_waited_for_the_remote_command_to_end(conn, tmp_path):
    """The defect itself, on fabric's Remote: the interrupt is raised, but only once the remote
    command's output ends (here: a 4 s command, instead of a job's minutes)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    r = runner(conn, tmp_path, cls=fabric.runners.Remote)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer = deliver(signal.SIGINT, 0.5)
        t0 = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            r.run("sleep 4", hide=True, warn=True, in_stream=False)
        took = time.monotonic() - t0
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert took > 3.5 and conn.commands == ["sleep 4"]


def test_a_timeout_kills_the_remote_command_too(conn, tmp_path):
    r = runner(conn, tmp_path)
    t0 = time.monotonic()
    with pytest.raises(CommandTimedOut):
        r.run(long_command(tmp_path), hide=True, warn=True, in_stream=False, timeout=1)
    assert time.monotonic() - t0 < 1 + BOUND_S
    assert conn.commands[1:] == [kill_line(r.pid_file)]
    assert wait_gone(conn.procs[0].pid) and wait_gone(int((tmp_path / "child").read_text()))


def test_a_command_that_ends_keeps_its_output_and_exit_code_and_leaves_no_pid_file(conn, tmp_path):
    r = runner(conn, tmp_path)
    res = r.run("echo out; echo err >&2; exit 3", hide=True, warn=True, in_stream=False)
    assert (res.stdout, res.stderr, res.exited, res.command) == ("out\n", "err\n", 3, "echo out; echo err >&2; exit 3")
    assert len(conn.commands) == 1 and list(tmp_path.iterdir()) == []


#: `kill` and `pkill` as shell functions that only say how they were called: the kill line's
#: decisions, checked without signalling anything.
STUBS = 'kill() { echo "kill $*" >> "$LOG"; return 1; }; pkill() { echo "pkill $*" >> "$LOG"; }; sleep() { :; }; '
#: And /proc/<pid>/cmdline as if it were the command's shell's.
SHELLS_CMDLINE = "grep() { return 0; }; "


@pytest.mark.parametrize("content", [None, "", "abc", "1", "0", "01", "-5", "12 34", "1; touch /tmp/x"])
def test_the_kill_acts_on_nothing_when_the_pid_file_is_gone_or_holds_no_shells_pid(tmp_path, content):
    f, log = tmp_path / "vbench-run-x.pid", tmp_path / "calls"
    if content is not None:
        f.write_text(content + "\n")
    r = subprocess.run(["sh", "-c", STUBS + kill_line(str(f))], env={**os.environ, "LOG": str(log)}, timeout=10)
    assert r.returncode == 0 and not log.exists() and not f.exists()


def test_the_kill_signals_the_recorded_process_group_then_its_pid_and_children(tmp_path):
    f, log = tmp_path / "vbench-run-x.pid", tmp_path / "calls"
    f.write_text("4242\n")
    env = {**os.environ, "LOG": str(log)}
    subprocess.run(["sh", "-c", STUBS + SHELLS_CMDLINE + kill_line(str(f))], env=env, timeout=10)
    # The stubbed kill fails as for a pid that leads no group: the pid and its children instead.
    assert log.read_text().splitlines() == [
        "kill -TERM -4242",
        "pkill -TERM -P 4242",
        "kill -TERM 4242",
        "kill -0 -4242",
        "kill -KILL -4242",
    ]
    assert not f.exists()


def test_the_kill_leaves_a_process_that_is_not_the_commands_shell_alone(tmp_path):
    f, log = tmp_path / "vbench-run-x.pid", tmp_path / "calls"
    f.write_text(f"{os.getpid()}\n")  # a live process whose command line does not name the file
    subprocess.run(["sh", "-c", STUBS + kill_line(str(f))], env={**os.environ, "LOG": str(log)}, timeout=10)
    assert not log.exists() and not f.exists()


def test_the_pid_file_is_never_one_that_exists(tmp_path):
    f = tmp_path / "vbench-run-x.pid"
    f.write_text("1\n")  # planted: noclobber refuses it, the command still runs
    r = subprocess.run(["sh", "-c", recorded_command("echo ran", str(f))], capture_output=True, text=True, timeout=10)
    assert (r.stdout, r.returncode) == ("ran\n", 0)


#: The shells a host runs a command with: sshd's login shell (root's bash on the testbed's native
#: hosts and in the guest image) and /bin/sh (dash on Debian).
SHELLS = [s for s in ("sh", "bash") if shutil.which(s)]


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize(
    "command",
    [
        # A command with an EXIT trap of its own (rpc's and fileopen's, for their files): it
        # replaced the one removing the pid file, and rpc's calibration left one per host.
        'trap \'rm -f "$OWN"\' EXIT; : > "$OWN"; echo out; exit 3',
        # A command that execs: it replaced the shell whose trap removes the file.
        "exec sh -c 'echo out; exit 3'",
    ],
    ids=["own-exit-trap", "exec"],
)
def test_a_command_that_sets_its_own_exit_trap_or_execs_still_leaves_no_pid_file(tmp_path, shell, command):
    pids, own = tmp_path / "pids", tmp_path / "own"
    pids.mkdir()
    f = pids / "vbench-run-x.pid"
    r = subprocess.run(
        [shell, "-c", recorded_command(command, str(f))],
        env={**os.environ, "OWN": str(own)},
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert (r.stdout, r.stderr, r.returncode) == ("out\n", "", 3)
    assert list(pids.iterdir()) == []  # the pid file is gone
    assert not own.exists()  # and the command's own trap still ran


@pytest.mark.parametrize("shell", SHELLS)
def test_the_recorded_pid_is_the_commands_shell_and_group(tmp_path, shell):
    """The kill reads the pid file and signals that process group: the command's `$$` and its
    children's group must be the pid recorded, the command running in a subshell or not."""
    f = tmp_path / "vbench-run-x.pid"
    command = f"cat {f}; echo $$; ps -o pgid= -p $$; sleep 5 & c=$!; ps -o pgid= -p $c; kill $c"
    p = subprocess.run(
        [shell, "-c", recorded_command(command, str(f))],
        capture_output=True,
        text=True,
        timeout=10,
        start_new_session=True,  # as sshd starts a session's shell
    )
    recorded, dollar, group, child_group = (int(x) for x in p.stdout.split())
    assert recorded == dollar == group == child_group
    assert not f.exists()


def test_the_runner_leaves_no_pid_file_after_a_micro_benchmark_with_an_exit_trap(conn, tmp_path):
    """The leak as it was found: fileopen's and rpc's scripts set `trap 'rm -f <file>' EXIT`; run
    through the runner each left its vbench-run-*.pid (one per host per calibration)."""
    pids, work = tmp_path / "pids", tmp_path / "work"
    pids.mkdir()
    work.mkdir()
    java_home = tmp_path / "jdk"
    (java_home / "bin").mkdir(parents=True)
    java = java_home / "bin" / "java"  # a stand-in: rpc's script around the JVM is what is tested
    java.write_text('#!/bin/sh\necho "openjdk version stub"\n')
    java.chmod(0o755)
    r = runner(conn, pids)
    for command in (
        fileopen.command(fileopen.FileopenConfig(count=100, repeats=1), str(work)),
        rpc.command(rpc.RpcConfig(java_home=str(java_home)), str(work)),
    ):
        res = r.run(command, hide=True, warn=True, in_stream=False)
        assert res.exited == 0, res.stderr
        assert list(pids.iterdir()) == [], command[:60]  # its pid file is gone
        assert list(work.iterdir()) == []  # and so is the file its own trap removes


def test_every_connection_runs_its_commands_through_the_killable_runner(tmp_path):
    (tmp_path / "kh").write_text("")
    ep = SshEndpoint(address="10.213.0.11", user="root", key_file=tmp_path / "id", known_hosts=tmp_path / "kh")
    host = Host(name="w1", role="worker", platform="native", address="10.213.0.11", work_dir="/w", ssh=ep)
    c = connect(host)
    assert c.config.runners.remote is KillableRemote
    assert isinstance(c._remote_runner(), KillableRemote)
