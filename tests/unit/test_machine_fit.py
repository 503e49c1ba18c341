"""vbench.machine_fit: a testbed this machine cannot hold is refused before anything starts, naming the field."""

import os

import pytest

from vbench.errors import ParamsError
from vbench.machine_fit import MachineFacts, check_cluster_fits
from vbench.params import hadoop_params, testbed_params as make_testbed

BIG_MACHINE = MachineFacts(mem_total_mb=1_000_000, cpus=64)


def test_this_machines_facts_are_read_from_proc_and_the_affinity():
    facts = MachineFacts.local()
    with open("/proc/meminfo") as fh:
        kb = int(next(line for line in fh if line.startswith("MemTotal:")).split()[1])
    assert facts.mem_total_mb == kb // 1024 > 0
    assert facts.cpus == os.cpu_count()
    assert facts.cpu_ids == tuple(sorted(os.sched_getaffinity(0)))


def test_cluster_larger_than_the_machines_memory_is_refused():
    with pytest.raises(ParamsError) as info:
        check_cluster_fits(make_testbed(), hadoop_params(), MachineFacts(mem_total_mb=4096, cpus=2))
    assert info.value.field == "hadoop.nodemanager_memory_mb"
    # Defaults: 384+384+192+256 on the master, 2 x (192+256+2048) on the workers.
    assert "needs 6208 MiB" in str(info.value)
    assert "4096 MiB" in str(info.value)


def test_cluster_that_fits_is_accepted():
    check_cluster_fits(make_testbed(), hadoop_params(), MachineFacts(mem_total_mb=6208, cpus=2))


def test_replication_above_the_worker_count_is_refused():
    with pytest.raises(ParamsError) as info:
        check_cluster_fits(make_testbed({"workers": 2}), hadoop_params({"replication": 3}), BIG_MACHINE)
    assert info.value.field == "hadoop.replication"
    assert "3 replicas" in str(info.value) and "has 2" in str(info.value)
