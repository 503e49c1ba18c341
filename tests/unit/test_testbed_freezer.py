"""A testbed's freezer (vbench.testbed.freezer): its pure parts and the params refusal. Freezing
real hosts: tests/integration/test_freezer.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from vbench.errors import VbenchError
from vbench import params as P
from vbench.testbed import freezer as F


@pytest.mark.parametrize("text,state", [("FROZEN\n", "FROZEN"), ("FREEZING", "FREEZING"), (" THAWED\n", "THAWED")])
def test_a_freezer_state_is_read_as_the_kernel_writes_it(text, state):
    assert F.parse_state(text) == state


@pytest.mark.parametrize("text", ["", "frozen", "FROZEN THAWED", "1"])
def test_anything_else_in_freezer_state_is_an_error_naming_it(text):
    with pytest.raises(VbenchError, match="freezer.state reads"):
        F.parse_state(text)


def test_each_host_has_its_own_cgroup_below_the_testbeds():
    assert F.host_rel("vb0", "worker1") == "vbench-vb0/worker1"
    assert F.state_file(Path("/sys/fs/cgroup/freezer"), "vbench-vb0/master") == Path(
        "/sys/fs/cgroup/freezer/vbench-vb0/master/freezer.state"
    )


@pytest.mark.parametrize("platform", ["qemu", "oci", "gvisor"])
def test_a_testbed_that_cannot_be_frozen_whole_is_refused_naming_the_field(platform):
    with pytest.raises(Exception) as err:
        P.testbed_params({"platform": platform, "freezer": True})
    assert "freezer" in str(err.value) and platform in str(err.value)
    P.testbed_params({"platform": platform})  # without the freezer it is a testbed like any


@pytest.mark.parametrize("platform", ["native", "lxc"])
def test_native_and_lxc_testbeds_can_be_frozen(platform):
    assert P.testbed_params({"platform": platform, "freezer": True}).freezer
