"""Issue #22: nothing a params file says reaches a shell, a config file or a path unchecked.

Every path, name and address field is tried with hostile values through the command line
(`vbench campaign show DESIGN --params-dir <a copy of params/>`): each is refused with exit code
2 and one line naming the file and the field, and nothing is run on the way (subprocess,
invoke and fabric fail the test if called). Then the whole-file rules: unknown sections, bad
experiment and campaign names, unknown benchmark presets. Last, every params file of the
repository still loads through the loaders vbench uses.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import fabric
import invoke
import pytest
import yaml

from vbench.campaign.design import load_experiment
from vbench.campaign.study import load_study
from vbench.errors import ParamsError
from vbench.inventory.model import inventory, load_inventory
from vbench.isolation.params import load_isolation
from vbench.paper.delta import load_published
from vbench.params import load_hadoop, load_testbed
from vbench.validate import check_plain_name

from tests.unit.builders import cli_runner

REPO = Path(__file__).resolve().parents[2]
PARAMS = REPO / "params"
DESIGN = "default"


# --- fixtures ------------------------------------------------------------------------------


def _must_not_run(*_a, **_k):
    raise AssertionError("a params value went past validation: something tried to run a command")


@pytest.fixture
def no_shell(monkeypatch):
    """Every way vbench runs a command, locally or over SSH, fails the test if called."""
    for module, name in (
        (subprocess, "run"),
        (subprocess, "Popen"),
        (subprocess, "call"),
        (subprocess, "check_call"),
        (subprocess, "check_output"),
        (os, "system"),
        (os, "popen"),
        (invoke, "run"),
        (invoke, "sudo"),
        (invoke.Context, "run"),
        (invoke.Context, "sudo"),
        (fabric.Connection, "run"),
        (fabric.Connection, "sudo"),
        (fabric.Connection, "open"),
        (fabric.Connection, "local"),
    ):
        monkeypatch.setattr(module, name, _must_not_run)


@pytest.fixture
def params(tmp_path) -> Path:
    """A private copy of params/, with explicit testbed hosts (so that host names, physical hosts
    and racks are there to break) and the example inventory beside it."""
    copy = Path(shutil.copytree(PARAMS, tmp_path / "params"))
    testbed = yaml.safe_load((copy / "testbed.yaml").read_text())
    testbed["testbed"]["hosts"] = [
        {"name": "master", "role": "master"},
        {"name": "worker1", "role": "worker", "physical_host": "box1", "rack": "r1"},
        {"name": "worker2", "role": "worker", "physical_host": "box2", "rack": "r2"},
    ]
    (copy / "testbed.yaml").write_text(yaml.safe_dump(testbed))
    shutil.copy(PARAMS / "examples" / "inventory.yaml", copy / "inventory.yaml")
    return copy


@pytest.fixture
def vbench(no_shell, capsys):
    return cli_runner(capsys)


def show(vbench, params: Path, *extra: str) -> tuple[int, str]:
    return vbench("campaign", "show", DESIGN, "--params-dir", str(params), *extra)


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # one line: no traceback, and a refused newline is shown escaped
    assert lines[0].startswith("vbench: error: ") and "Traceback" not in err
    return lines[0]


def set_at(doc: Any, where: tuple[Any, ...], value: Any) -> None:
    for key in where[:-1]:
        doc = doc[key]
    doc[where[-1]] = value


def set_in_file(path: Path, where: tuple[Any, ...], value: Any) -> None:
    """Set one field of a params YAML file in place."""
    doc = yaml.safe_load(path.read_text())
    set_at(doc, where, value)
    path.write_text(yaml.safe_dump(doc))


def get_at(doc: Any, where: tuple[Any, ...]) -> Any:
    for key in where:
        doc = doc[key]
    return doc


# --- the hostile-value table ---------------------------------------------------------------


#: Hostile values, each made from a field's valid value `ok`: what a shell, an `ip` argument, an
#: LXC/QEMU/sshd config line or an ssh command line would take as something else.
HOSTILE: dict[str, Callable[[str], str]] = {
    "semicolon": lambda ok: ok + ";touch /tmp/vbench-pwned",
    "command substitution": lambda ok: ok + "$(touch /tmp/vbench-pwned)",
    "backticks": lambda ok: ok + "`touch /tmp/vbench-pwned`",
    "newline": lambda ok: ok + "\nlxc.hook.pre-start = /tmp/vbench-pwned",
    "ssh option": lambda ok: "-oProxyCommand=touch /tmp/vbench-pwned",
    "dot-dot": lambda ok: ok + "/../../etc" if ok.startswith("/") else "..",
    "space": lambda ok: ok + " x",
    "relative path": lambda ok: ok.lstrip("/") + "/x" if ok.startswith("/") else "./" + ok,
    "comma": lambda ok: ok + ",x",
    "colon": lambda ok: ok + ":x",
    "overlong": lambda ok: ok + "a" * 1100,
}


@dataclass(frozen=True)
class Field:
    """A field of a params file: where it is in the document and how the error line names it."""

    file: str  # relative to the params directory
    where: tuple[Any, ...]  # keys from the document's root
    #: Hostile cases that are not hostile for this field (see LOCAL_FILE_EXEMPT).
    exempt: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        out = ""
        for key in self.where:
            out += f"[{key}]" if isinstance(key, int) else f".{key}"
        return out.lstrip(".")

    @property
    def needs_inventory(self) -> bool:
        return self.file == "inventory.yaml"


#: Key and known_hosts paths are files on this machine vbench only reads: written relative to the
#: inventory file by design (the example's known_hosts is ../known_hosts), resolved with their
#: '..' before they are checked, so that what is checked is the path used.
LOCAL_FILE_EXEMPT = frozenset({"relative path", "dot-dot"})

FIELDS = [
    Field("testbed.yaml", ("testbed", "name")),
    Field("testbed.yaml", ("testbed", "network", "bridge")),
    Field("testbed.yaml", ("testbed", "work_root")),
    Field("testbed.yaml", ("testbed", "ssh_user")),
    Field("testbed.yaml", ("testbed", "hosts", 1, "name")),
    Field("testbed.yaml", ("testbed", "hosts", 1, "physical_host")),
    Field("testbed.yaml", ("testbed", "hosts", 1, "rack")),
    Field("hadoop.yaml", ("hadoop", "java_home")),
    Field("hadoop.yaml", ("hadoop", "topology_script")),
    Field(f"experiments/{DESIGN}.yaml", ("experiment", "name")),
    Field("inventory.yaml", ("inventory", "hosts", 1, "name")),
    Field("inventory.yaml", ("inventory", "hosts", 1, "address")),
    Field("inventory.yaml", ("inventory", "hosts", 1, "user")),
    Field("inventory.yaml", ("inventory", "hosts", 1, "key_file"), LOCAL_FILE_EXEMPT),
    Field("inventory.yaml", ("inventory", "hosts", 1, "platform")),
    Field("inventory.yaml", ("inventory", "hosts", 1, "physical_host")),
    Field("inventory.yaml", ("inventory", "hosts", 1, "rack")),
    Field("inventory.yaml", ("inventory", "hosts", 1, "network")),
    Field("inventory.yaml", ("inventory", "hosts", 1, "hdfs_dirs", 0)),
    Field("inventory.yaml", ("inventory", "known_hosts"), LOCAL_FILE_EXEMPT),
    Field("inventory.yaml", ("inventory", "jump_key_file"), LOCAL_FILE_EXEMPT),
    Field("inventory.yaml", ("inventory", "jump_host")),
    Field("inventory.yaml", ("inventory", "java_home")),
    Field("inventory.yaml", ("inventory", "work_root")),
    Field("inventory.yaml", ("inventory", "packages", 0)),
]

#: A valid value for the fields the repository's files leave unset.
UNSET_OK = {
    ("testbed", "ssh_user"): "root",
    ("hadoop", "topology_script"): "/etc/hadoop/topology.sh",
    ("inventory", "jump_key_file"): "/root/.ssh/bastion_ed25519",
    ("inventory", "hosts", 1, "network"): "sriov",
}


def _valid_value(doc: Any, field: Field) -> str:
    try:
        return str(get_at(doc, field.where))
    except (KeyError, IndexError):
        return UNSET_OK[field.where]


CASES = [
    pytest.param(f, case, id=f"{f.file}:{f.name}:{case}") for f in FIELDS for case in HOSTILE if case not in f.exempt
]


@pytest.mark.parametrize("field, case", CASES)
def test_a_hostile_value_is_refused_naming_file_and_field_and_nothing_runs(vbench, params, field, case):
    path = params / field.file
    doc = yaml.safe_load(path.read_text())
    set_at(doc, field.where, HOSTILE[case](_valid_value(doc, field)))
    path.write_text(yaml.safe_dump(doc))
    extra = ("--inventory", str(params / "inventory.yaml")) if field.needs_inventory else ()
    rc, err = show(vbench, params, *extra)
    assert rc == 2, err
    line = one_error_line(err)
    assert line.startswith(f"vbench: error: {path}: {field.name}: "), line


def test_the_untouched_copy_passes_with_and_without_the_inventory(vbench, params):
    """The table's refusals are the hostile values', not the fixture's."""
    assert show(vbench, params)[0] == 0
    rc, err = show(vbench, params, "--inventory", str(params / "inventory.yaml"))
    assert rc == 0, err


