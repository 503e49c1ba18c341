"""Physical hosts, racks and Hadoop's topology generated from them; block placement checks."""

from pathlib import Path

import pytest

from vbench.errors import VbenchError
from vbench.hadoop.config import HostLayout, render_conf, site_properties
from vbench.hadoop.jobs import block_locations
from vbench.hadoop.topology import TABLE_FILE, check_placement, network_locations, topology_table
from vbench.host import Host, SshEndpoint
from vbench.params import hadoop_params
from vbench.params import testbed_params as tb_params
from vbench.testbed.placement import with_placement


def _hosts(tb) -> list[Host]:
    ep = SshEndpoint("x", "root", Path("/k"), Path("/kh"))
    plain = [
        Host(name=h.name, role=h.role, platform="native", address=str(h.address), work_dir="/w", ssh=ep)
        for h in tb.resolved_hosts()
    ]
    return with_placement(plain, tb)


def test_workers_are_grouped_vms_per_host_to_a_physical_host_and_the_master_is_alone():
    tb = tb_params({"workers": 5, "vms_per_host": 2})
    assert tb.physical_hosts() == {
        "master": "pm",
        "worker1": "p1",
        "worker2": "p1",
        "worker3": "p2",
        "worker4": "p2",
        "worker5": "p3",
    }


def test_explicit_physical_hosts_and_racks_win():
    tb = tb_params(
        {
            "hosts": [
                {"name": "m", "role": "master"},
                {"name": "a", "role": "worker", "physical_host": "big", "rack": "r2"},
                {"name": "b", "role": "worker"},
            ],
            "vms_per_host": 4,
        }
    )
    assert tb.physical_hosts() == {"m": "pm", "a": "big", "b": "p1"}
    assert tb.racks() == {"m": "rack1", "a": "r2", "b": "rack1"}


def test_locations_per_topology():
    hosts = _hosts(tb_params({"workers": 4, "vms_per_host": 2}))
    assert network_locations(hosts, "flat") == {}
    assert network_locations(hosts, "rack")["worker3"] == "/p2"
    assert network_locations(hosts, "nodegroup")["worker2"] == "/rack1/p1"
    table = topology_table(hosts, network_locations(hosts, "rack"))
    assert "worker1 /p1\n10.213.0.11 /p1\n" in table


def test_a_host_without_a_physical_host_cannot_be_placed():
    ep = SshEndpoint("x", "root", Path("/k"), Path("/kh"))
    bare = [Host(name="w", role="worker", platform="native", address="10.0.0.2", work_dir="/w", ssh=ep)]
    with pytest.raises(VbenchError, match="physical host"):
        network_locations(bare, "rack")


def test_config_switches_topology_on_and_off():
    lay = HostLayout("/w", "/lib")
    flat = site_properties(hadoop_params({}), "master", lay)
    assert "net.topology.node.switch.mapping.impl" not in flat["core-site"]
    rack = site_properties(hadoop_params({"topology": "rack"}), "master", lay)
    assert rack["core-site"]["net.topology.node.switch.mapping.impl"] == "org.apache.hadoop.net.TableMapping"
    assert rack["core-site"]["net.topology.table.file.name"] == f"/w/conf/{TABLE_FILE}"
    assert "dfs.block.replicator.classname" not in rack["hdfs-site"]
    ng = site_properties(hadoop_params({"topology": "nodegroup"}), "master", lay)
    assert ng["core-site"]["net.topology.impl"].endswith("NetworkTopologyWithNodeGroup")
    assert ng["hdfs-site"]["dfs.block.replicator.classname"].endswith("BlockPlacementPolicyWithNodeGroup")
    assert ng["hdfs-site"]["dfs.use.dfs.network.topology"] == "false"
    files = render_conf(hadoop_params({"topology": "rack"}), "master", lay, "worker1 /p1\n")
    assert files[TABLE_FILE] == "worker1 /p1\n"
    assert TABLE_FILE not in render_conf(hadoop_params({}), "master", lay, "ignored")


FSCK = """\
/data/part-0 67108864 bytes, replicated: replication=2, 2 block(s):  OK
0. BP-1:blk_1_1001 len=33554432 Live_repl=2  [DatanodeInfoWithStorage[10.213.0.11:9866,DS-a,DISK], DatanodeInfoWithStorage[10.213.0.12:9866,DS-b,DISK]]
1. BP-1:blk_2_1002 len=33554432 Live_repl=2  [DatanodeInfoWithStorage[10.213.0.11:9866,DS-a,DISK], DatanodeInfoWithStorage[10.213.0.13:9866,DS-c,DISK]]
"""


def test_placement_on_rack_groups_flags_a_block_kept_in_one_physical_host():
    hosts = _hosts(tb_params({"workers": 4, "vms_per_host": 2}))  # .11,.12 on p1; .13,.14 on p2
    blocks = block_locations(FSCK)
    rack = check_placement(blocks, hosts, "rack")
    assert rack.blocks == 2 and rack.replicas == 4
    assert rack.blocks_sharing_a_physical_host == 1
    assert not rack.ok and "blk_1_1001" in rack.violations[0]
    flat = check_placement(blocks, hosts, "flat")
    assert flat.ok and flat.blocks_sharing_a_physical_host == 1
    ng = check_placement({"BP-1:blk_2_1002": blocks["BP-1:blk_2_1002"]}, hosts, "nodegroup")
    assert ng.ok and ng.blocks_sharing_a_physical_host == 0


def test_placement_names_datanodes_it_does_not_know():
    hosts = _hosts(tb_params({"workers": 2}))
    report = check_placement({"b": ["10.9.9.9"]}, hosts, "rack")
    assert not report.ok and "10.9.9.9" in report.summary()


def test_inventory_hosts_carry_their_physical_host_and_rack_into_the_topology(tmp_path):
    from vbench.inventory.model import inventory, to_hosts

    key = tmp_path / "id"
    key.write_text("k")
    inv = inventory(
        {
            "known_hosts": str(tmp_path / "kh"),
            "hosts": [
                {"name": "m", "address": "192.0.2.1", "key_file": str(key), "role": "master"},
                {"name": "w1", "address": "192.0.2.2", "key_file": str(key), "physical_host": "esx1", "rack": "/r2"},
                {"name": "w2", "address": "192.0.2.3", "key_file": str(key)},
            ],
        }
    )
    hosts = to_hosts(inv)
    assert network_locations(hosts, "nodegroup") == {"m": "/default-rack/m", "w1": "/r2/esx1", "w2": "/default-rack/w2"}
    assert network_locations(hosts, "rack")["w1"] == "/esx1"
