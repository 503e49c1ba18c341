"""Where each testbed host sits: its emulated physical host and rack, and how it is networked."""

from __future__ import annotations

from dataclasses import replace

from vbench.host import Host
from vbench.params import TestbedParams


def with_placement(hosts: list[Host], params: TestbedParams) -> list[Host]:
    """The hosts with their physical host and rack, also as facts (network mode included) for
    the records and for Hadoop's configuration (hdfs-site, topology)."""
    physical, racks = params.physical_hosts(), params.racks()
    return [
        replace(
            h,
            physical_host=physical.get(h.name, ""),
            rack=racks.get(h.name, ""),
            facts={
                **h.facts,
                "network_mode": params.network.mode,
                "physical_host": physical.get(h.name, ""),
                "rack": racks.get(h.name, ""),
            },
        )
        for h in hosts
    ]
