"""Emulated physical hosts and network modes (issue #8, Jeong et al. Sec. 3.2-3.6): the plan and
the pure builders of its `ip`, `tc` and `nft` commands.

Each emulated physical host is a network namespace `<tb>-phy-<name>` holding the bridges its
guests attach to (as a hypervisor holds virbr0/br0), with one uplink veth to the testbed bridge.
The uplink carries the tc shaping of `network.link`, on the egress of both ends, so that both
directions of inter-host traffic are limited while traffic between guests of one physical host
never crosses it (it is switched, or routed, inside the physical host).

Modes, as in Jeong et al. Fig. 2-3:

- `bridge`: the uplink is a port of the physical host's bridge `br0`; guests are on the shared
  layer 2 with testbed addresses; the physical host's own address is on `br0`.
- `nat`: guests sit on the physical host's private network (`network.nat_subnet`, the same on
  every physical host, like libvirt's 192.168.122.0/24) behind its gateway. The paper notes a VM
  behind NAT cannot be reached from outside its physical machine; for SSH and for Hadoop across
  physical hosts every guest gets a 1:1 NAT ("floating") address: its testbed address, held on
  the uplink, DNAT'ed to its private address, and its outgoing traffic SNAT'ed to it. Each
  guest has its own hosts file: its own name and its neighbours' resolve to private
  addresses, every other host to its floating address.
- `bridge+nat`: the dual-NIC architecture: `eth0` on `br0` (testbed address, inter-host
  traffic) and `eth1` on the NAT network (private address, traffic between guests of one
  physical host), chosen by per-guest hosts files, as the paper does with /etc/hosts
  and dfs.{client,datanode}.use.datanode.hostname.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from vbench.params import TestbedParams

Cmd = list[str]

#: Interface names inside a physical host's namespace (its own namespace: no clash, no prefix).
UPLINK = "uplink"
BRIDGE = "br0"  # the bridge of `bridge` and `bridge+nat` modes
NAT_BRIDGE = "virbr0"  # the NAT network (libvirt's name for it)
NFT_TABLE = "vbench"


@dataclass(frozen=True)
class PhysicalHost:
    name: str  # "pm", "p1", ...
    index: int  # 1-based, names the uplink veth
    netns: str
    uplink_outer: str  # the uplink's end on the testbed bridge (root namespace)
    address: str  # on the testbed subnet (its br0, or its uplink in nat mode)
    guests: tuple[str, ...]


@dataclass(frozen=True)
class GuestNet:
    """Where one guest sits and which addresses it holds."""

    name: str
    physical_host: str
    public: str  # testbed address: on eth0 (bridge, bridge+nat) or its floating address (nat)
    private: str | None  # NAT-network address (nat: on eth0; bridge+nat: on eth1)
    dual: bool = False  # bridge+nat: two NICs

    @property
    def own_address(self) -> str:
        """The address the guest's sshd listens on and its own name resolves to."""
        return self.private if self.private and not self.dual else self.public


@dataclass(frozen=True)
class NetLayout:
    mode: str
    prefixlen: int
    nat_prefixlen: int
    nat_gateway: str
    physical_hosts: tuple[PhysicalHost, ...]
    guests: tuple[GuestNet, ...]
    rate_mbit: float | None
    delay_ms: float

    def guest(self, name: str) -> GuestNet:
        return next(g for g in self.guests if g.name == name)

    def physical(self, name: str) -> PhysicalHost:
        return next(p for p in self.physical_hosts if p.name == name)

    def host_address(self, guest: str) -> str:
        """The address a guest reaches its own physical host at (Jeong's VM11-HM1): the NAT
        gateway where the guest is on a NAT network (the paper's fast path), else its br0."""
        g = self.guest(guest)
        return self.nat_gateway if g.private else self.physical(g.physical_host).address


def uses_physical_hosts(p: TestbedParams) -> bool:
    """Whether the testbed needs physical-host namespaces; the default (bridge, one guest per
    physical host, unshaped) keeps the direct attachment to the testbed bridge, as cheap as before."""
    return (
        p.network.mode != "bridge"
        or p.vms_per_host > 1
        or p.network.link.shaped
        or any(h.physical_host for h in (p.hosts or ()))
    )


def physical_netns(testbed: str, phys: str) -> str:
    return f"{testbed}-phy-{phys}"


def uplink_name(testbed: str, index: int) -> str:
    return f"{testbed}u{index}"  # <= 6 + 1 + 2 bytes


def nat_veth_names(testbed: str, index: int) -> tuple[str, str]:
    """The second NIC (bridge+nat) of host `index`: (physical-host side, guest side before renaming)."""
    return f"{testbed}n{index}", f"{testbed}q{index}"


