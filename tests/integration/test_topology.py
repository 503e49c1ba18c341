"""Rack grouping and node groups for real: fsck shows replicas placed as the policy says."""

from __future__ import annotations

import pytest

from tests.integration.conftest import it_hadoop, it_testbed_params, leftovers

from vbench.hadoop import jobs
from vbench.hadoop.artifacts import fetch
from vbench.hadoop.cluster import HadoopCluster
from vbench.testbed import Testbed

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def bed(tmp_path_factory):
    """One native testbed for both topologies (each brings up and wipes its own Hadoop cluster on
    it): torn down after the module's last test, and the machine checked clean then."""
    params = it_testbed_params(tmp_path_factory.mktemp("topology") / "tb", workers=3, vms_per_host=2)
    with Testbed(params) as b:
        yield b
    assert leftovers(params) == []


# `rack` alone is slow-marked (70 s of CI): `nodegroup` installs the same topology table on the same
# cluster shape and adds the policy that is easy to misconfigure (NetworkTopologyWithNodeGroup,
# dfs.use.dfs.network.topology); the rack configuration is unit-tested (tests/unit/test_topology.py)
# and a rack cluster comes up and runs a job in test_factor_campaign.py.
@pytest.mark.parametrize("topology", [pytest.param("rack", marks=pytest.mark.slow), "nodegroup"])
def test_replicas_leave_the_physical_host_when_the_topology_says_so(bed, topology):
    # worker1 and worker2 are guests of physical host p1, worker3 is alone on p2: with
    # replication 2, the policy must put one replica of every block on worker3.
    hp = it_hadoop({"replication": 2, "block_size": "1MB", "topology": topology})
    dist = fetch(hp.version, hp.examples_version)
    with HadoopCluster(bed.hosts, hp, dist) as cluster:
        assert {h.name: h.physical_host for h in bed.hosts} == {
            "master": "pm",
            "worker1": "p1",
            "worker2": "p1",
            "worker3": "p2",
        }
        r = cluster.java(jobs.EXAMPLES_DRIVER, jobs.teragen_args(100_000, "/placed", maps=2), timeout=600)
        assert r.ok, r.stderr[-2000:]
        # A block may be written with one replica when the policy finds no allowed second node
        # at that moment (a busy DataNode is excluded under load); wait for the NameNode to
        # re-replicate, then judge where the replicas are.
        w = cluster.fs("-setrep", "-w", "2", "/placed")
        assert w.ok, w.stderr[-2000:]
        report = cluster.placement("/placed")
        print(report.summary())
        assert report.blocks >= 8  # 10 MB in 1 MB blocks
        assert report.ok, report.summary()
        assert report.blocks_sharing_a_physical_host == 0
        worker3 = next(h.address for h in bed.hosts if h.name == "worker3")
        blocks = jobs.block_locations(cluster.fsck("/placed").stdout)
        assert all(worker3 in nodes for nodes in blocks.values())
