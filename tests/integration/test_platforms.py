"""Platforms for real: the same Hadoop smoke on LXC and OCI (crun) containers, limits read back,
teardown after failures (gVisor sandboxes too; their own checks: test_gvisor.py), a QEMU VM
answering SSH with VM facts, and a VM worker in a mixed cluster.

One parametrised test per behaviour, run on every platform it applies to (DESIGN.md, lesson 10).
The mixed-cluster smoke with a VM worker is marked slow (software-emulated VMs on 2 cores):
`VBENCH_SLOW=1 python3 -m pytest tests/integration/test_platforms.py -k mixed`.
"""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from tests.integration.conftest import IT_NAME, host_stdout, leftovers, it_hadoop
from vbench.errors import ParamsError, VbenchError
from vbench.host import connect
from vbench.samples import read_records
from vbench.smoke import run_smoke
from vbench.testbed import Testbed
from vbench.testbed.image import image_for
from vbench.testbed.limits import cgroup_dirs_of, read_back
from vbench.testbed.platforms import PROVISIONERS
from vbench.testbed.facts import this_cpu_model

pytestmark = pytest.mark.integration

TOOLS = {"lxc": "lxc-start", "oci": "crun", "gvisor": "runsc", "qemu": "qemu-system-x86_64"}


@pytest.fixture(autouse=True)
def _platform_ready(request):
    callspec = getattr(request.node, "callspec", None)
    platform = callspec.params.get("platform") if callspec else None
    for tool in [TOOLS[platform]] if platform in TOOLS else list(TOOLS.values()):
        if shutil.which(tool) is None:
            pytest.skip(f"needs {tool}; run the README's test command, which installs it")
    if not image_for().exists():
        pytest.skip("the guest image is not built; run `vbench image build` (the README's test command does)")


def _small_hadoop(**extra):
    """The smoke's Hadoop settings: replication 2 over 16 MB blocks."""
    return it_hadoop({"replication": 2, "block_size": "16MB", **extra})


def _master_and_workers(*worker_platforms: str | None) -> list[dict]:
    """A testbed's hosts: a master, then worker1, worker2, ... on `worker_platforms` (None: the testbed's own)."""
    workers = [
        {"name": f"worker{i}", "role": "worker", **({"platform": platform} if platform else {})}
        for i, platform in enumerate(worker_platforms, start=1)
    ]
    return [{"name": "master", "role": "master"}, *workers]


# --- containers: the smoke, end to end ------------------------------------------------


def test_smoke_on_containers_passes_with_blocks_on_every_worker_then_nothing_left(it_platform_testbed, tmp_path):
    """Both container platforms and a native host in one smoke (one bring-up instead of one per
    platform, one for the mixed cluster and one for an all-native cluster, ~210 s of the suite): an
    LXC master and worker, an OCI worker and a native one, so TeraGen's replicas (3: one on every
    worker) and TeraSort's tasks cross both kinds of container and the bare host, and all of them
    are torn down. The lifecycle needs nothing platform-specific: the same jars, daemons and job
    on each. All-native clusters run in the other integration tests (`cluster up/status/down`,
    the pipeline, placement, topology, inventories)."""
    tbp = it_platform_testbed("lxc", hosts=_master_and_workers(None, "oci", "native"))
    assert [h.platform for h in tbp.resolved_hosts()] == ["lxc", "lxc", "oci", "native"]
    # 16 MB: one small file per map and reduce; nothing checked depends on the size.
    hp = _small_hadoop(replication=3)
    result, camp = run_smoke(tbp, hp, 16, tmp_path / "smoke", log=print)
    print(result.summary())
    assert result.platform == "lxc+oci+native"  # a mixed testbed names every platform it has
    assert result.failure is None, result.failure
    assert result.valid, result.verdict
    assert result.verdict.startswith("checksum ")
    assert result.workers == 3
    # Replication crossed the links: every worker stores replicas of the sorted output.
    assert len(result.replicas_per_node) == 3 and all(n > 0 for n in result.replicas_per_node.values())
    assert result.ok
    assert result.bringup_seconds > 0

    saved = list(read_records(camp / "samples.jsonl"))
    # Like every other sample (#17): the run, the code that measured it, the design, block and cell.
    assert {s.metadata["run_id"] for s in saved} == {result.run_id} and result.run_id.startswith("terasort-")
    assert all(s.metadata["vbench_commit"] not in ("", "unknown") for s in saved)
    assert {s.metadata["cell_id"] for s in saved} == {f"b0/{tbp.platform}/terasort"}
    assert {s.metadata["hadoop_config_hash"] for s in saved} == {result.config_hash}
    assert {s.metadata["bringup_s"] for s in saved} == {result.bringup_seconds}
    # The poll and heartbeat intervals that resolve a job time, as the cluster was configured (#19).
    assert {(s.metadata["client_poll_ms"], s.metadata["am_heartbeat_ms"]) for s in saved} == {
        (hp.client_poll_ms, hp.am_heartbeat_ms)
    }
    assert {s.benchmark for s in saved} == {"terasort", "placement"}

    assert leftovers(tbp) == []
    Testbed(tbp).down()  # a second teardown is harmless
    assert leftovers(tbp) == []


