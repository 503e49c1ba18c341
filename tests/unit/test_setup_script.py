"""The README's two commands: scripts/setup.sh escalates with sudo only when it is not root.

The script is sourced with its installation steps replaced by stubs that record their
names, on a PATH of a temporary directory that holds only what the escalation needs (so a
`sudo` installed on this machine cannot be found by accident)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[2] / "scripts" / "setup.sh"
STEPS = ("install_debian", "install_python", "install_hadoop", "install_image", "run_main_job", "run_tests")


def run_setup(
    tmp_path: Path, *, uid: int, sudo: bool, job: str = "test"
) -> tuple[subprocess.CompletedProcess, list[str], str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "dirname", "basename"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    (bin_dir / "id").write_text(f"#!{shutil.which('bash')}\necho {uid}\n")
    (bin_dir / "id").chmod(0o755)
    sudo_log = tmp_path / "sudo.args"
    if sudo:
        (bin_dir / "sudo").write_text(f'#!{shutil.which("bash")}\necho "$*" > {sudo_log}\n')
        (bin_dir / "sudo").chmod(0o755)
    steps_log = tmp_path / "steps"
    stubs = "".join(f"{s}() {{ echo {s} >> {steps_log}; }}; " for s in STEPS)
    driver = f"source {SETUP}; {stubs} main {job}"
    proc = subprocess.run(
        [str(bin_dir / "bash"), "-c", driver], env={"PATH": str(bin_dir)}, capture_output=True, text=True, timeout=30
    )
    steps = steps_log.read_text().split() if steps_log.exists() else []
    return proc, steps, sudo_log.read_text().strip() if sudo_log.exists() else ""


def test_root_without_sudo_installed_runs_every_step_and_never_calls_sudo(tmp_path):
    proc, steps, sudo_args = run_setup(tmp_path, uid=0, sudo=False, job="test")
    assert proc.returncode == 0, proc.stderr
    assert steps == ["install_debian", "install_python", "install_hadoop", "install_image", "run_tests"]
    assert "sudo" not in proc.stderr


def test_root_with_sudo_installed_still_does_not_call_it(tmp_path):
    proc, steps, sudo_args = run_setup(tmp_path, uid=0, sudo=True, job="run")
    assert proc.returncode == 0, proc.stderr
    assert sudo_args == ""
    assert steps[-1] == "run_main_job"


def test_a_user_with_sudo_reexecutes_the_script_through_it_before_any_step(tmp_path):
    proc, steps, sudo_args = run_setup(tmp_path, uid=1000, sudo=True, job="test")
    assert proc.returncode == 0, proc.stderr
    assert steps == []  # nothing ran as the user: the script was replaced by `sudo ...`
    assert sudo_args == f"-E bash {SETUP} test"


def test_a_user_without_sudo_is_told_what_to_do_and_nothing_runs(tmp_path):
    proc, steps, _ = run_setup(tmp_path, uid=1000, sudo=False)
    assert proc.returncode == 1
    assert steps == []
    assert "run it as root, or install sudo" in proc.stderr


@pytest.mark.parametrize("job", ["", "deploy"])
def test_an_unknown_job_is_refused_with_the_usage(tmp_path, job):
    proc, steps, _ = run_setup(tmp_path, uid=0, sudo=False, job=job)
    assert proc.returncode == 2
    assert "usage: bash scripts/setup.sh run|test|install" in proc.stderr
    assert steps == []


def fake_venv(tmp_path: Path, *, python: str, ruff: str = "exit 0") -> Path:
    """A checkout whose .venv/bin/python (pytest) and .venv/bin/ruff are the given bash bodies."""
    venv = tmp_path / "repo" / ".venv" / "bin"
    venv.mkdir(parents=True)
    for tool, body in (("python", python), ("ruff", ruff)):
        (venv / tool).write_text(f"#!{shutil.which('bash')}\n{body}\n")
        (venv / tool).chmod(0o755)
    return tmp_path / "repo"


def test_the_suite_time_limit_turns_a_slow_green_run_red(tmp_path):
    """run_tests itself, with pytest replaced by a stub that passes, and a limit of 0 s."""
    repo = fake_venv(tmp_path, python="sleep 1.1\nexit 0")
    driver = f"source {SETUP}; cd {repo}; SUITE_LIMIT_S=0; run_tests"
    proc = subprocess.run(["bash", "-c", driver], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1
    assert re.search(r"test suite took 0 min 0[1-9] s", proc.stdout), proc.stdout
    assert "took longer than 0 min" in proc.stderr


def test_a_lint_error_fails_the_run_before_the_suite_starts(tmp_path):
    ran = tmp_path / "pytest-ran"
    repo = fake_venv(tmp_path, python=f"touch {ran}", ruff='echo "$@" > ../ruff-args; echo "F401 unused"; exit 1')
    proc = subprocess.run(
        ["bash", "-c", f"source {SETUP}; cd {repo}; run_tests"], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 1
    assert "F401 unused" in proc.stdout
    assert "ruff check found the problems listed above" in proc.stderr
    assert not ran.exists()
    assert (tmp_path / "ruff-args").read_text().split() == ["check", "vbench", "tests", "tasks.py", "selfbench"]


def test_a_clean_lint_goes_on_to_the_suite(tmp_path):
    ran = tmp_path / "pytest-ran"
    repo = fake_venv(tmp_path, python=f"touch {ran}")
    proc = subprocess.run(
        ["bash", "-c", f"source {SETUP}; cd {repo}; run_tests"], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0, proc.stderr
    assert ran.exists()
