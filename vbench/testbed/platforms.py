"""The provisioner of each platform a testbed host can be."""

from __future__ import annotations

from vbench.testbed.gvisor import GvisorProvisioner
from vbench.testbed.lxc import LxcProvisioner
from vbench.testbed.native import NativeProvisioner
from vbench.testbed.oci import OciProvisioner
from vbench.testbed.provisioner import Provisioner
from vbench.testbed.qemu import QemuProvisioner

PROVISIONERS: dict[str, Provisioner] = {
    "native": NativeProvisioner(),
    "lxc": LxcProvisioner(),
    "oci": OciProvisioner(),
    "gvisor": GvisorProvisioner(),
    "qemu": QemuProvisioner(),
}


def provisioner_for(platform: str) -> Provisioner:
    return PROVISIONERS[platform]
