"""invoke tasks: thin wrappers over the vbench command line (`invoke --list`)."""
from invoke import task

VB = ".venv/bin/vbench"


@task(help={"job": "run | test | install"})
def setup(c, job="install"):
    """Install Debian packages, the Python environment and Hadoop's jars (idempotent)."""
    c.run(f"bash scripts/setup.sh {job}", pty=True)


@task
def test(c, unit_only=False):
    """Run the test suite (unit only with --unit-only)."""
    c.run(f".venv/bin/python -m pytest -q {'-m \"not integration\"' if unit_only else ''} tests", pty=True)


@task(help={"platform": "native", "workers": "number of workers", "size": "TeraGen size, e.g. 64MB"})
def smoke(c, platform="native", workers=2, size="64MB"):
    """Bring a cluster up, TeraGen -> TeraSort -> TeraValidate, tear everything down."""
    c.run(f"{VB} cluster smoke --platform {platform} --workers {workers} --size {size}", pty=True)


@task
def testbed_up(c):
    """Create the local testbed's hosts (params/testbed.yaml)."""
    c.run(f"{VB} testbed up", pty=True)


@task
def testbed_down(c):
    """Remove the local testbed and everything it started."""
    c.run(f"{VB} testbed down", pty=True)


@task
def cluster_up(c):
    """Testbed (if needed) and a Hadoop cluster on it."""
    c.run(f"{VB} cluster up", pty=True)


@task
def cluster_down(c):
    """Stop Hadoop and remove the testbed."""
    c.run(f"{VB} cluster down --testbed", pty=True)
