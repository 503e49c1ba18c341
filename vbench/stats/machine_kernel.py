"""The machine's kernel a campaign ran on, and where campaigns read together ran on different ones.

On the AMD EPYC machine gVisor's ratios moved with the machine's kernel build, not only with the
hour: its TeraSort 2.75-3.43x native on 6.18.44-fc-v1147 (2026-12-04), 3.86-4.87x on v1272
(2026-12-06), a JVM's start 3.26-3.72x against 5.24-6.23x in wall time (docs/results.md, "The
machine's kernel under the pooled campaigns"). A judgement that pools campaigns, or carries a
calibration to jobs timed on another day, can mix kernels without saying so. Every sample of a
campaign on the local testbed carries `machine_kernel` (the controller's `uname -r`, which is every
local host's kernel: vbench.provenance.machine_kernel_stamp); before it, a Hadoop sample's `kernel`
(its master's `uname -r`) was the machine's where that master was native, LXC or OCI (a gVisor
sandbox reports its own emulated kernel, a VM its guest's). A calibration-only campaign from before
it recorded none.

Pure: samples in, kernels and notes out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import pandas as pd

from vbench.params import CONTAINER_PLATFORMS
from vbench.stats.tidy import value_text

#: Host platforms whose `uname -r` is the machine's own kernel (they share it).
SHARES_MACHINE_KERNEL = frozenset({"native", *CONTAINER_PLATFORMS})


def kernels_of(samples: pd.DataFrame) -> frozenset[str]:
    """The machine kernels `samples` say they ran on: every `machine_kernel`, and the `kernel` of
    the Hadoop samples whose hosts were all native, LXC or OCI (`platforms`). Empty: not recorded."""
    found: set[str] = set()
    if "machine_kernel" in samples.columns:
        found |= {value_text(v) for v in samples["machine_kernel"]}
    if "kernel" in samples.columns and "platforms" in samples.columns:
        shared = samples["platforms"].map(
            lambda p: bool(value_text(p)) and set(value_text(p).split(",")) <= SHARES_MACHINE_KERNEL
        )
        found |= {value_text(v) for v in samples.loc[shared, "kernel"]}
    return frozenset(k for k in found if k)


@dataclass(frozen=True)
class KernelsRead:
    """Which machine kernels campaigns read together ran on."""

    #: Each kernel, in name order, with the campaigns that recorded it (a campaign on two, under both).
    on: tuple[tuple[str, tuple[str, ...]], ...]
    #: The campaigns that recorded none.
    unrecorded: tuple[str, ...]

    @property
    def differ(self) -> bool:
        return len(self.on) > 1


def kernels_read(campaigns: Sequence[tuple[str, pd.DataFrame]]) -> KernelsRead:
    """The kernels `campaigns` (name, samples) say they ran on, each with its campaigns. Pure."""
    on: dict[str, list[str]] = {}
    unknown = []
    for name, samples in campaigns:
        kernels = kernels_of(samples)
        if not kernels:
            unknown.append(name)
        for k in sorted(kernels):
            on.setdefault(k, []).append(name)
    return KernelsRead(tuple((k, tuple(names)) for k, names in sorted(on.items())), tuple(unknown))


def kernels_differ(campaigns: Sequence[tuple[str, pd.DataFrame]]) -> list[str]:
    """One note where `campaigns` (name, samples) ran on more than one machine kernel: each kernel
    with the campaigns on it, then those that recorded none; nothing where they agree or where
    fewer than two recorded one."""
    read = kernels_read(campaigns)
    if not read.differ:
        return []
    said = "; ".join(f"{k} ({', '.join(names)})" for k, names in read.on)
    none = f"; not recorded: {', '.join(read.unrecorded)}" if read.unrecorded else ""
    return [
        f"the campaigns read ran on different kernels of the machine: {said}{none}. gVisor's ratios moved with the "
        "kernel on the AMD EPYC machine (docs/results.md, the machine's kernel under the pooled campaigns)"
    ]
