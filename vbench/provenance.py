"""Provenance stamped centrally on every sample: what ran, where, with which software.

Benchmarks never stamp these themselves; `stamp(...)` is applied by the runner.
"""

from __future__ import annotations

import platform
import shlex
import subprocess
from pathlib import Path
from typing import Any, Iterable, Mapping

import vbench
from vbench.hadoop.cluster import HadoopCluster
from vbench.samples import join_values


def vbench_commit(repo: Path | None = None) -> str:
    """The git commit of the vbench checkout that ran (with '+dirty' if it had local changes).

    Changes under data/ do not count: they are the measurements, and a campaign being resumed or
    extended in a checkout where it is committed changes its own samples.jsonl as it runs. Nor
    does dvc.lock: `dvc repro` rewrites it after each stage, so every sample of the main job from a
    clean clone said "+dirty" from the second stage on."""
    repo = repo or Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, timeout=5
        ).stdout.strip()
        dirty = subprocess.run(
            [
                "git",
                "-C",
                str(repo),
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                ".",
                ":(exclude)data",
                ":(exclude)dvc.lock",
            ],
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head}+dirty" if head and dirty else head or "unknown"


#: The host facts (vbench.testbed.facts) that say which machine a run had under it. The machine
#: lent to a working session here is not always the same one: the same design measured TeraSort's
#: LXC/native ratio to +/-5.7 % on one CPU and +/-22 % on another (docs/results.md).
MACHINE_FACTS = ("cpu_model", "vcpus", "mem_total_mb")


def machine_stamp(facts: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """The machine under a cell's hosts, from their facts: each of MACHINE_FACTS as the distinct
    values the hosts reported, sorted and joined by "; " (hosts of one machine report one value);
    a fact no host reported is left out, so records without it read as "not recorded". A VM's
    guest reports its own CPUs and memory, not the machine's (a local QEMU host stamps the machine's
    `cpu_model`, vbench.testbed.qemu; a VM from an inventory, the one its guest names): where some host
    is not a VM (`virt_kind`: native, a container, a sandbox), only those say what the machine is. Pure."""
    facts = list(facts)
    machine = [f for f in facts if f.get("virt_kind") != "vm"] or facts
    out = {}
    for key in MACHINE_FACTS:
        joined = join_values(f.get(key) for f in machine)
        if joined:
            out[key] = joined
    return out


def slowdown_stamp(facts: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """The planted slowdown under a cell's hosts (testbed.slowdown, vbench.testbed.slowdown), as
    their facts say it was read back: `slowdown` (the params that plant it, e.g.
    "cpu_fraction=0.9") and `slowdown_applied` (the cgroup files and qdiscs); `cpu_group`, the
    testbed's cpu cgroup when it has one without a slowdown (testbed.cpu_group); `cpuset`, the CPUs
    its hosts were held on (testbed.cpuset). Nothing when no host has one, so the records of every
    other run are as before. Pure."""
    facts = list(facts)
    out = {}
    for key in ("slowdown", "slowdown_applied", "cpu_group", "cpuset"):
        joined = join_values(f.get(key) for f in facts)
        if joined:
            out[key] = joined
    return out


def machine_kernel_stamp(local: bool) -> dict[str, str]:
    """`machine_kernel`: the controller's `uname -r` where the hosts are the local testbed's, all of
    them on this machine's kernel (a gVisor sandbox's `uname -r` is its own emulated kernel's, so a
    sample's `kernel` does not say it); nothing for hosts from elsewhere. gVisor's costs moved with
    the kernel's build on the AMD EPYC machine (vbench.stats.machine_kernel)."""
    return {"machine_kernel": platform.release()} if local else {}


def java_version_line(java_home: str | Path) -> str:
    """The first line of `java -version`, java_home quoted (a params path is data, never shell). Pure."""
    return f"{shlex.quote(str(java_home).rstrip('/') + '/bin/java')} -version 2>&1 | head -n 1"


def cluster_provenance(cluster: HadoopCluster) -> dict[str, str | int | float]:
    """Facts of a running cluster that every sample measured on it carries."""
    m = cluster.master
    java = cluster.sh(m, java_version_line(cluster.params.java_home)).stdout.strip()
    kernel = cluster.sh(m, "uname -r").stdout.strip()
    return {
        "hadoop_version": cluster.params.version,
        "hadoop_config_hash": cluster.config_hash,
        # Not all of them are in the configuration files the hash covers (daemons and clients).
        "daemon_jvm_flags": " ".join(cluster.params.daemon_jvm_flags),
        "job_jvm_flags": " ".join(cluster.params.job_jvm_flags),
        # The intervals that decide how finely a job time is resolved (issue #19), in the open.
        "client_poll_ms": cluster.params.client_poll_ms,
        "am_heartbeat_ms": cluster.params.am_heartbeat_ms,
        "nodemanager_heartbeat_ms": cluster.params.nodemanager_heartbeat_ms,
        "java_version": java,
        "kernel": kernel,
        "hosts": ",".join(h.name for h in cluster.hosts),
        # How long Hadoop took to come up on these hosts (the smoke's verdict reports it).
        "bringup_s": round(cluster.bringup_seconds or 0.0, 2),
        "workers": len(cluster.workers),
        "platforms": ",".join(sorted({h.platform for h in cluster.hosts})),
        "image_hash": ",".join(
            sorted({str(h.facts.get("image_hash")) for h in cluster.hosts if h.facts.get("image_hash")})
        )
        or "none",
        "vbench_version": vbench.__version__,
        "vbench_commit": vbench_commit(),
        "controller": platform.node(),
    }