def physical_host_addresses(p: TestbedParams, names: list[str]) -> dict[str, str]:
    """Testbed-subnet addresses of the physical hosts: from the top of the subnet down, so they
    never meet the hosts' (from .10 up) or the controller's (.1)."""
    usable = list(p.network.subnet.hosts())
    return {n: str(usable[-1 - k]) for k, n in enumerate(names)}


def layout(p: TestbedParams) -> NetLayout | None:
    """The physical hosts and guest addresses of a testbed; None when it uses none."""
    if not uses_physical_hosts(p):
        return None
    placement = p.physical_hosts()
    order: list[str] = []
    for h in p.resolved_hosts():
        if placement[h.name] not in order:
            order.append(placement[h.name])
    addrs = physical_host_addresses(p, order)
    nat = p.network.nat_subnet
    nat_hosts = list(nat.hosts())
    mode = p.network.mode
    guests: list[GuestNet] = []
    seen: dict[str, int] = {}
    for h in p.resolved_hosts():
        ph = placement[h.name]
        j = seen.get(ph, 0)
        seen[ph] = j + 1
        private = str(nat_hosts[9 + j]) if mode in ("nat", "bridge+nat") else None
        guests.append(GuestNet(h.name, ph, str(h.address), private, dual=mode == "bridge+nat"))
    phys = tuple(
        PhysicalHost(
            n,
            k,
            physical_netns(p.name, n),
            uplink_name(p.name, k),
            addrs[n],
            tuple(g.name for g in guests if g.physical_host == n),
        )
        for k, n in enumerate(order, start=1)
    )
    return NetLayout(
        mode,
        p.network.subnet.prefixlen,
        nat.prefixlen,
        str(nat_hosts[0]),
        phys,
        tuple(guests),
        p.network.link.rate_mbit,
        p.network.link.delay_ms,
    )


def hosts_view(lay: NetLayout, guest: str) -> list[tuple[str, str]]:
    """(name, address) of every guest as `guest` sees it (its own /etc/hosts, as each VM has in
    the paper): itself by the address it holds and its daemons bind (in bridge+nat its bridge
    address, else a NameNode would listen where other physical hosts cannot reach it),
    neighbours on its NAT network by their private address (traffic stays inside), the others
    by their testbed (or floating) address."""
    me = lay.guest(guest)
    out = []
    for g in lay.guests:
        if g.name == me.name:
            out.append((g.name, g.own_address))
        elif g.physical_host == me.physical_host and g.private is not None:
            out.append((g.name, g.private))
        else:
            out.append((g.name, g.public))
    return out


# -- command builders ---------------------------------------------------------------------------


