"""One call per host, all at once, which an interrupt does not wait for.

`ThreadPoolExecutor` used as a context manager joins its threads on the way out, also when the
caller is interrupted: a Ctrl-C (or vbench's SIGTERM) during a wait for hosts was acted on only
when the slowest host answered, a login shell blocked for 60 s or a connection attempt retried up
to its deadline, while the user saw nothing happen. Here the threads are daemons: an interrupt
sets `stop` (for loops that poll to end at once), leaves the calls still running `GRACE_S` to end,
so that a command about to return does not run on beside the teardown, then goes on to the
caller's teardown, which removes the hosts those calls talk to.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Threads at once for an inventory's hosts, which may be many: as fabric's groups are used.
INVENTORY_WORKERS = 16

#: How long calls still running are waited for once the caller is interrupted.
GRACE_S = 2.0


def on_each(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    workers: int | None = None,
    stop: threading.Event | None = None,
    within_s: float | None = None,
    late: Callable[[T], R] | None = None,
) -> list[R]:
    """`[fn(x) for x in items]`, in order, computed on up to `workers` threads at once (default:
    a thread per item).

    As `ThreadPoolExecutor.map` does, every item is run and the first error in the items' order is
    raised once all have ended. An interrupt of the caller (KeyboardInterrupt and its subclasses, or
    any exception raised in the waiting thread) sets `stop`, waits at most `GRACE_S` for the calls
    under way, starts no further item, and is raised at once.

    With `within_s`, the caller waits at most that long in all: an item not ended by then gives
    `late(item)`, its call left running on its daemon thread (the remote command it waits on carries a
    timeout of its own), and no further item is started. `late` is a function, not a value, so that
    what a late item gives is an `R` like the others; without it, items not ended in time raise
    `TimeoutError` (there is nothing of type `R` to give them)."""
    todo = list(items)
    stop = stop if stop is not None else threading.Event()
    outcomes: list[tuple[bool, object] | None] = [None] * len(todo)
    taken = iter(range(len(todo)))
    take = threading.Lock()

    def work() -> None:
        while not stop.is_set():
            with take:
                i = next(taken, None)
            if i is None:
                return
            try:
                outcomes[i] = (True, fn(todo[i]))
            except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread below
                outcomes[i] = (False, exc)

    threads = [
        threading.Thread(target=work, name=f"vbench-each-{k}", daemon=True)
        for k in range(max(1, min(workers or len(todo), len(todo))))
    ]
    for t in threads:
        t.start()
    deadline = None if within_s is None else time.monotonic() + within_s
    try:
        for t in threads:
            t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        overdue = deadline is not None and any(t.is_alive() for t in threads)
    except BaseException:
        stop.set()
        _join_within(threads, GRACE_S)
        raise
    if overdue:
        stop.set()
        # Read once: a call ending now must not turn into a half-seen result.
        seen = list(outcomes)
        if late is None:
            missing = sum(o is None for o in seen)
            raise TimeoutError(f"on_each: {missing} of {len(seen)} items not ended within {within_s:g} s")
        return [late(x) if o is None else _value(o) for x, o in zip(todo, seen)]
    results: list[R] = []
    for outcome in outcomes:
        if outcome is None:  # `stop` set by someone else than an interrupt of this wait
            raise RuntimeError("on_each: stopped before every item was run")
        results.append(_value(outcome))
    return results


def _value(outcome: tuple[bool, object]):
    ok, value = outcome
    if not ok:
        raise value  # type: ignore[misc]
    return value


def _join_within(threads: list[threading.Thread], seconds: float) -> None:
    """Wait for `threads` up to `seconds` in all; a second interrupt ends the wait."""
    deadline = time.monotonic() + seconds
    try:
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
    except BaseException:  # noqa: BLE001 - the first interrupt is the one raised
        pass
