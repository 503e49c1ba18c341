"""gVisor hosts for real: a sandbox answering SSH that shows gVisor's kernel from inside, its
limits read back from the machine's cgroup files and seen from inside, both network stacks,
refusals before anything starts, and nothing left after teardown, a failed one included.

The teardown-after-failure tests shared with the other container platforms are parametrised in
test_platforms.py (`-k gvisor`). runsc 0.0~20221219 answers statx(2) with EINVAL, so the guest's
coreutils `ls` fails and Hadoop's NodeManager with it; every gVisor host gets BusyBox's `ls` and
`stat` ahead of them on the PATH (docs/platforms.md), and the SSH test checks that `ls -ld`, the
command the NodeManager runs, answers in the form Hadoop parses. (A whole cluster on gVisor hosts
is a 4-minute smoke, `vbench cluster smoke --platform gvisor`, run by hand: too slow for the suite.)
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import time

import pytest

from tests.integration.conftest import IT_NAME, host_stdout, leftovers
from vbench.errors import ParamsError, VbenchError
from vbench.host import connect
from vbench.testbed import Testbed
from vbench.testbed.facts import this_cpu_model
from vbench.testbed.image import image_for
from vbench.testbed.limits import cgroup_dirs_of, read_back
from vbench.testbed.platforms import PROVISIONERS

pytestmark = pytest.mark.integration

LIMITS = {"cpus": 1, "cpuset": "0", "memory_mb": 1024}


@pytest.fixture(autouse=True)
def _runsc_and_image():
    if shutil.which("runsc") is None:
        pytest.skip("needs runsc (Debian package runsc); run the README's test command, which installs it")
    if not image_for().exists():
        pytest.skip("the guest image is not built; run `vbench image build` (the README's test command does)")


def _native_master_gvisor_worker(it_platform_testbed, **extra):
    return it_platform_testbed(
        "native",
        hosts=[
            {"name": "master", "role": "master"},
            {"name": "worker1", "role": "worker", "platform": "gvisor", "limits": LIMITS},
        ],
        **extra,
    )


@pytest.mark.parametrize("network", ["sandbox", "host"])
def test_a_gvisor_host_answers_ssh_from_inside_gvisor_with_its_limits_read_back(it_platform_testbed, network):
    tbp = _native_master_gvisor_worker(it_platform_testbed, gvisor={"network": network})
    t0 = time.monotonic()
    with Testbed(tbp) as tb:
        master, g = tb.hosts
        print(
            f"gVisor host SSH-ready in {g.facts['ssh_ready_s']} s (testbed up in {time.monotonic() - t0:.1f} s); "
            f"facts: { {k: g.facts[k] for k in ('virt', 'runsc_version', 'gvisor_platform', 'gvisor_network')} }"
        )
        # What the testbed recorded: detected on the running sandbox, not copied from the params.
        assert (g.platform, g.facts["virt"], g.facts["virt_kind"]) == ("gvisor", "gvisor", "sandbox")
        assert g.facts["gvisor_platform"] == "ptrace" and g.facts["gvisor_network"] == network
        assert g.facts["runsc_version"].startswith("0.0~") and g.facts["runtime"] == "runsc"
        assert g.facts["limits"] == "cpus=1,cpuset=0,memory_mb=1024"
        # The machine's CPU, as the native host beside it says it, not the Sentry's "unknown".
        assert g.facts["cpu_model"] == master.facts["cpu_model"] == this_cpu_model() != ""
        # Inside: gVisor's kernel, not the machine's, and the limits as the guest sees them.
        out = host_stdout(
            g, "dmesg | head -n 1; cat /proc/version; nproc; sed -n 's/^MemTotal: *//p' /proc/meminfo; hostname"
        ).splitlines()
        # What Hadoop's RawLocalFileSystem runs for a file's permissions: BusyBox's ls, in the
        # form Hadoop splits (permissions, links, owner, group); coreutils' would fail on statx.
        perms = host_stdout(g, "command -v ls; ls -ld /tmp").splitlines()
        assert perms[0] == "/usr/local/bin/ls", perms
        assert re.match(r"^drwxrwxrwt\s+\d+\s+root\s+root\s", perms[1]), perms
        with connect(master) as c:
            machine_version = c.run("cat /proc/version", hide=True, in_stream=False).stdout.strip()
            # The native master reaches the sandbox by name, on the testbed bridge.
            reach = c.run(
                "getent hosts worker1 && timeout 5 bash -c 'exec 3<>/dev/tcp/worker1/22 && head -c 7 <&3'",
                hide=True,
                in_stream=False,
            ).stdout
        assert "Starting gVisor" in out[0], out
        assert out[1] != machine_version and out[1].startswith("Linux version 4.4.0"), out
        assert out[2] == "1"  # the cpuset's one CPU
        assert out[3] == f"{1024 * 1024} kB"  # the memory limit is the sandbox's MemTotal
        assert out[4] == "worker1"
        assert reach.split()[0] == g.address and "SSH-2.0" in reach
        # On the machine: runsc wrote the limits into the host's cgroup, where the sandbox runs.
        spec = tbp.resolved_hosts()[1]
        pid = PROVISIONERS["gvisor"].init_pid(spec, tb.ctx)
        assert cgroup_dirs_of(pid)["memory"].parent.name == f"vbench-{IT_NAME}"
        got = read_back(pid, ["cpu.cfs_quota_us", "cpu.cfs_period_us", "cpuset.cpus", "memory.limit_in_bytes"])
        assert int(got["cpu.cfs_quota_us"]) == int(got["cpu.cfs_period_us"])
        assert got["cpuset.cpus"].strip() == "0" and int(got["memory.limit_in_bytes"]) == 1024**3
    assert leftovers(tbp) == []


def test_systrap_on_this_runsc_is_refused_before_anything_starts(it_platform_testbed):
    tbp = it_platform_testbed("gvisor", workers=1, gvisor={"platform": "systrap"})
    with pytest.raises(ParamsError) as err:
        with Testbed(tbp):  # a `with`: were it not refused, it would still be torn down
            pytest.fail("the testbed must not come up")
    assert err.value.field == "testbed.gvisor.platform" and "is not a platform of runsc" in str(err.value)
    assert leftovers(tbp) == []


def test_a_pids_limit_for_a_gvisor_host_is_refused_before_anything_starts(it_platform_testbed):
    tbp = it_platform_testbed("gvisor", workers=1, limits={"pids_max": 1024})
    with pytest.raises(ParamsError) as err:
        with Testbed(tbp):
            pytest.fail("the testbed must not come up")
    assert err.value.field == "testbed.limits.pids_max"
    assert leftovers(tbp) == []


def test_a_sandbox_killed_behind_vbenchs_back_fails_the_wait_and_leaves_nothing(it_platform_testbed, monkeypatch):
    """The sandbox dies while the testbed waits for sshd: the wait says so at once (not after its
    timeout), and teardown removes the rest."""
    tbp = _native_master_gvisor_worker(it_platform_testbed)
    prov = PROVISIONERS["gvisor"]
    real = prov.create

    def create_then_kill(spec, index, ctx):
        created = real(spec, index, ctx)
        os.kill(prov.init_pid(spec, ctx), signal.SIGKILL)
        return created

    monkeypatch.setattr(prov, "create", create_then_kill)
    t0 = time.monotonic()
    with pytest.raises(VbenchError, match="worker1 \\(gvisor\\) died while starting"):
        with Testbed(tbp):
            pytest.fail("the testbed must not come up")
    assert time.monotonic() - t0 < 60
    assert leftovers(tbp) == []
