"""`vbench predict --fit-costs` notes a fitted resource whose planted cost the two campaigns measured
apart (vbench.stats.cost_prediction.costs_disagree): costs-jvm-levels and costs-fit-intel moved spawn
x6.05 and x8.33 at the same level on the same morning. Hand-made cost vectors."""

from __future__ import annotations

import math

from vbench.stats.cost_model import CostVector, LogRatio, ResourceCost
from vbench.stats.cost_prediction import costs_disagree

EVERY = "1.0/True"
FILE = "data/raw/costs-jvm-levels/samples.jsonl"


def _vector(config: str, **ratios: tuple[float, float]) -> CostVector:
    """A configuration's costs: resource=(ratio, its log's standard error), over 4 blocks (t, 3 df)."""
    return CostVector(config, tuple(ResourceCost(r, LogRatio(math.log(x), se, 3)) for r, (x, se) in ratios.items()))


def test_intervals_apart_are_noted_naming_both_and_the_file():
    theirs = [_vector(EVERY, spawn=(6.05, 0.009), rpc=(7.3, 0.05))]
    mine = [_vector(EVERY, spawn=(8.33, 0.01), rpc=(6.6, 0.05))]
    notes = costs_disagree(theirs, mine, ("spawn", "rpc"), FILE)
    assert len(notes) == 1
    assert notes[0].startswith(f"spawn in {EVERY}: {FILE} measured it x6.05 [")
    assert "the fit's own calibration x8.33 [" in notes[0] and "do not overlap" in notes[0]


def test_overlapping_intervals_are_not_noted():
    # rpc 7.3 against 6.6, each +/- ~17 % at 95 %: they overlap.
    theirs = [_vector(EVERY, rpc=(7.3, 0.05))]
    mine = [_vector(EVERY, rpc=(6.6, 0.05))]
    assert costs_disagree(theirs, mine, ("rpc",), FILE) == []


def test_only_fitted_resources_measured_in_both_configurations_are_compared():
    theirs = [_vector(EVERY, spawn=(6.05, 0.009), jvmstart=(2.86, 0.01)), _vector("1.0/process", spawn=(1.0, 0.01))]
    mine = [_vector(EVERY, spawn=(8.33, 0.01)), _vector("other", spawn=(9.0, 0.01))]
    # spawn not fitted: nothing; jvmstart not in the fit's own calibration: nothing; a configuration
    # in one campaign alone: nothing.
    assert costs_disagree(theirs, mine, ("jvmstart",), FILE) == []
    assert [n.split(":")[0] for n in costs_disagree(theirs, mine, ("spawn", "jvmstart"), FILE)] == [f"spawn in {EVERY}"]
    assert costs_disagree(theirs, [], ("spawn",), FILE) == []
