"""vbench.paper.parallel: the build's pieces on every core, with the results of a loop."""

import multiprocessing
import os
import time
from functools import partial

import pytest

from vbench.paper import parallel
from vbench.paper.parallel import background, parallel_map


def _square(x: int) -> int:
    return x * x


def _fails_on(bad: int, x: int) -> int:
    if x == bad:
        raise ValueError(f"no {x}")
    return x


def test_results_come_back_in_the_items_order_whatever_the_cost_order(monkeypatch):
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    items = [3, 1, 4, 1, 5, 9, 2, 6]
    assert parallel_map(_square, items, cost=lambda x: x) == [x * x for x in items]
    assert parallel_map(_square, items) == [x * x for x in items]


def test_one_core_or_one_item_computes_in_process(monkeypatch):
    monkeypatch.setattr(parallel, "cores", lambda: 1)
    assert parallel_map(lambda x: x + 1, [1, 2]) == [2, 3]  # a lambda would not reach a worker
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    assert parallel_map(lambda x: x + 1, [1]) == [2]
    assert parallel_map(_square, []) == []


def test_a_workers_error_is_raised_as_the_function_raises_it(monkeypatch):
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    with pytest.raises(ValueError, match="no 2"):
        parallel_map(partial(_fails_on, 2), [1, 2, 3])


def test_a_function_no_worker_can_run_is_computed_in_process(monkeypatch):
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    assert parallel_map(lambda x: -x, [1, 2, 3]) == [-1, -2, -3]


def test_background_gives_what_the_call_gives_with_a_worker_or_without(monkeypatch):
    for n in (2, 1):
        monkeypatch.setattr(parallel, "cores", lambda n=n: n)
        assert background(_square, 7).result() == 49
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    with pytest.raises(ValueError, match="no 2"):
        background(_fails_on, 2, 2).result()


_PARENT = os.getpid()


def _hangs_in_a_worker(x: int) -> int:
    """As a worker does on a lock held at the fork: for ever, but only in a worker."""
    if os.getpid() != _PARENT:
        time.sleep(3600)
    return x * 10


def test_a_hung_worker_is_given_up_and_its_item_computed_in_process(monkeypatch, capsys):
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    before = {p.pid for p in multiprocessing.active_children()}
    start = time.monotonic()
    assert parallel_map(_hangs_in_a_worker, [1, 2, 3], timeout_s=0.5) == [10, 20, 30]
    assert time.monotonic() - start < 60  # not the hour the workers would sleep
    assert "gave no result of _hangs_in_a_worker in 0 s" in capsys.readouterr().err
    assert {p.pid for p in multiprocessing.active_children()} <= before  # the hung workers were ended


def test_a_hung_background_worker_is_given_up_the_same_way(monkeypatch, capsys):
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    before = {p.pid for p in multiprocessing.active_children()}
    start = time.monotonic()
    assert background(_hangs_in_a_worker, 4, timeout_s=0.5).result() == 40
    assert time.monotonic() - start < 60
    assert "gave no result" in capsys.readouterr().err
    assert {p.pid for p in multiprocessing.active_children()} <= before


def test_workers_that_answer_in_time_leave_nothing_running(monkeypatch, capsys):
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    before = {p.pid for p in multiprocessing.active_children()}
    assert parallel_map(_square, [1, 2, 3]) == [1, 4, 9]
    assert capsys.readouterr().err == ""
    assert {p.pid for p in multiprocessing.active_children()} <= before
