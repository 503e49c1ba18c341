"""Hadoop's view of where hosts sit, generated from the hosts' physical host and rack.

Three topologies, a factor of a design (`hadoop.topology`):

* ``flat``: Hadoop's default, every node in /default-rack; HDFS may put two replicas of a
  block on guests of one physical host, which a host failure then loses together.
* ``rack``: virtual rack grouping (Jeong et al.): the guests of one physical host form a rack,
  so the default placement policy puts a block's second replica on another physical host.
* ``nodegroup``: Hadoop Virtualization Extensions (VMware's HVE): racks from the hosts' rack,
  node group = physical host, with NetworkTopologyWithNodeGroup and
  BlockPlacementPolicyWithNodeGroup, which never place two replicas in one node group.

The mapping is a TableMapping file (host name and address -> location), not a script: it
needs no interpreter on the master and is one more config file whose bytes are hashed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from vbench.errors import VbenchError
from vbench.host import Host

TABLE_FILE = "topology.table"


def network_locations(hosts: Sequence[Host], topology: str) -> dict[str, str]:
    """Host name -> Hadoop network location ({} for flat: Hadoop's /default-rack)."""
    if topology == "flat":
        return {}
    missing = [h.name for h in hosts if not h.physical_host]
    if missing:
        raise VbenchError(f"hadoop.topology={topology} needs each host's physical host; {missing} have none")
    if topology == "rack":
        return {h.name: f"/{h.physical_host}" for h in hosts}
    if topology == "nodegroup":
        return {h.name: f"/{(h.rack or 'rack1').strip('/')}/{h.physical_host}" for h in hosts}
    raise VbenchError(f"unknown hadoop.topology {topology!r}")


def topology_table(hosts: Sequence[Host], locations: Mapping[str, str]) -> str:
    """TableMapping's file: DataNodes register by address, clients name hosts, so both."""
    lines = []
    for h in hosts:
        if h.name in locations:
            lines.append(f"{h.name} {locations[h.name]}")
            lines.append(f"{h.address} {locations[h.name]}")
    return "".join(line + "\n" for line in lines)


def topology_properties(topology: str, conf_dir: str) -> dict[str, dict[str, str]]:
    """The *-site properties a topology needs (file -> properties)."""
    if topology == "flat":
        return {}
    core = {
        "net.topology.node.switch.mapping.impl": "org.apache.hadoop.net.TableMapping",
        "net.topology.table.file.name": f"{conf_dir}/{TABLE_FILE}",
    }
    hdfs: dict[str, str] = {}
    if topology == "nodegroup":
        core["net.topology.impl"] = "org.apache.hadoop.net.NetworkTopologyWithNodeGroup"
        core["net.topology.nodegroup.aware"] = "true"
        hdfs["dfs.block.replicator.classname"] = (
            "org.apache.hadoop.hdfs.server.blockmanagement.BlockPlacementPolicyWithNodeGroup"
        )
        # Hadoop 3's DFSNetworkTopology (the default) knows no node groups and would
        # replace NetworkTopologyWithNodeGroup.
        hdfs["dfs.use.dfs.network.topology"] = "false"
    return {"core-site": core, "hdfs-site": hdfs}


@dataclass(frozen=True)
class PlacementReport:
    """How a file's block replicas sit on physical hosts and racks (from fsck)."""

    topology: str
    blocks: int
    replicas: int
    #: Blocks with at least two replicas on guests of one physical host (lost together).
    blocks_sharing_a_physical_host: int
    #: Blocks with more than one replica whose replicas are all in one rack.
    blocks_in_one_rack: int
    violations: tuple[str, ...] = field(default_factory=tuple)
    unknown_nodes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return not self.violations and not self.unknown_nodes

    def summary(self) -> str:
        verdict = "as the policy says" if self.ok else "; ".join((*self.violations, *self.unknown_nodes))
        return (
            f"{self.blocks} blocks, {self.replicas} replicas, topology {self.topology}: "
            f"{self.blocks_sharing_a_physical_host} with replicas sharing a physical host, "
            f"{self.blocks_in_one_rack} in one rack; {verdict}"
        )


def check_placement(blocks: Mapping[str, Sequence[str]], hosts: Sequence[Host], topology: str) -> PlacementReport:
    """Check replicas (block -> DataNode addresses) against what the topology's policy promises.

    rack: a block with two or more replicas spans at least two racks (= physical hosts) when
    the cluster has two or more; nodegroup: no two replicas of a block in one physical host
    when the block has no more replicas than there are physical hosts. flat promises nothing.
    """
    by_address = {h.address: h for h in hosts}
    workers = [h for h in hosts if h.role == "worker"]
    physical_count = len({h.physical_host for h in workers})
    # A host's rack as Hadoop sees it: its location, less the node group under nodegroup.
    locations = network_locations(hosts, topology)
    rack_of = {
        h.name: loc.rsplit("/", 1)[0] if topology == "nodegroup" else loc
        for h in hosts
        for loc in [locations.get(h.name, "")]
    }
    sharing = one_rack = replicas = 0
    violations: list[str] = []
    unknown = sorted({a for nodes in blocks.values() for a in nodes if a not in by_address})
    for block, nodes in sorted(blocks.items()):
        known = [by_address[a] for a in nodes if a in by_address]
        replicas += len(nodes)
        per_physical = Counter(h.physical_host for h in known)
        if any(c > 1 for c in per_physical.values()):
            sharing += 1
        if len(known) > 1 and topology != "flat" and len({rack_of[h.name] for h in known}) == 1:
            one_rack += 1
        if topology == "rack" and len(known) > 1 and physical_count > 1 and len(set(per_physical)) < 2:
            violations.append(f"{block}: all {len(known)} replicas on physical host {known[0].physical_host}")
        if topology == "nodegroup" and 1 < len(known) <= physical_count and len(per_physical) < len(known):
            shared = sorted(p for p, c in per_physical.items() if c > 1)
            violations.append(f"{block}: two replicas in node group {', '.join(shared)}")
    return PlacementReport(
        topology,
        len(blocks),
        replicas,
        sharing,
        one_rack,
        tuple(violations),
        tuple(f"unknown DataNode {a}" for a in unknown),
    )
