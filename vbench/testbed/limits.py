"""Resource limits of container hosts as cgroup v1 settings, and their read-back.

This machine's layout is hybrid: the v1 controllers cpu, cpuset, memory, blkio, pids ... are
mounted at /sys/fs/cgroup/<controller>, and cgroup2 (/sys/fs/cgroup/unified) holds only
hugetlb. LXC and crun both write the v1 files; after a host starts, vbench reads the files of
its init process's cgroups back and refuses a host whose limits differ from what was asked.

blkio.throttle limits direct and synchronous I/O on one block device (the disk holding the
testbed's work root); cgroup v1 cannot attribute buffered write-back to a cgroup, so buffered
writes are throttled only when they are flushed synchronously. `blkio.weight` does not exist
here (mq-deadline), hence `disk_weight` is refused in params.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from vbench.errors import VbenchError
from vbench.params import LimitsParams, SlowdownParams, parse_cpuset
from vbench.testbed import sysops

CFS_PERIOD_US = 100_000
CGROUP_ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class BlockDevice:
    major: int
    minor: int
    name: str = ""

    def __str__(self) -> str:
        return f"{self.major}:{self.minor}"


def cgroup_v1_settings(limits: LimitsParams | None, disk: BlockDevice | None) -> dict[str, str]:
    """The cgroup v1 files (controller.file) and values that apply `limits`. Pure."""
    if limits is None:
        return {}
    out: dict[str, str] = {}
    if limits.cpus is not None:
        out["cpu.cfs_period_us"] = str(CFS_PERIOD_US)
        out["cpu.cfs_quota_us"] = str(limits.cpus * CFS_PERIOD_US)
    if limits.cpuset is not None:
        out["cpuset.cpus"] = limits.cpuset
    if limits.memory_mb is not None:
        out["memory.limit_in_bytes"] = str(limits.memory_mb * 1024**2)
    if limits.pids_max is not None:
        out["pids.max"] = str(limits.pids_max)
    return out | blkio_throttles(limits, disk)


def blkio_throttles(rates: LimitsParams | SlowdownParams, disk: BlockDevice | None, where: str = "") -> dict[str, str]:
    """The blkio.throttle files that hold `rates`' disk_read_bps / disk_write_bps on `disk`; an
    error naming the field (after `where`, e.g. "testbed.slowdown.") when a rate has no disk. Pure."""
    out: dict[str, str] = {}
    for field, key in (
        ("disk_read_bps", "blkio.throttle.read_bps_device"),
        ("disk_write_bps", "blkio.throttle.write_bps_device"),
    ):
        rate = getattr(rates, field)
        if rate is not None:
            if disk is None:
                raise VbenchError(f"{where}{field} needs the block device of the testbed's work root")
            out[key] = f"{disk} {rate}"
    return out


def normalise(key: str, value: str) -> str:
    """A cgroup file's content in a form comparable with what was written. Pure."""
    v = value.strip()
    if key == "cpuset.cpus":
        return ",".join(str(c) for c in parse_cpuset(v)) if v else ""
    if key.startswith("blkio.throttle."):
        return "\n".join(sorted(line.strip() for line in v.splitlines() if line.strip()))
    return v