@pytest.mark.parametrize(
    "name, words",
    [
        ("ctl", "reserved"),  # the controller's namespace is <testbed>-ctl
        ("phy-box1", "reserved"),  # physical hosts' namespaces are <testbed>-phy-<name>
        ("w" * 21, "at most 20 characters"),
    ],
)
def test_testbed_host_names_that_collide_with_vbench_names_are_refused(vbench, params, name, words):
    path = params / "testbed.yaml"
    set_in_file(path, ("testbed", "hosts", 2, "name"), name)
    rc, err = show(vbench, params)
    assert rc == 2
    line = one_error_line(err)
    assert line.startswith(f"vbench: error: {path}: testbed.hosts[2].name: ") and words in line, line


def test_a_physical_host_named_like_one_vbench_names_is_refused(vbench, params):
    """The master's physical host is "pm" (TestbedParams.physical_hosts): a worker placed on "pm"
    by hand would silently share it."""
    path = params / "testbed.yaml"
    set_in_file(path, ("testbed", "hosts", 1, "physical_host"), "pm")
    rc, err = show(vbench, params)
    assert rc == 2
    line = one_error_line(err)
    assert line.startswith(f"vbench: error: {path}: testbed.hosts[1].physical_host: ") and "'pm'" in line, line


@pytest.mark.parametrize("address", ["fe80::1%eth0;id", "192.0.2.300", "-oProxyCommand=x", "a..b", "host_1"])
def test_inventory_addresses_are_ip_addresses_or_host_names(vbench, params, address):
    path = params / "inventory.yaml"
    set_in_file(path, ("inventory", "hosts", 0, "address"), address)
    rc, err = show(vbench, params, "--inventory", str(path))
    assert rc == 2
    assert one_error_line(err).startswith(f"vbench: error: {path}: inventory.hosts[0].address: ")


