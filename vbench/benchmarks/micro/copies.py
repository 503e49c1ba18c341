"""Copies of a micro-benchmark's timed program run at once on one host (a `copies` setting, issue #53).

A task JVM on a worker never runs alone: a NodeManager starts a map's JVM while another map, a
reducer and the DataNode are running, and a NameNode answers several maps' calls at once. `rpc` and
`jvmstart` time one JVM at a time, and gVisor's jobs moved with the hour far more than those
prices did (docs/results.md, "Every step pooled over two campaigns"). With `copies: N` the host runs
N copies of the timed program at once, each its own process tree writing its own lines, and a
repeat's price is what the host delivers with N running: the inverse of the copies' summed rates
(N copies each taking t per operation cost t / N an operation), so that priced in the machine's CPU
(`--costs cpu`: the time times the CPUs the run kept busy) it is still the CPU one operation costs.

The copies start together but are not synchronised: a copy's JVM may start a few tenths of a second
after another's, so the ends of their timed windows overlap less than their middles; each copy's
warm-up (rpc's `warmup_s`, jvmstart's `warmup_starts`) absorbs most of it. `copies: 1` is the
program alone, its command byte for byte what it was before the setting existed.
"""

from __future__ import annotations

import re
import shlex

from vbench.errors import JobFailed


def in_copies(tag: str, script: str, copies: int, workdir: str) -> str:
    """The shell lines that run `script` (a shell list) `copies` times at once, each in a subshell
    whose stdout goes to its own file in `workdir`, wait for every one, then print, for each in turn,
    a `<tag> copy=<i>` line and its output, remove the files, and exit with the status of the lowest-numbered
    copy that failed (0 if none did). A copy's stderr stays the script's. `copies` 1: `script` itself.
    Pure."""
    if copies < 1:
        raise ValueError(f"copies must be at least 1, not {copies}")
    if copies == 1:
        return script
    out = f"{shlex.quote(workdir.rstrip('/') or '.')}/{tag}-copy-$i.out"
    return (
        f'pids=""; i=1; while [ "$i" -le {copies} ]; do ( {script} ) > {out} & pids="$pids $!"; i=$((i + 1)); done; '
        'rc=0; for p in $pids; do wait "$p" || { s=$?; [ "$rc" -ne 0 ] || rc=$s; }; done; '
        f'i=1; while [ "$i" -le {copies} ]; do echo "{tag} copy=$i"; cat {out}; rm -f {out}; i=$((i + 1)); done; '
        "exit $rc"
    )


def copy_outputs(tag: str, text: str, copies: int) -> list[str]:
    """Each copy's output, in order, from `in_copies`' stdout (`copies` 1: the whole text). JobFailed
    when the `<tag> copy=` lines are not 1..copies in order. Pure."""
    if copies == 1:
        return [text or ""]
    parts = re.split(rf"^{re.escape(tag)} copy=(\d+)[ \t]*(?:\n|$)", text or "", flags=re.M)
    numbers, bodies = parts[1::2], parts[2::2]
    if numbers != [str(i) for i in range(1, copies + 1)]:
        raise JobFailed(f"{tag}: expected the outputs of copies 1-{copies} in order, found copies {numbers or 'none'}")
    return bodies


def per_operation_together(per_copy: list[float]) -> float:
    """The time per operation the host delivers with the copies running at once, from each copy's
    own time per operation: the inverse of their summed rates. One copy: its own time, unchanged.
    Pure."""
    if not per_copy or any(t <= 0 for t in per_copy):
        raise ValueError(f"times per operation must all be above 0: {per_copy}")
    if len(per_copy) == 1:
        return per_copy[0]
    return 1.0 / sum(1.0 / t for t in per_copy)
