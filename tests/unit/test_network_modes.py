"""Issue #8 part 1: network modes, emulated physical hosts and shaped links, without hosts."""

from pathlib import Path

import pytest

from vbench.benchmarks import netmatrix
from vbench.commands.testbed_cmd import with_network
from vbench.errors import ParamsError
from vbench.hadoop.config import HostLayout, network_mode_properties, render_conf
from vbench.machine_fit import MachineFacts, check_cluster_fits, check_physical_hosts_fit
from vbench.params import hadoop_params
from vbench.params import testbed_params as make_testbed
from vbench.testbed import physnet

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"
BIG = MachineFacts(mem_total_mb=1_000_000, cpus=64)


def tb(mode="bridge", workers=3, vms=2, rate=200, **extra):
    net = {"bridge": "n1br", "subnet": "10.201.0.0/24", "mode": mode}
    if rate is not None:
        net["link"] = {"rate_mbit": rate}
    return make_testbed({"name": "n1", "workers": workers, "vms_per_host": vms, "network": net, **extra})


def refused(data) -> ParamsError:
    with pytest.raises(ParamsError) as info:
        make_testbed(data)
    return info.value


# -- params ---------------------------------------------------------------------------------------


def test_sriov_is_refused_locally_naming_network_mode():
    err = refused({"network": {"mode": "sriov"}})
    assert err.field == "testbed.network.mode" and "SSH inventory" in str(err)


def test_unknown_mode_is_refused_naming_network_mode():
    err = refused({"network": {"mode": "macvtap"}})
    assert err.field == "testbed.network.mode"


@pytest.mark.parametrize(
    "link, field",
    [
        ({"rate_mbit": 0}, "rate_mbit"),
        ({"rate_mbit": -5}, "rate_mbit"),
        ({"rate_mbit": 1e9}, "rate_mbit"),
        ({"delay_ms": -1}, "delay_ms"),
        ({"rate_mbit": "fast"}, "rate_mbit"),
    ],
)
def test_link_nonsense_is_refused_naming_the_field(link, field):
    assert refused({"network": {"link": link}}).field == f"testbed.network.link.{field}"


def test_nat_subnet_must_not_overlap_the_bridge_subnet():
    err = refused({"network": {"subnet": "192.168.122.0/24"}})
    assert err.field == "testbed.network.nat_subnet" and "overlaps" in str(err)


def test_physical_hosts_need_room_at_the_top_of_the_subnet():
    # A /29 has 6 usable addresses: controller .1, master .2, workers .3-.5: none left for 3 physical hosts.
    err = refused({"workers": 3, "network": {"subnet": "10.201.0.0/29", "mode": "nat"}})
    assert err.field == "testbed.network.subnet" and "physical host" in str(err)


def test_more_guests_than_the_nat_network_holds_are_refused():
    # A /28 holds 14 addresses: the gateway, then guests from .10: five per physical host.
    err = refused({"workers": 6, "vms_per_host": 6, "network": {"mode": "nat", "nat_subnet": "192.168.9.0/28"}})
    assert err.field == "testbed.network.nat_subnet"


def test_more_vms_per_host_than_memory_allows_is_refused_naming_the_field():
    p = make_testbed(
        {
            "platform": "lxc",
            "workers": 4,
            "vms_per_host": 4,
            "physical_host_memory_mb": 4096,
            "limits": {"memory_mb": 1536},
        }
    )
    with pytest.raises(ParamsError) as info:
        check_physical_hosts_fit(p)
    assert info.value.field == "testbed.physical_host_memory_mb"
    assert "p1 holds 4 guests" in str(info.value) and "6144 MiB" in str(info.value)
    # Two per host fit (2 x 1536 <= 4096), and the master is alone on pm.
    check_physical_hosts_fit(p.model_copy(update={"vms_per_host": 2}))


