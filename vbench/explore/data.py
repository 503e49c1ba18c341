"""One campaign's tidy samples and failures, seen through a chosen comparison.

The samples are the statistics stage's own (`vbench.pipeline.tidy`): the compared factor's level is
the `platform` column, the other varying factors are part of the cell (`size`). Which factor is
compared is the design's choice (campaign.json) unless the reader picks another.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from vbench import pipeline
from vbench.campaign.compare import PLATFORM, Comparison, comparison_of, comparison_view
from vbench.stats.keys import natural_key

#: The baseline the statistics stage uses when the design names none (params/pipeline.yaml).
DEFAULT_BASELINE = "native"


@dataclass(frozen=True, eq=False)
class CampaignData:
    raw: Path
    #: Tidy samples, `platform` holding the compared level (`host_platform` the real platform).
    samples: pd.DataFrame
    failures: pd.DataFrame
    #: What `platform` holds and the level the others are divided by.
    comparison: Comparison
    baseline: str
    #: What the campaign's design declares (platforms when it has no campaign.json).
    declared: Comparison

    @property
    def name(self) -> str:
        return self.raw.name

    @property
    def is_declared(self) -> bool:
        """The comparison is the design's own: the numbers are the statistics stage's."""
        return self.comparison.compare == self.declared.compare

    def benchmarks(self) -> list[str]:
        return sorted(self.samples["benchmark"].astype(str).unique(), key=natural_key) if len(self.samples) else []

    def metrics(self, benchmark: str) -> list[str]:
        """The metrics of `benchmark` the statistics compare (no per-attempt timings or counters)."""
        s = pipeline.headline(self.samples[self.samples["benchmark"] == benchmark]) if len(self.samples) else self.samples
        return sorted(s["metric"].astype(str).unique(), key=natural_key) if len(s) else []

    def levels(self) -> list[str]:
        return sorted(self.samples["platform"].astype(str).unique(), key=natural_key) if len(self.samples) else []

    def design(self) -> dict:
        """The experiment of campaign.json, or {} for a campaign run outside a design."""
        meta = self.raw / "campaign.json"
        return json.loads(meta.read_text()).get("experiment", {}) if meta.is_file() else {}


def sort_naturally(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows in the natural order of their index ("2" before "10"), one level or several."""
    def key(k) -> tuple:
        return tuple(natural_key(x) for x in (k if isinstance(k, tuple) else (k,)))
    return frame.reindex(sorted(frame.index, key=key))


def label(compare: tuple[str, ...]) -> str:
    return "/".join(compare)


def parse_label(text: str) -> tuple[str, ...]:
    return tuple(text.split("/"))


def pick_baseline(levels: list[str], wanted: str | None) -> str:
    """`wanted` when it is a level, else native when there is one, else the first level."""
    for choice in (wanted, DEFAULT_BASELINE):
        if choice is not None and choice in levels:
            return choice
    return levels[0] if levels else (wanted or DEFAULT_BASELINE)


def load(raw: Path, compare: tuple[str, ...] | None = None, baseline: str | None = None) -> CampaignData:
    """The campaign at `raw` with `compare` (default: the design's) as its levels.

    With the design's own comparison and no `baseline` given, the baseline is the statistics
    stage's: the design's, else native, whether or not the samples hold it (then the stage, and
    so the notebook, says there is no baseline)."""
    raw = Path(raw)
    declared = comparison_of(raw)
    compare = tuple(compare) if compare else declared.compare
    own = compare == declared.compare
    comparison = Comparison(compare, declared.baseline if own else None)
    samples, failures = pipeline.tidy(raw, comparison)
    if not comparison.is_platforms and len(failures):
        # A failed run is a level of the compared factor too (its record carries the factors).
        if all(c == PLATFORM or f"factor.{c}" in failures.columns for c in compare):
            failures = comparison_view(failures, compare)
    if own and baseline is None:
        chosen = declared.baseline_or(DEFAULT_BASELINE)
    else:
        levels = sorted(samples["platform"].astype(str).unique(), key=natural_key) if len(samples) else []
        chosen = pick_baseline(levels, baseline)
    return CampaignData(raw, samples, failures, Comparison(compare, chosen), chosen, declared)


def compare_choices(raw: Path) -> list[tuple[str, ...]]:
    """What can be compared in this campaign: the design's comparison first, then the platform and
    each design factor (`factor.*`) that has more than one level in the samples."""
    raw = Path(raw)
    declared = comparison_of(raw)
    samples, _ = pipeline.tidy(raw, Comparison())  # the platforms' view keeps every factor.* column
    out = [declared.compare]
    if samples.empty:
        return out
    candidates = [PLATFORM] + sorted(c.removeprefix("factor.") for c in samples.columns if c.startswith("factor."))
    for name in candidates:
        col = PLATFORM if name == PLATFORM else f"factor.{name}"
        if (name,) not in out and samples[col].dropna().astype(str).nunique() > 1:
            out.append((name,))
    return out
