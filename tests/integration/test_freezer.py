"""A testbed's freezer on this machine (issue #51, `idle: freeze`), without Hadoop: every process
of a native and of an LXC testbed is inside its host's freezer cgroup, a frozen testbed does not
answer SSH (its sshd is stopped with everything it started), a thawed one does, and a testbed
torn down while frozen (a runner killed between freeze and thaw) leaves nothing behind. Seconds.

    python3 -m pytest tests/integration/test_freezer.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import leftovers
from vbench.host import connect
from vbench.testbed import Testbed
from vbench.testbed import freezer as F
from vbench.testbed.limits import cgroup_pids

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(os.geteuid() != 0 or F.freezer_mount() is None, reason="needs root and the cgroup v1 freezer"),
]


def _banner(host) -> bool:
    """Whether the host's sshd sends its banner within 2 s: the kernel accepts the connection of
    a frozen sshd, but nothing answers on it. Read from the controller namespace, the only place
    the hosts' addresses route."""
    probe = (
        "import socket, sys\n"
        "s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2)\n"
        "try:\n    print(s.recv(64)[:4].decode())\nexcept TimeoutError:\n    print('none')\n"
    )
    argv = [sys.executable, "-c", probe, host.ssh.address, str(host.ssh.port)]
    if host.ssh.netns:
        argv = ["ip", "netns", "exec", host.ssh.netns, *argv]
    return subprocess.run(argv, capture_output=True, text=True, timeout=20).stdout.strip() == "SSH-"


def _answers(host) -> bool:
    with connect(host) as conn:
        r = conn.run("echo up", hide=True, warn=True, in_stream=False)
    return r.ok and r.stdout.strip() == "up"


@pytest.mark.parametrize("platform", ["native", "lxc"])
def test_a_frozen_testbed_is_stopped_whole_and_thawed_or_torn_down_cleanly(it_platform_testbed, platform):
    if platform == "lxc" and shutil.which("lxc-start") is None:
        pytest.skip("needs LXC")
    params = it_platform_testbed(platform, workers=1, freezer=True)
    with Testbed(params) as tb:
        frz = F.TestbedFreezer(params.name, tuple(h.name for h in tb.hosts))
        mount = F.freezer_mount()
        assert mount is not None
        # Every process of the testbed is in a host's freezer cgroup, and there are some.
        in_hosts = set().union(*(cgroup_pids(F.host_rel(params.name, h.name)) for h in tb.hosts))
        assert in_hosts
        assert all(_answers(h) for h in tb.hosts)

        took = frz.freeze()
        assert took < F.FREEZE_TIMEOUT_S
        assert set(frz.states().values()) == {F.FROZEN}
        for pid in in_hosts:
            status = Path(f"/proc/{pid}/status").read_text() if Path(f"/proc/{pid}").exists() else ""
            assert not status or "State:\tR" not in status
        assert not any(_banner(h) for h in tb.hosts)  # every sshd is frozen

        frz.thaw()
        assert set(frz.states().values()) == {F.THAWED}
        assert all(_answers(h) for h in tb.hosts)

        frz.freeze()  # left frozen: teardown must thaw before it kills
    assert leftovers(params) == []
    assert not (mount / f"vbench-{params.name}").exists()