# --- limits -----------------------------------------------------------------------------


@pytest.mark.parametrize("platform", ["lxc", "oci"])
def test_one_vcpu_and_one_gib_are_read_back_from_the_cgroup_files(it_platform_testbed, platform):
    tbp = it_platform_testbed(platform, workers=1, limits={"cpus": 1, "memory_mb": 1024, "disk_write_bps": "20MB"})
    with Testbed(tbp) as tb:
        for host, spec in zip(tb.hosts, tbp.resolved_hosts()):
            assert host.facts["limits"] == "cpus=1,disk_write_bps=20971520,memory_mb=1024"
            assert host.facts["virt_kind"] == "container"
            pid = PROVISIONERS[platform].init_pid(spec, tb.ctx)
            dirs = cgroup_dirs_of(pid)
            assert dirs["memory"].name == spec.name and dirs["memory"].parent.name == f"vbench-{IT_NAME}"
            got = read_back(
                pid,
                ["cpu.cfs_quota_us", "cpu.cfs_period_us", "memory.limit_in_bytes", "blkio.throttle.write_bps_device"],
            )
            assert int(got["cpu.cfs_quota_us"]) == int(got["cpu.cfs_period_us"])  # one vCPU
            assert int(got["memory.limit_in_bytes"]) == 1024**3
            assert got["blkio.throttle.write_bps_device"].split()[1] == str(20 * 1024**2)
            # ...and the host itself sees them: the JVM sizes its heap from the cgroup.
            with connect(host) as c:
                mem = c.run("cat /sys/fs/cgroup/memory/memory.limit_in_bytes", hide=True, in_stream=False).stdout
                assert int(mem) == 1024**3
            assert host.facts["memory_limit_mb"] == "1024"
    assert leftovers(tbp) == []


@pytest.mark.parametrize("platform", ["lxc", "oci", "gvisor"])
def test_limits_that_do_not_read_back_fail_the_bring_up_and_leave_nothing(it_platform_testbed, platform, monkeypatch):
    tbp = it_platform_testbed(platform, workers=1, limits={"memory_mb": 1024})
    prov = PROVISIONERS[platform]
    real = prov.create

    def create_then_tamper(spec, index, ctx):
        created = real(spec, index, ctx)
        # Something changes the limit behind vbench's back: the read-back must notice.
        memory_dir = cgroup_dirs_of(prov.init_pid(spec, ctx))["memory"]
        (memory_dir / "memory.limit_in_bytes").write_text(str(2 * 1024**3))
        return created

    monkeypatch.setattr(prov, "create", create_then_tamper)
    with pytest.raises(VbenchError) as err:
        with Testbed(tbp):
            pytest.fail("the testbed must not come up")
    assert "limits not applied as asked" in str(err.value)
    assert "memory.limit_in_bytes is '2147483648', wanted '1073741824'" in str(err.value)
    assert leftovers(tbp) == []


def test_limits_larger_than_the_machine_are_refused_before_anything_starts(it_platform_testbed):
    tbp = it_platform_testbed("lxc", workers=1, limits={"cpus": 64})
    with pytest.raises(ParamsError) as err:
        Testbed(tbp).up()
    assert err.value.field == "testbed.limits.cpus"
    assert leftovers(tbp) == []


@pytest.mark.parametrize("platform", ["qemu", "lxc"])
def test_a_host_without_the_guest_image_is_refused_before_anything_starts(
    it_platform_testbed, platform, tmp_path, monkeypatch
):
    monkeypatch.setenv("VBENCH_CACHE", str(tmp_path / "empty-cache"))
    tbp = it_platform_testbed("native", hosts=_master_and_workers(platform))
    with pytest.raises(VbenchError) as err:
        Testbed(tbp).up()
    assert f"{platform} host worker1 needs the guest image" in str(err.value)
    assert "vbench image build" in str(err.value)
    assert leftovers(tbp) == []


# --- teardown after failures --------------------------------------------------------------


@pytest.mark.parametrize("platform", ["lxc", "oci", "gvisor", "qemu"])
def test_a_failure_in_the_middle_of_creation_leaves_nothing(it_platform_testbed, platform, monkeypatch):
    tbp = it_platform_testbed(platform, workers=2)
    prov = PROVISIONERS[platform]
    real = prov.create

    def create(spec, index, ctx):
        created = real(spec, index, ctx)
        if index == 2:  # the second host exists (container running / VM booting), then creation fails
            raise RuntimeError("injected failure after creating worker1")
        return created

    monkeypatch.setattr(prov, "create", create)
    with pytest.raises(RuntimeError):
        with Testbed(tbp):
            pytest.fail("the testbed must not come up")
    assert leftovers(tbp) == []


