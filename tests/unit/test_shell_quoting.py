"""Issue #22, item 2: every value interpolated into a shell line is quoted, and fabric reads no
ssh_config. Each builder gets hostile values; a value must come back as one word, intact,
and where cheap the line is run by a real `sh` to show nothing in the value ran."""

from __future__ import annotations

import importlib.util
import shlex
import subprocess
from pathlib import Path

import pytest

from vbench.host import Host, SshEndpoint, connect
from vbench.inventory import checks
from vbench.inventory.model import InventoryHost
from vbench.inventory.prepare import workdir_line
from vbench.monitor import sampler
from vbench.paper.inputs import PaperInputs
from vbench.provenance import java_version_line
from vbench.testbed import oci


def _load_tasks():
    # tasks.py is the repository's invoke file, not a package module: loaded from its path.
    spec = importlib.util.spec_from_file_location("vbench_tasks", Path(__file__).resolve().parents[2] / "tasks.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


tasks = _load_tasks()

HOSTILE = ["a;b", "$(touch PWNED)", "`touch PWNED`", "x y", "'q'", '"d"', "a&&b", "-oProxyCommand=x"]


def ran_nothing(tmp_path: Path) -> bool:
    return not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("bad", HOSTILE)
def test_the_free_space_probe_treats_a_directory_as_data(tmp_path, bad):
    d = f"{tmp_path}/{bad}"
    df_lines = [line for line in checks.probe_script("/usr/lib/jvm/j", [d]).splitlines() if line.startswith("p=")]
    out = subprocess.run(["sh", "-c", "\n".join(df_lines)], cwd=tmp_path, capture_output=True, text=True).stdout
    assert out.startswith(d + " ") and ran_nothing(tmp_path)


def test_the_free_space_check_reads_the_work_dir_hadoop_writes():
    h = Host(
        "w1", "worker", "native", "192.0.2.1", "/srv/vb/w1", SshEndpoint("192.0.2.1", "root", Path("/k"), Path("/kh"))
    )
    assert checks.checked_dirs(h) == ["/srv/vb/w1"]


@pytest.mark.parametrize("bad", HOSTILE)
def test_java_home_is_one_word_in_provenance(bad):
    assert shlex.split(java_version_line(f"/opt/{bad}"))[0] == f"/opt/{bad}/bin/java"


@pytest.mark.parametrize("bad", HOSTILE)
def test_the_monitor_quotes_its_work_dir_and_files(tmp_path, bad):
    work = f"{tmp_path}/{bad}"
    line = sampler.start_in_line(work, f"{work}/m.txt", f"{work}/m.pid", 1.0)
    assert line.startswith(f"mkdir -p {shlex.quote(work)} && ")
    Path(work).mkdir()
    out = Path(work, f"m{bad}.txt")
    out.write_text("@start 1 2 1\n")
    r = subprocess.run(["sh", "-c", sampler.collect_line(str(out))], cwd=tmp_path, capture_output=True, text=True)
    assert r.stdout == "@start 1 2 1\n" and not out.exists() and ran_nothing(tmp_path)


@pytest.mark.parametrize("bad", ["a;b", "$(x)", "`x`", "'q'"])
def test_overlay_paths_reach_crun_as_arguments_not_as_script(bad):
    paths = (Path(f"/c/{bad}"), Path("/h/upper"), Path("/h/work"), Path(f"/h/{bad}"))
    argv = oci.crun_argv(Path("/tb/crun"), ["run", "x"], mount_overlay=paths)
    assert bad not in argv[6]
    assert argv[7:] == ["/tb/crun", f"lowerdir=/c/{bad},upperdir=/h/upper,workdir=/h/work", f"/h/{bad}", "run", "x"]


@pytest.mark.parametrize("bad", HOSTILE)
def test_invoke_task_arguments_are_quoted(bad):
    assert shlex.split(tasks.line(".venv/bin/vbench", "campaign", "run", bad))[-1] == bad
    assert shlex.split(tasks.smoke_line(bad, 2, bad)) == [
        tasks.VB,
        "cluster",
        "smoke",
        "--platform",
        bad,
        "--workers",
        "2",
        "--size",
        bad,
    ]
    assert shlex.split(tasks.paper_line(bad, [("isolation", bad)]))[-3:] == [
        f"data/raw/{bad}",
        "--isolation",
        f"data/raw/{bad}",
    ]
    words = shlex.split(tasks.stats_line(bad))
    assert words[-1] == bad and bad not in words[2]  # the campaign is an argument, never Python code


def test_invoke_tasks_run_the_quoted_line(monkeypatch):
    from invoke import MockContext

    c = MockContext(run={tasks.line(tasks.VB, "campaign", "run", "a;b"): ""}, repeat=False)
    tasks.campaign(c, name="a;b")  # MockContext fails on any other command line


def test_invoke_tasks_without_arguments_run_their_vbench_line():
    from invoke import MockContext

    for task, want in [
        (tasks.testbed_up, ".venv/bin/vbench testbed up"),
        (tasks.testbed_down, ".venv/bin/vbench testbed down"),
        (tasks.cluster_up, ".venv/bin/vbench cluster up"),
        (tasks.cluster_down, ".venv/bin/vbench cluster down --testbed"),
    ]:
        task(MockContext(run={want: ""}, repeat=False))


def test_invoke_lab_opens_the_explore_notebook_from_the_repository_root(monkeypatch):
    """Issue #23: JupyterLab serves the repository and opens explore.ipynb; as root it must be told."""
    from invoke import MockContext

    assert tasks.lab_argv(False) == [".venv/bin/jupyter", "lab", "--ServerApp.root_dir=.", "notebooks/explore.ipynb"]
    assert "--allow-root" in tasks.lab_argv(True)
    assert (Path(tasks.__file__).parent / tasks.EXPLORE).is_file()
    monkeypatch.setattr(tasks.os, "geteuid", lambda: 1000)
    tasks.lab(MockContext(run={tasks.line(*tasks.lab_argv(False)): ""}, repeat=False))


@pytest.mark.parametrize("bad", HOSTILE)
def test_the_work_dir_line_quotes_path_and_user(bad):
    # Built without validation: the quoting must hold even for a value params would refuse.
    h = InventoryHost.model_construct(name="m", user=bad, sudo=True)
    words = shlex.split(workdir_line(h, f"/srv/{bad}"))
    assert words == ["sudo", "-n", "mkdir", "-p", f"/srv/{bad}", "&&", "sudo", "-n", "chown", bad, f"/srv/{bad}"]


def test_prepare_creates_and_chowns_only_the_work_dir():
    h = InventoryHost.model_construct(name="m", user="ops", sudo=True, hdfs_dirs=("/var/lib",))
    assert workdir_line(h, "/srv/vb/m") == "sudo -n mkdir -p /srv/vb/m && sudo -n chown ops /srv/vb/m"


def test_fabric_connections_ignore_the_users_ssh_config(tmp_path, monkeypatch):
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "config").write_text(
        "Host *\n  ProxyJump evil@198.51.100.9\n  User mallory\n  Port 2222\n  IdentityFile /tmp/other-key\n"
    )
    (tmp_path / "known_hosts").write_text("")
    monkeypatch.setenv("HOME", str(tmp_path))
    h = Host(
        "m",
        "master",
        "native",
        "192.0.2.5",
        "/w",
        SshEndpoint("192.0.2.5", "root", Path("/k"), tmp_path / "known_hosts"),
    )
    c = connect(h)
    assert c.gateway is None and c.user == "root" and c.port == 22
    assert "proxyjump" not in c.ssh_config and c.connect_kwargs["key_filename"] == ["/k"]