@pytest.mark.parametrize("address", ["192.0.2.10", "2001:db8::10", "node-1.example.org", "a"])
def test_inventory_addresses_and_names_that_are_fine_pass(address):
    inv = inventory(
        {
            "known_hosts": "/kh",
            "hosts": [
                {
                    "name": "m",
                    "address": address,
                    "key_file": "/k",
                    "role": "master",
                    "rack": "/r1",
                    "network": "bridge+nat",
                }
            ],
        }
    )
    assert inv.hosts[0].address == address


@pytest.mark.parametrize("port", [0, 65536, -22])
def test_inventory_ports_are_in_range(port):
    from vbench.errors import ParamsError

    with pytest.raises(ParamsError) as err:
        inventory(
            {
                "known_hosts": "/kh",
                "hosts": [{"name": "m", "address": "a", "key_file": "/k", "role": "master", "port": port}],
            }
        )
    assert err.value.field == "inventory.hosts[0].port"


def test_proxy_command_is_a_command_by_design_but_one_line(vbench, params):
    """A ProxyCommand is a command whoever writes the inventory means to run (paramiko splits it
    and runs it without a shell); it may hold shell characters, never a second line."""
    path = params / "inventory.yaml"
    doc = yaml.safe_load(path.read_text())
    del doc["inventory"]["jump_host"]
    doc["inventory"]["proxy_command"] = "ssh -W %h:%p ops@198.51.100.7\nrm -rf /"
    path.write_text(yaml.safe_dump(doc))
    rc, err = show(vbench, params, "--inventory", str(path))
    assert rc == 2
    assert one_error_line(err).startswith(f"vbench: error: {path}: inventory.proxy_command: ")
    doc["inventory"]["proxy_command"] = "ip netns exec vb-ctl nc %h %p"
    path.write_text(yaml.safe_dump(doc))
    assert show(vbench, params, "--inventory", str(path))[0] == 0


