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
    ({"name": "x", "suite": [{"benchmark": "pi", "config": {"maps": 0}}]}, "experiment.suite[0].config.maps"),
    ({"name": "x", "suite": [{"benchmark": "pi", "config": {"bogus": 1}}]}, "experiment.suite[0].config.bogus"),
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


# --- environment factors (issue #8) ----------------------------------------------------


def test_environment_factors_make_configurations_each_with_its_own_cells():
    e = exp(factors={"testbed.network.mode": ["bridge", "nat"], "hadoop.replication": [1, 2]}, repetitions=2)
    keys = {c.config.key for c in expand(e)}
    assert keys == {"native[replication=1,network.mode=bridge]", "native[replication=1,network.mode=nat]",
                    "native[replication=2,network.mode=bridge]", "native[replication=2,network.mode=nat]"}
    cells = expand(e)
    assert len(cells) == 2 * 4 * 4 and len({c.cell_id for c in cells}) == len(cells)
    one = next(c for c in cells if c.config.key == "native[replication=2,network.mode=nat]")
    assert one.config.overrides("testbed") == {"network": {"mode": "nat"}}
    assert one.config.overrides("hadoop") == {"replication": 2}
    assert one.config.stamp() == {"platform": "native", "factor.network.mode": "nat", "factor.replication": 2}


def test_a_design_without_factors_keeps_its_cell_ids_and_hash():
    e = exp()
    assert all(c.cell_id.startswith(f"b{c.block}/native/") for c in expand(e))
    assert "factors" not in e.model_dump(mode="json") or design_hash(e) == design_hash(exp(factors={}))


def test_configurations_are_shuffled_within_blocks_and_every_block_has_all():
    e = exp(factors={"testbed.vms_per_host": [1, 2, 4]}, platforms=("native", "lxc"), repetitions=4, seed=3)
    per_block = {}
    for c in expand(e):
        per_block.setdefault(c.block, []).append(c.config.key)
    assert all(len(set(v)) == 6 for v in per_block.values())
    orders = {tuple(dict.fromkeys(v)) for v in per_block.values()}
    assert len(orders) > 1


@pytest.mark.parametrize("factors, field, words", [
    ({"testbed.network.mode": ["bridge", "sriov"]}, "factors", "SR-IOV"),
    ({"testbed.network.mode": ["bridge", "wifi"]}, "factors", "level 1"),
    ({"testbed.nosuch": [1]}, "factors", "no field"),
    ({"replication": [1]}, "factors", "testbed or Hadoop"),
    ({"testbed.platform": ["lxc"]}, "factors", "platforms"),
    ({"hadoop.replication": []}, "factors", "non-empty"),
    ({"testbed.vms_per_host": [0]}, "factors", "level 0"),
])
def test_bad_factors_are_refused_naming_the_field(tmp_path, factors, field, words):
    f = tmp_path / "e.yaml"
    f.write_text(yaml.safe_dump({"experiment": {"name": "x", "factors": factors,
                                                "suite": [{"benchmark": "pi"}]}}))
    with pytest.raises(ParamsError) as err:
        load_experiment(f)
    assert f"experiment.{field}" in str(err.value) and words.lower() in str(err.value).lower(), str(err.value)


def test_compare_must_name_a_factor(tmp_path):
    with pytest.raises(ValueError, match="compare"):
        exp(factors={"testbed.network.mode": ["bridge", "nat"]}, compare=("network.modes",))
    e = exp(factors={"testbed.network.mode": ["bridge", "nat"]}, compare=("network.mode",), baseline="bridge")
    assert e.compare == ("network.mode",)


def test_params_for_applies_experiment_then_factor_levels_without_losing_the_network():
    from vbench.campaign.runner import params_for
    from vbench.params import hadoop_params, testbed_params

    e = exp(factors={"testbed.network.mode": ["nat"], "hadoop.topology": ["rack"]},
            testbed={"network": {"link": {"rate_mbit": 100}}}, hadoop={"replication": 1})
    config = e.configurations()[0]
    tb, hp = params_for(e, config, testbed_params({"network": {"bridge": "xbr", "subnet": "10.9.0.0/24"}}),
                        hadoop_params({}))
    assert (tb.network.bridge, str(tb.network.subnet), tb.network.mode) == ("xbr", "10.9.0.0/24", "nat")
    assert tb.network.link.rate_mbit == 100
    assert (hp.topology, hp.replication) == ("rack", 1)
