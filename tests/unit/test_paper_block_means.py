"""The tables' intervals from the design's unit (issue #54 item 2): a block's runs (each host's run
of a micro-benchmark, repeats, rounds) share its cluster instance, so a table's interval is over
the blocks' means, and where a campaign has fewer than two blocks the table says its runs were
counted as independent."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vbench.paper.results import lookup_of
from vbench.paper.tables.grid import Cells
from vbench.paper.tables.micro import table_node_disks
from vbench.stats import compute_stats
from vbench.stats.describe import t_interval
from vbench.stats.table.groups import BLOCK_MEANS

#: Three blocks, two hosts each, a block effect much larger than the hosts' spread.
VALUES = {0: (100.0, 101.0), 1: (120.0, 121.5), 2: (90.0, 90.5)}


def _frame(with_blocks: bool = True, benchmark: str = "pi_digits", metric: str = "time") -> pd.DataFrame:
    rows = []
    for block, values in VALUES.items():
        for host, value in zip(("master", "worker1"), values):
            rows.append(
                {
                    "experiment": "platforms",
                    "platform": "native",
                    "benchmark": benchmark,
                    "metric": metric,
                    "unit": "s",
                    "value": value,
                    "repetition": block,
                    "host": host,
                    **({"block": block} if with_blocks else {}),
                }
            )
    return pd.DataFrame(rows)


def _means(table: pd.DataFrame) -> pd.DataFrame:
    return table[(table["statistic"] == "mean") & (table["platform"] == "native")].set_index("method")


def test_the_statistics_table_gives_a_mean_over_block_means_beside_the_runs_t():
    means = _means(compute_stats(_frame(), n_resamples=99))
    block, runs = means.loc[BLOCK_MEANS], means.loc["t"]
    expect = t_interval([np.mean(v) for v in VALUES.values()])
    assert int(block["n"]) == 3 and int(runs["n"]) == 6
    assert (block["estimate"], block["ci_low"], block["ci_high"]) == pytest.approx(
        (expect.estimate, expect.low, expect.high)
    )
    # Counting the six runs as independent narrows the interval the blocks give.
    assert block["ci_high"] - block["ci_low"] > runs["ci_high"] - runs["ci_low"]
    assert "3 blocks" in block["note"] and "independent unit" in block["note"]
    assert BLOCK_MEANS not in _means(compute_stats(_frame(with_blocks=False), n_resamples=99)).index


def test_a_tables_cells_are_over_block_means_and_say_so_or_say_the_runs_were_pooled():
    stats = compute_stats(_frame(), n_resamples=99)
    cells = Cells(lookup_of(stats))
    size = str(stats["size"].iloc[0]) if "size" in stats.columns else ""
    text = cells.mean("platforms", "native", "pi_digits", "time", size)
    mean = np.mean([np.mean(v) for v in VALUES.values()])
    assert text.startswith(rf"\num{{{mean:.0f}") or f"{mean:.0f}" in text
    assert cells.ns == [3] and cells.pooled == []
    assert "means of $n=3$ blocks" in cells.notes() and "runs are counted as independent" not in cells.notes()

    pooled = Cells(lookup_of(compute_stats(_frame(with_blocks=False), n_resamples=99)))
    pooled.mean("platforms", "native", "pi_digits", "time", size)
    assert pooled.pooled == [6] and pooled.ns == []
    assert "over $n=6$ runs" in pooled.notes() and "runs are counted as independent" in pooled.notes()


def test_the_per_node_disk_table_takes_each_nodes_block_means():
    blocked = table_node_disks(None, _frame(benchmark="dd", metric="write_bw").assign(unit="MB/s"))
    assert "node's means of $n=3$ blocks" in blocked and "every repeat" not in blocked
    pooled = table_node_disks(None, _frame(with_blocks=False, benchmark="dd", metric="write_bw").assign(unit="MB/s"))
    assert "every repeat on the node, $n=3$" in pooled and "counted as independent" in pooled
