"""A testbed records the platform each host was made as, and `vbench cluster up` on a testbed that
is up refuses hosts asked of another platform, before it touches them (a gVisor cluster pushed to
native hosts failed deep in an SFTP call)."""

from __future__ import annotations

from vbench.params import HostParams
from vbench.testbed.local import platform_mismatch


def _hosts(*platforms: str) -> list[HostParams]:
    names = ["master"] + [f"worker{i}" for i in range(1, len(platforms))]
    return [
        HostParams(name=n, role="master" if n == "master" else "worker", platform=p) for n, p in zip(names, platforms)
    ]


def test_agreeing_platforms_and_a_testbed_that_recorded_none_pass():
    recorded = {"master": "native", "worker1": "native", "worker2": "native"}
    assert platform_mismatch(recorded, _hosts("native", "native", "native")) is None
    assert platform_mismatch({}, _hosts("gvisor", "gvisor")) is None


def test_another_platform_or_another_host_set_is_said_host_by_host():
    recorded = {"master": "native", "worker1": "native", "worker2": "native"}
    why = platform_mismatch(recorded, _hosts("gvisor", "gvisor", "gvisor"))
    assert why == (
        "its hosts were made as master native, worker1 native, worker2 native; "
        "this asks for master gvisor, worker1 gvisor, worker2 gvisor"
    )
    assert platform_mismatch(recorded, _hosts("native", "native")) is not None  # one worker fewer
