"""vbench.testbed.netcmd: pure builders of the namespace, veth and hosts-file commands."""

import os
import subprocess

import pytest

from vbench.testbed import netcmd, native


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


def test_in_identity_without_masking_is_the_command_it_always_was():
    argv = ["/usr/sbin/sshd", "-D"]
    cmd = netcmd.in_identity("ns", "h", "/f", argv)
    assert cmd == netcmd.in_identity("ns", "h", "/f", argv, mask=(), mask_with="/e")
    assert cmd[cmd.index("-c") + 1 :] == [
        'hostname "$1" && mount --bind "$2" /etc/hosts && shift 2 && exec "$@"',
        "vbench-host",
        "h",
        "/f",
        *argv,
    ]


def test_in_identity_masks_each_file_passed_as_an_argument_never_in_the_script():
    mask = ["/root/.bashrc", "/home/a b/.profile"]
    argv = ["/usr/sbin/sshd", "-D"]
    cmd = netcmd.in_identity("ns", "worker1", "/var/tmp/vb/hosts", argv, mask=mask, mask_with="/st/w1/empty")
    script, arg0, *rest = cmd[cmd.index("-c") + 1 :]
    assert arg0 == "vbench-host"
    assert rest == ["worker1", "/var/tmp/vb/hosts", "/st/w1/empty", *mask, *argv]
    for word in ["worker1", "root", "bashrc", "profile", "empty", "/st", "/home", "/var"]:
        assert word not in script
    assert "/" not in script.replace("/etc/hosts", "")  # its one fixed path, the mount point
    assert script.count('mount --bind "$3"') == 2
    assert '"${4}"' in script and '"${5}"' in script
    # Everything is mounted before sshd starts; the shift drops exactly the script's inputs.
    assert script.index('"${5}"') < script.index("shift 5") < script.index('exec "$@"')


def test_in_identity_refuses_a_mask_without_a_file_to_mount_over_it():
    with pytest.raises(ValueError):
        netcmd.in_identity("ns", "h", "/f", ["true"], mask=["/root/.bashrc"])


@pytest.mark.parametrize(
    "mask", [[], ["/r/.bashrc"], ["/r/.bashrc", "/r/.bash_profile", "/r/.bash_login", "/r/.profile"]]
)
def test_in_identity_script_mounts_each_input_where_it_belongs_then_execs_argv(tmp_path, mask):
    # The script itself, run by sh with `hostname` and `mount` replaced by loggers: which
    # argument lands where, and that argv (with a space in a word) is exec'ed untouched.
    log = tmp_path / "log"
    for tool in ["hostname", "mount"]:
        (tmp_path / tool).write_text(f'#!/bin/sh\necho {tool} "$@" >> "{log}"\n')
        (tmp_path / tool).chmod(0o755)
    cmd = netcmd.in_identity("ns", "w1", "/hosts", ["printf", "[%s]", "a b", "c"], mask=mask, mask_with="/e")
    sh = cmd[cmd.index("sh") :]
    out = subprocess.run(sh, env={**os.environ, "PATH": f"{tmp_path}:/usr/bin:/bin"}, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "[a b][c]"
    mounts = [f"mount --bind /e {m}" for m in mask]
    assert log.read_text().splitlines() == ["hostname w1", "mount --bind /hosts /etc/hosts", *mounts]


def test_shell_startup_files_lists_only_those_that_exist(tmp_path):
    (tmp_path / ".bashrc").write_text("eval slow\n")
    (tmp_path / ".profile").write_text("")
    (tmp_path / ".bash_login").mkdir()  # not a file: no bind mount over it
    (tmp_path / "other").write_text("")
    assert netcmd.shell_startup_files(str(tmp_path)) == [str(tmp_path / ".bashrc"), str(tmp_path / ".profile")]
    assert netcmd.shell_startup_files(str(tmp_path / "absent")) == []


def test_shell_startup_files_covers_what_bash_reads_as_login_or_under_sshd():
    seen = netcmd.shell_startup_files("/home/u", is_file=lambda p: True)
    assert seen == ["/home/u/.bashrc", "/home/u/.bash_profile", "/home/u/.bash_login", "/home/u/.profile"]


def test_login_home_is_the_password_database_s_not_home(monkeypatch):
    monkeypatch.setenv("HOME", "/somewhere/else")
    assert native.login_home("root") == "/root"
    with pytest.raises(native.VbenchError):
        native.login_home("no-such-user-vbench")


def test_hosts_file_lists_localhost_and_every_host():
    text = netcmd.hosts_file([("master", "10.213.0.10"), ("worker1", "10.213.0.11"), ("worker2", "10.213.0.12")])
    lines = text.splitlines()
    assert "127.0.0.1\tlocalhost" in lines
    assert lines[-3:] == ["10.213.0.10\tmaster", "10.213.0.11\tworker1", "10.213.0.12\tworker2"]
    assert text.endswith("\n")
