"""sshd configuration for a testbed host. Pure."""

from __future__ import annotations


def sshd_config(listen: str, host_key: str, authorized_keys: str, pid_file: str, port: int = 22) -> str:
    return "\n".join(
        [
            f"Port {port}",
            f"ListenAddress {listen}",
            f"HostKey {host_key}",
            f"PidFile {pid_file}",
            f"AuthorizedKeysFile {authorized_keys}",
            "PermitRootLogin prohibit-password",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            # The key files live in the testbed's state dir, not under ~/.ssh.
            "StrictModes no",
            "PrintMotd no",
            "UseDNS no",
            # Many parallel sessions: one per daemon and job client.
            "MaxSessions 64",
            "MaxStartups 64:30:128",
            "Subsystem sftp internal-sftp",
            "",
        ]
    )
