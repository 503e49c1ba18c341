"""The paper's input campaigns: one reading of params/paper.yaml for the DVC stage and `invoke paper`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from vbench.errors import ParamsError
from vbench.paper.inputs import (
    PAPER_RECORD_KEYS,
    CpuReplication,
    CpuReplicationDirs,
    PaperInputs,
    PooledFields,
    PooledTest,
    PooledTestDirs,
    ReplicationFields,
    RestFields,
    RestTest,
    RestTestDirs,
    campaign_list,
    check_heldout,
    check_memory_tests,
    committed_inputs,
    cpu_replication_fields,
    pooled_test_fields,
    rest_test_fields,
)

ROOT = Path(__file__).resolve().parents[2]


def test_campaign_list_drops_blanks_and_spaces():
    assert campaign_list(" a , ,b,") == ("a", "b")
    assert campaign_list("") == () and campaign_list(None) == ()


def test_the_committed_rebuild_reads_the_params_files_and_keeps_the_campaigns_that_exist(tmp_path):
    params, raw = tmp_path / "params", tmp_path / "data" / "raw"
    params.mkdir()
    paper = {
        "isolation_campaign": "iso",
        "network_campaign": "net",
        "study_campaigns": "x, gone",
        "sandbox_campaign": "sb",
    }
    (params / "paper.yaml").write_text(yaml.safe_dump({"paper": paper}))
    (params / "pipeline.yaml").write_text(yaml.safe_dump({"pipeline": {"monitoring_campaign": "mon"}}))
    for name in ("iso", "mon", "x", "sb"):
        (raw / name).mkdir(parents=True)
    assert committed_inputs(params, raw) == [
        ("isolation", "iso"),
        ("monitoring", "mon"),
        ("extra-campaign", "x"),
        ("sandbox", "sb"),
    ]


def test_flags_and_build_arguments_name_the_same_campaigns_in_the_stages_order():
    inputs = PaperInputs.from_params(
        {"isolation_campaign": "iso", "network_campaign": "net", "study_campaigns": "x, y", "pernode_campaign": ""},
        "mon",
    )
    assert inputs.flags() == [
        ("isolation", "iso"),
        ("monitoring", "mon"),
        ("extra-campaign", "net"),
        ("extra-campaign", "x"),
        ("extra-campaign", "y"),
    ]
    raw = Path("data/raw")
    assert inputs.build_arguments(raw) == {
        "isolation_dir": raw / "iso",
        "monitoring_dir": raw / "mon",
        "extra_campaigns": [raw / "net", raw / "x", raw / "y"],
        "pernode_dir": None,
        "sandbox_dir": None,
        "cost_fit_dir": None,
        "cost_fit_fields": ("params/paper.yaml: paper.cost_fit_campaign", "paper.sandbox_campaign"),
        "syscall_fit_dir": None,
        "syscall_calibration_dir": None,
        "syscall_fit_fields": (
            "params/paper.yaml: paper.syscall_fit_campaign",
            "params/paper.yaml: paper.syscall_calibration_campaign",
            "paper.cost_fit_campaign",
        ),
        "syscall_fit_superseded_dir": None,
        "syscall_fit_superseded_fields": (
            "params/paper.yaml: paper.syscall_fit_superseded",
            "paper.syscall_fit_campaign",
        ),
        "syscall_levels_dir": None,
        "syscall_levels_fields": (
            "params/paper.yaml: paper.syscall_levels_campaign",
            "paper.syscall_fit_campaign",
        ),
        "syscall_levels_heldout_dirs": [],
        "syscall_levels_heldout_fields": (
            "params/paper.yaml: paper.syscall_levels_heldout",
            "paper.syscall_levels_campaign",
        ),
        "file_levels_dir": None,
        "file_levels_calibration_dir": None,
        "file_levels_measured_dir": None,
        "file_levels_fields": (
            "params/paper.yaml: paper.file_levels_campaign",
            "params/paper.yaml: paper.file_levels_calibration_campaign",
            "params/paper.yaml: paper.file_levels_measured_campaign",
            "paper.cost_fit_campaign",
        ),
        "rpc_levels_dir": None,
        "rpc_levels_calibration_dir": None,
        "rpc_levels_measured_dir": None,
        "rpc_levels_fields": (
            "params/paper.yaml: paper.rpc_levels_campaign",
            "params/paper.yaml: paper.rpc_levels_calibration_campaign",
            "params/paper.yaml: paper.rpc_levels_measured_campaign",
            "paper.cost_fit_campaign",
        ),
        "memory_levels_dir": None,
        "memory_levels_calibration_dir": None,
        "memory_levels_measured_dir": None,
        "memory_levels_fields": (
            "params/paper.yaml: paper.memory_levels_campaign",
            "params/paper.yaml: paper.memory_levels_calibration_campaign",
            "params/paper.yaml: paper.memory_levels_measured_campaign",
            "paper.cost_fit_campaign",
        ),
        "memory_levels_test_dirs": [],
        "memory_levels_tests_fields": (
            "params/paper.yaml: paper.memory_levels_tests",
            "paper.memory_levels_campaign",
        ),
        "cpu_fit_dir": None,
        "cpu_fit_costs_dir": None,
        "cpu_test_dirs": [],
        "cpu_fields": (
            "params/paper.yaml: paper.cpu_fit_campaign",
            "params/paper.yaml: paper.cpu_fit_costs_campaign",
            "params/paper.yaml: paper.cpu_tests",
            "paper.cost_fit_campaign",
        ),
        "cpu_replications": [],
        "cpu_replications_fields": ReplicationFields(
            "params/paper.yaml: paper.cpu_replications",
            "params/paper.yaml: paper.cpu_replications[{i}].fit",
            "params/paper.yaml: paper.cpu_replications[{i}].fit_costs",
            "params/paper.yaml: paper.cpu_replications[{i}].tests",
        ),
        "pooled_tests": [],
        "pooled_tests_fields": PooledFields(
            "params/paper.yaml: paper.pooled_tests",
            "params/paper.yaml: paper.pooled_tests[{i}].fit",
            "params/paper.yaml: paper.pooled_tests[{i}].fit_costs",
            "params/paper.yaml: paper.pooled_tests[{i}].calibration",
            "params/paper.yaml: paper.pooled_tests[{i}].measured",
            "params/paper.yaml: paper.pooled_tests[{i}].resources",
            "params/paper.yaml: paper.pooled_tests[{i}].seed",
            "params/paper.yaml: paper.pooled_tests[{i}].fixed_pricing",
            "params/paper.yaml: paper.pooled_tests[{i}].shares",
            "paper.cost_fit_campaign",
        ),
        "rest_tests": [],
        "rest_tests_fields": RestFields(
            "params/paper.yaml: paper.rest_tests",
            "params/paper.yaml: paper.rest_tests[{i}].{part}",
            "paper.cost_fit_campaign",
        ),
        "barrier_dir": None,
        "barrier_fit_dir": None,
        "barrier_calibration_dir": None,
        "barrier_fields": (
            "params/paper.yaml: paper.barrier_campaign",
            "params/paper.yaml: paper.barrier_fit_campaign",
            "params/paper.yaml: paper.barrier_calibration_campaign",
            "paper.syscall_levels_campaign",
        ),
        "jvm_dir": None,
    }


def test_the_held_out_campaigns_are_a_list_as_the_study_campaigns_are():
    """Each listed campaign is a flag and a directory of its own, in the list's order, all refused
    naming the one key; empty, none."""
    inputs = PaperInputs.from_params({"syscall_levels_heldout": " a, ,b ", "syscall_levels_campaign": "lv"})
    assert inputs.syscall_levels_heldout == ("a", "b")
    assert inputs.flags()[-2:] == [("syscall-levels-heldout", "a"), ("syscall-levels-heldout", "b")]
    args = inputs.build_arguments(Path("data/raw"), "p.yaml")
    assert args["syscall_levels_heldout_dirs"] == [Path("data/raw/a"), Path("data/raw/b")]
    assert args["syscall_levels_heldout_fields"] == (
        "p.yaml: paper.syscall_levels_heldout",
        "paper.syscall_levels_campaign",
    )
    assert (
        PaperInputs.from_params({"syscall_levels_heldout": ""}).build_arguments(Path("r"))[
            "syscall_levels_heldout_dirs"
        ]
        == []
    )


def test_a_held_out_campaign_that_is_not_a_name_is_refused_naming_the_key_wherever_it_is_listed():
    for listed in ("../x", "a,../x"):
        inputs = PaperInputs.from_params({"syscall_levels_heldout": listed})
        with pytest.raises(ParamsError) as err:
            inputs.build_arguments(Path("data/raw"), "p.yaml")
        assert err.value.field == "p.yaml: paper.syscall_levels_heldout", listed


def test_the_build_s_check_refuses_each_held_out_campaign_naming_the_field_it_is_told(tmp_path):
    for name in ("levels", "a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "samples.jsonl").write_text("")
    check_heldout([tmp_path / "a", tmp_path / "b"], tmp_path / "levels")
    check_heldout([], None)  # none: no subsection
    for dirs, said in (
        ([tmp_path / "a", tmp_path / "gone"], str(tmp_path / "gone" / "samples.jsonl")),
        ([tmp_path / "a", tmp_path / "b", tmp_path / "a"], "lists 'a' twice"),
    ):
        with pytest.raises(ParamsError) as err:
            check_heldout(dirs, tmp_path / "levels", "--syscall-levels-heldout", "--syscall-levels")
        assert err.value.field == "--syscall-levels-heldout" and said in err.value.message
    with pytest.raises(ParamsError) as err:
        check_heldout([tmp_path / "a", tmp_path / "b"], None)
    assert err.value.field == "syscall_levels_heldout_dirs" and "needs syscall_levels_dir set too" in err.value.message


def test_the_memory_level_s_later_tests_are_a_list_passed_right_after_its_three_campaigns():
    """Each listed campaign is a flag and a directory of its own, in the list's order, after the
    memory level's measured campaign and before the barrier's (the order the build checks them in),
    all refused naming the one key; empty, none."""
    memory = {
        "memory_levels_campaign": "fit",
        "memory_levels_calibration_campaign": "cal",
        "memory_levels_measured_campaign": "jobs",
    }
    inputs = PaperInputs.from_params({**memory, "memory_levels_tests": " a, ,b ", "barrier_campaign": "nn"})
    assert inputs.memory_levels_tests == ("a", "b")
    assert inputs.flags()[-6:] == [
        ("memory-levels", "fit"),
        ("memory-levels-calibration", "cal"),
        ("memory-levels-measured", "jobs"),
        ("memory-levels-test", "a"),
        ("memory-levels-test", "b"),
        ("barrier", "nn"),
    ]
    args = inputs.build_arguments(Path("data/raw"), "p.yaml")
    assert args["memory_levels_test_dirs"] == [Path("data/raw/a"), Path("data/raw/b")]
    assert args["memory_levels_tests_fields"] == ("p.yaml: paper.memory_levels_tests", "paper.memory_levels_campaign")
    empty = PaperInputs.from_params({**memory, "memory_levels_tests": ""})
    assert empty.build_arguments(Path("r"))["memory_levels_test_dirs"] == []
    assert not any(flag == "memory-levels-test" for flag, _ in empty.flags())


def test_a_later_test_that_is_not_a_name_is_refused_naming_the_key_wherever_it_is_listed():
    for listed in ("../x", "a,../x"):
        inputs = PaperInputs.from_params({"memory_levels_tests": listed})
        with pytest.raises(ParamsError) as err:
            inputs.build_arguments(Path("data/raw"), "p.yaml")
        assert err.value.field == "p.yaml: paper.memory_levels_tests", listed


def test_the_build_s_check_refuses_each_later_test_naming_the_field_it_is_told(tmp_path):
    for name in ("fit", "a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "samples.jsonl").write_text("")
    check_memory_tests([tmp_path / "a", tmp_path / "b"], tmp_path / "fit")
    check_memory_tests([], None)  # none: no later test is said
    for dirs, said in (
        ([tmp_path / "a", tmp_path / "gone"], str(tmp_path / "gone" / "samples.jsonl")),
        ([tmp_path / "a", tmp_path / "b", tmp_path / "a"], "lists 'a' twice"),
    ):
        with pytest.raises(ParamsError) as err:
            check_memory_tests(dirs, tmp_path / "fit", "--memory-levels-test", "--memory-levels")
        assert err.value.field == "--memory-levels-test" and said in err.value.message
    with pytest.raises(ParamsError) as err:
        check_memory_tests([tmp_path / "a"], None)
    assert err.value.field == "memory_levels_test_dirs" and "needs memory_levels_dir set too" in err.value.message


def _notebook_parameters() -> dict:
    nb = json.loads((ROOT / "notebooks" / "05-paper.ipynb").read_text())
    namespace: dict = {}
    exec("".join(nb["cells"][1]["source"]), namespace)  # the papermill parameters cell: assignments only
    return namespace


def test_the_paper_notebook_takes_every_key_of_params_paper_and_reads_it_through_paper_inputs():
    """A key of params/paper.yaml the notebook has no parameter for would be dropped by the stage,
    and a notebook that assembled its own list could differ from `invoke paper`'s. A key whose value
    is a list of records (`PAPER_RECORD_KEYS`) is on no command line DVC writes: the stage passes the
    params file, and the notebook reads the key from it."""
    paper = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]
    params = _notebook_parameters()
    plain = [key for key in paper if key not in PAPER_RECORD_KEYS]
    assert set(plain) <= set(params), set(plain) - set(params)
    assert not set(PAPER_RECORD_KEYS) & set(params) and params["paper_params"] == ""
    nb = json.loads((ROOT / "notebooks" / "05-paper.ipynb").read_text())
    code = "".join(nb["cells"][2]["source"])
    assert "PaperInputs.from_params(" in code and "**inputs.build_arguments(" in code
    # Each parameter is passed on by its key's name: one taken but not passed would be dropped too.
    assert [key for key in plain if f"{key}={key}" not in code] == []
    for key in PAPER_RECORD_KEYS:
        assert f"{key}=records.get('{key}')" in code, key
    assert "records = load_yaml_section(Path(paper_params), 'paper', required=True) if paper_params else {}" in code
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["paper"]
    for key in plain:
        assert f"-p {key} ${{paper.{key}}}" in stage["cmd"], f"dvc.yaml's paper stage does not pass {key}"
    # The file the records are read from, whose `paper` section the stage tracks: a record changed reruns it.
    assert "-p paper_params params/paper.yaml" in stage["cmd"] and {"params/paper.yaml": ["paper"]} in stage["params"]
    assert not any(f"${{paper.{key}}}" in stage["cmd"] for key in PAPER_RECORD_KEYS)


def test_the_notebook_s_reading_of_the_records_is_the_committed_rebuild_s(tmp_path):
    """The notebook's cell, run on a params file with a replication, builds the arguments
    `committed_inputs` checks: the same records, the same directories."""
    params = tmp_path / "params"
    params.mkdir()
    record = {"fit": "f", "fit_costs": "c", "tests": ["t1", "t2"]}
    (params / "paper.yaml").write_text(yaml.safe_dump({"paper": {"cpu_replications": [record]}}))
    from vbench.params import load_yaml_section

    records = load_yaml_section(params / "paper.yaml", "paper", required=True)
    inputs = PaperInputs.from_params({"cpu_replications": records.get("cpu_replications")}, "", params / "paper.yaml")
    assert inputs.cpu_replications == (CpuReplication("f", ("t1", "t2"), "c"),)
    raw = Path("data/raw")
    args = inputs.build_arguments(raw, params / "paper.yaml")
    assert args["cpu_replications"] == [CpuReplicationDirs(raw / "f", (raw / "t1", raw / "t2"), raw / "c")]
    assert args["cpu_replications_fields"] == cpu_replication_fields(params / "paper.yaml")
    assert args["cpu_replications_fields"].at(0)[0] == f"{params / 'paper.yaml'}: paper.cpu_replications[0].fit"


def test_the_notebook_s_reading_of_the_pooled_tests_is_the_committed_rebuild_s(tmp_path):
    """The notebook's cell, run on a params file with a test against pooled ratios, builds the
    arguments `committed_inputs` checks: the same record, the same directories, its fields named in
    the file it is told."""
    params = tmp_path / "params"
    params.mkdir()
    record = {"fit": "f", "calibration": "c", "measured": ["m1", "m2"], "resources": ["rpc"], "seed": 7}
    (params / "paper.yaml").write_text(yaml.safe_dump({"paper": {"pooled_tests": [record]}}))
    from vbench.params import load_yaml_section

    records = load_yaml_section(params / "paper.yaml", "paper", required=True)
    inputs = PaperInputs.from_params({"pooled_tests": records.get("pooled_tests")}, "", params / "paper.yaml")
    assert inputs.pooled_tests == (PooledTest("f", "c", ("m1", "m2"), ("rpc",), 7),)
    raw = Path("data/raw")
    args = inputs.build_arguments(raw, params / "paper.yaml")
    assert args["pooled_tests"] == [PooledTestDirs(raw / "f", raw / "c", (raw / "m1", raw / "m2"), ("rpc",), 7)]
    assert args["pooled_tests_fields"] == pooled_test_fields(params / "paper.yaml")
    assert args["pooled_tests_fields"].at(0, "measured") == f"{params / 'paper.yaml'}: paper.pooled_tests[0].measured"


def test_the_notebook_s_reading_of_the_rest_tests_is_the_committed_rebuild_s(tmp_path):
    """The notebook's cell, run on a params file with a test of the rest priced, builds the arguments
    `committed_inputs` checks: the same record, the same directories, its fields named in the file it
    is told."""
    params = tmp_path / "params"
    params.mkdir()
    record = {
        "fit": "f",
        "calibration": "c",
        "measured": "m",
        "resources": ["rpc"],
        "seed": 7,
        "rests": ["cpu"],
        "pricing": "wall",
    }
    (params / "paper.yaml").write_text(yaml.safe_dump({"paper": {"rest_tests": [record]}}))
    from vbench.params import load_yaml_section

    records = load_yaml_section(params / "paper.yaml", "paper", required=True)
    inputs = PaperInputs.from_params({"rest_tests": records.get("rest_tests")}, "", params / "paper.yaml")
    assert inputs.rest_tests == (RestTest("f", "c", "m", ("rpc",), 7, ("cpu",), "wall"),)
    raw = Path("data/raw")
    args = inputs.build_arguments(raw, params / "paper.yaml")
    assert args["rest_tests"] == [RestTestDirs(raw / "f", raw / "c", raw / "m", ("rpc",), 7, ("cpu",), "wall")]
    assert args["rest_tests_fields"] == rest_test_fields(params / "paper.yaml")
    assert args["rest_tests_fields"].at(0, "rests") == f"{params / 'paper.yaml'}: paper.rest_tests[0].rests"
