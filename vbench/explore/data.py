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
from vbench.errors import ParamsError
from vbench.campaign.compare import PLATFORM, Comparison, comparison_of, comparison_view
from vbench.params import load_yaml_section
from vbench.stats.keys import natural_key

#: The baseline the statistics stage uses when the design names none (params/pipeline.yaml).
DEFAULT_BASELINE = "native"
#: Where dvc.yaml's statistics stage takes its baseline and TOST bound from, beside data/.
STAGE_PARAMS = Path("params") / "pipeline.yaml"


@dataclass(frozen=True)
class StageSettings:
    """The statistics stage's settings: the notebook's numbers are the stage's only with the same."""

    baseline: str = DEFAULT_BASELINE
    equivalence_pct: float = 5.0


def stage_settings(data_dir: Path) -> StageSettings:
    """`pipeline.baseline` and `pipeline.equivalence_pct` of the repository's params/pipeline.yaml
    (what dvc.yaml passes the statistics stage); the stage's defaults when the file is absent."""
    path = Path(data_dir).parent / STAGE_PARAMS
    if not path.is_file():
        return StageSettings()
    section = load_yaml_section(path, "pipeline", required=True)
    baseline = section.get("baseline", DEFAULT_BASELINE)
    pct = section.get("equivalence_pct", StageSettings.equivalence_pct)
    if not isinstance(baseline, str) or not baseline:
        raise ParamsError(f"{path}: pipeline.baseline", f"must be a level's name, got {baseline!r}")
    if isinstance(pct, bool) or not isinstance(pct, (int, float)) or not pct > 0:
        raise ParamsError(f"{path}: pipeline.equivalence_pct", f"must be a positive number, got {pct!r}")
    return StageSettings(baseline, float(pct))


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


def pick_baseline(levels: list[str], wanted: str | None, default: str = DEFAULT_BASELINE) -> str:
    """`wanted` when it is a level, else `default` when it is one, else the first level."""
    for choice in (wanted, default):
        if choice is not None and choice in levels:
            return choice
    return levels[0] if levels else (wanted or default)


def load(raw: Path, compare: tuple[str, ...] | None = None, baseline: str | None = None,
         settings: StageSettings = StageSettings()) -> CampaignData:
    """The campaign at `raw` with `compare` (default: the design's) as its levels.

    With the design's own comparison and no `baseline` given, the baseline is the statistics
    stage's: the design's, else the stage's setting, whether or not the samples hold it (then the
    stage, and so the notebook, says there is no baseline)."""
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
        chosen = declared.baseline_or(settings.baseline)
    else:
        levels = sorted(samples["platform"].astype(str).unique(), key=natural_key) if len(samples) else []
        chosen = pick_baseline(levels, baseline, settings.baseline)
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
