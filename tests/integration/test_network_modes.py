"""Issue #8 part 1, for real: every network mode with native hosts on emulated physical hosts,
SSH to every guest, the iperf3 matrix, a shaped uplink within 10 % of its rate, refusals before
anything starts, Hadoop behind NAT, and nothing left afterwards."""

from __future__ import annotations

import shutil

import pytest

from tests.integration.conftest import IT_BRIDGE, IT_NAME, IT_SUBNET, leftovers, it_hadoop
from vbench.benchmarks import netmatrix, netmatrix_measure
from vbench.errors import ParamsError, VbenchError
from vbench.hadoop import jobs
from vbench.hadoop.artifacts import fetch
from vbench.hadoop.cluster import HadoopCluster
from vbench.host import connect
from vbench.params import testbed_params as make_testbed
from vbench.testbed import Testbed, sysops
from vbench.testbed.image import image_for

pytestmark = pytest.mark.integration

#: Reachable on this loaded 2-core machine (1 Gbit/s may not be); unshaped veths do several Gbit/s.
RATE = 200


def params(tmp_path, mode: str, workers: int = 3, vms: int = 2, rate: float | None = RATE, **extra):
    net = {"bridge": IT_BRIDGE, "subnet": IT_SUBNET, "mode": mode}
    if rate is not None:
        net["link"] = {"rate_mbit": rate}
    return make_testbed(
        {
            "name": IT_NAME,
            "workers": workers,
            "vms_per_host": vms,
            "work_root": str(tmp_path / "tb"),
            "network": net,
            **extra,
        }
    )


@pytest.mark.parametrize("mode", ["bridge", "nat", "bridge+nat"])
def test_mode_comes_up_reachable_and_its_matrix_shows_the_shaped_uplink(tmp_path, mode):
    p = params(tmp_path, mode)
    with Testbed(p, log=print) as tb:
        lay = tb.ctx.layout
        for h in tb.hosts:  # every guest answers SSH from the controller, as itself
            with connect(h) as c:
                assert c.run("hostname", hide=True, in_stream=False).stdout.strip() == h.name
            assert h.facts["network_mode"] == mode and h.facts["physical_host"] == p.physical_hosts()[h.name]
        rows = {r.kind: r for r in netmatrix_measure.measure(tb.hosts, lay, p.vms_per_host, duration_s=4, omit_s=1)}
    print(netmatrix.table(list(rows.values())))
    assert leftovers(p) == []

    same, cross, home, other = (rows[k] for k in netmatrix.KINDS)
    # Shaped paths (they cross uplinks) measure within 10 % of the configured rate.
    for r in (cross, other):
        assert r.configured_mbit == RATE and abs(r.deviation) <= 0.10, r
    # Paths inside one physical host never cross an uplink: far above it.
    assert same.throughput_mbit > 3 * RATE and home.throughput_mbit > 3 * RATE
    # Which NIC each path takes is what tells the modes apart.
    private = mode in ("nat", "bridge+nat")
    assert same.source.startswith("192.168.122.") == private and same.target.startswith("192.168.122.") == private
    assert home.target.startswith("192.168.122.") == private
    # Across physical hosts: bridge and bridge+nat leave from the testbed address (eth0 on the
    # bridge); nat leaves from the private one, translated to the floating address on the uplink.
    assert cross.source.startswith("192.168.122.") == (mode == "nat")
    assert cross.target == str(next(h.address for h in p.resolved_hosts() if h.name == cross.server))


def test_oci_containers_sit_behind_nat_on_their_physical_hosts(tmp_path):
    if shutil.which("crun") is None or not image_for().exists():
        pytest.skip("needs crun and the guest image (`vbench image build`)")
    p = params(tmp_path, "nat", workers=2, vms=1, platform="oci")
    with Testbed(p, log=print) as tb:
        for h in tb.hosts:  # SSH through the floating address, into the container's private one
            with connect(h) as c:
                out = c.run("hostname; ip -4 -o addr show dev eth0", hide=True, in_stream=False).stdout
            assert out.split()[0] == h.name and " 192.168.122.10/24 " in out
        rows = netmatrix_measure.measure(tb.hosts, tb.ctx.layout, p.vms_per_host, duration_s=3, omit_s=1)
    cross = next(r for r in rows if r.kind == netmatrix.CROSS)
    assert abs(cross.deviation) <= 0.10 and cross.source == "192.168.122.10"
    assert leftovers(p) == []


def test_bad_network_input_is_refused_before_anything_starts(tmp_path):
    with pytest.raises(ParamsError, match="network.mode"):
        params(tmp_path, "sriov")
    with pytest.raises(ParamsError, match="network.mode"):
        params(tmp_path, "vlan")
    p = params(
        tmp_path, "nat", workers=2, vms=2, physical_host_memory_mb=1024, platform="oci", limits={"memory_mb": 768}
    )
    with pytest.raises(ParamsError, match="physical_host_memory_mb"):
        Testbed(p).up()
    assert leftovers(p) == []
    # LXC and QEMU hosts cannot join a physical host's bridge yet: said, nothing created.
    p = params(tmp_path, "bridge+nat", workers=1, vms=1, platform="lxc")
    with pytest.raises(VbenchError, match="not yet with lxc"):
        Testbed(p).up()
    assert leftovers(p) == []


def test_default_bridge_mode_keeps_the_direct_attachment(tmp_path):
    p = params(tmp_path, "bridge", workers=1, vms=1, rate=None)
    with Testbed(p, log=print) as tb:
        assert tb.ctx.layout is None and tb.bringup_seconds < 30
        assert not [n for n in sysops.existing_netns() if n.startswith(f"{IT_NAME}-phy-")]
    assert leftovers(p) == []


# `nat` alone is slow-marked: bridge+nat runs the same Hadoop behind the same NAT (the nat mode's
# bring-up, matrix and uplink are tested above), ~50 s of the suite.
@pytest.mark.parametrize("mode", [pytest.param("nat", marks=pytest.mark.slow), "bridge+nat"])
def test_hadoop_runs_behind_nat_with_replicas_on_both_guests_of_a_physical_host(tmp_path, mode):
    """Master alone on pm, both workers on p1: the pipeline between the workers goes over the
    NAT network, everything to and from the master across the (NAT'd) uplinks."""
    p = params(tmp_path, mode, workers=2, vms=2, rate=None)
    hp = it_hadoop({"replication": 2, "block_size": "4MB"})
    dist = fetch(hp.version, hp.examples_version)
    with Testbed(p, log=print) as tb:
        cluster = HadoopCluster(tb.hosts, hp, dist)
        try:
            # Generous: on a loaded 2-core machine daemons take minutes to come up.
            cluster.up(timeout_s=600)
            _teragen_replicates_across_nat(cluster, mode)
        finally:
            cluster.down()
    assert leftovers(p) == []


def _teragen_replicates_across_nat(cluster: HadoopCluster, mode: str) -> None:
    assert cluster.network_mode == mode
    r = cluster.java(jobs.EXAMPLES_DRIVER, jobs.teragen_args(100_000, "/nat", maps=2), timeout=600)
    assert r.ok, r.stderr[-2000:]
    blocks = jobs.block_locations(cluster.fsck("/nat").stdout)
    assert blocks and all(len(set(nodes)) == 2 for nodes in blocks.values())
    hdfs, nms, jhs = cluster.health()
    assert hdfs.live_datanodes == ("worker1", "worker2") and nms == ("worker1", "worker2") and jhs
    # The NameNode knows the workers by their testbed (public or floating) addresses.
    assert set(jobs.replicas_per_node(blocks)) == {h.address for h in cluster.workers}