def shape(dev: str, rate_mbit: float | None, delay_ms: float, netns: str | None = None) -> list[Cmd]:
    """tc on the egress of `dev`: netem for the delay (if any), tbf for the rate under it.

    tbf's burst must hold at least one timer tick of traffic at the rate (rate/HZ; 250 Hz and
    above here), else the rate is not reached; 1/100 s of traffic, at least 64 KiB, is safe.
    """
    pre = ["ip", "netns", "exec", netns] if netns else []
    cmds: list[Cmd] = []
    parent = ["root"]
    if delay_ms > 0:
        cmds.append(
            [*pre, "tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "netem", "delay", f"{delay_ms:g}ms"]
        )
        parent = ["parent", "1:"]
    if rate_mbit:
        burst = max(64 * 1024, int(rate_mbit * 1e6 / 8 / 100))
        handle = "2:" if delay_ms > 0 else "1:"
        cmds.append(
            [
                *pre,
                "tc",
                "qdisc",
                "add",
                "dev",
                dev,
                *parent,
                "handle",
                handle,
                "tbf",
                "rate",
                f"{rate_mbit:g}mbit",
                "burst",
                str(burst),
                "latency",
                "100ms",
            ]
        )
    return cmds


def create_physical_host(lay: NetLayout, ph: PhysicalHost, testbed_bridge: str) -> list[Cmd]:
    """The namespace, its bridges, its uplink to the testbed bridge (shaped), its addresses and,
    on NAT networks, forwarding and nft rules, all inside the physical host's namespace."""
    ns = ph.netns
    inner = f"{ph.uplink_outer}i"
    ipn = ["ip", "-n", ns]
    cmds: list[Cmd] = [
        ["ip", "netns", "add", ns],
        [*ipn, "link", "set", "lo", "up"],
        ["ip", "link", "add", ph.uplink_outer, "type", "veth", "peer", "name", inner],
        ["ip", "link", "set", ph.uplink_outer, "master", testbed_bridge, "up"],
        ["ip", "link", "set", inner, "netns", ns],
        [*ipn, "link", "set", inner, "name", UPLINK],
    ]
    if lay.mode in ("bridge", "bridge+nat"):
        cmds += [
            [*ipn, "link", "add", BRIDGE, "type", "bridge"],
            [*ipn, "link", "set", UPLINK, "master", BRIDGE],
            [*ipn, "addr", "add", f"{ph.address}/{lay.prefixlen}", "dev", BRIDGE],
            [*ipn, "link", "set", BRIDGE, "up"],
        ]
    else:
        cmds.append([*ipn, "addr", "add", f"{ph.address}/{lay.prefixlen}", "dev", UPLINK])
    cmds.append([*ipn, "link", "set", UPLINK, "up"])
    if lay.mode in ("nat", "bridge+nat"):
        cmds += [
            [*ipn, "link", "add", NAT_BRIDGE, "type", "bridge"],
            [*ipn, "addr", "add", f"{lay.nat_gateway}/{lay.nat_prefixlen}", "dev", NAT_BRIDGE],
            [*ipn, "link", "set", NAT_BRIDGE, "up"],
            # Per-namespace sysctl: the machine's own forwarding setting is not touched.
            ["ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1"],
            ["ip", "netns", "exec", ns, "nft", "-f", "-"],  # stdin: nat_ruleset()
        ]
    if lay.mode == "nat":
        # Floating addresses: each guest's testbed address, held by the uplink so it answers ARP.
        cmds += [[*ipn, "addr", "add", f"{lay.guest(g).public}/32", "dev", UPLINK] for g in ph.guests]
    cmds += shape(ph.uplink_outer, lay.rate_mbit, lay.delay_ms)
    cmds += shape(UPLINK, lay.rate_mbit, lay.delay_ms, netns=ns)
    return cmds


def nat_ruleset(lay: NetLayout, ph: PhysicalHost) -> str:
    """nft rules of a physical host's NAT network (its namespace only): 1:1 NAT of each guest's
    floating address in `nat` mode, masquerade of the rest of the private network out."""
    out_if = UPLINK if lay.mode == "nat" else BRIDGE
    net = ipaddress.IPv4Network(f"{lay.nat_gateway}/{lay.nat_prefixlen}", strict=False)
    pre, post = [], []
    if lay.mode == "nat":
        for name in ph.guests:
            g = lay.guest(name)
            pre.append(f"    ip daddr {g.public} dnat to {g.private}")
            post.append(f'    ip saddr {g.private} oifname "{out_if}" snat to {g.public}')
    post.append(f'    ip saddr {net} oifname "{out_if}" masquerade')
    return "\n".join(
        [
            f"table ip {NFT_TABLE} {{",
            "  chain prerouting {",
            "    type nat hook prerouting priority dstnat; policy accept;",
            *pre,
            "  }",
            "  chain postrouting {",
            "    type nat hook postrouting priority srcnat; policy accept;",
            *post,
            "  }",
            "}",
            "",
        ]
    )


def attach_guest(
    lay: NetLayout, g: GuestNet, guest_ns: str, outer: str, inner: str, nat_outer: str, nat_inner: str
) -> list[Cmd]:
    """The guest namespace and its NIC(s), plugged into its physical host's bridge(s).

    veths are made in the root namespace (names unique per testbed) and their ends moved: the
    guest's into the guest namespace, the other into the physical host's."""
    ph_ns = physical_netns_of(lay, g)
    gn = ["ip", "-n", guest_ns]
    pn = ["ip", "-n", ph_ns]

    def nic(o: str, i: str, ifname: str, bridge: str, cidr: str) -> list[Cmd]:
        return [
            ["ip", "link", "add", o, "type", "veth", "peer", "name", i],
            ["ip", "link", "set", o, "netns", ph_ns],
            [*pn, "link", "set", o, "master", bridge, "up"],
            ["ip", "link", "set", i, "netns", guest_ns],
            [*gn, "link", "set", i, "name", ifname],
            [*gn, "addr", "add", cidr, "dev", ifname],
            [*gn, "link", "set", ifname, "up"],
        ]

    cmds: list[Cmd] = [["ip", "netns", "add", guest_ns], [*gn, "link", "set", "lo", "up"]]
    if lay.mode == "bridge":
        cmds += nic(outer, inner, "eth0", BRIDGE, f"{g.public}/{lay.prefixlen}")
    elif lay.mode == "nat":
        cmds += nic(outer, inner, "eth0", NAT_BRIDGE, f"{g.private}/{lay.nat_prefixlen}")
        cmds.append([*gn, "route", "add", "default", "via", lay.nat_gateway])
    else:  # bridge+nat
        cmds += nic(outer, inner, "eth0", BRIDGE, f"{g.public}/{lay.prefixlen}")
        cmds += nic(nat_outer, nat_inner, "eth1", NAT_BRIDGE, f"{g.private}/{lay.nat_prefixlen}")
    return cmds


def physical_netns_of(lay: NetLayout, g: GuestNet) -> str:
    return lay.physical(g.physical_host).netns
