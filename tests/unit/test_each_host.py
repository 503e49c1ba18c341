"""vbench.each_host.on_each: results in order, errors as ThreadPoolExecutor.map gives them, and a
Ctrl-C that does not wait for the slowest host (issue #52: a testbed's wait for sshd went on
polling until its deadline after a Ctrl-C)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from vbench.each_host import GRACE_S, on_each

ROOT = Path(__file__).resolve().parents[2]


def test_results_come_in_the_items_order_whatever_order_they_end_in():
    assert on_each(lambda x: time.sleep(0.02 * (5 - x)) or x * x, range(5)) == [0, 1, 4, 9, 16]


def test_no_more_threads_than_workers_run_at_once():
    running, most = 0, 0
    lock = threading.Lock()

    def one(_):
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.02)
        with lock:
            running -= 1

    on_each(one, range(12), workers=3)
    assert most == 3


def test_every_item_runs_and_the_first_error_in_order_is_raised():
    ran = []

    def one(x):
        ran.append(x)
        if x in (1, 3):
            raise ValueError(f"item {x}")
        return x

    with pytest.raises(ValueError, match="item 1"):
        on_each(one, range(5), workers=2)
    assert sorted(ran) == [0, 1, 2, 3, 4]


def test_an_item_not_ended_within_the_deadline_gives_late_and_the_others_their_results():
    release = threading.Event()

    def one(x):
        if x == 1:
            release.wait(30)  # a host that does not answer
        return x * 10

    t0 = time.monotonic()
    try:
        assert on_each(one, range(3), within_s=0.3, late=lambda x: f"late {x}") == [0, "late 1", 20]
        assert time.monotonic() - t0 < 2.0
    finally:
        release.set()


def test_without_late_an_item_not_ended_within_the_deadline_is_an_error():
    release = threading.Event()
    t0 = time.monotonic()
    try:
        with pytest.raises(TimeoutError, match="1 of 2 items"):
            on_each(lambda x: release.wait(30) if x else x, range(2), within_s=0.3)
        assert time.monotonic() - t0 < 2.0  # not held up by the grace an interrupt gets
    finally:
        release.set()


def test_a_deadline_that_every_item_meets_changes_nothing():
    assert on_each(lambda x: x + 1, range(4), within_s=5.0, late=lambda x: None) == [1, 2, 3, 4]
    assert on_each(lambda x: x + 1, range(4), within_s=5.0) == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="item 2"):
        on_each(lambda x: (_ for _ in ()).throw(ValueError(f"item {x}")) if x == 2 else x, range(4), within_s=5.0)


def test_no_items_no_threads():
    assert on_each(lambda x: x, []) == []


#: A terminal's foreground job hears Ctrl-C; a test run started from a shell's background (as CI may
#: be) has SIGINT ignored, which every child inherits across exec. So the child restores it first.
HEAR_CTRL_C = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"


def _interrupted(script: str, tmp_path: Path) -> tuple[float, subprocess.CompletedProcess]:
    """Run `script`, send it SIGINT (as a terminal's Ctrl-C) once it prints "waiting", and return
    how long it took to end after that, with its output."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HEAR_CTRL_C + textwrap.dedent(script), str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "waiting"
        time.sleep(0.3)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        return time.monotonic() - t0, subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    finally:
        proc.kill()
        proc.wait()


def test_a_ctrl_c_leaves_a_call_that_does_not_return_and_ends_the_polls(tmp_path):
    # One call blocked for a minute (as a login shell was, 60 s), one polling until `stop`.
    took, done = _interrupted(
        """
        import sys, threading, time
        from vbench.each_host import on_each
        stop = threading.Event()
        def one(x):
            if x == 0:
                time.sleep(60)
            while not stop.is_set():
                time.sleep(0.01)
            print("poll ended", flush=True)
        print("waiting", flush=True)
        on_each(one, [0, 1], stop=stop)
        """,
        tmp_path,
    )
    assert "KeyboardInterrupt" in done.stderr
    assert "poll ended" in done.stdout
    assert took < GRACE_S + 3.0


def test_a_ctrl_c_during_the_testbeds_wait_for_sshd_ends_it_at_once(tmp_path):
    # An sshd that never says it listens, with a deadline ten minutes away: before on_each the
    # interrupt was acted on only when the poll reached that deadline.
    took, done = _interrupted(
        """
        import sys
        from pathlib import Path
        from vbench.host import Host, SshEndpoint
        from vbench.testbed.local import Testbed
        from vbench.testbed.provisioner import Created
        d = Path(sys.argv[1])
        (d / "sshd.log").write_text("")
        ep = SshEndpoint(address="10.213.0.11", user="root", key_file=d / "id", known_hosts=d / "kh", port=22)
        host = Host("worker1", "worker", "native", "10.213.0.11", str(d / "w"), ep)
        created = [Created(host, "ssh-ed25519 AAAA", sshd_log=d / "sshd.log", ready_timeout_s=600.0)]
        print("waiting", flush=True)
        Testbed._wait_ssh(object.__new__(Testbed), created)
        """,
        tmp_path,
    )
    assert "KeyboardInterrupt" in done.stderr
    assert took < GRACE_S + 3.0
