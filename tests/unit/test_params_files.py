"""Every params file a design reads (testbed.yaml, hadoop.yaml, the experiment) is checked whole
before anything starts: a bad value or malformed YAML is one plain-English line naming the file
and the field, and nothing is brought up or written."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from vbench import pipeline
from vbench.benchmarks import registry
from vbench.benchmarks.micro import MICRO_BENCHMARKS
from vbench.campaign.study import load_study
from vbench.errors import ParamsError
from vbench.params import HadoopParams, TestbedParams, describe_validation_error, load_yaml_section, prefixed

from tests.unit.builders import cli_runner

PARAMS = Path(__file__).resolve().parents[2] / "params"


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture
def params(tmp_path) -> Path:
    """A private copy of the repository's params/ to break."""
    return Path(shutil.copytree(PARAMS, tmp_path / "params"))


@pytest.fixture
def nothing_starts(monkeypatch):
    """Make every way of starting something (testbed, cluster, Hadoop download) fail the test."""

    def must_not_run(*_a, **_k):
        raise AssertionError("went past validation and tried to start something")

    for target in (
        "vbench.testbed.Testbed",
        "vbench.testbed.local.Testbed",
        "vbench.campaign.hosts_source.Testbed",
        "vbench.pipeline.Testbed",
        "vbench.hadoop.cluster.HadoopCluster",
        "vbench.campaign.runner.HadoopCluster",
        "vbench.campaign.runner.fetch",
        "vbench.commands.isolation_cmd.run_isolation",
    ):
        monkeypatch.setattr(target, must_not_run)


@pytest.fixture
def vbench(nothing_starts, capsys):
    return cli_runner(capsys)


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # one clear line: no traceback, no pyyaml dump
    assert lines[0].startswith("vbench: error: ")
    assert "Traceback" not in err and "Input should" not in err
    return lines[0]


# --- broken params files -------------------------------------------------------------------


@dataclass(frozen=True)
class Breakage:
    """A way to break one params file, and what the error line must then say."""

    file: str  # relative to the params directory
    change: Any  # a function of the file's document, or the file's new text
    field: str
    words: str

    def apply(self, params_dir: Path) -> Path:
        path = params_dir / self.file
        if isinstance(self.change, str):
            path.write_text(self.change)
        else:
            doc = yaml.safe_load(path.read_text())
            self.change(doc)
            path.write_text(yaml.safe_dump(doc))
        return path


def _set(section: str, **values):
    return lambda doc: doc[section].update(values)


def _bogus_cpu_param(doc):
    doc["experiment"]["calibrate"][0]["config"] = {"bogus": 1}


EXPERIMENT = "experiments/default.yaml"
BREAKAGES = {
    "hadoop bad size": Breakage(
        "hadoop.yaml", _set("hadoop", block_size="32XB"), "hadoop.block_size", "not a size: '32XB'"
    ),
    "hadoop not an integer": Breakage(
        "hadoop.yaml", _set("hadoop", replication="two"), "hadoop.replication", "expected an integer, got 'two'"
    ),
    "hadoop unknown field": Breakage(
        "hadoop.yaml",
        _set("hadoop", blocksize="64MB"),
        "hadoop.blocksize",
        "is not a known field; did you mean block_size?",
    ),
    "hadoop malformed": Breakage("hadoop.yaml", "hadoop: {block_size: [\n", "", "is not valid YAML (line "),
    "hadoop a list": Breakage("hadoop.yaml", "- block_size: 32MB\n", "", "must be a YAML mapping"),
    "testbed not an integer": Breakage(
        "testbed.yaml", _set("testbed", workers="two"), "testbed.workers", "expected an integer, got 'two'"
    ),
    "testbed malformed": Breakage(
        "testbed.yaml", "testbed:\n  workers: 2\n network: {}\n", "", "is not valid YAML (line 3, column 2)"
    ),
    "experiment bound": Breakage(
        EXPERIMENT, _set("experiment", repetitions=-1), "experiment.repetitions", "must be at least 1, got -1"
    ),
    "experiment unknown benchmark parameter": Breakage(
        EXPERIMENT, _bogus_cpu_param, "experiment.calibrate[0].config.bogus", "no such parameter"
    ),
    "experiment malformed": Breakage(
        EXPERIMENT, "experiment: {name: default, platforms: [native\n", "", "is not valid YAML (line "
    ),
    "experiment configuration": Breakage(
        EXPERIMENT,
        _set("experiment", testbed={"network": {"subnet": "8.8.8.0/24"}}),
        "configuration native: testbed.network.subnet",
        "private RFC 1918 range",
    ),
}


