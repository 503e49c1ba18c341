"""Teardown that happens after success, failure, Ctrl-C and SIGTERM alike."""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator


class Terminated(KeyboardInterrupt):
    """Raised in the main thread when SIGTERM or SIGHUP arrives, so `finally` blocks run."""


@contextlib.contextmanager
def interrupts_unwind() -> Iterator[None]:
    """Turn SIGTERM/SIGHUP into an exception (Ctrl-C already is one) while the block runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum, _frame):
        raise Terminated(f"received signal {signal.Signals(signum).name}")

    previous = {s: signal.signal(s, raise_terminated) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


@contextlib.contextmanager
def shielded() -> Iterator[None]:
    """Defer SIGINT/SIGTERM/SIGHUP while cleaning up, so a second Ctrl-C cannot leave half a testbed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {s: signal.signal(s, lambda signum, _f: pending.append(signum)) for s in sigs}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if pending:
            signal.raise_signal(pending[0])


class UpDown:
    """`with thing:` calls `up()`, and `down()` on the way out, also when `up()` itself fails."""

    def up(self):  # pragma: no cover - interface
        raise NotImplementedError

    def down(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def __enter__(self):
        try:
            self.up()
        except BaseException:
            self.down()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.down()
