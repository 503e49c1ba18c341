"""What the by-hand gVisor readings of issue #53 share: the sandbox `runsc do` starts for one
command (ptrace, no network, no testbed), holding a run to one CPU, and busy loops on the host
beside a run (selfbench.sentry_cpu_accounting, gvisor_call_paths, gvisor_call_gap,
gvisor_call_kinds, gvisor_call_pollution, gvisor_jvm_stops)."""

from __future__ import annotations

import subprocess
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from vbench.monitor.machine import parse_pid_stat

#: A command's prefix that runs it in a sandbox of its own, which ends with it.
RUNSC_DO = ("runsc", "--network=none", "--platform=ptrace", "do")
#: A command's prefix that holds it and every process it starts to CPU 0: on one CPU a gVisor
#: call's wall time is its machine CPU, as on a busy cluster (selfbench.gvisor_call_gap).
ON_CPU0 = ("taskset", "-c", "0")
#: A competing loop: a host process that keeps one core busy until killed.
COMPETITOR = ("python3", "-c", "while True: pass")


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


@contextmanager
def competing_loops(n: int) -> Iterator[Callable[[], int]]:
    """`n` busy loops on the host, started before the body (and given half a second to run) and
    killed by pid after it; yields a function that gives their CPU ticks so far."""
    # Each in a session of its own, as `runsc do` puts its sandbox: with the kernel's autogroup on
    # (sched_autogroup_enabled), CFS shares the cores between sessions first, and a payload sharing
    # its session with the loops would get less than a sandbox in its own.
    procs = [subprocess.Popen(COMPETITOR, start_new_session=True) for _ in range(n)]
    try:
        if procs:
            time.sleep(0.5)  # the loops are running before the payload starts
        yield lambda: sum(sum(parse_pid_stat(_read(f"/proc/{p.pid}/stat"))) for p in procs)
    finally:
        for p in procs:
            p.kill()
            p.wait()