def test_relative_key_paths_are_resolved_beside_the_inventory_then_checked(tmp_path):
    where = tmp_path / "inv dir"  # a space: the resolved path is what is checked
    where.mkdir()
    (where / "inventory.yaml").write_text(
        yaml.safe_dump(
            {
                "inventory": {
                    "known_hosts": "../kh",
                    "hosts": [{"name": "m", "address": "a", "key_file": "k", "role": "master"}],
                }
            }
        )
    )
    from vbench.errors import ParamsError

    with pytest.raises(ParamsError) as err:
        load_inventory(where / "inventory.yaml")
    assert err.value.field == f"{where / 'inventory.yaml'}: inventory.hosts[0].key_file" and "' '" in str(err.value)
    fine = tmp_path / "inv"
    fine.mkdir()
    (fine / "inventory.yaml").write_text((where / "inventory.yaml").read_text())
    inv = load_inventory(fine / "inventory.yaml")
    assert inv.known_hosts == tmp_path / "kh" and inv.hosts[0].key_file == fine / "k"


# --- whole files: sections, names, presets -------------------------------------------------


@pytest.mark.parametrize(
    "file, text, field, words",
    [
        ("testbed.yaml", "testbd:\n  name: x\n", "testbd", "is not a section of this file; did you mean testbed?"),
        ("testbed.yaml", "testbed: []\n", "testbed", "must be a mapping (key: value), got a list"),
        (
            "testbed.yaml",
            "testbed: {name: vb}\nhadoop: {replication: 1}\n",
            "hadoop",
            "is not a section of this file; its sections: testbed",
        ),
        ("hadoop.yaml", "hadop:\n  replication: 1\n", "hadop", "did you mean hadoop?"),
        ("hadoop.yaml", "hadoop: {replication: 1}\nextra: 1\n", "extra", "its sections: hadoop"),
        (f"experiments/{DESIGN}.yaml", "experimnt: {name: default}\n", "experimnt", "did you mean experiment?"),
        (
            f"experiments/{DESIGN}.yaml",
            "experiment: {name: default}\nisolaton: {}\n",
            "isolaton",
            "did you mean isolation?",
        ),
    ],
)
def test_an_unknown_or_misspelled_section_is_refused(vbench, params, file, text, field, words):
    path = params / file
    path.write_text(text)
    rc, err = show(vbench, params)
    assert rc == 2
    line = one_error_line(err)
    assert line.startswith(f"vbench: error: {path}: {field}: ") and words in line, line


def test_an_unknown_section_of_the_inventory_is_refused(vbench, params):
    path = params / "inventory.yaml"
    path.write_text(path.read_text() + "invetory: {}\n")
    rc, err = show(vbench, params, "--inventory", str(path))
    assert rc == 2
    assert one_error_line(err).startswith(f"vbench: error: {path}: invetory: is not a section of this file")


