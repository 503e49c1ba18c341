"""Bring emulated physical hosts up and attach guests to them (runs physnet's commands)."""

from __future__ import annotations

import os
import subprocess

from vbench.errors import VbenchError
from vbench.params import HostParams
from vbench.testbed import netcmd, physnet, sysops
from vbench.testbed.provisioner import TestbedContext


def _run(cmd: list[str], stdin: str | None = None) -> None:
    if stdin is None:
        sysops.run(cmd)
        return
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        raise VbenchError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.strip()}")


def create_physical_hosts(ctx: TestbedContext, lay: physnet.NetLayout) -> None:
    for ph in lay.physical_hosts:
        for cmd in physnet.create_physical_host(lay, ph, ctx.bridge):
            _run(cmd, physnet.nat_ruleset(lay, ph) if cmd[-3:] == ["nft", "-f", "-"] else None)
            if cmd[:3] == ["ip", "netns", "add"]:
                ctx.record("netns", ph.netns)
            elif cmd[:3] == ["ip", "link", "add"]:
                ctx.record("links", ph.uplink_outer)


def netem_available() -> bool:
    """Whether this kernel has sch_netem (delay): tried on the loopback of a scratch namespace."""
    ns = f"vbnetem{os.getpid()}"
    sysops.run(["ip", "netns", "add", ns])
    try:
        return (
            sysops.run(
                ["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms"],
                check=False,
            ).returncode
            == 0
        )
    finally:
        sysops.run(netcmd.delete_netns(ns), check=False)


def attach_guest(ctx: TestbedContext, lay: physnet.NetLayout, spec: HostParams, ns: str, index: int) -> None:
    """The guest's namespace with its NIC(s) on its physical host's bridge(s)."""
    outer, inner = netcmd.veth_names(ctx.params.name, index)
    nat_outer, nat_inner = physnet.nat_veth_names(ctx.params.name, index)
    for cmd in physnet.attach_guest(lay, lay.guest(spec.name), ns, outer, inner, nat_outer, nat_inner):
        sysops.run(cmd)
        if cmd[:3] == ["ip", "netns", "add"]:
            ctx.record("netns", ns)
        elif cmd[:3] == ["ip", "link", "add"]:
            ctx.record("links", cmd[3])  # until it moves into a namespace, a link of the machine's
