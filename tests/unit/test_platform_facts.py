"""vbench.testbed.facts: parsing what hosts say about themselves (outputs captured on this machine)."""

from pathlib import Path

import pytest

from vbench.testbed import facts

DATA = Path(__file__).resolve().parents[1] / "data" / "platforms"


def _facts(name):
    return facts.parse_facts((DATA / f"facts_{name}.txt").read_text())


def test_a_qemu_guest_under_tcg_is_a_vm():
    f = _facts("qemu_tcg")
    assert (f["virt"], f["virt_kind"]) == ("qemu", "vm")
    assert f["kernel"] == "6.1.0-50-amd64"
    assert f["cpu_model"] == "QEMU Virtual CPU version 2.5+"
    assert f["vcpus"] == "2" and f["mem_total_mb"] == str(3043256 // 1024)
    assert "memory_limit_mb" not in f


@pytest.mark.parametrize("name,virt", [("lxc", "lxc"), ("oci", "oci")])
def test_containers_are_containers_even_on_a_vm_hosted_machine(name, virt):
    f = _facts(name)
    assert (f["virt"], f["virt_kind"]) == (virt, "container")
    assert f["virt_vm"] == "kvm"  # the machine itself is a VM: seen from inside, and recorded
    assert f["memory_limit_mb"] == "1024" and f["vcpus"] == "1"


def test_a_gvisor_guest_is_a_sandbox_found_by_its_kernel_log_not_by_what_pid_1_says():
    f = _facts("gvisor")
    assert (f["virt"], f["virt_kind"]) == ("gvisor", "sandbox")
    # gVisor's own kernel: a fixed version string, no CPU model, MemTotal = the memory limit.
    assert f["kernel"] == "4.4.0" and f["cpu_model"] == "unknown"
    assert f["mem_total_mb"] == "1024" and f["vcpus"] == "1"
    assert "memory_limit_mb" not in f  # no cgroupfs inside: the limit shows as MemTotal
    # Its kernel log is what tells: the same container= without it would be a container.
    raw = dict(line.split("=", 1) for line in (DATA / "facts_gvisor.txt").read_text().splitlines())
    assert facts.classify({**raw, "gvisor": "0"}) == ("gvisor", "container")


def test_a_native_host_reports_the_machine_as_it_is():
    f = _facts("native")
    # This project's machine runs in a container on a KVM guest; native hosts say so.
    assert f["virt_kind"] == "container" and f["virt"] == "docker" and f["virt_vm"] == "kvm"
    assert f["kernel"] == "6.18.44-fc-v657"


def test_fallbacks_without_systemd_detect_virt():
    text = (
        "virt_container=\nvirt_vm=\ncontainer_env=lxc\nhypervisor_flag=1\nkernel=6.1\nvcpus=2\nmem_total_kb=2048000\n"
    )
    assert facts.classify(dict(line.split("=", 1) for line in text.splitlines())) == ("lxc", "container")
    assert facts.parse_facts(text)["virt"] == "lxc"
    vm = {"virt_container": "", "virt_vm": "", "container_env": "", "hypervisor_flag": "1", "dmi_product": "KVM"}
    assert facts.classify(vm) == ("kvm", "vm")
    bare = {
        "virt_container": "none",
        "virt_vm": "none",
        "container_env": "",
        "hypervisor_flag": "0",
        "dmi_product": "X11SSL",
    }
    assert facts.classify(bare) == ("none", "none")
    other = {"virt_container": "container-other", "container_env": "oci"}
    assert facts.classify(other) == ("oci", "container")


def test_unlimited_memory_cgroups_are_not_a_limit():
    f = facts.parse_facts("cgroup_memory_limit=9223372036854771712\nmem_total_kb=1024\n")
    assert "memory_limit_mb" not in f
    assert facts.parse_facts("cgroup_memory_limit=1073741824\n")["memory_limit_mb"] == "1024"


def test_lines_the_script_did_not_print_are_ignored():
    f = facts.parse_facts("Welcome to Debian\nkernel=6.1.0\nsh: 4: cannot open /proc/1/environ: Permission denied\n")
    assert f["kernel"] == "6.1.0"
