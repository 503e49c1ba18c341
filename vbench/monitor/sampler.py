"""The guest-side sampler: a POSIX sh loop that snapshots /proc every interval, and its parser.

It runs on each host over SSH (guest images come from debootstrap minbase and need not have
python3; sh, cat and sleep are always there). To stay light it forks only `cat` and `sleep`
per snapshot: the clock is /proc/uptime read by the shell's `read` builtin, anchored once to
the wall clock at start. The controller fetches the file after the run and turns it into rates
with the pure functions below; nothing is computed on the hosts.

Output format (one snapshot per interval):

    @start <epoch s> <uptime s> <interval s>
    @t <uptime s>
    @stat
    cpu  <user> <nice> <system> <idle> <iowait> <irq> <softirq> <steal> ...
    @disk
    <the whole of /proc/diskstats>      or   @missing disk
    @net
    <the whole of /proc/net/dev>        or   @missing net
    @end
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

#: The counter groups a snapshot holds.
GROUPS = ("cpu", "disk", "net")

_STAT_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
#: Whole disks only: partitions, loop, ram and device-mapper devices would count bytes twice.
_NOT_A_DISK = re.compile(r"^(loop|ram|zram|dm-|sr|fd|md)\d*|^(sd|vd|hd|xvd)[a-z]+\d+$|^(nvme\d+n\d+|mmcblk\d+)p\d+$")
_SECTOR = 512  # /proc/diskstats counts 512-byte sectors whatever the device's sector size


def script(out_file: str, interval_s: float) -> str:
    """The sampler loop as one sh script. Pure."""
    f = shlex.quote(out_file)
    return (
        f"exec >>{f} 2>/dev/null; "
        f'read up _ </proc/uptime; echo "@start $(date +%s.%N) $up {interval_s:g}"; '
        "while :; do "
        'read up _ </proc/uptime; echo "@t $up"; '
        'echo @stat; read l </proc/stat; echo "$l"; '
        "echo @disk; cat /proc/diskstats || echo '@missing disk'; "
        "echo @net; cat /proc/net/dev || echo '@missing net'; "
        "echo @end; "
        f"sleep {interval_s:g}; "
        "done"
    )


#: How long `start_line` waits for the sampler's first snapshot (a loaded VM under TCG is slow).
FIRST_SNAPSHOT_WAIT_S = 10


def start_line(out_file: str, pid_file: str, interval_s: float) -> str:
    """Start the sampler detached from the SSH session (setsid, no controlling tty), record its
    pid, and return once its first snapshot is written: that snapshot is the baseline every
    rate is counted from, so work started after `start` is never missed (on a loaded machine
    the loop could otherwise take its first reading after the job had begun)."""
    inner = shlex.quote(script(out_file, interval_s))
    f = shlex.quote(out_file)
    return (
        f"rm -f {f}; setsid sh -c {inner} </dev/null >/dev/null 2>&1 & "
        f"echo $! > {shlex.quote(pid_file)}; "
        f"i=0; while [ $i -lt {FIRST_SNAPSHOT_WAIT_S * 20} ] && ! grep -q '^@end' {f} 2>/dev/null; "
        f"do sleep 0.05; i=$((i+1)); done; cat {shlex.quote(pid_file)}"
    )


def start_in_line(work_dir: str, out_file: str, pid_file: str, interval_s: float) -> str:
    """`start_line`, once the host's work directory exists (quoted: a path, never shell). Pure."""
    return f"mkdir -p {shlex.quote(work_dir)} && " + start_line(out_file, pid_file, interval_s)


def collect_line(out_file: str) -> str:
    """Print the sampler's file and remove it. Pure."""
    f = shlex.quote(out_file)
    return f"cat {f} && rm -f {f}"


def stop_line(pid_file: str) -> str:
    """Stop the sampler by its recorded pid (and its session: the `sleep` it may be in)."""
    p = shlex.quote(pid_file)
    return (
        f"if [ -f {p} ]; then pid=$(cat {p}); kill -TERM -- -$pid 2>/dev/null || kill -TERM $pid 2>/dev/null; "
        f"rm -f {p}; fi; true"
    )


@dataclass
class Snapshot:
    uptime: float
    #: /proc/stat 'cpu' fields in USER_HZ ticks (user, nice, system, idle, iowait, irq, softirq, steal).
    cpu: dict[str, int] | None = None
    #: Bytes read and written, summed over whole disks.
    disk: tuple[int, int] | None = None
    #: Bytes received and sent, summed over interfaces except lo.
    net: tuple[int, int] | None = None
    missing: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class SamplerOutput:
    start_epoch: float
    start_uptime: float
    interval_s: float
    snapshots: list[Snapshot]

    def epoch(self, uptime: float) -> float:
        return self.start_epoch + (uptime - self.start_uptime)


def parse_cpu_line(line: str) -> dict[str, int]:
    parts = line.split()
    if not parts or parts[0] != "cpu":
        raise ValueError(f"not an aggregate /proc/stat cpu line: {line!r}")
    vals = [int(x) for x in parts[1:]]
    return {k: (vals[i] if i < len(vals) else 0) for i, k in enumerate(_STAT_FIELDS)}


def is_whole_disk(name: str) -> bool:
    return not _NOT_A_DISK.match(name)


def parse_diskstats(lines: list[str]) -> tuple[int, int]:
    """(bytes read, bytes written) over whole disks."""
    rd = wr = 0
    for line in lines:
        p = line.split()
        if len(p) < 10 or not is_whole_disk(p[2]):
            continue
        rd += int(p[5]) * _SECTOR
        wr += int(p[9]) * _SECTOR
    return rd, wr


def parse_net_dev(lines: list[str]) -> tuple[int, int]:
    """(bytes received, bytes sent) over every interface but loopback."""
    rx = tx = 0
    for line in lines:
        if ":" not in line:
            continue  # the two header lines
        name, _, rest = line.partition(":")
        p = rest.split()
        if name.strip() == "lo" or len(p) < 9:
            continue
        rx += int(p[0])
        tx += int(p[8])
    return rx, tx


def parse(text: str) -> SamplerOutput:
    """The sampler's file -> snapshots. Only snapshots closed by @end count: one torn by the
    kill that stopped the loop is dropped rather than read as a partial sum."""
    start: tuple[float, float, float] | None = None
    snaps: list[Snapshot] = []
    cur: Snapshot | None = None
    section = None
    buf: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.startswith("@start "):
            _, epoch, up, interval = line.split()
            start = (float(epoch), float(up), float(interval))
        elif line.startswith("@t "):
            cur, buf, section = Snapshot(float(line.split()[1])), {}, None
        elif cur is None:
            continue
        elif line in ("@stat", "@disk", "@net"):
            section = line[1:]
            buf[section] = []
        elif line.startswith("@missing "):
            cur.missing.add(line.split()[1])
        elif line == "@end":
            if buf.get("stat"):
                cur.cpu = parse_cpu_line(buf["stat"][0])
            if "disk" not in cur.missing and "disk" in buf:
                cur.disk = parse_diskstats(buf["disk"])
            if "net" not in cur.missing and "net" in buf:
                cur.net = parse_net_dev(buf["net"])
            snaps.append(cur)
            cur = None
        elif section is not None:
            buf[section].append(line)
    if start is None:
        raise ValueError("sampler output has no @start line")
    return SamplerOutput(start[0], start[1], start[2], snaps)
