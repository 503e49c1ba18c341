"""The foundation, for real: a 1 master + 2 worker native cluster on the local testbed: its failures,
teardowns and commands. The smoke end to end runs on a testbed with a native worker beside the
containers (`test_platforms.py`: one bring-up for every kind of host)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.integration.conftest import REPO, leftovers, it_hadoop
from vbench.errors import ClusterNotReady
from vbench.hadoop.artifacts import fetch
from vbench.hadoop.cluster import HadoopCluster
from vbench.testbed import Testbed

pytestmark = pytest.mark.integration


def test_a_daemon_that_dies_is_named_with_its_log_and_everything_is_removed(it_testbed):
    hp = it_hadoop({"daemon_jvm_flags": ["-XX:+ThisFlagDoesNotExist"]})
    dist = fetch(hp.version, hp.examples_version)
    with pytest.raises(ClusterNotReady) as err:
        with Testbed(it_testbed) as tb, HadoopCluster(tb.hosts, hp, dist):
            pytest.fail("the cluster must not come up")
    msg = str(err.value)
    assert "exited during start-up" in msg and ".log" in msg
    assert any(d in msg for d in ("namenode", "resourcemanager", "historyserver", "datanode", "nodemanager"))
    assert leftovers(it_testbed) == []


def test_exception_inside_the_testbed_tears_down(it_testbed):
    with pytest.raises(RuntimeError):
        with Testbed(it_testbed) as tb:
            assert len(tb.hosts) == 3
            raise RuntimeError("boom")
    assert leftovers(it_testbed) == []


def _as_at_a_terminal() -> None:
    # A shell starts background jobs with SIGINT ignored, and Python then never installs its
    # Ctrl-C handler: run from `.ci/run &`, the child ignored the SIGINT below and ran on.
    # What is tested is a user's Ctrl-C, so the child gets the disposition a terminal gives.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupting_a_smoke_run_tears_everything_down(it_testbed, it_params_dir, sig):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "vbench.cli",
            "cluster",
            "smoke",
            "--params-dir",
            str(it_params_dir),
            "--out",
            str(it_params_dir / "out"),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=_as_at_a_terminal,
    )
    try:
        state = Path(it_testbed.work_root, it_testbed.name, "state.json")
        deadline = time.monotonic() + 120
        # Interrupt once hosts exist and Hadoop is starting: the worst moment.
        while not Path(it_testbed.work_root, it_testbed.name, "hosts", "master", "work", "run").exists():
            assert proc.poll() is None, proc.stdout.read()
            assert time.monotonic() < deadline, "the testbed never came up"
            time.sleep(0.2)
        assert state.exists()
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 130, out
        assert leftovers(it_testbed) == [], out
    finally:
        # A child that ignored the signal must not outlive the test and hold the testbed that
        # the next test brings up under the same name.
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
            Testbed(it_testbed).down(remove_kept=True)


def _vbench_cli(params_dir: Path, *args: str, **run_kw) -> subprocess.CompletedProcess:
    """`python -m vbench.cli ARGS --params-dir PARAMS_DIR` in the repository, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "vbench.cli", *args, "--params-dir", str(params_dir)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        **run_kw,
    )


def test_cluster_up_status_down_from_the_command_line(it_testbed, it_params_dir):
    def vbench(*args):
        return _vbench_cli(it_params_dir, *args, env={**os.environ, "PYTHONPATH": str(REPO)})

    try:
        up = vbench("cluster", "up")
        assert up.returncode == 0, up.stdout + up.stderr
        st = vbench("cluster", "status")
        assert st.returncode == 0, st.stdout + st.stderr
        for daemon in ("namenode", "resourcemanager", "historyserver", "datanode", "nodemanager"):
            assert daemon in st.stdout
        assert "live DataNodes: worker1, worker2" in st.stdout
        tb = vbench("testbed", "status")
        assert "up" in tb.stdout and f"{it_testbed.name}-worker2" in tb.stdout
        down = vbench("cluster", "down", "--testbed")
        assert down.returncode == 0, down.stdout + down.stderr
    finally:
        Testbed(it_testbed).down(remove_kept=True)
    assert leftovers(it_testbed) == []
    st = vbench("cluster", "status")
    assert "down" in st.stdout


def test_what_vbench_did_not_create_survives_and_a_live_testbed_is_not_taken_twice(it_testbed, it_params_dir):
    """Issue #22: a bridge that exists before bring-up (here with the testbed's own bridge name,
    as `network.bridge: lxcbr0` would be) is refused, not adopted, and `testbed down` leaves it;
    a process vbench did not start survives; a second `testbed up` on a live testbed is refused."""

    def vbench(*args):
        return _vbench_cli(it_params_dir, *args)

    bridge = it_testbed.network.bridge
    bridge_exists = lambda: subprocess.run(["ip", "link", "show", bridge], capture_output=True).returncode == 0  # noqa: E731
    sleeper = subprocess.Popen(["sleep", "600"])
    subprocess.run(["ip", "link", "add", bridge, "type", "bridge"], check=True)
    try:
        up = vbench("testbed", "up")
        assert up.returncode != 0 and f"bridge {bridge}" in up.stderr and "did not create" in up.stderr, up.stderr
        down = vbench("testbed", "down")
        assert down.returncode == 0, down.stderr
        assert bridge_exists() and sleeper.poll() is None
        # A campaign (which clears its testbed before each configuration) refuses it the same way.
        design = it_params_dir / "foreign.yaml"
        design.write_text(
            yaml.safe_dump(
                {
                    "experiment": {
                        "name": "foreign",
                        "platforms": ["native"],
                        "repetitions": 1,
                        "workers": 1,
                        "calibrate": [{"benchmark": "cpu", "config": {"time_s": 1}}],
                    }
                }
            )
        )
        data = it_params_dir / "data"
        refused = vbench("campaign", "run", str(design), "--data", str(data))
        assert f"bridge {bridge}" in refused.stdout + refused.stderr, refused.stdout + refused.stderr
        assert bridge_exists() and sleeper.poll() is None
        subprocess.run(["ip", "link", "del", bridge], check=True)
        # Without the foreign bridge the campaign runs, and what vbench did not start still runs.
        ran = vbench("campaign", "run", str(design), "--data", str(data / "again"))
        assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
        assert sleeper.poll() is None and leftovers(it_testbed) == []

        assert vbench("testbed", "up").returncode == 0
        again = vbench("testbed", "up")
        assert again.returncode != 0 and it_testbed.name in again.stderr, again.stdout + again.stderr
        print("second testbed up:", again.stderr.strip().splitlines()[-1])
        assert vbench("testbed", "down").returncode == 0
        assert sleeper.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()
        Testbed(it_testbed).down(remove_kept=True)
        if bridge_exists():  # the one this test made, if it failed before removing it
            subprocess.run(["ip", "link", "del", bridge], check=False)
    assert leftovers(it_testbed) == []
