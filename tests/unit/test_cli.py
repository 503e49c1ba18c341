"""The command line refuses bad input with one line naming the field, before starting anything."""

import shutil
import subprocess
from pathlib import Path

import pytest

from vbench import cli
from vbench.commands import cluster_cmd

PARAMS = Path(__file__).resolve().parents[2] / "params"


def _vb_namespaces() -> set[str] | None:
    """Namespaces of the default testbed 'vb' (None when `ip` is missing)."""
    if shutil.which("ip") is None:
        return None
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.startswith("vb-")}


@pytest.fixture
def refused_cli(monkeypatch, capsys):
    """Run `vbench` in-process; fail the test, instead of starting a cluster, if validation lets it through."""

    def must_not_run(*_a, **_k):
        raise AssertionError("the command went past validation and tried to start something")

    for name in ("run_smoke", "fetch", "Testbed", "HadoopCluster"):
        monkeypatch.setattr(cluster_cmd, name, must_not_run)

    def run(*argv: str) -> tuple[int, str]:
        before = _vb_namespaces()
        rc = cli.main(list(argv))
        after = _vb_namespaces()
        if before is not None:
            # A user's own 'vb' testbed may already be up; nothing new may have appeared.
            assert after <= before, f"namespaces appeared: {sorted(after - before)}"
        return rc, capsys.readouterr().err

    return run


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # one clear line, no traceback
    assert lines[0].startswith("vbench: error: ")
    return lines[0]


def test_zero_workers_is_refused_naming_the_field(refused_cli):
    rc, err = refused_cli("cluster", "smoke", "--params-dir", str(PARAMS), "--workers", "0")
    assert rc == 2
    line = _one_error_line(err)
    assert "testbed.workers" in line
    assert str(PARAMS / "testbed.yaml") in line


def test_bad_size_is_refused_naming_the_option(refused_cli):
    rc, err = refused_cli("cluster", "smoke", "--params-dir", str(PARAMS), "--size", "banana")
    assert rc == 2
    line = _one_error_line(err)
    assert "--size" in line and "banana" in line


def test_unknown_version_is_refused_naming_the_field(refused_cli):
    rc, err = refused_cli("cluster", "smoke", "--params-dir", str(PARAMS), "--version", "9.9")
    assert rc == 2
    line = _one_error_line(err)
    assert "hadoop.version" in line and "9.9" in line


def test_bad_block_size_in_a_params_file_names_the_file_and_field(refused_cli, tmp_path):
    shutil.copy(PARAMS / "testbed.yaml", tmp_path / "testbed.yaml")
    (tmp_path / "hadoop.yaml").write_text("hadoop:\n  version: '3.4.2'\n  block_size: 1000000\n")
    rc, err = refused_cli("cluster", "smoke", "--params-dir", str(tmp_path), "--size", "64MB")
    assert rc == 2
    line = _one_error_line(err)
    assert f"{tmp_path / 'hadoop.yaml'}: hadoop.block_size" in line
