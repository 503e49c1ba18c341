"""selfbench.level_blocks: a configuration's cost per block, the interval predict reads, and the blocks'
spread, on cost vectors with a known answer."""

from __future__ import annotations

import math
import statistics

import pytest

from selfbench import level_blocks as lb
from vbench.stats import cost_model as cm


def _ratio(values: list[float]) -> cm.LogRatio:
    logs = [math.log(v) for v in values]
    se = statistics.stdev(logs) / math.sqrt(len(logs))
    return cm.LogRatio(statistics.fmean(logs), se, len(logs) - 1, tuple((str(i), x) for i, x in enumerate(logs)))


def test_each_block_is_its_ratio_and_the_interval_is_the_ratios():
    memory = _ratio([2.0, 1.5, 2.5])
    vectors = [
        cm.CostVector("1.0/memory", (cm.ResourceCost("jvmstart", memory), cm.ResourceCost("rpc", _ratio([1.0, 1.1])))),
        cm.CostVector("1.0/True", (cm.ResourceCost("rpc", _ratio([8.0, 7.0, 9.0])),)),
    ]
    rows = lb.level_blocks(vectors, ["jvmstart", "rpc"])
    assert [(r.configuration, r.resource) for r in rows] == [
        ("1.0/memory", "jvmstart"),
        ("1.0/memory", "rpc"),
        ("1.0/True", "rpc"),  # no jvmstart calibrated there: not listed
    ]
    first = rows[0]
    assert [round(v, 9) for _, v in first.blocks] == [2.0, 1.5, 2.5]
    assert first.log_sd == pytest.approx(statistics.stdev([math.log(2.0), math.log(1.5), math.log(2.5)]))
    iv = memory.interval()
    assert (first.estimate, first.low, first.high) == pytest.approx((iv.estimate, iv.low, iv.high))
    assert first.low < (2.0 * 1.5 * 2.5) ** (1 / 3) < first.high


def test_a_cost_known_only_as_a_summary_has_no_blocks_and_no_spread():
    summary = cm.LogRatio.from_interval(3.0, 2.0, 4.5, df=2)
    [row] = lb.level_blocks([cm.CostVector("gvisor", (cm.ResourceCost("rpc", summary),))], ["rpc"])
    assert row.blocks == () and row.log_sd is None
    assert "no blocks" in lb.format_level_blocks([row], "cpu")


def test_the_text_names_the_pricing_and_every_block():
    [row] = lb.level_blocks(
        [cm.CostVector("1.0/memory", (cm.ResourceCost("jvmstart", _ratio([2.0, 1.6])),))], ["jvmstart"]
    )
    text = lb.format_level_blocks([row], "wall")
    assert "in wall time" in text and "0 x2.00, 1 x1.60" in text


def test_an_unknown_resource_is_refused_before_any_campaign_is_read(tmp_path, capsys):
    assert lb.main([str(tmp_path / "absent"), "--resources", "bandwidth"]) == 2
    assert "bandwidth" in capsys.readouterr().err
