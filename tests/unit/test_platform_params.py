"""Platforms and limits in params: validation names the field, refusals come before anything starts."""

import pytest

from vbench.errors import ParamsError
from vbench.machine_fit import MachineFacts, check_cluster_fits, check_limits_fit
from vbench.params import (
    DISK_WEIGHT_REFUSAL,
    VM_DEFAULT_MEMORY_MB,
    hadoop_params,
    parse_cpuset,
    testbed_params as make_testbed,
)

MACHINE = MachineFacts(mem_total_mb=24_000, cpus=2, cpu_ids=(0, 1))
BIG = MachineFacts(mem_total_mb=1_000_000, cpus=64)


def _refused(data) -> ParamsError:
    with pytest.raises(ParamsError) as info:
        make_testbed(data)
    return info.value


def _mixed(*platforms, **worker_extra):
    hosts = [{"name": "master", "role": "master", "platform": "native"}]
    hosts += [
        {"name": f"worker{i}", "role": "worker", "platform": p, **worker_extra} for i, p in enumerate(platforms, 1)
    ]
    return {"hosts": hosts}


@pytest.mark.parametrize("platform", ["native", "lxc", "oci", "gvisor", "qemu"])
def test_every_platform_is_known(platform):
    tb = make_testbed({"platform": platform})
    assert {h.platform for h in tb.resolved_hosts()} == {platform}


def test_unknown_platform_lists_the_known_ones():
    err = _refused({"platform": "docker"})
    assert err.field == "testbed.platform"
    assert "unknown platform 'docker'" in str(err) and "lxc, oci, gvisor, qemu" in str(err)


def test_unknown_host_platform_names_the_host_field():
    err = _refused({"hosts": [{"name": "m", "role": "master", "platform": "xen"}]})
    assert err.field == "testbed.hosts[0].platform"


def test_explicit_hosts_without_platform_take_the_testbeds():
    tb = make_testbed({"platform": "lxc", **_mixed("qemu")})
    tb = make_testbed(
        {
            "platform": "oci",
            "hosts": [{"name": "m", "role": "master"}, {"name": "w", "role": "worker", "platform": "qemu"}],
        }
    )
    assert [h.platform for h in tb.resolved_hosts()] == ["oci", "qemu"]


def test_mixed_cluster_keeps_each_hosts_platform():
    tb = make_testbed(_mixed("native", "qemu"))
    assert [(h.name, h.platform) for h in tb.resolved_hosts()] == [
        ("master", "native"),
        ("worker1", "native"),
        ("worker2", "qemu"),
    ]


def test_testbed_limits_apply_to_containers_and_vms_and_hosts_override_them_field_by_field():
    data = _mixed("lxc", "qemu")
    data["hosts"][2]["limits"] = {"memory_mb": 2048}
    tb = make_testbed({**data, "limits": {"cpus": 1, "memory_mb": 1024}})
    master, w1, w2 = tb.resolved_hosts()
    assert master.limits is None  # native hosts run unconfined
    assert (w1.limits.cpus, w1.limits.memory_mb) == (1, 1024)
    assert (w2.limits.cpus, w2.limits.memory_mb) == (1, 2048)


def test_sizes_are_accepted_for_memory_and_disk_bandwidth():
    tb = make_testbed(
        {"platform": "lxc", "limits": {"memory_mb": "1GB", "disk_read_bps": "50MB", "disk_write_bps": 1000}}
    )
    lim = tb.resolved_hosts()[0].limits
    assert lim.memory_mb == 1024
    assert lim.disk_read_bps == 50 * 1024**2 and lim.disk_write_bps == 1000


def test_a_disk_weight_is_refused_saying_why():
    err = _refused({"platform": "lxc", "limits": {"disk_weight": 500}})
    assert err.field == "testbed.limits.disk_weight"
    assert "blkio.weight does not exist" in str(err) and "mq-deadline" in str(err)
    assert "disk_read_bps" in str(err)
    assert "blkio.weight" in DISK_WEIGHT_REFUSAL


def test_limits_on_a_native_host_are_refused():
    data = {"hosts": [{"name": "m", "role": "master", "platform": "native", "limits": {"cpus": 1}}]}
    err = _refused(data)
    assert err.field == "testbed.hosts[0].limits"
    assert "native hosts run unconfined" in str(err)


