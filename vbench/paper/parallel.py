"""The paper build's independent pieces (reading a campaign, its statistics table) on every core.

`parallel_map(fn, items)` is `[fn(x) for x in items]` computed by forked worker processes, one per
core: each piece is a pure function of its campaign (the statistics seed every group on its own), so
where it is computed changes no number. One item, one core or no `fork` (macOS, Windows: a spawned
worker would import everything again) computes in-process, as does an item whose worker failed,
so its error is raised as the function raises it.

A forked worker can hang where the same call in-process would not: a lock some thread held at the
moment of the fork stays held in the child for ever. So the workers get `timeout_s` between them
(the whole paper is built in under a minute here); an item with no result by then is computed
in-process and the pool's workers, which this module started, are terminated.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Sequence
from multiprocessing.pool import AsyncResult, Pool
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: How long the forked workers of one call are waited for before they are taken as hung.
WORKER_TIMEOUT_S = 300.0


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _forks(workers: int) -> bool:
    return workers >= 2 and "fork" in multiprocessing.get_all_start_methods()


def _pool(workers: int) -> Pool:
    return multiprocessing.get_context("fork").Pool(workers)


def _collect(job: AsyncResult, deadline: float, fn: Callable[..., R], args: tuple, timeout_s: float) -> R:
    """The worker's result if it comes before `deadline`, else `fn(*args)` computed here (a worker
    that failed, or one taken as hung, which is said on stderr)."""
    try:
        return job.get(max(0.0, deadline - time.monotonic()))
    except multiprocessing.TimeoutError:
        print(
            f"paper: a forked worker gave no result of {getattr(fn, '__name__', fn)!s} in {timeout_s:.0f} s; "
            "computed in this process",
            file=sys.stderr,
        )
    except Exception:  # noqa: BLE001 - computed again here, to raise the error as fn raises it
        pass
    return fn(*args)


def parallel_map(
    fn: Callable[[T], R],
    items: Sequence[T],
    *,
    cost: Callable[[T], Any] | None = None,
    timeout_s: float = WORKER_TIMEOUT_S,
) -> list[R]:
    """`[fn(x) for x in items]`, in order; `fn` a module-level function (or a partial of one).

    The items are handed out costliest first by `cost` (e.g. a campaign's samples), so the long
    ones do not come last to a single worker. Results not in within `timeout_s` of the start are
    computed in-process."""
    workers = min(cores(), len(items))
    if not _forks(workers):
        return [fn(x) for x in items]
    order = sorted(range(len(items)), key=lambda i: cost(items[i]), reverse=True) if cost else range(len(items))
    pool = _pool(workers)
    try:
        jobs = {i: pool.apply_async(fn, (items[i],)) for i in order}
        deadline = time.monotonic() + timeout_s
        return [_collect(jobs[i], deadline, fn, (items[i],), timeout_s) for i in range(len(items))]
    finally:
        pool.terminate()  # the workers are done, or hung: either way nothing of theirs is waited for
        pool.join()


class Pending(Generic[R]):
    """`fn(*args)`, started by `background` in a forked worker while the caller goes on."""

    def __init__(self, fn: Callable[..., R], args: tuple, pool: Pool | None, timeout_s: float):
        self._fn, self._args, self._pool, self._timeout_s = fn, args, pool, timeout_s
        self._job: AsyncResult | None = pool.apply_async(fn, args) if pool is not None else None
        self._deadline = time.monotonic() + timeout_s

    def result(self) -> R:
        """The worker's result, waited for until `timeout_s` after the start (the worker then
        ends); computed here where there was no worker, or it failed or hung, so an error is
        raised as `fn` raises it."""
        try:
            if self._job is not None:
                return _collect(self._job, self._deadline, self._fn, self._args, self._timeout_s)
            return self._fn(*self._args)
        finally:
            if self._pool is not None:
                self._pool.terminate()
                self._pool.join()
                self._pool = self._job = None


def background(fn: Callable[..., R], *args: Any, timeout_s: float = WORKER_TIMEOUT_S) -> Pending[R]:
    """`fn(*args)` started in a forked worker, on another core, for `result()` to collect; on one
    core or without fork, `result()` computes it then. (A worker whose result is never asked for
    is terminated when the interpreter exits.)"""
    pool = _pool(1) if _forks(cores()) else None
    return Pending(fn, args, pool, timeout_s)
