"""Experiment designs: validation, expansion into cells, blocked and seeded randomised order."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from vbench.campaign.design import BenchmarkSpec, Experiment, design_hash, expand, load_experiment
from vbench.errors import ParamsError

PRESETS = Path(__file__).resolve().parents[2] / "params" / "experiments"


def exp(**kw) -> Experiment:
    base = dict(name="t", platforms=("native",), repetitions=3,
                calibrate=(BenchmarkSpec(benchmark="cpu"),),
                suite=(BenchmarkSpec(benchmark="terasort", config={"size_mb": [16, 32]}), BenchmarkSpec(benchmark="pi")))
    return Experiment(**{**base, **kw})


def test_every_cell_appears_once_per_block():
    cells = expand(exp())
    ids = [c.cell_id for c in cells]
    assert len(ids) == len(set(ids)) == 3 * 4
    assert Counter(c.block for c in cells) == {0: 4, 1: 4, 2: 4}
    assert {c.variant.key for c in cells} == {"cpu", "pi", "terasort[size_mb=16]", "terasort[size_mb=32]"}


def test_factor_levels_become_configs():
    cells = [c for c in expand(exp()) if c.variant.benchmark == "terasort"]
    assert sorted({c.variant.config.size_mb for c in cells}) == [16, 32]


def test_blocks_run_in_sequence_and_calibration_precedes_the_suite_within_a_platform():
    cells = expand(exp(platforms=("native",)))
    assert [c.block for c in cells] == sorted(c.block for c in cells)
    for b in range(3):
        kinds = [c.variant.kind for c in cells if c.block == b]
        assert kinds == sorted(kinds, key=lambda k: k != "micro")


def test_order_is_seeded_random_within_blocks():
    a = [c.cell_id for c in expand(exp(seed=1, repetitions=6))]
    b = [c.cell_id for c in expand(exp(seed=1, repetitions=6))]
    c = [c.cell_id for c in expand(exp(seed=2, repetitions=6))]
    assert a == b and a != c
    # Not the same order in every block: the point of randomising against drift.
    orders = {tuple(x.variant.key for x in expand(exp(seed=1, repetitions=6)) if x.block == k) for k in range(6)}
    assert len(orders) > 1


def test_warmup_blocks_are_marked():
    cells = expand(exp(warmup_blocks=1))
    assert all(c.warmup == (c.block == 0) for c in cells)


def test_design_hash_changes_with_the_design():
    assert design_hash(exp()) == design_hash(exp())
    assert design_hash(exp()) != design_hash(exp(repetitions=4))


@pytest.mark.parametrize("data, field", [
    ({"name": "x", "platforms": ["xen"]}, "experiment.platforms"),
    ({"name": "x", "repetitions": 0}, "experiment.repetitions"),
    ({"name": "x", "suite": [{"benchmark": "nosuch"}]}, "experiment.suite[0].benchmark"),
    ({"name": "x", "suite": [{"benchmark": "pi", "config": {"maps": 0}}]}, "experiment.pi.maps"),
    ({"name": "x", "suite": [{"benchmark": "pi", "config": {"bogus": 1}}]}, "experiment.pi.bogus"),
])
def test_bad_designs_name_the_file_and_field(tmp_path, data, field):
    path = tmp_path / "e.yaml"
    path.write_text(yaml.safe_dump({"experiment": data}))
    with pytest.raises(ParamsError) as err:
        load_experiment(path)
    assert err.value.field == f"{path}: {field}"


@pytest.mark.parametrize("preset", sorted(p.stem for p in PRESETS.glob("*.yaml")))
def test_every_preset_validates_and_expands(preset):
    e = load_experiment(PRESETS / f"{preset}.yaml")
    assert e.name == preset
    assert len(expand(e)) >= e.repetitions
