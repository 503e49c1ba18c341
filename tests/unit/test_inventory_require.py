"""require_usable: the inventory's gate before anything is prepared or run (#10). A call that
could not even reach preflight (52aab88 passed it an argument it does not take) failed every
inventory campaign with a TypeError; only the integration tests saw it."""

from __future__ import annotations

import pytest

from vbench.inventory import preflight as pf
from vbench.inventory.model import inventory


def _inv(tmp_path, key_exists: bool = True):
    key, kh = tmp_path / "id", tmp_path / "kh"
    kh.write_text("")
    if key_exists:
        key.write_text("")
    hosts = [
        {"name": "m", "address": "192.0.2.10", "key_file": str(key), "role": "master"},
        {"name": "w1", "address": "192.0.2.11", "key_file": str(key), "platform": "native"},
    ]
    return inventory({"hosts": hosts, "known_hosts": str(kh)})


def test_a_missing_key_file_is_refused_before_any_host_is_asked(tmp_path, monkeypatch):
    monkeypatch.setattr(pf, "check_host", lambda *a: pytest.fail("a host was asked"))
    with pytest.raises(pf.InventoryRefused, match=r"inventory\.hosts\[0\]\.key_file"):
        pf.require_usable(_inv(tmp_path, key_exists=False))


def test_every_host_is_asked_and_a_host_problem_refuses(tmp_path, monkeypatch):
    asked = []

    def check_host(inv, host, timeout_s):
        asked.append((host.name, timeout_s))
        return pf.Problem(host.name, "unreachable", f"{host.name}: no SSH answer") if host.name == "w1" else None

    monkeypatch.setattr(pf, "check_host", check_host)
    with pytest.raises(pf.InventoryRefused, match="w1: no SSH answer"):
        pf.require_usable(_inv(tmp_path), timeout_s=3.0)
    assert sorted(asked) == [("m", 3.0), ("w1", 3.0)]