def test_unconfined_guests_count_their_hadoop_memory_when_a_cluster_is_checked():
    p = make_testbed({"workers": 2, "vms_per_host": 2, "physical_host_memory_mb": 4096})
    check_physical_hosts_fit(p)  # no limits, no Hadoop: nothing known to exceed
    hp = hadoop_params({"nodemanager_memory_mb": 2048})
    with pytest.raises(ParamsError) as info:
        check_cluster_fits(p, hp, BIG)  # 2 x (2048 + 192 + 256) > 4096
    assert info.value.field == "testbed.physical_host_memory_mb"


def test_physical_host_memory_must_be_sane():
    assert refused({"physical_host_memory_mb": 10}).field == "testbed.physical_host_memory_mb"


# -- layout ---------------------------------------------------------------------------------------


def test_default_testbed_keeps_the_direct_attachment():
    assert physnet.layout(make_testbed({})) is None
    assert physnet.layout(tb(rate=None, vms=1)) is None
    assert physnet.layout(tb(rate=None, vms=2)) is not None
    assert physnet.layout(tb(rate=100, vms=1)) is not None
    assert physnet.layout(tb(mode="nat", rate=None, vms=1)) is not None


def test_layout_groups_guests_and_numbers_physical_hosts_from_the_top_of_the_subnet():
    lay = physnet.layout(tb("nat"))
    assert [(p.name, p.netns, p.uplink_outer, p.address, p.guests) for p in lay.physical_hosts] == [
        ("pm", "n1-phy-pm", "n1u1", "10.201.0.254", ("master",)),
        ("p1", "n1-phy-p1", "n1u2", "10.201.0.253", ("worker1", "worker2")),
        ("p2", "n1-phy-p2", "n1u3", "10.201.0.252", ("worker3",)),
    ]
    w1, w2, w3 = (lay.guest(n) for n in ("worker1", "worker2", "worker3"))
    # The same private network on every physical host, as libvirt's default network.
    assert (w1.private, w2.private, w3.private) == ("192.168.122.10", "192.168.122.11", "192.168.122.10")
    assert w1.public == "10.201.0.11" and w1.own_address == "192.168.122.10"
    assert lay.nat_gateway == "192.168.122.1" and lay.host_address("worker1") == "192.168.122.1"


def test_bridge_nat_guests_have_two_nics_and_own_their_bridge_address():
    lay = physnet.layout(tb("bridge+nat"))
    w1 = lay.guest("worker1")
    assert w1.dual and w1.own_address == "10.201.0.11" and w1.private == "192.168.122.10"


def test_bridge_guests_have_no_private_address_and_reach_their_host_on_br0():
    lay = physnet.layout(tb("bridge"))
    assert all(g.private is None for g in lay.guests)
    assert lay.host_address("worker1") == "10.201.0.253"


@pytest.mark.parametrize("mode", ["nat", "bridge+nat"])
def test_hosts_view_sends_neighbours_over_the_nat_network_and_others_over_public_addresses(mode):
    lay = physnet.layout(tb(mode))
    view = dict(physnet.hosts_view(lay, "worker1"))
    assert (view["master"], view["worker2"], view["worker3"]) == ("10.201.0.10", "192.168.122.11", "10.201.0.13")
    assert dict(physnet.hosts_view(lay, "worker2"))["worker1"] == "192.168.122.10"


def test_a_guest_resolves_itself_to_the_address_its_daemons_must_bind():
    # nat: only the private address exists in the guest (the floating one is DNAT'ed to it);
    # bridge+nat: the bridge address, or a NameNode alone on its physical host would listen on
    # the NAT network, where no other physical host reaches it.
    assert dict(physnet.hosts_view(physnet.layout(tb("nat")), "master"))["master"] == "192.168.122.10"
    assert dict(physnet.hosts_view(physnet.layout(tb("bridge+nat")), "master"))["master"] == "10.201.0.10"
    assert dict(physnet.hosts_view(physnet.layout(tb("bridge+nat")), "worker1"))["worker1"] == "10.201.0.11"