@pytest.mark.parametrize("platform", ["lxc", "oci", "gvisor"])
def test_with_its_state_directory_gone_teardown_deletes_nothing_by_name_and_says_so(it_platform_testbed, platform):
    """Issue #22: names are not ownership. With the state file gone, the namespaces and links
    that carry the testbed's names are left in place and named; the containers' processes, in
    vbench's own cgroup, are stopped."""
    tbp = it_platform_testbed(platform, workers=1)
    tb = Testbed(tbp)
    said: list[str] = []
    try:
        tb.up()
        shutil.rmtree(tb.paths.root)  # state file, LXC/crun state, keys: all gone
        Testbed(tbp, log=said.append).down(remove_kept=True)
        left = leftovers(tbp)  # a process on its way out given its moment to go
        assert any(x.startswith("netns ") for x in left) and f"link {tbp.network.bridge}" in left, left
        assert not any(x.startswith(("process ", "cgroup ")) for x in left), left
        assert any("no vbench state says it created them: left in place" in m for m in said), said
    finally:
        # What a user does with what they know is theirs: remove it by its names.
        for entry in leftovers(tbp):
            kind, _, name = entry.partition(" ")
            if kind == "netns":
                subprocess.run(["ip", "netns", "del", name], check=False)
        for entry in leftovers(tbp):
            kind, _, name = entry.partition(" ")
            # A veth whose peer's namespace outlives its name (a gVisor sandbox killed before it
            # acknowledged the controller's last FIN: the orphaned socket holds the controller's
            # namespace for a minute or two) is listed as "<name>@if<peer>".
            if kind == "link" and name != tbp.network.bridge:
                subprocess.run(["ip", "link", "del", name.split("@")[0]], check=False)
        subprocess.run(["ip", "link", "del", tbp.network.bridge], check=False, capture_output=True)
    assert leftovers(tbp) == []


@pytest.mark.parametrize("platform", ["lxc", "oci", "gvisor"])
def test_teardown_with_params_naming_another_platform_still_removes_everything(it_platform_testbed, platform):
    """`vbench testbed up --platform lxc` then `vbench testbed down` without --platform."""
    tbp = it_platform_testbed(platform, workers=1)
    try:
        Testbed(tbp).up()
        Testbed(it_platform_testbed("native", workers=1)).down()
        assert leftovers(tbp) == []
    finally:
        Testbed(tbp).down()


# --- a VM -------------------------------------------------------------------------------


def test_a_qemu_host_boots_answers_ssh_and_reports_vm_facts(it_platform_testbed):
    tbp = it_platform_testbed(
        "native",
        hosts=[
            {"name": "master", "role": "master"},
            {
                "name": "worker1",
                "role": "worker",
                "platform": "qemu",
                "limits": {"cpus": 1, "memory_mb": 1024, "disk_read_bps": "100MB"},
            },
        ],
    )
    t0 = time.monotonic()
    with Testbed(tbp) as tb:
        vm = tb.hosts[1]
        print(
            f"VM SSH-ready in {vm.facts['ssh_ready_s']} s (testbed up in {time.monotonic() - t0:.1f} s), "
            f"accelerator {vm.facts['accelerator']}"
        )
        assert vm.facts["platform"] == "qemu"
        assert vm.facts["virt_kind"] == "vm" and vm.facts["virt"] in ("qemu", "kvm")
        assert vm.facts["accelerator"] in ("tcg", "kvm")
        assert vm.facts["vcpus"] == "1" and vm.facts["vm_memory_mb"] == "1024"
        assert 800 <= int(vm.facts["mem_total_mb"]) <= 1024
        assert vm.facts["kernel"].endswith("-amd64")  # Debian's kernel, not the machine's
        # The machine's CPU stamped, the one the guest names kept beside (QEMU's own under TCG).
        assert vm.facts["cpu_model"] == this_cpu_model() != "" and vm.facts["guest_cpu_model"] != ""
        assert vm.facts["image_hash"] == image_for().hash
        assert not vm.shares_controller_fs and vm.work_dir == "/var/lib/vbench"
        out = host_stdout(
            vm,
            "hostname; df -m --output=avail /var/lib/vbench | tail -1; test -x /usr/lib/jvm/java-17-openjdk-amd64/bin/java && echo java",
        ).split()
        assert out[0] == "worker1" and int(out[1]) > 4000 and out[2] == "java"
        # The controller reaches it like any other host; the native master sees it by name.
        with connect(tb.hosts[0]) as c:
            assert c.run("getent hosts worker1", hide=True, in_stream=False).stdout.split()[0] == vm.address
    assert leftovers(tbp) == []


@pytest.mark.slow
def test_mixed_cluster_with_a_vm_worker_runs_a_small_smoke(it_platform_testbed, tmp_path):
    """Two native hosts and one VM worker (the heterogeneous setup of the Liu et al. study)."""
    tbp = it_platform_testbed("native", hosts=_master_and_workers(None, "qemu"))
    result, _ = run_smoke(tbp, _small_hadoop(), 16, tmp_path / "smoke", log=print, job_timeout_s=1800)
    print(result.summary())
    assert result.ok, result
    assert leftovers(tbp) == []