@pytest.mark.parametrize("action", ["show", "status", "run"])
@pytest.mark.parametrize("case", list(BREAKAGES))
def test_a_broken_params_file_is_one_line_naming_file_and_field_and_nothing_starts(
    vbench, params, tmp_path, action, case
):
    breakage = BREAKAGES[case]
    path = breakage.apply(params)
    data = tmp_path / "data"
    rc, err = vbench("campaign", action, "default", "--params-dir", str(params), "--data", str(data))
    assert rc == 2
    line = one_error_line(err)
    assert line.startswith(f"vbench: error: {path}: {breakage.field}"), line
    assert breakage.words in line, line
    assert not (data / "raw").exists()  # no campaign directory was made


def test_the_repository_params_pass(vbench, params, tmp_path):
    rc, err = vbench("campaign", "show", "default", "--params-dir", str(params), "--data", str(tmp_path / "data"))
    assert rc == 0, err


def test_a_missing_params_file_means_defaults_said_aloud(vbench, params, tmp_path):
    (params / "hadoop.yaml").unlink()
    rc, err = vbench("campaign", "show", "default", "--params-dir", str(params), "--data", str(tmp_path / "data"))
    assert rc == 0
    assert f"note: {params / 'hadoop.yaml'} not found; using built-in defaults" in err


def test_a_bad_workers_override_is_refused_by_show_too(vbench, params, tmp_path):
    rc, err = vbench("campaign", "show", "default", "--params-dir", str(params), "--workers", "0")
    assert rc == 2
    assert "testbed.workers: must be at least 1, got 0" in one_error_line(err)


def test_a_pipeline_stage_refuses_a_broken_params_file_before_provisioning(nothing_starts, params, tmp_path):
    path = BREAKAGES["hadoop malformed"].apply(params)
    stage = pipeline.Stage(params, tmp_path / "data", "default", "default")
    with pytest.raises(ParamsError) as err:
        pipeline.provision(stage)
    assert err.value.field == str(path) and "is not valid YAML" in str(err.value)
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("first", ["provision", "micro", "hadoop"])
def test_what_the_suite_stage_would_refuse_is_refused_by_the_stages_before_it(nothing_starts, params, tmp_path, first):
    """Replication 3 on the design's two workers is valid in each file alone; the suite stage
    refused such a design only after provision and calibration had run (found by the pipeline
    test): now every measuring stage makes the suite's checks first (the suite stage through
    run_campaign's own)."""
    path = params / "hadoop.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["hadoop"]["replication"] = 3
    path.write_text(yaml.safe_dump(doc))
    stage = pipeline.Stage(params, tmp_path / "data", "default", "default")
    with pytest.raises(ParamsError) as err:
        pipeline.provision(stage) if first == "provision" else pipeline.measure(stage, first)
    assert err.value.field == "configuration native: hadoop.replication"
    assert "3 replicas need at least as many workers, the testbed has 2" in str(err.value)
    assert not (tmp_path / "data").exists()


def test_a_pipeline_stage_loads_the_study_once(params, tmp_path):
    stage = pipeline.Stage(params, tmp_path / "data", "default", "default")
    assert stage.study is stage.study
    assert stage.experiment.name == "default" and stage.testbed().name == "vb" and stage.hadoop().replication == 2


