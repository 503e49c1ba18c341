"""vbench.stats.pernode: per-node task times and the straggler verdict, from task-attempt samples."""

from __future__ import annotations

import pandas as pd
import pytest

from vbench.stats import pernode


def _attempts(rows):
    return pd.DataFrame(
        [
            {
                "metric": f"{t}_attempt_time",
                "value": v,
                "node": n,
                "step": "terasort",
                "platform": "native",
                "host_platforms": '{"worker1": "native", "worker2": "qemu"}',
            }
            for t, n, v in rows
        ]
    )


def test_node_table_and_straggler():
    d = _attempts(
        [
            ("map", "worker1", 10),
            ("map", "worker1", 12),
            ("map", "worker1", 11),
            ("map", "worker2", 40),
            ("map", "worker2", 44),
            ("map", "worker2", 42),
            ("reduce", "worker1", 20),
            ("reduce", "worker2", 21),
        ]
    )
    rows = pernode.node_table(d)
    m2 = next(r for r in rows if r.node == "worker2" and r.task_type == "MAP")
    assert (m2.platform, m2.tasks, m2.mean_s, m2.max_s) == ("qemu", 3, 42.0, 44.0)
    assert m2.vs_others == pytest.approx(42 / 11)
    verdicts = {v.task_type: v for v in pernode.stragglers(rows)}
    assert verdicts["MAP"].node == "worker2" and "qemu" in verdicts["MAP"].verdict
    assert verdicts["REDUCE"].node is None  # 1.05x is no straggler


def _unsuccessful(rows, diagnostics=""):
    return pd.DataFrame(
        [
            {
                "metric": f"{t}_attempt_unsuccessful",
                "value": 1,
                "node": n,
                "step": "terasort",
                "platform": "native",
                "attempt_state": st,
                "diagnostics": diagnostics,
            }
            for t, n, st in rows
        ]
    )


def test_a_slow_node_with_one_task_and_lost_speculative_races_is_the_straggler():
    # As measured on the mixed native + TCG VM cluster: one map finished on the VM in 270 s,
    # three of its attempts were killed because speculative copies on worker1 finished first.
    d = pd.concat(
        [
            _attempts(
                [("map", "worker1", 5.0), ("map", "worker1", 8.0), ("map", "worker1", 5.4), ("map", "worker2", 269.7)]
            ),
            _unsuccessful(
                [("map", "worker2", "KILLED")] * 3,
                diagnostics="Speculation: attempt_1_0002_m_000002_1 succeeded first!",
            ),
        ]
    )
    rows = {r.node: r for r in pernode.node_table(d)}
    assert (rows["worker2"].killed, rows["worker2"].lost_races, rows["worker2"].slow_evidence) == (3, 3, 4)
    (v,) = pernode.stragglers(list(rows.values()))
    assert v.node == "worker2" and "3 attempts lost the race to a speculative copy" in v.verdict
    # Without the lost races, one task is too little to decide.
    (u,) = pernode.stragglers(pernode.node_table(d[d["metric"] != "map_attempt_unsuccessful"]))
    assert u.node is None and u.verdict.startswith("undecided")


def test_a_node_that_finished_nothing_has_a_row_and_is_the_straggler():
    d = pd.concat(
        [
            _attempts([("map", "worker1", 10), ("map", "worker1", 12)]),
            _unsuccessful([("map", "worker2", "FAILED"), ("map", "worker2", "FAILED"), ("map", "worker1", "KILLED")]),
        ]
    )
    rows = {r.node: r for r in pernode.node_table(d)}
    w2 = rows["worker2"]
    assert (w2.platform, w2.tasks, w2.mean_s, w2.failed, w2.killed) == ("qemu", 0, None, 2, 0)
    assert (rows["worker1"].tasks, rows["worker1"].failed, rows["worker1"].killed) == (2, 0, 1)
    (v,) = pernode.stragglers(list(rows.values()))
    assert v.node == "worker2" and "finished no map task" in v.verdict and "2 attempts" in v.verdict


def test_killed_attempts_alone_make_no_straggler():
    d = pd.concat(
        [_attempts([("map", "worker1", 10), ("map", "worker2", 11)]), _unsuccessful([("map", "worker2", "KILLED")])]
    )
    (v,) = pernode.stragglers(pernode.node_table(d))
    assert v.node is None


def test_straggler_needs_enough_tasks():
    d = _attempts([("map", "worker1", 10), ("map", "worker1", 10), ("map", "worker2", 40)])
    (v,) = pernode.stragglers(pernode.node_table(d))
    assert v.node is None and v.verdict.startswith("undecided")
