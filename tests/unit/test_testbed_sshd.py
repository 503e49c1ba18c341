"""vbench.testbed.sshd: the sshd_config of a host, a pure builder."""

import pytest

from vbench.testbed.sshd import sshd_config


@pytest.fixture
def sshd_lines():
    text = sshd_config("10.213.0.11", "/st/worker1/ssh_host_ed25519_key", "/st/authorized_keys", "/st/worker1/sshd.pid")
    return text.splitlines()


def test_sshd_config_listens_on_the_host_address_with_its_key(sshd_lines):
    assert "ListenAddress 10.213.0.11" in sshd_lines
    assert "HostKey /st/worker1/ssh_host_ed25519_key" in sshd_lines
    assert "AuthorizedKeysFile /st/authorized_keys" in sshd_lines
    assert "PidFile /st/worker1/sshd.pid" in sshd_lines
    assert "Port 22" in sshd_lines


def test_sshd_config_disables_passwords(sshd_lines):
    assert "PasswordAuthentication no" in sshd_lines
    assert "KbdInteractiveAuthentication no" in sshd_lines
    assert "PubkeyAuthentication yes" in sshd_lines
    assert "PermitRootLogin prohibit-password" in sshd_lines
    assert not any(line.startswith("PasswordAuthentication yes") for line in sshd_lines)


def test_sshd_config_other_port():
    assert "Port 2222" in sshd_config("10.0.0.2", "/k", "/a", "/p", port=2222).splitlines()
