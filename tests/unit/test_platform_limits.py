"""vbench.testbed.limits: cgroup v1 settings from limits, and parsing what is read back."""

from pathlib import Path

import pytest

from vbench.errors import VbenchError
from vbench.params import testbed_params as make_testbed
from vbench.testbed import limits as L

DATA = Path(__file__).resolve().parents[1] / "data" / "platforms"
DISK = L.BlockDevice(254, 0, "vda")


def _limits(**kw):
    return make_testbed({"platform": "oci", "limits": kw}).resolved_hosts()[0].limits


def test_one_vcpu_and_one_gib_are_a_cfs_quota_and_a_memory_limit():
    assert L.cgroup_v1_settings(_limits(cpus=1, memory_mb=1024), None) == {
        "cpu.cfs_period_us": "100000",
        "cpu.cfs_quota_us": "100000",
        "memory.limit_in_bytes": str(1024**3),
    }


def test_cpuset_and_disk_bandwidth_settings():
    s = L.cgroup_v1_settings(_limits(cpuset="0-1", disk_read_bps="50MB", disk_write_bps="10MB"), DISK)
    assert s == {
        "cpuset.cpus": "0-1",
        "blkio.throttle.read_bps_device": "254:0 52428800",
        "blkio.throttle.write_bps_device": "254:0 10485760",
    }


def test_no_limits_no_settings():
    assert L.cgroup_v1_settings(None, DISK) == {}


def test_disk_limits_need_a_device():
    with pytest.raises(VbenchError):
        L.cgroup_v1_settings(_limits(disk_read_bps=1), None)


def test_read_back_values_are_compared_normalised():
    expected = {
        "cpuset.cpus": "0,1",
        "memory.limit_in_bytes": "1073741824",
        "blkio.throttle.read_bps_device": "254:0 52428800",
    }
    actual = {
        "cpuset.cpus": "0-1\n",
        "memory.limit_in_bytes": "1073741824\n",
        "blkio.throttle.read_bps_device": "254:0 52428800\n",
    }
    assert L.mismatches(expected, actual) == []


def test_mismatches_say_what_differs_and_what_is_missing():
    bad = L.mismatches(
        {"memory.limit_in_bytes": "1073741824", "cpu.cfs_quota_us": "100000"},
        {"memory.limit_in_bytes": "9223372036854771712\n"},
    )
    assert "cpu.cfs_quota_us: not readable (wanted '100000')" in bad
    assert "memory.limit_in_bytes is '9223372036854771712', wanted '1073741824'" in bad


def test_proc_cgroup_parsing_splits_joined_controllers_and_skips_v2():
    text = "9:name=systemd:/\n4:memory:/vbench-vbp/worker1\n2:cpu,cpuacct:/vbench-vbp/worker1\n0::/\n"
    assert L.parse_proc_cgroup(text) == {
        "name=systemd": "/",
        "memory": "/vbench-vbp/worker1",
        "cpu": "/vbench-vbp/worker1",
        "cpuacct": "/vbench-vbp/worker1",
    }


def test_cgroup_mounts_of_this_machines_hybrid_layout():
    text = (DATA / "mountinfo_hybrid.txt").read_text()
    mounts = L.parse_cgroup_mounts(text)
    assert mounts["memory"] == Path("/sys/fs/cgroup/memory") and mounts["blkio"] == Path("/sys/fs/cgroup/blkio")
    assert "hugetlb" not in mounts  # it lives on cgroup2 here
    assert not any("=" in k for k in mounts)
    points = L.parse_cgroup_mountpoints(text)
    assert Path("/sys/fs/cgroup/unified") in points and Path("/sys/fs/cgroup/systemd") in points
    assert Path("/sys/fs/cgroup") not in points  # the tmpfs holding them


def test_limits_fact_is_compact_and_sorted():
    assert L.limits_fact(_limits(memory_mb=1024, cpus=1)) == "cpus=1,memory_mb=1024"
    assert L.limits_fact(None) == ""


def test_block_device_of_a_tmpfs_path_is_refused(tmp_path):
    # /dev/shm is tmpfs on Linux: throttling it is meaningless.
    if not Path("/dev/shm").is_dir():
        pytest.skip("no /dev/shm")
    with pytest.raises(VbenchError) as err:
        L.block_device_of(Path("/dev/shm/vbench-nothing"))
    assert "not on a block device" in str(err.value)
