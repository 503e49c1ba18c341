"""What a campaign's statistics compare: the platform (the default), or environment factors.

A network-mode study compares `network.mode` levels against `bridge`, within each cell of the
other factors (VMs per host, data size, and the platform itself); a platform study compares
platforms against `native`. The statistics and the paper only know a compared column called
`platform` and a cell key, so the comparison is a view of the samples: `platform` becomes the
compared level(s), the real platform is kept as `host_platform` and, when not compared, becomes
a factor (`factor.platform`) like any other. The compared factor's own column moves from
`factor.<name>` (a cell key) to `level.<name>` (read by name only, as the reproduction delta does).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import pandas as pd

from vbench.campaign.design import compared_baseline
from vbench.errors import ParamsError
from vbench.stats.tidy import plain

PLATFORM = "platform"
#: A comparison view keeps each compared factor's level as `level.<factor>`.
LEVEL = "level."


@dataclass(frozen=True)
class Comparison:
    compare: tuple[str, ...] = (PLATFORM,)
    baseline: str | None = None

    @property
    def is_platforms(self) -> bool:
        return self.compare == (PLATFORM,)

    def baseline_or(self, default: str) -> str:
        return self.baseline if self.baseline is not None else default


def design_of(campaign_dir: Path) -> dict:
    """The design a campaign ran (campaign.json's `experiment`); {} where it has none."""
    meta = Path(campaign_dir) / "campaign.json"
    if not meta.is_file():
        return {}
    return json.loads(meta.read_text()).get("experiment", {}) or {}


def comparison_in(design: dict) -> Comparison:
    """The comparison a design (campaign.json's `experiment`) declares, else platforms, with its
    baseline (`vbench.campaign.design.compared_baseline`: the first levels where it names none). Pure."""
    compare = tuple(design.get("compare") or (PLATFORM,))
    baseline = compared_baseline(
        design.get("platforms") or (), design.get("factors") or {}, compare, design.get("baseline")
    )
    return Comparison(compare, baseline)


def comparison_of(campaign_dir: Path) -> Comparison:
    """The comparison a campaign's design declares (campaign.json), else platforms."""
    return comparison_in(design_of(campaign_dir))


def comparison_view(samples: pd.DataFrame, compare: Sequence[str]) -> pd.DataFrame:
    """The samples with `platform` = the compared level(s) joined by "/" (see module doc)."""
    compare = tuple(compare)
    if compare == (PLATFORM,) or samples.empty:
        return samples
    cols = [PLATFORM if c == PLATFORM else f"factor.{c}" for c in compare]
    missing = [c for c in cols if c not in samples.columns]
    if missing:
        raise ParamsError("compare", f"the samples have no column {missing} (was the factor in the design?)")
    out = samples.copy()
    out["host_platform"] = out[PLATFORM]
    # A level a sample lacks (a factor scoped to another platform, such as gVisor's network on a
    # native host) is left out of its label: "native", "gvisor/host".
    out[PLATFORM] = out[cols].apply(lambda r: "/".join(str(v) for v in r if pd.notna(v)), axis=1)
    if PLATFORM not in compare:
        out["factor.platform"] = out["host_platform"]
    # The compared factor leaves the cell key (vbench.stats.tidy.add_cells reads factor.*) but its
    # level stays readable by name: the reproduction delta selects on it (network.mode: bridge+nat).
    return out.rename(columns={c: LEVEL + c.removeprefix("factor.") for c in cols if c != PLATFORM})


def sample_platforms(samples: pd.DataFrame) -> pd.Series:
    """The platform each sample ran on: `platform`, except in a comparison view, whose `platform`
    holds factor levels ("2", "bridge+nat") and whose platform is `host_platform`."""
    plat = samples[PLATFORM].astype(str)
    levels = [c for c in samples.columns if c.startswith(LEVEL)]
    if levels and "host_platform" in samples.columns:
        compared = samples[levels].notna().any(axis=1) & samples["host_platform"].notna()
        plat = plat.where(~compared, samples["host_platform"].astype(str))
    return plat


def measured_platforms(samples: pd.DataFrame) -> list[str]:
    """The platforms the samples measured (sample_platforms), in the order first met."""
    if samples.empty or PLATFORM not in samples.columns:
        return []
    return list(dict.fromkeys(sample_platforms(samples)))


def compared_levels(samples: pd.DataFrame) -> dict[str, list[str]]:
    """Compared factor -> its levels in the samples (a comparison view's `level.*` columns), as
    text: a whole number stays one (guests per host 1, 2, 4, not the 1.0 a column with gaps holds)."""
    return {
        c.removeprefix(LEVEL): list(dict.fromkeys(samples[c].dropna().map(plain)))
        for c in samples.columns
        if c.startswith(LEVEL) and samples[c].notna().any()
    }
