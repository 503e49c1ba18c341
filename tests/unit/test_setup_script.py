"""The README's two commands: scripts/setup.sh escalates with sudo only when it is not root, and
its main job ends with vbench's summary and the PDF's path, or one line naming the failed stage.

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


def main_job(tmp_path: Path, *, dvc: str, vbench: str = 'echo "vbench $*"') -> subprocess.CompletedProcess:
    """run_main_job in a checkout whose .venv/bin/dvc and .venv/bin/vbench are the given bash bodies."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)  # a work tree already: no `git init`
    venv = repo / ".venv" / "bin"
    venv.mkdir(parents=True)
    for tool, body in (("dvc", dvc), ("vbench", vbench)):
        (venv / tool).write_text(f"#!{shutil.which('bash')}\n{body}\n")
        (venv / tool).chmod(0o755)
    driver = f"source {SETUP}; repo={repo}; cd {repo}; run_main_job"
    return subprocess.run(["bash", "-c", driver], capture_output=True, text=True, timeout=30)


def test_the_main_job_ends_with_the_summary_and_the_pdf_path(tmp_path):
    proc = main_job(tmp_path, dvc="echo \"Running stage 'paper':\"; echo 'To track the changes with git, run:' >&2")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "Running stage 'paper':"
    assert lines[-2:] == [
        "vbench campaign summary",
        f"setup: done: the paper is {tmp_path / 'repo'}/paper/build/paper.pdf",
    ]
    assert "To track the changes with git" in proc.stderr  # DVC's own lines all reach the terminal


def test_a_failed_stage_gives_one_line_naming_it_and_a_non_zero_exit(tmp_path):
    ran = tmp_path / "summary-ran"
    dvc = (
        "echo \"Running stage 'hadoop-suite':\"; "
        "echo \"ERROR: failed to reproduce 'hadoop-suite': failed to run: vbench stage notebooks/03-hadoop-suite.ipynb, "
        'exited with 2" >&2; exit 255'
    )
    proc = main_job(tmp_path, dvc=dvc, vbench=f"touch {ran}")
    assert proc.returncode == 255
    assert "ERROR: failed to reproduce 'hadoop-suite'" in proc.stderr  # DVC's error, as it said it
    assert proc.stderr.splitlines()[-1] == "setup: FAILED at stage hadoop-suite: see above"
    assert [line for line in proc.stderr.splitlines() if line.startswith("setup:")] == [proc.stderr.splitlines()[-1]]
    assert not ran.exists()  # no summary of a pipeline that did not finish


def test_a_failure_naming_no_stage_says_so(tmp_path):
    proc = main_job(tmp_path, dvc="echo 'ERROR: unexpected error - dvc.yaml is invalid' >&2; exit 1")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == "setup: FAILED: dvc repro exited with 1, its error names no stage: see above"


def test_a_failed_summary_fails_the_job_after_the_pipeline(tmp_path):
    proc = main_job(tmp_path, dvc="exit 0", vbench="echo 'vbench: error: no samples' >&2; exit 2")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == "setup: FAILED at the summary (the pipeline itself finished): see above"
