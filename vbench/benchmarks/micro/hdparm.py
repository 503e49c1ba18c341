"""hdparm -t: buffered sequential reads straight from a block device (Liu et al., section 3.2).

Liu et al. use it because dd's read figure comes from the page cache; hdparm flushes the
device's buffer cache first. It needs a block device: `device=None` means the one holding
the work dir, which a container (overlay, tmpfs) or a VM on a shared file system lacks.
"""

from __future__ import annotations

import re
import shlex
from pydantic import Field, field_validator

from vbench.benchmarks.base import BenchConfig
from vbench.errors import JobFailed
from vbench.samples import Sample

from ._common import RUN_KWARGS, Runner, check, number, one_step, sample

NAME = "hdparm"
METRICS = {"buffered_read_bw": "MiB/s", "direct_read_bw": "MiB/s"}  # the latter with --direct

#: Exit status the command uses for "the work dir has no block device under it".
NO_BLOCK_DEVICE = 64

# hdparm 9.x: " Timing buffered disk reads: 64 MB in  0.29 seconds = 220.42 MB/sec".
# Its MB is 2**20 bytes (TIMING_BUF_MB * 1024 * 1024), and below 1 MB/s it prints kB/sec.
_TIMING = re.compile(
    r"Timing (buffered|O_DIRECT) disk reads.*?:\s*(\d+) MB in\s+([0-9.]+) seconds"
    r"\s*=\s*([0-9.]+) (MB|kB)/sec"
)
_DEVICE = re.compile(r"^(/\S+):\s*$", re.M)


class HdparmConfig(BenchConfig):
    device: str | None = None  # None: the block device holding the work dir
    direct: bool = False  # --direct: O_DIRECT reads, bypassing the page cache entirely
    repeats: int = Field(3, ge=1, le=100)  # the hdparm man page asks for 2-3 runs; Liu et al. "several"

    @field_validator("device")
    @classmethod
    def _absolute(cls, v: str | None) -> str | None:
        # Shell-quoted, but a newline or NUL would still break the one-line command.
        if v is not None and (not v.startswith("/") or any(ch in v for ch in "\n\0")):
            raise ValueError(f"must be an absolute path, got {v!r}")
        return v


#: The registry and `vbench bench list` find every module's config under this name.
Config = HdparmConfig
PRESETS = {
    "liu2012": HdparmConfig(repeats=6),  # plain `hdparm -t` per node, repeated until stable (6, like dd)
}


def command(cfg: HdparmConfig, workdir: str) -> str:
    flags = "-t --direct" if cfg.direct else "-t"
    runs = " && ".join(f'hdparm {flags} "$dev"' for _ in range(cfg.repeats))
    if cfg.device is not None:
        return f"dev={shlex.quote(cfg.device)}; {runs}"
    # findmnt lists every file system stacked on the mount point, the visible one last, and
    # gives "/dev/sda2[/@home]" for a btrfs subvolume (strip the bracket); df is the fallback
    # where util-linux's findmnt is missing (busybox images).
    return (
        f"wd={shlex.quote(workdir)}; "
        'dev=$(findmnt -no SOURCE -T "$wd" 2>/dev/null | tail -n 1); '
        '[ -n "$dev" ] || dev=$(df --output=source "$wd" | tail -n 1); '
        'dev="${dev%%\\[*}"; '
        'if [ ! -b "$dev" ]; then echo "vbench: no block device under $wd: it is on '
        "'$dev', not a block device (container or shared file system?); "
        'name one with HdparmConfig(device=...)" >&2; '
        f"exit {NO_BLOCK_DEVICE}; fi; {runs}"
    )


def parse_stdout(text: str, cfg: HdparmConfig) -> list[Sample]:
    found = _TIMING.findall(text or "")
    if len(found) != cfg.repeats:
        raise JobFailed(f"hdparm: expected {cfg.repeats} timing lines, found {len(found)}")
    devices = _DEVICE.findall(text)
    samples = []
    for i, (mode, mb, secs, rate, scale) in enumerate(found, start=1):
        value = number("hdparm rate", rate) / (1024 if scale == "kB" else 1)
        meta = {
            "repeat": i,
            "device": devices[i - 1] if len(devices) >= i else (cfg.device or ""),
            "read_mib": int(mb),
            "seconds": number("hdparm seconds", secs),
        }
        metric = "direct_read_bw" if mode == "O_DIRECT" else "buffered_read_bw"
        samples.append(sample(NAME, metric, value, "MiB/s", cfg, **meta))
    return samples


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: HdparmConfig, workdir: str) -> tuple[list[Sample], str]:
    cmd = command(cfg, workdir)
    result = c.run(cmd, **RUN_KWARGS)
    if result.exited == NO_BLOCK_DEVICE:
        raise JobFailed(f"hdparm: {(result.stderr or '').strip() or 'no block device under ' + workdir}")
    return check(NAME, cmd, result, parse, cfg)