def test_bench_run_refuses_a_broken_hadoop_file_before_starting(vbench, params):
    path = BREAKAGES["hadoop not an integer"].apply(params)
    rc, err = vbench("bench", "run", "cpu", "--params-dir", str(params))
    assert rc == 2
    assert f"{path}: hadoop.replication: expected an integer, got 'two'" in one_error_line(err)


def test_isolation_run_refuses_a_broken_testbed_file_before_starting(vbench, params):
    path = BREAKAGES["testbed malformed"].apply(params)
    rc, err = vbench(
        "isolation", "run", "--preset", str(params / "experiments" / "xavier2014.yaml"), "--params-dir", str(params)
    )
    assert rc == 2
    assert f"{path}: is not valid YAML (line 3, column 2)" in one_error_line(err)


def test_load_study_checks_every_configuration(params):
    study = load_study(params, "default")
    assert study.experiment.platforms == ("native", "lxc") and study.hadoop.block_size == 32 * 1024**2
    BREAKAGES["experiment configuration"].apply(params)
    with pytest.raises(ParamsError) as err:
        load_study(params, "default")
    assert err.value.field == f"{params / EXPERIMENT}: configuration native: testbed.network.subnet"


def test_an_inventory_study_checks_only_the_hadoop_params_of_its_configurations(params):
    exp = params / "experiments" / "inv.yaml"
    exp.write_text(
        yaml.safe_dump(
            {
                "experiment": {
                    "name": "inv",
                    "platforms": ["kvm"],
                    "suite": [{"benchmark": "pi"}],
                    "hadoop": {"replication": 0},
                }
            }
        )
    )
    with pytest.raises(ParamsError) as err:
        load_study(params, exp, ("kvm",))
    assert err.value.field == f"{exp}: configuration kvm: hadoop.replication"


# --- pydantic errors in English ------------------------------------------------------------


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    size: int = 1


class Sample(BaseModel):
    model_config = ConfigDict(extra="forbid")
    count: int = Field(1, ge=1, le=10)
    ratio: float = Field(0.5, gt=0)
    on: bool = False
    label: str = "x"
    inner: Inner = Inner()
    items: list[int] = []
    table: dict[str, int] = {}
    even: int = 2

    @field_validator("even")
    @classmethod
    def _even(cls, v: int) -> int:
        if v % 2:
            raise ValueError(f"{v} is odd; give an even number")
        return v


def _problem(model: type[BaseModel], data: dict) -> tuple[str, str]:
    with pytest.raises(ValidationError) as err:
        model.model_validate(data)
    p = describe_validation_error(err.value, model=model)
    return p.field, p.message


@pytest.mark.parametrize(
    "data, path, message",
    [
        ({"count": "many"}, "count", "expected an integer, got 'many'"),
        ({"count": 2.5}, "count", "expected an integer, got 2.5"),
        ({"count": 0}, "count", "must be at least 1, got 0"),
        ({"count": 11}, "count", "must be at most 10, got 11"),
        ({"ratio": "half"}, "ratio", "expected a number, got 'half'"),
        ({"ratio": 0}, "ratio", "must be greater than 0, got 0"),
        ({"on": "maybe"}, "on", "expected true or false, got 'maybe'"),
        ({"label": 3}, "label", "expected a string, got 3"),
        ({"inner": [1]}, "inner", "expected a mapping (key: value), got a list"),
        ({"inner": {"size": None}}, "inner.size", "expected an integer, got nothing (an empty value)"),
        ({"items": "1,2"}, "items", "expected a list, got '1,2'"),
        ({"items": [1, "b"]}, "items[1]", "expected an integer, got 'b'"),
        ({"table": [1]}, "table", "expected a mapping (key: value), got a list"),
        ({"inner": {"sise": 1}}, "inner.sise", "is not a known field; did you mean size?"),
        ({"zzz": 1}, "zzz", "is not a known field; known fields: count, ratio, on"),
        ({"even": 3}, "even", "3 is odd; give an even number"),  # our own validators' words are kept
    ],
)
def test_pydantic_errors_read_as_plain_english(data, path, message):
    got_path, got = _problem(Sample, data)
    assert got_path == path
    assert got.startswith(message), got