def test_a_study_file_may_hold_the_isolation_section(params):
    path = params / "experiments" / "xavier2014.yaml"
    assert load_experiment(path).name == "xavier2014" and load_isolation(path).platform in ("lxc", "oci")


def test_isolation_params_refuse_an_unknown_section(params):
    from vbench.errors import ParamsError

    path = params / "experiments" / "xavier2014.yaml"
    path.write_text(path.read_text() + "isolaton: {}\n")
    with pytest.raises(ParamsError) as err:
        load_isolation(path)
    assert err.value.field == f"{path}: isolaton"


@pytest.mark.parametrize("name", ["../../x", "/abs", "Default", "a b", "x.y", ""])
def test_an_experiment_name_is_a_plain_name(vbench, params, name):
    path = params / "experiments" / f"{DESIGN}.yaml"
    set_in_file(path, ("experiment", "name"), name)
    rc, err = show(vbench, params, "--data", str(params.parent / "data"))
    assert rc == 2
    assert one_error_line(err).startswith(f"vbench: error: {path}: experiment.name: ")
    assert not (params.parent / "data").exists() and not (params.parent / "x").exists()


@pytest.mark.parametrize("action", ["show", "status", "run"])
@pytest.mark.parametrize("campaign", ["../../x", "/abs", "a/b", "..", "x;y"])
def test_a_campaign_name_is_a_plain_name(vbench, params, tmp_path, action, campaign):
    rc, err = vbench(
        "campaign",
        action,
        DESIGN,
        "--params-dir",
        str(params),
        "--data",
        str(tmp_path / "data"),
        "--campaign",
        campaign,
    )
    assert rc == 2
    assert one_error_line(err).startswith("vbench: error: --campaign: must be lower-case letters")
    assert not (tmp_path / "data").exists() and not (tmp_path / "x").exists()


@pytest.mark.parametrize("argv", [("bench", "run", "cpu"), ("isolation", "run")])
def test_bench_and_isolation_refuse_a_campaign_name_that_is_a_path(vbench, params, tmp_path, argv):
    extra = ("--preset", str(params / "experiments" / "xavier2014.yaml")) if argv[0] == "isolation" else ()
    rc, err = vbench(
        *argv, *extra, "--params-dir", str(params), "--data", str(tmp_path / "data"), "--campaign", "../../x"
    )
    assert rc == 2
    assert one_error_line(err).startswith("vbench: error: --campaign: ")


def test_an_unknown_benchmark_preset_is_one_line_naming_file_and_field(vbench, params):
    path = params / "experiments" / f"{DESIGN}.yaml"
    set_in_file(path, ("experiment", "suite", 0, "preset"), "nosuchpreset")
    rc, err = show(vbench, params)
    assert rc == 2
    line = one_error_line(err)
    assert line.startswith(f"vbench: error: {path}: experiment.suite[0].preset: "), line
    assert "has no preset 'nosuchpreset'" in line


def test_a_hostile_value_in_an_experiments_testbed_override_is_refused(vbench, params):
    path = params / "experiments" / f"{DESIGN}.yaml"
    set_in_file(path, ("experiment", "testbed"), {"work_root": "/var/tmp/vb\nlxc.hook.pre-start = /tmp/x"})
    rc, err = show(vbench, params)
    assert rc == 2
    assert one_error_line(err).startswith(f"vbench: error: {path}: configuration native: testbed.work_root: ")


# --- every params file of the repository still loads ---------------------------------------


