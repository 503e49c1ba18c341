"""A testbed's own cpu cgroup (`testbed.cpu_group`, set by a design's duet: issue #51) on this
machine, without Hadoop: a native and an LXC host of one testbed both run inside
`vbench-<testbed>` in the cpu hierarchy (the native sshd from its first instruction, so every
process started over SSH too), the parent has CFS's default weight, each host's facts say so,
and teardown leaves no cgroup behind. Seconds.

    python3 -m pytest tests/integration/test_cpu_group.py
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.integration.conftest import eventually, leftovers
from vbench.host import connect
from vbench.testbed import Testbed
from vbench.testbed.slowdown import DEFAULT_CPU_SHARES, cgroup_mounts, parent_cgroup, parse_cpus_allowed

pytestmark = [pytest.mark.integration, pytest.mark.skipif(os.geteuid() != 0, reason="needs root")]


def test_every_host_of_a_cpu_grouped_testbed_runs_in_its_cpu_cgroup_and_nothing_is_left(it_platform_testbed):
    mounts = cgroup_mounts()
    if "cpu" not in mounts:
        pytest.skip("needs the cgroup v1 cpu controller")
    worker = "lxc" if shutil.which("lxc-start") else "native"
    params = it_platform_testbed(
        "native",
        cpu_group=True,
        hosts=[{"name": "master", "role": "master"}, {"name": "worker1", "role": "worker", "platform": worker}],
    )
    parent = parent_cgroup(params.name)
    with Testbed(params) as tb:
        assert (mounts["cpu"] / parent / "cpu.shares").read_text().strip() == str(DEFAULT_CPU_SHARES)
        for h in tb.hosts:
            assert h.facts["cpu_group"] == parent, h.facts
        _sleep_on_each_host(tb.hosts, 30)
        _sleepers_below(mounts["cpu"] / parent, tb.hosts, 30)
    assert leftovers(params) == []
    assert not (mounts["cpu"] / parent).exists()  # removed, so emptied: the sleeps went with their hosts


def _sleep_on_each_host(hosts, seconds: int) -> None:
    """Start `sleep <seconds>.<i>7` over SSH on host i, as every Hadoop daemon is started (a
    container sees its own cgroup as /: the sleeps are found from the machine's side, by their
    command line)."""
    for i, h in enumerate(hosts):
        with connect(h) as conn:
            r = conn.run(
                f"setsid sleep {seconds}.{i}7 </dev/null >/dev/null 2>&1 &", hide=True, warn=True, in_stream=False
            )
        assert r.ok, r.stderr


def _sleepers_below(root: Path, hosts, seconds: int, wait_s: float = 10.0) -> list[list[int]]:
    """Each host's sleep (as _sleep_on_each_host started it) found in cgroup `root` or below. The
    SSH command returns once its shell has put the sleep in the background, which may not have
    exec'd yet (a loaded CI run, 2026-12-02, looked before an LXC host's had): up to `wait_s` for
    every host's to show."""
    found = eventually(
        lambda: _procs_below(root),
        lambda procs: all(f"sleep {seconds}.{i}7" in procs.values() for i in range(len(hosts))),
        wait_s,
    )
    out = [[pid for pid, argv in found.items() if argv == f"sleep {seconds}.{i}7"] for i in range(len(hosts))]
    for h, mine in zip(hosts, out):
        assert mine, (h.name, h.platform, sorted(found.values()))
    return out


def _argv(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


def _procs_below(root: Path) -> dict[int, str]:
    """Every process in cgroup `root` or below it, with its command line."""
    out: dict[int, str] = {}
    for procs in root.rglob("cgroup.procs"):
        for text in procs.read_text().split():
            out[int(text)] = _argv(int(text))
    return out


def test_every_host_of_a_testbed_with_a_cpuset_runs_on_its_cpus_only_and_nothing_is_left(it_platform_testbed):
    """testbed.cpuset (a duet with cpus: split sets it): a native and an LXC host held on the
    machine's last CPU, every process started over SSH too (its affinity read from the machine's
    side), the facts say which CPUs; teardown leaves no cpuset cgroup behind."""
    mounts = cgroup_mounts()
    if "cpuset" not in mounts or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs the cgroup v1 cpuset controller and two CPUs")
    cpu = str(max(os.sched_getaffinity(0)))
    worker = "lxc" if shutil.which("lxc-start") else "native"
    params = it_platform_testbed(
        "native",
        cpu_group=True,
        cpuset=cpu,
        hosts=[{"name": "master", "role": "master"}, {"name": "worker1", "role": "worker", "platform": worker}],
    )
    parent = parent_cgroup(params.name)
    with Testbed(params) as tb:
        # Each host's own cgroup holds the CPU (LXC widens every level above its container).
        for h in tb.hosts:
            assert (mounts["cpuset"] / parent / h.name / "cpuset.cpus").read_text().strip() == cpu, h.name
        for h in tb.hosts:
            assert h.facts["cpuset"] == cpu and h.facts["cpu_group"] == parent, h.facts
        _sleep_on_each_host(tb.hosts, 31)
        for mine in _sleepers_below(mounts["cpuset"] / parent, tb.hosts, 31):
            assert all(parse_cpus_allowed(Path(f"/proc/{pid}/status").read_text()) == (int(cpu),) for pid in mine)
    assert leftovers(params) == []
    assert not (mounts["cpuset"] / parent).exists()
