"""The soak's runners hear Ctrl-C as a terminal's foreground job does (issue #52): a soak started
from a shell's background inherits SIGINT ignored, an ignored signal stays ignored across exec,
and a runner that ignores SIGINT turns every Ctrl-C trial into one that tests nothing."""

from __future__ import annotations

import signal
import subprocess
import sys

from selfbench import soak

SLEEPER = [sys.executable, "-c", "import time; time.sleep(30)"]


def _started(ignore_sigint: bool) -> subprocess.Popen:
    # Both ways set in the child: the test run itself may have SIGINT ignored (started from a
    # shell's background), which a child left alone would inherit.
    disposition = signal.SIG_IGN if ignore_sigint else signal.SIG_DFL
    return subprocess.Popen(SLEEPER, preexec_fn=lambda: signal.signal(signal.SIGINT, disposition))


def test_a_process_that_ignores_sigint_is_told_apart_from_one_that_hears_it():
    for ignored in (True, False):
        p = _started(ignored)
        try:
            assert soak.sigint_ignored(p.pid) is ignored
        finally:
            p.kill()
            p.wait()
    assert soak.sigint_ignored(2**22 + 12345) is False  # no such process


def test_the_soak_restores_ctrl_c_it_inherited_ignored_so_its_runners_hear_it():
    before = signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        soak.hear_ctrl_c_as_a_terminal_gives_it()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        p = subprocess.Popen(SLEEPER)  # a handler is reset to the default at exec: the child hears SIGINT
        try:
            assert not soak.sigint_ignored(p.pid)
        finally:
            p.kill()
            p.wait()
    finally:
        signal.signal(signal.SIGINT, before)
