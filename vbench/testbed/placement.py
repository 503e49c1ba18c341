"""Where each testbed host sits: its emulated physical host and rack, from the params."""
from __future__ import annotations

from dataclasses import replace

from vbench.host import Host
from vbench.params import TestbedParams


def with_placement(hosts: list[Host], params: TestbedParams) -> list[Host]:
    physical, racks = params.physical_hosts(), params.racks()
    return [replace(h, physical_host=physical.get(h.name, ""), rack=racks.get(h.name, "")) for h in hosts]
