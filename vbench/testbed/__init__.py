"""The local testbed: emulated hosts on this machine, each reached over SSH."""

from vbench.testbed.local import Testbed, testbed_status

__all__ = ["Testbed", "testbed_status"]
