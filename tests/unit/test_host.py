"""vbench.host: pinned host keys, and a Connection that is built without connecting."""

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import paramiko
import pytest

from vbench.host import Host, SshEndpoint, connect, known_hosts_line

KEY_LINE = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeBlobForFormattingOnly root@vb-worker1\n"


def test_known_hosts_line_on_port_22_lists_bare_names():
    line = known_hosts_line(["10.213.0.11", "worker1"], KEY_LINE)
    assert line == "10.213.0.11,worker1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeBlobForFormattingOnly"


def test_known_hosts_line_on_another_port_brackets_every_name():
    line = known_hosts_line(["10.213.0.11", "worker1"], KEY_LINE, port=2222)
    assert line == "[10.213.0.11]:2222,[worker1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeBlobForFormattingOnly"


def test_known_hosts_line_drops_the_comment():
    assert "root@" not in known_hosts_line(["h"], KEY_LINE)


@pytest.fixture(scope="module")
def host_pub(tmp_path_factory) -> str:
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed")
    key = tmp_path_factory.mktemp("key") / "host_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    return Path(f"{key}.pub").read_text()


def _host(tmp_path: Path, known: Path, port: int = 22) -> Host:
    ep = SshEndpoint(address="10.213.0.11", user="root", key_file=tmp_path / "id", known_hosts=known, port=port)
    return Host(name="worker1", role="worker", platform="native", address="10.213.0.11", work_dir="/w", ssh=ep)


def test_connect_rejects_unknown_host_keys_and_loads_the_given_known_hosts(tmp_path, host_pub):
    known = tmp_path / "known_hosts"
    known.write_text(known_hosts_line(["10.213.0.11", "worker1"], host_pub) + "\n")
    conn = connect(_host(tmp_path, known))
    assert isinstance(conn.client._policy, paramiko.RejectPolicy)
    keys = conn.client.get_host_keys()
    entry = keys.lookup("10.213.0.11")
    assert entry is not None and "ssh-ed25519" in entry
    assert entry["ssh-ed25519"].get_base64() == host_pub.split()[1]
    assert keys.lookup("worker2") is None


def test_connect_does_not_connect(tmp_path, host_pub):
    known = tmp_path / "known_hosts"
    known.write_text(known_hosts_line(["10.213.0.11"], host_pub) + "\n")
    conn = connect(_host(tmp_path, known))
    assert not conn.is_connected
    assert conn.client.get_transport() is None


def test_connect_targets_the_endpoint_with_only_its_key(tmp_path, host_pub):
    known = tmp_path / "known_hosts"
    known.write_text(known_hosts_line(["10.213.0.11"], host_pub, port=2222) + "\n")
    conn = connect(_host(tmp_path, known, port=2222), connect_timeout=3)
    assert (conn.host, conn.port, conn.user) == ("10.213.0.11", 2222, "root")
    assert conn.connect_timeout == 3
    # fabric normalises key_filename to a list.
    assert conn.connect_kwargs["key_filename"] in (str(tmp_path / "id"), [str(tmp_path / "id")])
    assert conn.connect_kwargs["look_for_keys"] is False and conn.connect_kwargs["allow_agent"] is False
    assert conn.client.get_host_keys().lookup("[10.213.0.11]:2222") is not None


def test_connect_does_not_load_the_users_known_hosts(tmp_path, host_pub):
    known = tmp_path / "known_hosts"
    known.write_text(known_hosts_line(["10.213.0.11"], host_pub) + "\n")
    conn = connect(_host(tmp_path, known))
    assert list(conn.client.get_host_keys().keys()) == ["10.213.0.11"]
    assert len(conn.client._system_host_keys) == 0


def test_a_testbed_endpoint_connects_from_its_namespace_through_no_proxy_process(tmp_path, host_pub):
    known = tmp_path / "known_hosts"
    known.write_text(known_hosts_line(["10.213.0.11"], host_pub) + "\n")
    ep = SshEndpoint(address="10.213.0.11", user="root", key_file=tmp_path / "id", known_hosts=known, netns="vb-ctl")
    conn = connect(Host(name="worker1", role="worker", platform="native", address="10.213.0.11", work_dir="/w", ssh=ep))
    assert conn.netns == "vb-ctl" and conn.gateway  # fabric opens a gateway only when one is set
    proxied = SshEndpoint(
        address="h", user="root", key_file=tmp_path / "id", known_hosts=known, proxy_command="nc %h %p"
    )
    assert (
        connect(Host(name="h", role="worker", platform="native", address="h", work_dir="/w", ssh=proxied)).netns is None
    )


def test_netns_socket_names_a_missing_namespace():
    from vbench.host import netns_socket

    with pytest.raises(FileNotFoundError):
        netns_socket("vbench-no-such-namespace", "127.0.0.1", 22, 1.0)


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None, reason="needs root and iproute2")
def test_netns_socket_reaches_a_listener_that_only_the_namespace_has():
    """A listener on 127.0.0.1 inside a namespace of its own: reached from the namespace, while
    this process's own loopback has no such port."""
    from vbench.host import netns_socket

    ns = f"vbut{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    listener = None
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        code = (
            "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1); "
            "print(s.getsockname()[1], flush=True); c, _ = s.accept(); c.sendall(b'hello from the namespace')"
        )
        listener = subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, "-c", code], stdout=subprocess.PIPE, text=True
        )
        port = int(listener.stdout.readline())
        here = os.stat("/proc/thread-self/ns/net").st_ino
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()  # not in this namespace
        sock = netns_socket(ns, "127.0.0.1", port, 5.0)
        with sock:
            assert sock.recv(100) == b"hello from the namespace"
        # Only the short-lived thread entered the namespace; this one is where it was.
        assert os.stat("/proc/thread-self/ns/net").st_ino == here
    finally:
        if listener is not None:
            listener.kill()
            listener.wait()
        subprocess.run(["ip", "netns", "del", ns], check=False)