def test_bridge_hosts_view_is_the_testbed_one():
    lay = physnet.layout(tb("bridge"))
    assert dict(physnet.hosts_view(lay, "worker1")) == {h.name: str(h.address) for h in tb("bridge").resolved_hosts()}


# -- command builders -----------------------------------------------------------------------------


def test_shape_is_tbf_on_egress_with_a_burst_of_a_hundredth_of_a_second():
    assert physnet.shape("n1u2", 1000, 0) == [
        [
            "tc",
            "qdisc",
            "add",
            "dev",
            "n1u2",
            "root",
            "handle",
            "1:",
            "tbf",
            "rate",
            "1000mbit",
            "burst",
            "1250000",
            "latency",
            "100ms",
        ]
    ]
    small = physnet.shape("uplink", 10, 0, netns="n1-phy-p1")[0]
    assert small[:4] == ["ip", "netns", "exec", "n1-phy-p1"] and small[small.index("burst") + 1] == str(64 * 1024)


def test_shape_puts_netem_above_tbf_for_a_delay():
    cmds = physnet.shape("x", 200, 5)
    assert cmds[0][-3:] == ["netem", "delay", "5ms"]
    assert cmds[1][cmds[1].index("dev") + 2 : cmds[1].index("tbf")] == ["parent", "1:", "handle", "2:"]
    assert physnet.shape("x", None, 0) == []


def _physical_host_p1(mode: str) -> tuple[list[list[str]], list[str]]:
    """The commands that create physical host p1 in `mode`, as argv lists and as lines."""
    lay = physnet.layout(tb(mode))
    cmds = physnet.create_physical_host(lay, lay.physical("p1"), "n1br")
    return cmds, [" ".join(c) for c in cmds]


def test_bridge_physical_host_enslaves_its_uplink_and_shapes_both_ends():
    cmds, text = _physical_host_p1("bridge")
    assert "ip -n n1-phy-p1 link set uplink master br0" in text
    assert "ip -n n1-phy-p1 addr add 10.201.0.253/24 dev br0" in text
    assert not any("nft" in t or "virbr0" in t for t in text)
    shaped = [c for c in cmds if "tbf" in c]
    assert {c[c.index("dev") + 1] for c in shaped} == {"n1u2", "uplink"}
    assert any(c[:3] == ["ip", "netns", "exec"] for c in shaped)  # the inner end, in its namespace


def test_nat_physical_host_routes_and_holds_floating_addresses_in_its_namespace_only():
    _, text = _physical_host_p1("nat")
    assert "ip -n n1-phy-p1 addr add 10.201.0.253/24 dev uplink" in text
    assert "ip -n n1-phy-p1 addr add 10.201.0.11/32 dev uplink" in text
    assert "ip netns exec n1-phy-p1 sysctl -q -w net.ipv4.ip_forward=1" in text
    # Nothing but creating the uplink touches the root namespace: every other command names the physical host's.
    root = [t for t in text if "n1-phy-p1" not in t]
    assert all(t.startswith(("ip link add n1u2 ", "ip link set n1u2", "tc qdisc add dev n1u2")) for t in root), root


def test_nat_ruleset_is_one_to_one_nat_then_masquerade():
    lay = physnet.layout(tb("nat"))
    rules = physnet.nat_ruleset(lay, lay.physical("p1"))
    assert "ip daddr 10.201.0.12 dnat to 192.168.122.11" in rules
    assert 'ip saddr 192.168.122.11 oifname "uplink" snat to 10.201.0.12' in rules
    assert rules.index("snat to") < rules.index("masquerade")
    both = physnet.nat_ruleset(physnet.layout(tb("bridge+nat")), lay.physical("p1"))
    assert "dnat" not in both and 'oifname "br0" masquerade' in both


