"""The written benchmark contract (vbench.benchmarks.base): every module keeps it, the registry
refuses one that does not or that takes a name twice, and Configs validate by field constraints."""

from __future__ import annotations

import inspect
import types

import pytest
import yaml
from pydantic import Field

from vbench.benchmarks import registry
from vbench.benchmarks.base import BenchConfig, ContractError, StepOutput, check_module, replace, require_contract
from vbench.benchmarks.micro import cpu
from vbench.campaign.design import load_experiment
from vbench.errors import ParamsError

ALL = {name: module for table in registry.KINDS.values() for name, module in table.items()}


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_registered_module_keeps_the_contract(name):
    module = ALL[name]
    assert check_module(module) == []
    assert all(type(p) is module.Config for p in module.PRESETS.values())
    # No hand-written range checks: the fields carry their constraints.
    assert "require_" not in inspect.getsource(module) and "__post_init__" not in inspect.getsource(module)


def test_presets_are_the_mapping_not_every_classmethod():
    assert registry.make_config(cpu, {}, "cluster") == cpu.PRESETS["cluster"]
    with pytest.raises(ParamsError, match="cpu has no preset 'model_validate'; presets: cluster"):
        registry.make_config(cpu, {}, "model_validate")


def test_a_config_error_names_the_field_in_plain_english():
    with pytest.raises(ParamsError) as err:
        cpu.Config(threads=0)
    assert (err.value.field, str(err.value)) == ("threads", "threads: must be at least 1, got 0")
    with pytest.raises(ParamsError, match="time_s: expected an integer, got true"):
        cpu.Config(time_s=True)  # strict: a boolean is not a count
    with pytest.raises(ParamsError, match="bogus: is not a known field"):
        cpu.Config(bogus=1)
    with pytest.raises(ParamsError, match=r"^cpu\.threads: must be at most 1024, got 2000$"):
        registry.make_config(cpu, {"threads": "2000"})


def test_replace_validates_again():
    assert replace(cpu.Config(), threads=4).threads == 4
    with pytest.raises(ParamsError, match="threads: must be at least 1"):
        replace(cpu.Config(), threads=0)


def test_a_design_names_the_benchmark_field_where_it_is_written(tmp_path):
    path = tmp_path / "e.yaml"
    path.write_text(
        yaml.safe_dump(
            {"experiment": {"name": "x", "suite": [{"benchmark": "terasort", "config": {"replication": 11}}]}}
        )
    )
    with pytest.raises(ParamsError) as err:
        load_experiment(path)
    assert str(err.value) == f"{path}: experiment.suite[0].config.replication: must be at most 10, got 11"


def _module(name: str, **attrs) -> types.ModuleType:
    class C(BenchConfig):
        n: int = Field(1, ge=1)

    m = types.ModuleType(f"fake_{name}")
    m.__dict__.update(NAME=name, METRICS={"t": "s"}, Config=C, PRESETS={"big": C(n=9)}, parse=lambda outputs, cfg: [])
    m.__dict__.update(attrs)
    return m


def test_the_registry_refuses_a_name_taken_twice():
    with pytest.raises(ContractError, match="'dup' is taken twice"):
        require_contract([_module("dup"), _module("dup")])


def test_a_module_breaking_the_contract_is_named_with_what_it_gets_wrong():
    with pytest.raises(ContractError, match="lacks PRESETS"):
        require_contract([_without(_module("a"), "PRESETS")])
    assert "units of vbench.samples.UNITS" in check_module(_module("b", METRICS={"t": "seconds"}))[0]
    assert "is not a C" in check_module(_module("c", PRESETS={"x": cpu.Config()}))[0]
    assert "parse(outputs, cfg)" in check_module(_module("d", parse=lambda text, cfg: []))[0]


def test_an_argv_is_optional_but_has_the_commands_signature_where_there_is_one():
    assert check_module(_module("e", argv=lambda cfg, workdir: ["true"])) == []
    assert "argv(cfg, workdir)" in check_module(_module("f", argv=lambda cfg: ["true"]))[0]
    assert "argv(cfg, workdir)" in check_module(_module("g", argv=["true"]))[0]


def test_a_micro_benchmark_parses_one_output_named_after_it():
    text = "sysbench 1.0.20\n" + "".join(
        f"    {k}: 1.5\n" for k in ("events per second", "total time", "total number of events", "avg")
    )

    def values(samples):  # timestamps differ between two parses
        return [(s.metric, s.value, dict(s.metadata)) for s in samples]

    assert values(cpu.parse({"cpu": StepOutput(text, "", 0.0)}, cpu.Config())) == values(
        cpu.parse_stdout(text, cpu.Config())
    )


def _without(module: types.ModuleType, attr: str) -> types.ModuleType:
    delattr(module, attr)
    return module
