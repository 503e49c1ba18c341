"""Issue #52 through a real sshd: Ctrl-C or SIGTERM while a remote command runs kills the command
on its host and reaches the caller within seconds (fabric waited for it to end). One sshd of this
test's own on 127.0.0.1, its keys in tmp_path; everything it starts is stopped by pid."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from vbench.host import REMOTE_PID_DIR, Host, SshEndpoint, connect, known_hosts_line
from vbench.lifecycle import Terminated, interrupts_unwind
from vbench.testbed.sshd import sshd_config

pytestmark = [pytest.mark.integration, pytest.mark.timeout(90)]

#: How long the interrupt may take to come back once delivered.
BOUND_S = 5.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


@pytest.fixture
def local_host(tmp_path):
    """A Host reached over SSH at 127.0.0.1 on a free port, served by an sshd of this test."""
    keygen = ["ssh-keygen", "-q", "-t", "ed25519", "-N", ""]
    subprocess.run([*keygen, "-f", str(tmp_path / "host_key")], check=True)
    subprocess.run([*keygen, "-f", str(tmp_path / "id")], check=True)
    (tmp_path / "authorized_keys").write_text((tmp_path / "id.pub").read_text())
    port = _free_port()
    cfg = tmp_path / "sshd_config"
    cfg.write_text(
        sshd_config(
            "127.0.0.1", str(tmp_path / "host_key"), str(tmp_path / "authorized_keys"), str(tmp_path / "sshd.pid"), port
        )
    )
    known = tmp_path / "known_hosts"
    known.write_text(known_hosts_line(["127.0.0.1"], (tmp_path / "host_key.pub").read_text(), port) + "\n")
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation directory
    log = open(tmp_path / "sshd.log", "wb")
    sshd = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(cfg)], stdout=log, stderr=log)
    try:
        end = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert sshd.poll() is None and time.monotonic() < end, (tmp_path / "sshd.log").read_text()
            time.sleep(0.1)
        ep = SshEndpoint(address="127.0.0.1", user="root", key_file=tmp_path / "id", known_hosts=known, port=port)
        yield Host(name="local", role="master", platform="native", address="127.0.0.1", work_dir=str(tmp_path), ssh=ep)
    finally:
        sshd.terminate()
        sshd.wait(10)
        log.close()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_stops_a_remote_command_on_its_host_within_seconds(local_host, tmp_path, sig):
    shell_f, child_f = tmp_path / "shell", tmp_path / "child"
    command = f"echo $$ > {shell_f}; sleep 60 & echo $! > {child_f}; sleep 60; echo finished"
    started = threading.Event()
    delivered: list[float] = []

    def interrupt_once_running() -> None:
        end = time.monotonic() + 20
        while not child_f.exists() and time.monotonic() < end:
            time.sleep(0.05)
        time.sleep(0.3)
        started.set()
        delivered.append(time.monotonic())
        os.kill(os.getpid(), sig)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C as in vbench
    conn = connect(local_host)
    pids: list[int] = []
    try:
        with interrupts_unwind():
            t = threading.Thread(target=interrupt_once_running, daemon=True)
            t.start()
            with pytest.raises(KeyboardInterrupt) as raised:
                conn.run(command, hide=True, warn=True, in_stream=False)
            back = time.monotonic()
            t.join()
        assert started.is_set()
        took = back - delivered[0]
        print(f"{sig.name}: back {took:.2f} s after delivery")
        assert took < BOUND_S
        assert isinstance(raised.value, Terminated) == (sig == signal.SIGTERM)
        pids = [int(shell_f.read_text()), int(child_f.read_text())]
        end = time.monotonic() + 3
        while any(map(_alive, pids)) and time.monotonic() < end:
            time.sleep(0.05)
        assert not [p for p in pids if _alive(p)], "the remote shell or its sleep outlived the interrupt"
        # The command's pid file is gone with it.
        mine = [f for f in Path(REMOTE_PID_DIR).glob("vbench-run-*.pid") if f.read_text().strip() == str(pids[0])]
        assert mine == []
    finally:
        signal.signal(signal.SIGINT, previous)
        conn.close()
        for p in pids:  # whatever a failed assertion left, by the pids the command itself gave
            if _alive(p):
                os.kill(p, signal.SIGKILL)
