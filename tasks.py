"""invoke tasks: thin wrappers over the vbench command line and DVC (`invoke --list`).

Task arguments come from the command line and reach a shell: every one is quoted (`line()`),
so `invoke campaign --name 'x;rm -rf ~'` names a campaign, it runs nothing.
"""

import os
import shlex
from pathlib import Path

from invoke import task

VENV = ".venv/bin"
VB = f"{VENV}/vbench"


def line(*argv) -> str:
    """One shell command line from `argv`, each word quoted. Pure."""
    return shlex.join(str(a) for a in argv)


def stats_line(campaign: str) -> str:
    """The statistics of data/raw/<campaign>; the name reaches Python as an argument, not as code. Pure."""
    code = (
        "import sys; from pathlib import Path; from vbench import pipeline; c = sys.argv[1]; "
        "pipeline.write_tidy(Path('data/raw', c), Path('data/processed', c)); "
        "pipeline.statistics(Path('data/raw', c), Path('data/processed', c))"
    )
    return line(f"{VENV}/python", "-c", code, campaign)


def paper_line(campaign: str, extra: list[tuple[str, str]]) -> str:
    """`vbench paper build` of data/raw/<campaign>, with (flag, campaign) extras. Pure."""
    from vbench.paper.inputs import paper_build_args

    return line(VB, *paper_build_args(campaign, extra))


def smoke_line(platform: str, workers, size: str) -> str:
    return line(VB, "cluster", "smoke", "--platform", platform, "--workers", workers, "--size", size)


def run_vb(c, *argv) -> None:
    """`vbench ARGV` from the venv, each word quoted, on a terminal (what the vbench tasks run)."""
    c.run(line(VB, *argv), pty=True)


@task(help={"job": "run | test | install"})
def setup(c, job="install"):
    """Install Debian packages, the Python environment and Hadoop's jars (idempotent)."""
    c.run(line("bash", "scripts/setup.sh", job), pty=True)


@task(help={"unit_only": "skip the integration tests (no root needed)"})
def test(c, unit_only=False):
    """Run the test suite."""
    marker = ["-m", "not integration"] if unit_only else []
    c.run(line(f"{VENV}/python", "-m", "pytest", "-q", *marker, "tests"), pty=True)


@task
def repro(c):
    """The whole study: `dvc repro` (measures what changed, then statistics and the paper)."""
    c.run(f"PATH={VENV}:$PATH dvc repro", pty=True)


@task(help={"campaign": "a campaign under data/raw/ (default: the committed reference)"})
def paper(c, campaign="reference"):
    """Rebuild the paper's tables, figures and PDF from cached data; touches no host."""
    from vbench.paper.inputs import committed_inputs

    c.run(paper_line(campaign, committed_inputs(Path("params"), Path("data/raw"))), pty=True)


@task(help={"campaign": "a campaign under data/raw/"})
def stats(c, campaign="reference"):
    """Statistics table of a campaign into data/processed/<campaign>/ (stats.parquet, which the paper reads; stats.csv)."""
    c.run(stats_line(campaign), pty=True)


#: The notebook `invoke lab` opens: one experiment, explored (docs/exploring.md).
EXPLORE = "notebooks/explore.ipynb"


def lab_argv(as_root: bool) -> list[str]:
    """JupyterLab serving the repository, opened on explore.ipynb. Pure.

    The root directory is the repository's, so its data and docs are in the file browser; the
    kernel still starts in notebooks/, which the notebook allows for (vbench.explore.paths).
    Jupyter refuses to run as root unless told; setup.sh runs everything as root."""
    return [f"{VENV}/jupyter", "lab", "--ServerApp.root_dir=.", *(["--allow-root"] if as_root else []), EXPLORE]


@task
def lab(c):
    """JupyterLab opened on notebooks/explore.ipynb (one experiment: campaign, benchmark, metric, run)."""
    c.run(line(*lab_argv(os.geteuid() == 0)), pty=True)


@task(help={"name": "preset in params/experiments/"})
def campaign(c, name="default"):
    """Run or resume a campaign outside DVC."""
    run_vb(c, "campaign", "run", name)


@task(help={"platform": "native, lxc, oci, qemu", "workers": "number of workers", "size": "TeraGen size"})
def smoke(c, platform="native", workers=2, size="64MB"):
    """Bring a cluster up, TeraGen -> TeraSort -> TeraValidate, tear everything down."""
    c.run(smoke_line(platform, workers, size), pty=True)


@task
def testbed_up(c):
    """Create the local testbed's hosts (params/testbed.yaml)."""
    run_vb(c, "testbed", "up")


@task
def testbed_down(c):
    """Remove the local testbed and everything it started."""
    run_vb(c, "testbed", "down")


@task
def cluster_up(c):
    """Testbed (if needed) and a Hadoop cluster on it."""
    run_vb(c, "cluster", "up")


@task
def cluster_down(c):
    """Stop Hadoop and remove the testbed."""
    run_vb(c, "cluster", "down", "--testbed")


@task
def clean(c):
    """Remove generated analysis outputs (never raw measurements)."""
    c.run("rm -rf data/processed paper/build paper/generated notebooks/executed")