def mismatches(expected: dict[str, str], actual: dict[str, str]) -> list[str]:
    """Human lines for every expected setting whose read-back value differs. Pure."""
    bad = []
    for key, want in sorted(expected.items()):
        got = actual.get(key)
        if got is None:
            bad.append(f"{key}: not readable (wanted {want!r})")
        elif normalise(key, got) != normalise(key, want):
            bad.append(f"{key} is {got.strip()!r}, wanted {want!r}")
    return bad


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """controller -> cgroup path from /proc/<pid>/cgroup (v1 lines only; 'cpu,cpuacct' split). Pure."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3 or not parts[1]:
            continue
        for ctrl in parts[1].split(","):
            out[ctrl] = parts[2]
    return out


def parse_cgroup_mounts(mountinfo: str) -> dict[str, Path]:
    """controller -> mount point of the cgroup v1 hierarchies in a mountinfo text. Pure."""
    out: dict[str, Path] = {}
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fstype, _source, opts = (right.split() + ["", "", ""])[:3]
        if fstype != "cgroup":
            continue
        mount_point = Path(left.split()[4])
        for opt in opts.split(","):
            if opt in ("rw", "ro") or "=" in opt or opt.startswith(("relatime", "nosuid", "nodev", "noexec")):
                continue
            out[opt] = mount_point
    return out


def cgroup_dirs_of(pid: int) -> dict[str, Path]:
    """controller -> the cgroup directory of process `pid` (v1 hierarchies)."""
    mounts = parse_cgroup_mounts(Path("/proc/self/mountinfo").read_text())
    paths = parse_proc_cgroup(Path(f"/proc/{pid}/cgroup").read_text())
    return {c: mounts[c] / p.lstrip("/") for c, p in paths.items() if c in mounts}


def read_back(pid: int, keys: list[str]) -> dict[str, str]:
    """The current content of cgroup files `keys` (controller.file) of process `pid`."""
    dirs = cgroup_dirs_of(pid)
    out: dict[str, str] = {}
    for key in keys:
        ctrl = key.split(".", 1)[0]
        if ctrl in dirs:
            try:
                out[key] = (dirs[ctrl] / key).read_text()
            except OSError:
                pass
    return out


def fill_cpuset_parent(rel: str) -> Path | None:
    """Give the cpuset cgroup that holds `rel` (vbench-<tb> for vbench-<tb>/<host>) the CPUs and
    memory nodes of the hierarchy's root when it has none, creating it if needed; returns it.

    A new v1 cpuset cgroup starts with empty `cpuset.cpus` and `cpuset.mems`, and the kernel
    refuses (EACCES) to give a child CPUs its parent does not have. crun and LXC fill the
    parents they create; runsc 0.0~20221219 does not, so a cpuset limit of a gVisor host would
    fail with "write .../cpuset.cpus: permission denied". `rel` itself is left to the runtime:
    runsc applies limits only to the cgroup directories it creates itself.
    """
    mounts = parse_cgroup_mounts(Path("/proc/self/mountinfo").read_text())
    parts = rel.strip("/").split("/")[:-1]
    if "cpuset" not in mounts or not parts:
        return None
    above = mounts["cpuset"]
    for part in parts:  # each level from the one above it, top down
        level = above / part
        level.mkdir(exist_ok=True)
        for name in ("cpuset.cpus", "cpuset.mems"):
            if not (level / name).read_text().strip():
                (level / name).write_text((above / name).read_text().strip())
        above = level
    return above


def verify_cgroup_limits(pid: int, expected: dict[str, str], what: str) -> dict[str, str]:
    """Fail unless the cgroups of `pid` hold `expected`; returns what was read."""
    actual = read_back(pid, list(expected))
    bad = mismatches(expected, actual)
    if bad:
        raise VbenchError(f"{what}: limits not applied as asked: " + "; ".join(bad))
    return {k: normalise(k, v) for k, v in actual.items()}


def block_device_of(path: Path) -> BlockDevice:
    """The whole disk holding `path` (blkio.throttle works on disks, not partitions)."""
    p = path
    while not p.exists():
        p = p.parent
    st = os.stat(p)
    major, minor = os.major(st.st_dev), os.minor(st.st_dev)
    sysdir = Path(f"/sys/dev/block/{major}:{minor}")
    if not sysdir.exists():
        raise VbenchError(
            f"{path} is not on a block device ({major}:{minor}: e.g. tmpfs or overlay); disk limits "
            "need the testbed's work_root on a disk"
        )
    real = sysdir.resolve()
    if (real / "partition").exists():
        real = real.parent
    major_s, minor_s = (real / "dev").read_text().strip().split(":")
    return BlockDevice(int(major_s), int(minor_s), real.name)


def limits_fact(limits: LimitsParams | None) -> str:
    """A compact, sortable text of the limits applied, for host facts ('' when unlimited)."""
    if limits is None:
        return ""
    return ",".join(f"{k}={v}" for k, v in sorted(limits.as_dict().items()))


# -- finding and removing a host's cgroups by name ----------------------------------------
def parse_cgroup_mountpoints(mountinfo: str) -> list[Path]:
    """Mount points of every cgroup hierarchy (v1, named v1 such as name=systemd, and v2). Pure."""
    out = []
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        if sep and right.split()[:1] and right.split()[0] in ("cgroup", "cgroup2"):
            out.append(Path(left.split()[4]))
    return out


def cgroup_hierarchies() -> list[Path]:
    return parse_cgroup_mountpoints(Path("/proc/self/mountinfo").read_text())


def cgroup_dirs(rel: str) -> list[Path]:
    """Existing directories of cgroup `rel` (and its descendants), deepest first, in every hierarchy."""
    found: list[Path] = []
    for mp in cgroup_hierarchies():
        top = mp / rel
        if top.is_dir():
            found += [p for p in top.rglob("*") if p.is_dir()] + [top]
    return sorted(found, key=lambda p: len(p.parts), reverse=True)


def cgroup_pids(rel: str) -> set[int]:
    pids: set[int] = set()
    for d in cgroup_dirs(rel):
        try:
            pids |= {int(x) for x in (d / "cgroup.procs").read_text().split()}
        except (OSError, ValueError):
            pass
    return pids


def remove_cgroups(rel: str, parent: str | None = None) -> list[str]:
    """rmdir cgroup `rel` everywhere (deepest first), then `parent` where it is left empty.

    Only empty cgroups can be removed; returns those that could not (still holding processes).
    """
    left = [d for d in cgroup_dirs(rel) if not _rmdir(d)]
    if parent:
        for mp in cgroup_hierarchies():
            p = mp / parent
            if p.is_dir() and not any(x.is_dir() for x in p.iterdir()) and not _rmdir(p):
                left.append(p)
    return [str(d) for d in left]


def _rmdir(d: Path, tries: int = 20) -> bool:
    """rmdir a cgroup; a process that just exited may hold it for a moment (EBUSY)."""
    for i in range(tries):
        try:
            d.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            time.sleep(0.1)
    return False


def kill_cgroup(rel: str, grace_s: float = 5.0) -> None:
    """Kill every process of cgroup `rel` (all started by this testbed) and wait until it is empty."""
    deadline = time.monotonic() + grace_s + 5
    while True:
        pids = sorted(cgroup_pids(rel) - {os.getpid()})
        if not pids:
            return
        sysops.kill_pids(pids, grace_s=grace_s)
        if time.monotonic() > deadline:
            return
        time.sleep(0.05)
