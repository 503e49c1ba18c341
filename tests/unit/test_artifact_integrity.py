"""Verified artifacts (issue #22, item 5): Maven fails on a checksum mismatch instead of warning,
and a guest's private host key is never readable by others, not even for a moment."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from vbench.errors import VbenchError
from vbench.hadoop import artifacts
from vbench.testbed import guest
from vbench.testbed.image import GUEST_AUTHORIZED_KEYS, GUEST_HOST_KEY


def test_maven_fetches_with_strict_checksums(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    argv_file = tmp_path / "argv"
    mvn = bin_dir / "mvn"
    mvn.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{argv_file}"\nexit 1\n')
    mvn.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(VbenchError, match="Maven could not fetch"):
        artifacts.fetch("3.3.6", "3.3.6", cache=tmp_path / "cache", log=lambda _: None, timeout_s=30)
    argv = argv_file.read_text().splitlines()
    assert "--strict-checksums" in argv or "-C" in argv


# -- the guest's copy of the host key ------------------------------------------------------------


class _ModeWatch:
    """Every mode `path` had whenever Python touched a file (open, chmod, copy: audit events),
    so a copy that is world-readable until its chmod is seen. Audit hooks cannot be removed:
    this one goes quiet when the test ends."""

    def __init__(self, path: Path):
        self.path, self.modes, self.on = path, [], True
        sys.addaudithook(self._hook)

    def _hook(self, event: str, _args) -> None:
        if self.on and event in ("open", "os.chmod", "shutil.copyfile", "os.rename", "os.remove"):
            try:
                self.modes.append(stat.S_IMODE(os.lstat(self.path).st_mode))
            except OSError:
                pass


@pytest.fixture
def identity(tmp_path):
    """The arguments of write_identity for one host whose key exists on the controller."""
    hdir = tmp_path / "controller" / "w1"
    hdir.mkdir(parents=True)
    key = hdir / "ssh_host_ed25519_key"
    fd = os.open(key, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n-----END OPENSSH PRIVATE KEY-----\n")
    os.close(fd)
    key.with_suffix(".pub").write_text("ssh-ed25519 AAAA w1\n")
    (tmp_path / "hosts").write_text("10.0.0.2 w1\n")
    (tmp_path / "authorized_keys").write_text("ssh-ed25519 BBBB vbench\n")
    ctx = SimpleNamespace(
        paths=SimpleNamespace(host_dir=lambda _n: hdir, authorized_keys=tmp_path / "authorized_keys"),
        hosts_file=lambda _s: tmp_path / "hosts",
    )
    return tmp_path / "guest", SimpleNamespace(name="w1"), ctx


def test_the_guest_host_key_is_never_wider_than_0600(identity, monkeypatch):
    root, spec, ctx = identity
    old_umask = os.umask(0o022)  # the usual umask: a plain copy would be 0644
    watch = _ModeWatch(root / GUEST_HOST_KEY.lstrip("/"))
    try:
        guest.write_identity(root, spec, ctx)
    finally:
        watch.on = False
        os.umask(old_umask)
    assert watch.modes, "the key was never seen"
    assert all(m & 0o077 == 0 for m in watch.modes), [oct(m) for m in watch.modes]
    assert stat.S_IMODE((root / GUEST_HOST_KEY.lstrip("/")).stat().st_mode) == 0o600
    assert stat.S_IMODE((root / GUEST_AUTHORIZED_KEYS.lstrip("/")).stat().st_mode) == 0o600
    assert stat.S_IMODE((root / "etc" / "hostname").stat().st_mode) == 0o644


def test_an_old_wide_key_file_or_a_planted_symlink_is_replaced_not_written_through(tmp_path):
    dest = tmp_path / "key"
    dest.write_text("old")
    dest.chmod(0o644)
    guest.write_with_mode(dest, b"new", 0o600)
    assert dest.read_text() == "new" and stat.S_IMODE(dest.stat().st_mode) == 0o600
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("not yours")
    dest.unlink()
    dest.symlink_to(elsewhere)
    guest.write_with_mode(dest, b"new", 0o600)
    assert elsewhere.read_text() == "not yours" and not dest.is_symlink()
