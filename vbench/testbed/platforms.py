"""The provisioner of each platform a testbed host can be."""
from __future__ import annotations

from vbench.testbed.native import NativeProvisioner
from vbench.testbed.provisioner import Provisioner

PROVISIONERS: dict[str, Provisioner] = {
    "native": NativeProvisioner(),
}


def provisioner_for(platform: str) -> Provisioner:
    return PROVISIONERS[platform]