def test_java_version_line_takes_the_params_path_as_it_is():
    """HadoopParams.java_home is a Path: the runner passes it as it comes."""
    from vbench.params import hadoop_params

    java_home = hadoop_params({}).java_home
    assert shlex.split(java_version_line(java_home))[0] == f"{java_home}/bin/java"


def test_invoke_paper_reads_the_campaigns_the_paper_stage_reads(monkeypatch):
    """`invoke paper` left out the per-node and the study campaigns the DVC stage passes: both now
    read params/paper.yaml, so the quick rebuild is the stage's paper."""
    import yaml
    from invoke import MockContext

    root = Path(tasks.__file__).parent
    paper = yaml.safe_load((root / "params/paper.yaml").read_text())["paper"]
    inputs = PaperInputs.from_params(paper, "monitoring").flags()
    studies = [s.strip() for s in paper["study_campaigns"].split(",")]
    assert ("pernode", paper["pernode_campaign"]) in inputs and ("sandbox", paper["sandbox_campaign"]) in inputs
    assert [n for f, n in inputs if f == "extra-campaign"] == [paper["network_campaign"], *studies]
    assert PaperInputs.from_params({"study_campaigns": " a , ,b", "sandbox_campaign": ""}, "m").flags() == [
        ("monitoring", "m"),
        ("extra-campaign", "a"),
        ("extra-campaign", "b"),
    ]
    monkeypatch.chdir(root)  # the task reads params/ and data/raw/ relative to the repository
    # A pooled or rest test's resources, seed, pricing and rests are values, not campaigns: passed on as they are.
    from vbench.paper.inputs import RECORDS_FROM_FLAG, VALUE_FLAGS

    kept = [(f, n) for f, n in inputs if f in VALUE_FLAGS or (root / "data/raw" / n).is_dir()]
    # The file its records were read from first: the build's refusal of a record names its field there.
    expected = tasks.paper_line("reference", [(RECORDS_FROM_FLAG, "params/paper.yaml"), *kept])
    assert "--pernode" in expected and "data/raw/xavier2014" in expected
    assert "--records-from params/paper.yaml" in expected
    tasks.paper(MockContext(run={expected: ""}, repeat=False))