def _load_params_file(path: Path) -> None:
    """Load `path` as vbench does, by its kind; an unknown kind fails (a new params file needs a
    loader here)."""
    rel = path.relative_to(PARAMS)
    if path.name == "testbed.yaml":
        load_testbed(path)
    elif path.name == "hadoop.yaml":
        load_hadoop(path)
    elif rel.parts[:2] == ("experiments", "cluster"):
        # A design for the studies' own platforms names its inventory's labels (same name).
        labels = load_inventory(PARAMS / "inventories" / path.name).platforms()
        load_study(PARAMS, path, labels, local=False)
    elif rel.parts[0] == "inventories":
        load_inventory(path)
    elif rel.parts[0] == "experiments":
        load_study(PARAMS, path)
        if "isolation" in yaml.safe_load(path.read_text()):
            load_isolation(path)
    elif path.name == "inventory.yaml":
        load_inventory(path)
    elif path.name == "published.yaml":
        load_published(path)
    elif path.name in ("pipeline.yaml", "paper.yaml"):
        # Read by dvc.yaml's stages: the campaign names they hold become data/raw/<name>.
        section = yaml.safe_load(path.read_text())[path.stem]
        for key, value in section.items():
            # An empty key (paper.cost_fit_campaign before its campaign is measured) names no directory.
            if (key == "experiment" or key.endswith("campaign")) and value not in (None, ""):
                check_plain_name(str(value))
    else:
        pytest.fail(f"{rel}: no loader known for this params file")


REPOSITORY_PARAMS = sorted(p for p in PARAMS.rglob("*") if p.suffix in (".yaml", ".yml"))


@pytest.mark.parametrize("path", REPOSITORY_PARAMS, ids=[str(p.relative_to(PARAMS)) for p in REPOSITORY_PARAMS])
def test_every_params_file_of_the_repository_loads(path):
    _load_params_file(path)


def test_the_example_params_dir_loads_as_a_study():
    mixed = PARAMS / "examples" / "mixed-native-qemu"
    study = load_study(mixed, PARAMS / "experiments" / "liu2012.yaml")
    assert study.testbed.name == "vbmix"


JVM_FLAG_FIELDS = [("hadoop", "daemon_jvm_flags"), ("hadoop", "job_jvm_flags")]
JVM_FLAG_CASES = [
    pytest.param(where, case, id=f"{where[-1]}:{case}")
    for where in JVM_FLAG_FIELDS
    for case in HOSTILE
    if case not in ("comma", "colon")
]


@pytest.mark.parametrize("where, case", JVM_FLAG_CASES)
def test_a_hostile_jvm_flag_is_refused(vbench, params, where, case):
    """YARN writes a job's JVM options unquoted into each container's launch script."""
    path = params / "hadoop.yaml"
    set_in_file(path, where, ["-Xss1m", HOSTILE[case]("-XX:TieredStopAtLevel=1")])
    rc, err = show(vbench, params)
    assert rc == 2, err
    line = one_error_line(err)
    assert line.startswith(f"vbench: error: {path}: {'.'.join(where)}[1]: "), line


def test_plain_jvm_flags_pass(vbench, params):
    for where in JVM_FLAG_FIELDS:
        set_in_file(
            params / "hadoop.yaml",
            where,
            ["-XX:TieredStopAtLevel=1", "-Xss1m", "-Dfoo.bar=a/b,c", "--add-opens=java.base/java.lang=ALL-UNNAMED"],
        )
    assert show(vbench, params)[0] == 0


def test_latency_on_gvisor_s_host_network_is_refused_before_anything_starts(tmp_path):
    design = {
        "experiment": {
            "name": "t",
            "platforms": ["native", "gvisor"],
            "factors": {"testbed.gvisor.network": ["sandbox", "host"]},
            "compare": ["platform", "gvisor.network"],
            "calibrate": [{"benchmark": "cpu"}, {"benchmark": "latency"}],
        }
    }
    path = tmp_path / "e.yaml"
    path.write_text(yaml.safe_dump(design))
    with pytest.raises(ParamsError) as err:
        load_study(PARAMS, path)
    assert "configuration gvisor[gvisor.network=host]" in str(err.value)
    assert "latency cannot run here" in str(err.value) and "EINVAL" in str(err.value)
    # Its own network stack runs it; and the host's stack runs everything else.
    design["experiment"]["factors"]["testbed.gvisor.network"] = ["sandbox"]
    path.write_text(yaml.safe_dump(design))
    load_study(PARAMS, path)
    design["experiment"]["factors"]["testbed.gvisor.network"] = ["host"]
    design["experiment"]["calibrate"] = [{"benchmark": "cpu"}]
    path.write_text(yaml.safe_dump(design))
    load_study(PARAMS, path)
