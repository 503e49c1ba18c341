"""Adaptive stopping in the measurement stage (vbench.pipeline.PrecisionHook): after each round the
campaign's samples so far go through the statistics, the decision is said and recorded, a stop
ends the campaign and is not resumed past."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pandas as pd
import pytest

from vbench import pipeline
from vbench.campaign.design import Experiment
from vbench.campaign.runner import run_campaign
from vbench.errors import ParamsError
from vbench.params import HadoopParams, TestbedParams
from vbench.stats.stopping import decide

from tests.unit.builders import paired_blocks, sample_row, two_platform_design


def design(**precision) -> Experiment:
    return two_platform_design(
        repetitions=30,
        suite=[{"benchmark": "terasort", "config": {"size_mb": 16}}, {"benchmark": "pi"}],
        precision={
            "target_pct": 2.5,
            "min_rounds": 4,
            "extra_rounds": 2,
            "metrics": ["terasort:terasort_time"],
            **precision,
        },
    )


def samples(n_blocks: int, seed: int = 5) -> pd.DataFrame:
    rows = []
    for rng, b, p, mu, shared in paired_blocks(n_blocks, seed):
        for warm in (True, False):  # a warm-up run of each, excluded by the rule
            value = math.exp(math.log(100) + mu + shared + rng.normal(0, 0.02)) * (1.3 if warm else 1)
            rows.append(sample_row(p, value, b, block=b, round=0, warmup=warm, size="16MB"))
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Info:
    block: int
    round: int
    cell_ids: tuple[str, ...]


def test_the_hook_stops_once_the_target_holds_and_extra_rounds_ran_and_records_why(tmp_path, monkeypatch):
    full = samples(30)
    seen = {"blocks": 0}
    monkeypatch.setattr(pipeline, "tidy", lambda raw: (full[full.block < seen["blocks"]].reset_index(drop=True), None))
    said: list[str] = []
    hook = pipeline.PrecisionHook(design(), tmp_path, log=said.append)
    assert hook.primary == (("terasort", "terasort_time"),)
    stop_reason, stopped_at = None, None
    for b in range(30):
        seen["blocks"] = b + 1
        stop_reason = hook.after_round(Info(b, 0, (f"b{b}/native/terasort[size_mb=16]",)))
        if stop_reason:
            stopped_at = b + 1
            break
    record = json.loads((tmp_path / pipeline.PRECISION_RECORD).read_text())
    reached = record["decisions"][-1]["reached_at"]
    assert reached is not None and reached >= 4 and stopped_at == reached + 2
    assert stop_reason.startswith("precision rule: target_reached")
    assert [d["verdict"] for d in record["decisions"]] == ["continue"] * (stopped_at - 1) + ["target_reached"]
    assert [d["rounds_done"] for d in record["decisions"]] == list(range(1, stopped_at + 1))  # warm-ups not counted
    assert said[-1].startswith(f"precision: stop after round {stopped_at}")
    assert pipeline.stopped_by_precision(tmp_path).startswith("target_reached: ")
    # A hook made again (a resumed campaign) remembers when the target was reached.
    assert pipeline.PrecisionHook(design(), tmp_path).reached_at == reached


def test_with_rounds_per_block_the_hook_gives_the_rule_the_block_and_its_block_counted_defaults(tmp_path, monkeypatch):
    exp = Experiment.model_validate(
        {
            **design().model_dump(mode="json"),
            "rounds": 3,
            "precision": {"target_pct": 2.5, "metrics": ["terasort:terasort_time"]},
        }
    )
    df = samples(2).assign(round=lambda d: d["repetition"] % 3)
    monkeypatch.setattr(pipeline, "tidy", lambda raw: (df, None))
    asked = {}

    def fake(*a, **kw):
        asked.update(kw)
        return decide([], rounds_done=kw["rounds_done"], target_pct=1, min_rounds=1, max_rounds=None)

    monkeypatch.setattr(pipeline, "precision_decision", fake)
    pipeline.PrecisionHook(exp, tmp_path, log=lambda _l: None).after_round(
        Info(1, 0, ("b1/native/terasort[size_mb=16]",))
    )
    assert asked["rounds_per_block"] == 3
    assert asked["min_rounds"] == 30 and asked["extra_rounds"] == 24  # 10 and 8 blocks' worth


def test_rounds_without_a_primary_benchmark_are_not_judged(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline, "tidy", lambda raw: pytest.fail("read the samples"))
    hook = pipeline.PrecisionHook(design(), tmp_path)
    assert hook.after_round(Info(0, 0, ("b0/native/pi", "b0/lxc/pi"))) is None
    assert not (tmp_path / pipeline.PRECISION_RECORD).exists()


def test_the_default_primary_comparisons_are_the_papers_headlines_of_the_designs_benchmarks():
    e = Experiment.model_validate(
        {
            "name": "t",
            "platforms": ["native", "lxc"],
            "repetitions": 10,
            "seed": 7,
            "suite": [{"benchmark": "terasort"}],
            "precision": {"target_pct": 3},
        }
    )
    assert set(pipeline.primary_comparisons(e)) == {
        ("terasort", "terasort_time"),
        ("terasort", "teragen_time"),
        ("terasort", "teravalidate_time"),
    }
    assert e.precision_min_rounds == 10 and e.precision_extra_rounds == 8


def test_a_design_with_a_precision_target_needs_the_rule(tmp_path):
    with pytest.raises(ParamsError) as exc:
        run_campaign(design(), TestbedParams(), HadoopParams(), tmp_path / "c", log=lambda _l: None)
    assert exc.value.field == "experiment.precision"


def test_a_stopped_campaign_is_not_resumed(tmp_path, monkeypatch):
    (tmp_path / pipeline.PRECISION_RECORD).write_text(
        json.dumps(
            {
                "decisions": [],
                "stopped": {
                    "verdict": "target_reached",
                    "reason": "every primary comparison within +/-3 %",
                    "rounds_done": 12,
                },
            }
        )
    )

    class FakeStage:
        experiment = design()
        raw = tmp_path

    monkeypatch.setattr(pipeline, "run_campaign", lambda *a, **k: pytest.fail("ran the campaign"))
    said: list[str] = []
    result = pipeline.measure(FakeStage(), "hadoop", log=said.append)
    assert result.stopped.startswith("target_reached") and "stopped by its precision rule" in said[0]
