"""vbench.paper.parallel: the build's pieces on every core, with the results of a loop."""

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
