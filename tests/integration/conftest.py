"""Integration tests start real testbeds and Hadoop daemons: root, iproute2, sshd, Java."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from vbench.campaign.design import deep_merge
from vbench.params import HadoopParams, TestbedParams, hadoop_params, testbed_params

REPO = Path(__file__).resolve().parents[2]


#: Testbed name and subnet of this test process: two suites running at once on one machine
#: (a developer's and CI's) must not tear down each other's hosts.
_RUN = os.getpid() % 10000
IT_NAME = f"t{_RUN:05d}"
IT_BRIDGE = f"{IT_NAME}br"
IT_SUBNET = f"10.{214 + _RUN // 250}.{_RUN % 250}.0/24"


#: The integration tests' Hadoop JVMs (daemons, job clients, ApplicationMasters and tasks) run with
#: the C1 compiler only, which takes about a third off every bring-up and half the CPU off a short
#: job here (HadoopParams.daemon_jvm_flags, job_jvm_flags). These tests check what vbench does, not
#: how fast Hadoop is: no figure is quoted from them, and campaigns keep Hadoop's default JIT.
IT_JVM_FLAGS = ["-XX:TieredStopAtLevel=1"]
#: A NodeManager asked to stop waits for its applications (process-kill-wait + sleep-delay + 1 s,
#: ~7 s by default), then for its log handler's scheduled deletions (10 s, as long as any task
#: log is retained): every teardown after a job took 11 s instead of 3. These tests read no task
#: logs, and their hosts are deleted after; campaigns keep Hadoop's defaults.
IT_YARN_SITE = {
    "yarn.nodemanager.process-kill-wait.ms": "500",
    "yarn.nodemanager.sleep-delay-before-sigkill.ms": "100",
    "yarn.nodemanager.log.retain-seconds": "1",
}
IT_HADOOP = {"daemon_jvm_flags": IT_JVM_FLAGS, "job_jvm_flags": IT_JVM_FLAGS, "extra": {"yarn-site": IT_YARN_SITE}}


def it_hadoop(params: dict | None = None) -> HadoopParams:
    """Hadoop params of a test cluster: the defaults (= params/hadoop.yaml), C1 JVMs, quick
    NodeManager shutdown, then `params`."""
    return hadoop_params(deep_merge(IT_HADOOP, params or {}))


def it_testbed_params(work_root: Path, **extra) -> TestbedParams:
    """A testbed whose names cannot clash with a user's default one (1 master + 2 workers)."""
    return testbed_params(
        {
            "name": IT_NAME,
            "workers": 2,
            "work_root": str(work_root),
            "network": {"bridge": IT_BRIDGE, "subnet": IT_SUBNET},
            **extra,
        }
    )


@pytest.fixture
def it_testbed(tmp_path):
    return it_testbed_params(tmp_path / "tb")


@pytest.fixture(scope="module")
def it_running_cluster(tmp_path_factory):
    """One native 1 master + 2 worker Hadoop cluster (replication 2, 16 MB blocks) for the tests
    of a module that only need a running cluster: brought up once, torn down after the module's
    last test, failure or not, and the machine checked clean then. Tests that are about bring-up
    or teardown (smoke, interruption, daemons that die) start their own."""
    from vbench.hadoop.artifacts import fetch
    from vbench.hadoop.cluster import HadoopCluster
    from vbench.testbed import Testbed

    params = it_testbed_params(tmp_path_factory.mktemp("shared") / "tb")
    hp = it_hadoop({"replication": 2, "block_size": "16MB"})
    with Testbed(params) as tb, HadoopCluster(tb.hosts, hp, fetch(hp.version, hp.examples_version)) as cluster:
        yield cluster
    assert leftovers(params) == []


@pytest.fixture
def it_platform_testbed(tmp_path):
    """A factory of test testbeds (same names as `it_testbed`) on other platforms, with limits or hosts."""

    def make(platform: str = "native", **extra):
        return testbed_params(
            {
                "name": IT_NAME,
                "workers": 2,
                "platform": platform,
                "work_root": str(tmp_path / "tb"),
                "network": {"bridge": IT_BRIDGE, "subnet": IT_SUBNET},
                **extra,
            }
        )

    return make


@pytest.fixture
def it_params_dir(tmp_path, it_testbed):
    """A params/ directory for driving the command line against the test testbed."""
    d = tmp_path / "params"
    d.mkdir()
    tb = it_testbed.model_dump(mode="json", exclude_none=True)
    (d / "testbed.yaml").write_text(yaml.safe_dump({"testbed": tb}))
    hadoop = yaml.safe_load((REPO / "params" / "hadoop.yaml").read_text())
    hadoop["hadoop"] = deep_merge(hadoop["hadoop"], IT_HADOOP)
    (d / "hadoop.yaml").write_text(yaml.safe_dump(hadoop))
    return d


def leftovers(params, settle_s: float = 10.0) -> list[str]:
    """Everything of a testbed that teardown must have removed, described; [] when clean.

    A process that is on its way out is given `settle_s` to go: LXC's `[lxc monitor]`, parent
    of a container's init outside its cgroup, exits by itself once teardown has killed the
    container, a moment later; its cgroup already reads empty while it is still in /proc (a full
    CI run saw it at the first look, 2026-11-26 and 2026-12-02)."""
    return eventually(
        lambda: _leftovers_now(params), lambda found: not any(x.startswith("process ") for x in found), settle_s
    )


def eventually(read, done, wait_s: float, step_s: float = 0.2):
    """`read()` again every `step_s` until `done(it)` or `wait_s` have passed; the last reading."""
    deadline = time.monotonic() + wait_s
    found = read()
    while not done(found) and time.monotonic() < deadline:
        time.sleep(step_s)
        found = read()
    return found


def _leftovers_now(params) -> list[str]:
    found = []
    ns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    found += [f"netns {line.split()[0]}" for line in ns.splitlines() if line.startswith(f"{params.name}-")]
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    found += [
        f"link {l.split(':')[1].strip()}"
        for l in links.splitlines()
        if l.split(":")[1].strip().split("@")[0] == params.network.bridge
        or l.split(":")[1].strip().startswith(tuple(f"{params.name}{k}" for k in "hpunq"))
    ]
    root = str(params.work_root)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            mounts = Path(f"/proc/{pid}/mountinfo").read_text(errors="replace")
        except OSError:  # gone or exiting while we read
            continue
        if root in cmd and int(pid) != os.getpid():
            found.append(f"process {pid}: {cmd[:120]}")
        if root in mounts:
            found.append(f"mount of {root} seen by pid {pid}")
        if f"-name {params.name}-" in cmd:
            found.append(f"VM process {pid}: {cmd[:120]}")
    if Path(root, params.name).exists():
        found.append(f"directory {Path(root, params.name)}")
    # Containers and VMs: their cgroups (vbench-<testbed>/<host> in every hierarchy), overlay
    # mounts of their roots anywhere, and crun/LXC state.
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        if len(fields) > 4 and fields[4].startswith("/sys/fs/cgroup"):
            cg = Path(fields[4], f"vbench-{params.name}")
            if cg.exists():
                found.append(f"cgroup {cg}")
        if " - overlay " in line and root in line:
            found.append(f"overlay mount {fields[4]}")
    return found


def host_stdout(host, line: str) -> str:
    """What the shell `line` prints on `host`, over SSH."""
    from vbench.host import connect

    with connect(host) as c:
        return c.run(line, hide=True, in_stream=False).stdout
