"""vbench.testbed.netcmd: pure builders of the namespace, veth and hosts-file commands."""

from vbench.testbed import netcmd


def test_veth_names_fit_the_15_byte_limit_for_the_longest_name_and_index():
    outer, inner = netcmd.veth_names("abcdef", 99)
    assert len(outer.encode()) <= 15 and len(inner.encode()) <= 15
    assert outer != inner


def test_veth_names_are_distinct_per_index_and_prefixed_by_the_testbed():
    names = [n for i in range(100) for n in netcmd.veth_names("vb", i)]
    assert len(set(names)) == len(names)
    assert all(n.startswith("vb") for n in names)


def test_namespace_names_are_prefixed_by_the_testbed():
    assert netcmd.netns_name("vb", "worker1") == "vb-worker1"
    assert netcmd.controller_netns("vb").startswith("vb-")
    assert netcmd.controller_netns("vb") != netcmd.netns_name("vb", "master")


def test_attach_namespace_puts_the_address_with_prefix_on_eth0_inside_the_namespace():
    cmds = netcmd.attach_namespace("vbbr0", "vb-master", "vbh0", "vbp0", "10.213.0.10", 24)
    assert ["ip", "-n", "vb-master", "addr", "add", "10.213.0.10/24", "dev", "eth0"] in cmds
    assert ["ip", "-n", "vb-master", "link", "set", "vbp0", "name", "eth0"] in cmds
    assert ["ip", "-n", "vb-master", "link", "set", "eth0", "up"] in cmds


def test_attach_namespace_order_creates_before_use():
    cmds = netcmd.attach_namespace("vbbr0", "vb-master", "vbh0", "vbp0", "10.213.0.10", 24)
    assert cmds[0] == ["ip", "netns", "add", "vb-master"]
    i_veth = cmds.index(["ip", "link", "add", "vbh0", "type", "veth", "peer", "name", "vbp0"])
    i_move = cmds.index(["ip", "link", "set", "vbp0", "netns", "vb-master"])
    i_rename = cmds.index(["ip", "-n", "vb-master", "link", "set", "vbp0", "name", "eth0"])
    i_addr = cmds.index(["ip", "-n", "vb-master", "addr", "add", "10.213.0.10/24", "dev", "eth0"])
    assert i_veth < i_move < i_rename < i_addr
    assert ["ip", "link", "set", "vbh0", "master", "vbbr0", "up"] in cmds


def test_attach_namespace_honours_another_interface_name():
    cmds = netcmd.attach_namespace("br", "ns", "o", "i", "10.0.0.5", 16, ifname="eth1")
    assert ["ip", "-n", "ns", "addr", "add", "10.0.0.5/16", "dev", "eth1"] in cmds


def test_in_identity_passes_hostname_and_hosts_file_as_positional_arguments():
    argv = ["/usr/sbin/sshd", "-D", "-f", "/tmp/dir with space/sshd_config"]
    cmd = netcmd.in_identity("vb-worker1", "worker1", "/var/tmp/vb/hosts", argv)
    assert cmd[:4] == ["ip", "netns", "exec", "vb-worker1"]
    assert cmd[4] == "unshare" and "--uts" in cmd and "--mount" in cmd
    i = cmd.index("-c")
    assert cmd[i - 1] == "sh"
    script, arg0, hostname, hosts, *rest = cmd[i + 1 :]
    assert (arg0, hostname, hosts) == ("vbench-host", "worker1", "/var/tmp/vb/hosts")
    # argv follows as separate words, untouched: spaces survive without any quoting.
    assert rest == argv
    # The script reads its inputs from "$1"/"$2" (never from interpolated text) and execs "$@".
    assert "worker1" not in script and "/var/tmp/vb/hosts" not in script
    assert 'hostname "$1"' in script
    assert 'mount --bind "$2" /etc/hosts' in script
    assert script.index("shift 2") < script.index('exec "$@"')


def test_in_identity_is_private_mount_propagation():
    cmd = netcmd.in_identity("ns", "h", "/f", ["true"])
    i = cmd.index("--propagation")
    assert cmd[i + 1] == "private"


def test_hosts_file_lists_localhost_and_every_host():
    text = netcmd.hosts_file([("master", "10.213.0.10"), ("worker1", "10.213.0.11"), ("worker2", "10.213.0.12")])
    lines = text.splitlines()
    assert "127.0.0.1\tlocalhost" in lines
    assert lines[-3:] == ["10.213.0.10\tmaster", "10.213.0.11\tworker1", "10.213.0.12\tworker2"]
    assert text.endswith("\n")
