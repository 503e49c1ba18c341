"""The paper build's independent pieces (reading a campaign, its statistics table) on every core.

`parallel_map(fn, items)` is `[fn(x) for x in items]` computed by forked worker processes, one per
core: each piece is a pure function of its campaign (the statistics seed every group on its own), so
where it is computed changes no number. One item, one core or no `fork` (macOS, Windows: a spawned
worker would import everything again) computes in-process, as does an item whose worker failed,
so its error is raised as the function raises it.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _forks(workers: int) -> bool:
    return workers >= 2 and "fork" in multiprocessing.get_all_start_methods()


def parallel_map(fn: Callable[[T], R], items: Sequence[T], *, cost: Callable[[T], Any] | None = None) -> list[R]:
    """`[fn(x) for x in items]`, in order; `fn` a module-level function (or a partial of one).

    The items are handed out costliest first by `cost` (e.g. a campaign's samples), so the long
    ones do not come last to a single worker."""
    workers = min(cores(), len(items))
    if not _forks(workers):
        return [fn(x) for x in items]
    order = sorted(range(len(items)), key=lambda i: cost(items[i]), reverse=True) if cost else range(len(items))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = {i: pool.submit(fn, items[i]) for i in order}
        out = []
        for i in range(len(items)):
            try:
                out.append(futures[i].result())
            except Exception:  # noqa: BLE001 - computed again here, to raise the error as fn raises it
                out.append(fn(items[i]))
        return out


class Pending(Generic[R]):
    """`fn(*args)`, started by `background` in a forked worker while the caller goes on."""

    def __init__(self, fn: Callable[..., R], args: tuple, pool: ProcessPoolExecutor | None):
        self._fn, self._args, self._pool = fn, args, pool
        self._future: Future | None = pool.submit(fn, *args) if pool is not None else None

    def result(self) -> R:
        """The worker's result, waited for (the worker then ends); computed here where there was no
        worker or it failed, so an error is raised as `fn` raises it."""
        try:
            if self._future is not None:
                try:
                    return self._future.result()
                except Exception:  # noqa: BLE001 - computed again here
                    pass
            return self._fn(*self._args)
        finally:
            if self._pool is not None:
                self._pool.shutdown(cancel_futures=True)
                self._pool = self._future = None


def background(fn: Callable[..., R], *args: Any) -> Pending[R]:
    """`fn(*args)` started in a forked worker, on another core, for `result()` to collect; on one
    core or without fork, `result()` computes it then. (A worker whose result is never asked for
    ends with its work, at the latest when the interpreter exits.)"""
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) if _forks(cores()) else None
    return Pending(fn, args, pool)
