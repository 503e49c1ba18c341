"""Running several sides at the same moment (duet runs, issue #51): each side in a thread of its
own, released together by a barrier, while the main thread waits and stays the one that hears
Ctrl-C and SIGTERM.

An interrupt arrives in the main thread only. It is handed to every side still running as the
same kind of exception (KeyboardInterrupt, vbench.lifecycle.Terminated), raised inside that
thread, so that each side stops the way a run in the main thread stops: its remote command is
killed on its host (vbench.host.KillableRemote), its YARN job killed, its cell recorded as
interrupted. The main thread waits for them (at most `grace_s`, a second interrupt deferred)
and raises the interrupt again, so that the session's teardown follows within seconds.
"""

from __future__ import annotations

import ctypes
import threading
import time
from dataclasses import dataclass
from typing import Callable, Generic, Sequence, TypeVar

from vbench.lifecycle import shielded

T = TypeVar("T")

#: How long sides may take to stop after an interrupt: a remote kill (vbench.host.KILL_TIMEOUT_S)
#: and a YARN application kill, with room to record the cell.
STOP_GRACE_S = 30.0
#: How long a side waits at the barrier for the others (bring-up is done by then: only the
#: steps before a job, seconds, lie between the sides' starts).
BARRIER_TIMEOUT_S = 300.0


@dataclass
class Outcome(Generic[T]):
    """What one side ended with: its value, or the exception it raised."""

    value: T | None = None
    error: BaseException | None = None


class StartLine:
    """The barrier the sides' jobs start from, and when each side left it (monotonic s)."""

    def __init__(self, sides: int, timeout_s: float = BARRIER_TIMEOUT_S):
        self.barrier = threading.Barrier(sides, timeout=timeout_s)
        self.released: dict[int, float] = {}
        self._lock = threading.Lock()

    def wait(self, side: int) -> None:
        """Block until every side is here (threading.BrokenBarrierError when one never comes)."""
        self.barrier.wait()
        with self._lock:
            self.released[side] = time.monotonic()

    def abort(self) -> None:
        """A side that fails before its start: the others stop waiting for it. Nothing once a
        side has left (the barrier let them all go): partners released but not yet woken would
        otherwise find it broken, and a side failing just after the start would cancel theirs."""
        with self._lock:
            if not self.released:
                self.barrier.abort()

    def skew_s(self) -> float | None:
        """Seconds between the first and the last side leaving the barrier (None before all left)."""
        with self._lock:
            times = list(self.released.values())
        if len(times) < self.barrier.parties:
            return None
        return max(times) - min(times)


def raise_in_thread(thread: threading.Thread, exc_type: type[BaseException]) -> bool:
    """Raise `exc_type` in `thread` at its next Python instruction; True when the thread was found.
    CPython's documented hook for this; a thread blocked in C (a socket read) gets it when it
    returns to Python, which invoke's and paramiko's polling loops do every few milliseconds."""
    if thread.ident is None or not thread.is_alive():
        return False
    n = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(exc_type))
    return n == 1


def interrupt_like(exc: BaseException) -> type[BaseException]:
    """An exception class of `exc`'s kind that says what `exc` says (async exceptions are raised
    as classes, so the message travels in the class)."""
    said = str(exc)
    return type(type(exc).__name__, (type(exc),), {"__str__": lambda self: said, "__module__": __name__})


def run_together(
    sides: Sequence[Callable[[], T]],
    start: StartLine | None = None,
    grace_s: float = STOP_GRACE_S,
    poll_s: float = 0.2,
) -> list[Outcome[T]]:
    """Run every side in a thread of its own and wait for all; an exception a side raises is its
    outcome. An interrupt of the main thread is passed to the sides still running (see the
    module doc; `start` is broken first, since a side waiting there is blocked in C), waited for
    at most `grace_s`, and raised again."""
    outcomes: list[Outcome[T]] = [Outcome() for _ in sides]
    # The main thread waits on these, not on Thread.join: an interrupt inside join (CPython 3.11,
    # Thread._wait_for_tstate_lock) marks the joined thread stopped while it runs on, and that
    # side would never hear the interrupt.
    done = [threading.Event() for _ in sides]

    def side(k: int) -> None:
        try:
            outcomes[k].value = sides[k]()
        except BaseException as exc:  # noqa: BLE001 - the side's outcome, judged by the caller
            outcomes[k].error = exc
        finally:
            done[k].set()

    threads = [
        threading.Thread(target=side, args=(k,), name=f"vbench-side-{k}", daemon=True) for k in range(len(sides))
    ]
    try:
        for t in threads:  # inside the try: an interrupt while some are started still reaches them
            t.start()
        for d in done:
            while not d.wait(poll_s):
                pass
    except KeyboardInterrupt as exc:  # and so vbench.lifecycle.Terminated
        with shielded():  # a second Ctrl-C waits until the sides have stopped
            kind = interrupt_like(exc)
            if start is not None:
                start.abort()
            for t, d in zip(threads, done):
                if not d.is_set():
                    raise_in_thread(t, kind)
            deadline = time.monotonic() + grace_s
            for t, d in zip(threads, done):
                if d.wait(max(0.0, deadline - time.monotonic())) and t.is_alive():
                    t.join(max(0.0, deadline - time.monotonic()))
        raise
    for t in threads:
        t.join()  # each has ended its side: only the thread's own exit is left
    return outcomes
