"""Host facts: what a host is, seen from inside, and what the testbed made of it.

Collected over SSH on every host once it answers, merged with what its provisioner knows
(platform, limits read back, image hash, accelerator), kept in `Host.facts` and in the host's
`facts.json` in the testbed's state directory, so a runner can stamp them on results.

Keys (all strings): platform, virt (systemd-detect-virt or a fallback: lxc, container-other,
crun, gvisor, qemu, kvm, none ...), virt_kind (container | sandbox | vm | none; sandbox: a gVisor
guest, whose kernel is the Sentry, found by its `dmesg`), virt_vm (the hypervisor seen, which
on a VM-hosted machine is also seen by native hosts and containers), kernel, cpu_model, vcpus
(CPUs usable by processes: nproc), mem_total_mb (MemTotal; containers see the machine's),
memory_limit_mb (the cgroup limit seen from inside, if any), limits (what was applied and read
back), image_hash (guest image recipe hash), accelerator (kvm | tcg, VMs), ssh_ready_s (creation to SSH);
gVisor hosts add runtime, runsc_version, gvisor_platform and gvisor_network (vbench.testbed.gvisor), and
the machine's cpu_model in place of the sandbox's placeholder ("unknown": runsc runs on this machine);
QEMU hosts stamp the machine's cpu_model too and keep the guest's as guest_cpu_model (under TCG, QEMU's
emulated CPU: vbench.testbed.qemu);
native hosts add netns and shell_startup (masked: the SSH user's startup files hidden, vbench.testbed.native);
under a planted slowdown every host adds slowdown and slowdown_applied (vbench.testbed.slowdown).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Mapping

from vbench.host import Host, connect
from vbench.params import HostParams
from vbench.testbed.provisioner import TestbedContext

#: One round trip; every line is key=value. Tools absent in minbase images fall back to /proc and /sys.
FACTS_SCRIPT = r"""
echo "virt_container=$(systemd-detect-virt --container 2>/dev/null)"
echo "virt_vm=$(systemd-detect-virt --vm 2>/dev/null)"
echo "container_env=$(tr '\0' '\n' < /proc/1/environ 2>/dev/null | sed -n 's/^container=//p' | head -n1)"
echo "hypervisor_flag=$(grep -m1 -c -w hypervisor /proc/cpuinfo 2>/dev/null)"
echo "dmi_product=$(cat /sys/class/dmi/id/product_name 2>/dev/null)"
echo "kernel=$(uname -r)"
echo "cpu_model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n1)"
echo "vcpus=$(nproc)"
echo "mem_total_kb=$(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo)"
echo "cgroup_memory_limit=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory.max 2>/dev/null | head -n1)"
echo "hostname=$(hostname)"
echo "gvisor=$(dmesg 2>/dev/null | head -n 3 | grep -c 'Starting gVisor')"
"""

_VM_PRODUCTS = {"qemu": "qemu", "kvm": "kvm", "standard pc": "qemu", "virtualbox": "oracle", "vmware": "vmware"}


def parse_facts(text: str) -> dict[str, str]:
    """key=value lines of FACTS_SCRIPT's output -> facts (raw ones plus derived). Pure."""
    raw: dict[str, str] = {}
    for line in text.splitlines():
        k, sep, v = line.partition("=")
        if sep and k and k.replace("_", "").isalnum():
            raw[k.strip()] = v.strip()
    virt, kind = classify(raw)
    facts = {
        "virt": virt,
        "virt_kind": kind,
        "virt_vm": _vm_seen(raw),
        "kernel": raw.get("kernel", ""),
        "cpu_model": raw.get("cpu_model", ""),
        "vcpus": raw.get("vcpus", ""),
        "mem_total_mb": str(int(raw["mem_total_kb"]) // 1024) if raw.get("mem_total_kb", "").isdigit() else "",
        "hostname": raw.get("hostname", ""),
    }
    limit = raw.get("cgroup_memory_limit", "")
    if limit.isdigit() and int(limit) < 2**60:  # v1 "unlimited" is 2^63 rounded to pages
        facts["memory_limit_mb"] = str(int(limit) // 1024**2)
    return facts


def parse_cpu_model(cpuinfo: str) -> str:
    """The first `model name` of /proc/cpuinfo, as FACTS_SCRIPT reads it ("" if none). Pure."""
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == "model name":
            return value.strip()
    return ""


def this_cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU model of the machine vbench runs on ("" if unreadable): the quiet gate's reference,
    and a local sandbox's machine, which the sandbox itself does not report."""
    try:
        return parse_cpu_model(cpuinfo.read_text())
    except OSError:
        return ""


def _vm_seen(raw: Mapping[str, str]) -> str:
    vm = raw.get("virt_vm", "")
    if vm and vm != "none":
        return vm
    product = raw.get("dmi_product", "").lower()
    for needle, name in _VM_PRODUCTS.items():
        if needle in product:
            return name
    return "vm-other" if raw.get("hypervisor_flag", "0") not in ("", "0") else "none"


def classify(raw: Mapping[str, str]) -> tuple[str, str]:
    """(virtualisation, kind) from raw facts: a gVisor sandbox if its kernel log says so, a
    container if PID 1 says so, else a VM if the CPU or firmware says so, else none. The innermost
    layer wins: a container on a VM is a container."""
    if raw.get("gvisor", "0") not in ("", "0"):
        return "gvisor", "sandbox"
    container = raw.get("virt_container", "")
    env = raw.get("container_env", "")
    if container and container != "none":
        # systemd knows lxc, docker, podman, systemd-nspawn...; others are "container-other".
        return (env if container == "container-other" and env else container), "container"
    if env:
        return env, "container"
    vm = _vm_seen(raw)
    return (vm, "vm") if vm != "none" else ("none", "none")


def collect(host: Host) -> dict[str, str]:
    """The facts a host reports about itself (one SSH session)."""
    with connect(host) as c:
        r = c.run(FACTS_SCRIPT, hide=True, warn=True, in_stream=False)
    return parse_facts(r.stdout)


def facts_path(ctx: TestbedContext, spec: HostParams):
    return ctx.paths.host_dir(spec.name) / "facts.json"


def finish(
    host: Host,
    spec: HostParams,
    ctx: TestbedContext,
    provisioner,
    ssh_ready_s: float | None,
    planted: Mapping[str, str] | None = None,
) -> Host:
    """After SSH answers: verify what the provisioner applied, collect facts, keep them with the
    host. `planted`: what the testbed's planted slowdown holds on it, read back already."""
    verify = getattr(provisioner, "verify", None)
    applied = {**(dict(verify(spec, host, ctx)) if verify is not None else {}), **(planted or {})}
    facts = {**host.facts, **collect(host), **applied, "platform": str(spec.platform)}
    if ssh_ready_s is not None:
        facts["ssh_ready_s"] = f"{ssh_ready_s:.2f}"
    path = facts_path(ctx, spec)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n")
    return dataclasses.replace(host, facts=facts)


def with_saved_facts(host: Host, spec: HostParams, ctx: TestbedContext) -> Host:
    """`host` with the facts its testbed saved when it came up (for attaching from another process)."""
    try:
        saved = json.loads(facts_path(ctx, spec).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return host
    return dataclasses.replace(host, facts={**saved, **host.facts})