@pytest.mark.parametrize(
    "limits,field,words",
    [
        ({"cpus": 0}, "testbed.limits.cpus", "must be at least 1, got 0"),
        ({"cpuset": "0-"}, "testbed.limits.cpuset", "not a CPU list"),
        ({"cpuset": "3-1"}, "testbed.limits.cpuset", "reversed"),
        ({"memory_mb": 10}, "testbed.limits.memory_mb", "must be at least 64, got 10"),
        ({"memory_mb": "1.5KB"}, "testbed.limits.memory_mb", "whole number of MiB"),
        ({"disk_read_bps": "fast"}, "testbed.limits.disk_read_bps", "not a size"),
        ({"cpus": 2, "cpuset": "0"}, "testbed.limits.cpus", "do not fit in cpuset"),
        ({"swap": 1}, "testbed.limits.swap", "is not a known field"),
    ],
)
def test_bad_limits_name_the_field(limits, field, words):
    err = _refused({"platform": "oci", "limits": limits})
    assert err.field == field
    assert words in str(err)


def test_parse_cpuset():
    assert parse_cpuset("0") == (0,)
    assert parse_cpuset("0-2,5") == (0, 1, 2, 5)
    assert parse_cpuset("1,1-2") == (1, 2)


# --- limits against the machine ---------------------------------------------------------


def test_more_vcpus_than_the_machine_has_is_refused():
    tb = make_testbed({"platform": "lxc", "limits": {"cpus": 4}})
    with pytest.raises(ParamsError) as err:
        check_limits_fit(tb, MACHINE)
    assert err.value.field == "testbed.limits.cpus"
    assert "4 vCPUs" in str(err.value) and "2 CPUs" in str(err.value)


def test_the_field_of_a_host_own_limit_is_named():
    data = _mixed("qemu")
    data["hosts"][1]["limits"] = {"memory_mb": 50_000}
    with pytest.raises(ParamsError) as err:
        check_limits_fit(make_testbed(data), MACHINE)
    assert err.value.field == "testbed.hosts[1].limits.memory_mb"
    assert "50000 MiB" in str(err.value) and "24000 MiB" in str(err.value)


def test_a_cpuset_naming_absent_cpus_is_refused():
    tb = make_testbed({"platform": "oci", "limits": {"cpuset": "2-3"}})
    with pytest.raises(ParamsError) as err:
        check_limits_fit(tb, MACHINE)
    assert err.value.field == "testbed.limits.cpuset" and "online: 0,1" in str(err.value)


def test_vms_that_together_exceed_the_memory_are_refused():
    tb = make_testbed({"platform": "qemu", "workers": 3, "limits": {"memory_mb": 7000}})
    with pytest.raises(ParamsError) as err:
        check_limits_fit(tb, MACHINE)
    assert err.value.field == "testbed.hosts" and "28000 MiB together" in str(err.value)


def test_a_vm_without_limits_gets_the_default_memory_counted():
    tb = make_testbed({"platform": "qemu", "workers": 1})
    small = MachineFacts(mem_total_mb=VM_DEFAULT_MEMORY_MB * 2 - 1, cpus=2)
    with pytest.raises(ParamsError):
        check_limits_fit(tb, small)
    check_limits_fit(tb, MachineFacts(mem_total_mb=VM_DEFAULT_MEMORY_MB * 2, cpus=2))


def test_a_worker_limit_too_small_for_hadoop_is_refused_by_check_cluster_fits():
    data = _mixed("lxc", "lxc")
    data["hosts"][1]["limits"] = {"memory_mb": 1024}
    tb = make_testbed(data)
    with pytest.raises(ParamsError) as err:
        check_cluster_fits(tb, hadoop_params({}), BIG)
    assert err.value.field == "testbed.hosts[1].limits.memory_mb"
    assert "worker1 (worker, lxc) is limited to 1024 MiB" in str(err.value)
    assert "2496 MiB" in str(err.value) and "nodemanager_memory_mb" in str(err.value)
    # Shrinking YARN's share makes it fit.
    hp = hadoop_params(
        {"nodemanager_memory_mb": 512, "am_memory_mb": 256, "map_memory_mb": 256, "reduce_memory_mb": 256}
    )
    check_cluster_fits(tb, hp, BIG)


def test_limits_alone_fit_without_hadoop():
    tb = make_testbed({"platform": "lxc", "limits": {"cpus": 1, "memory_mb": 1024, "cpuset": "1"}})
    check_limits_fit(tb, MACHINE)