class Choice(BaseModel):
    mode: Literal["flat", "rack", "nodegroup"]
    name: str


def test_missing_and_choices_read_as_plain_english():
    assert _problem(Choice, {"mode": "flat"}) == ("name", "is required")
    assert _problem(Choice, {"mode": "star", "name": "n"}) == (
        "mode",
        "expected one of flat, rack, nodegroup, got 'star'",
    )


def test_describe_validation_error_places_the_path_under_where():
    with pytest.raises(ValidationError) as err:
        HadoopParams.model_validate({"heaps": {"namenode": "big"}})
    e = describe_validation_error(err.value, "params/hadoop.yaml: hadoop", HadoopParams)
    assert e.field == "params/hadoop.yaml: hadoop.heaps.namenode"
    assert str(e) == "params/hadoop.yaml: hadoop.heaps.namenode: expected an integer, got 'big'"


def test_params_error_keeps_field_and_message_apart():
    e = ParamsError("params/hadoop.yaml: hadoop.heaps", "expected a mapping (key: value), got a list")
    assert (e.field, e.message) == ("params/hadoop.yaml: hadoop.heaps", "expected a mapping (key: value), got a list")
    # Placing it inside a configuration keeps the message whole, though field and message hold ": "
    # (taking str(e) apart at its first ": " used to cut the file name off into the message).
    inner = prefixed(e, "configuration lxc")
    assert (inner.field, inner.message) == ("configuration lxc: params/hadoop.yaml: hadoop.heaps", e.message)
    assert str(inner) == f"configuration lxc: params/hadoop.yaml: hadoop.heaps: {e.message}"
    assert prefixed(ParamsError("", "is empty"), "params/x.yaml").field == "params/x.yaml"


def test_a_validation_error_with_no_path_and_no_where_is_named_by_its_model():
    with pytest.raises(ValidationError) as err:
        Choice.model_validate([1])
    e = describe_validation_error(err.value, model=Choice)
    assert (e.field, e.message) == ("Choice", "expected a mapping (key: value), got a list")


def test_a_field_named_by_a_model_validator_is_the_path():
    with pytest.raises(ValidationError) as err:
        TestbedParams.model_validate({"network": {"nat_subnet": "10.213.0.0/24"}})
    assert describe_validation_error(err.value, model=TestbedParams).field == "network.nat_subnet"


def test_malformed_yaml_is_one_line_with_line_and_column(tmp_path):
    path = tmp_path / "hadoop.yaml"
    path.write_text("hadoop:\n  replication: 2\n  heaps: {namenode: 384\n")
    with pytest.raises(ParamsError) as err:
        load_yaml_section(path, "hadoop")
    text = str(err.value)
    assert "\n" not in text
    assert text.startswith(f"{path}: is not valid YAML (line 4, column 1): ")


def test_a_required_section_must_be_there(tmp_path):
    path = tmp_path / "e.yaml"
    path.write_text("{}\n")  # a misspelled section is refused as unknown first (test_hostile_params.py)
    with pytest.raises(ParamsError) as err:
        load_yaml_section(path, "experiment", required=True)
    assert err.value.field == f"{path}: experiment" and "is required" in str(err.value)


def test_benchmark_parameters_say_their_type_in_english():
    cpu = MICRO_BENCHMARKS["cpu"]
    with pytest.raises(ParamsError, match="cpu.time_s: expected an integer, got 'x'"):
        registry.make_config(cpu, {"time_s": "x"})
    with pytest.raises(ParamsError, match="threads: must be at least 1, got 0"):
        registry.make_config(cpu, {"threads": "0"})