@pytest.mark.parametrize("mode, nics", [("bridge", ["br0"]), ("nat", ["virbr0"]), ("bridge+nat", ["br0", "virbr0"])])
def test_guest_nics_go_on_the_bridges_of_its_mode(mode, nics):
    lay = physnet.layout(tb(mode))
    cmds = physnet.attach_guest(lay, lay.guest("worker2"), "n1-worker2", "n1h3", "n1p3", "n1n3", "n1q3")
    assert [c[-2] for c in cmds if c[-3:-1] == ["master", c[-2]]] == nics
    has_default = any(
        c[-4:-1] == ["default", "via", "192.168.122.1"] or c[-3:] == ["default", "via", "192.168.122.1"] for c in cmds
    )
    assert has_default == (mode == "nat")


# -- Hadoop --------------------------------------------------------------------------------------


def test_hadoop_uses_datanode_hostnames_behind_nat_only():
    assert network_mode_properties("bridge") == {}
    for mode in ("nat", "bridge+nat"):
        props = network_mode_properties(mode)
        assert props == {"dfs.client.use.datanode.hostname": "true", "dfs.datanode.use.datanode.hostname": "true"}
        hdfs = render_conf(hadoop_params({}), "master", HostLayout("/w", "/l"), network_mode=mode)["hdfs-site.xml"]
        assert "dfs.datanode.use.datanode.hostname" in hdfs
    assert (
        "use.datanode.hostname" not in render_conf(hadoop_params({}), "master", HostLayout("/w", "/l"))["hdfs-site.xml"]
    )


# -- the matrix ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["bridge", "nat", "bridge+nat"])
def test_matrix_pairs_each_kind_with_the_address_the_client_would_use(mode):
    lay = physnet.layout(tb(mode))
    pairs = {p.kind: p for p in netmatrix.pairs(lay)}
    assert set(pairs) == set(netmatrix.KINDS)
    same, cross, host = pairs[netmatrix.SAME], pairs[netmatrix.CROSS], pairs[netmatrix.GUEST_HOST]
    assert (same.client, same.server, same.shaped) == ("worker1", "worker2", False)
    assert same.target == ("10.201.0.12" if mode == "bridge" else "192.168.122.11")
    assert (cross.client, cross.server, cross.target, cross.shaped) == ("worker1", "worker3", "10.201.0.13", True)
    assert host.server == "host:p1" and host.target == ("10.201.0.253" if mode == "bridge" else "192.168.122.1")
    other = pairs[netmatrix.OTHER_HOST]
    assert (other.server, other.target, other.shaped) == ("host:pm", "10.201.0.254", True)
    assert netmatrix.pairs(physnet.layout(tb(mode, rate=None)))[1].shaped is False


def test_one_guest_per_physical_host_has_no_same_host_pair():
    kinds = [p.kind for p in netmatrix.pairs(physnet.layout(tb("nat", vms=1)))]
    assert kinds == [netmatrix.CROSS, netmatrix.GUEST_HOST, netmatrix.OTHER_HOST]


def test_parse_row_reads_throughput_rtt_source_and_deviation_from_real_output():
    lay = physnet.layout(tb("nat"))
    pair = next(p for p in netmatrix.pairs(lay) if p.kind == netmatrix.CROSS)
    row = netmatrix.parse_row((DATA / "iperf3.json").read_text(), pair, lay, 2)
    assert row.source == "127.0.0.1" and row.retransmits == 20
    assert row.throughput_mbit > 0 and row.rtt_ms is not None and row.rtt_ms > 0
    assert row.configured_mbit == 200 and row.deviation == pytest.approx(row.throughput_mbit / 200 - 1)
    table = netmatrix.table([row])
    assert "| nat | 2 | across-physical-hosts | worker1 -> worker3 |" in table and "unshaped" not in table


def test_command_line_overrides_rebuild_and_revalidate_params():
    p = with_network(make_testbed({"name": "n1"}), "bridge+nat", 2, 300.0, None)
    assert (p.network.mode, p.vms_per_host, p.network.link.rate_mbit) == ("bridge+nat", 2, 300.0)
    with pytest.raises(ParamsError) as info:
        with_network(make_testbed({}), "sriov")
    assert info.value.field == "testbed.network.mode"
