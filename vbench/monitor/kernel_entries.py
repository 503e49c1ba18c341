"""The machine's kernel entries over a run: page faults, context switches and, where a campaign asks,
system calls (issue #53).

gVisor's extra machine CPU is not its native job's kernel time scaled (costs-jvm-kernel-gvisor:
native's kernel part times a JVM start's factor under-predicts it by 17-59 %): its Sentry charges
per entry, a system call or a fault, whatever the native kernel spent on it. So a native step's
entries are counted, to be priced by what one entry costs a platform.

Faults and context switches are machine-wide counters the kernel always keeps (/proc/vmstat's
`pgfault`, /proc/stat's `ctxt`), read as cheaply as the busy CPU beside them. System calls have no
such counter: `SyscallCounter` counts the `raw_syscalls:sys_enter` tracepoint on every CPU through
perf_event_open(2), read at each mark like the others. An enabled tracepoint sends every system
call of the machine, not only the testbed's, through the kernel's slow entry path, so it is opt-in
(the design's `count_syscalls`) and closed when the campaign run ends, Ctrl-C included. A call a seccomp filter traps
(gVisor's systrap platform: the guest's calls become signals to its Sentry) is stopped before the
tracepoint and not counted; the Sentry's own calls to the host are.

The parsing is pure; the counter is the only part that touches the kernel.
"""

from __future__ import annotations

import ctypes
import os
import platform
import subprocess
from pathlib import Path

#: perf_event_open(2)'s number per machine type: glibc has no wrapper for it.
_PERF_EVENT_OPEN = {"x86_64": 298, "aarch64": 241}
_PERF_TYPE_TRACEPOINT = 2
_PERF_FLAG_FD_CLOEXEC = 8
#: perf_event_attr's first published size (PERF_ATTR_SIZE_VER0): every kernel accepts it.
_ATTR_SIZE_VER0 = 64
TRACEFS = Path("/sys/kernel/tracing")
#: Where the tracepoint's id is, under tracefs.
SYS_ENTER_ID = "events/raw_syscalls/sys_enter/id"


class _PerfEventAttr(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_uint32),
        ("size", ctypes.c_uint32),
        ("config", ctypes.c_uint64),
        ("sample_period", ctypes.c_uint64),
        ("sample_type", ctypes.c_uint64),
        ("read_format", ctypes.c_uint64),
        ("flags", ctypes.c_uint64),
        ("wakeup_events", ctypes.c_uint32),
        ("bp_type", ctypes.c_uint32),
        ("config1", ctypes.c_uint64),
    ]


def counter_value(text: str, name: str) -> int:
    """The value of counter `name` in a /proc/stat or /proc/vmstat text: the line `<name> <n>`.
    Pure. A missing counter is an error naming it (a kernel without it cannot be read so)."""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == name:
            return int(parts[1])
    raise ValueError(f"no {name!r} counter in the text read")


def faults(vmstat: str) -> int:
    """The machine's page faults since boot (minor and major), from /proc/vmstat. Pure."""
    return counter_value(vmstat, "pgfault")


def switches(stat: str) -> int:
    """The machine's context switches since boot, from /proc/stat. Pure."""
    return counter_value(stat, "ctxt")


def online_cpus(text: str) -> list[int]:
    """The CPUs of a /sys/devices/system/cpu/online list ("0-3,6"). Pure."""
    cpus: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


class SyscallCounter:
    """Counts the machine's system calls from when it is made until `close`: one counter of the
    `raw_syscalls:sys_enter` tracepoint per online CPU, summed on each call. Mounts tracefs only
    where it is not mounted, and unmounts only what it mounted."""

    def __init__(self, tracefs: Path = TRACEFS) -> None:
        self._fds: list[int] = []
        self._mounted: Path | None = None
        nr = _PERF_EVENT_OPEN.get(platform.machine())
        if nr is None:
            raise OSError(f"counting system calls: no perf_event_open number known for {platform.machine()}")
        id_file = tracefs / SYS_ENTER_ID
        if not id_file.exists():
            subprocess.run(["mount", "-t", "tracefs", "tracefs", str(tracefs)], check=True, capture_output=True)
            self._mounted = tracefs
        try:
            attr = _PerfEventAttr(
                type=_PERF_TYPE_TRACEPOINT, size=_ATTR_SIZE_VER0, config=int(id_file.read_text().strip())
            )
            libc = ctypes.CDLL(None, use_errno=True)
            libc.syscall.restype = ctypes.c_long
            for cpu in online_cpus(Path("/sys/devices/system/cpu/online").read_text()):
                # pid -1 and one CPU: every process's calls on that CPU.
                fd = libc.syscall(nr, ctypes.byref(attr), -1, cpu, -1, _PERF_FLAG_FD_CLOEXEC)
                if fd < 0:
                    err = ctypes.get_errno()
                    raise OSError(err, f"perf_event_open(raw_syscalls:sys_enter, cpu {cpu}): {os.strerror(err)}")
                self._fds.append(fd)
        except BaseException:
            self.close()
            raise

    def __call__(self) -> int:
        return sum(int.from_bytes(os.read(fd, 8), "little") for fd in self._fds)

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []
        if self._mounted is not None:
            subprocess.run(["umount", str(self._mounted)], check=False, capture_output=True)
            self._mounted = None

    def __enter__(self) -> "SyscallCounter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
