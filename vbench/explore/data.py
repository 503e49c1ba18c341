"""One campaign as the statistics stage reads it, seen through a chosen comparison.

The samples are the statistics' own (`vbench.stats.campaign.load_campaign`): metrics named for
analysis (`terasort.job_time`, the source's name kept as `raw_metric`), the compared factor's
level in `platform` (the real platform in `host_platform`), the other varying factors part of the
cell (`size`). Which factor is compared is the design's choice (campaign.json) unless the reader
picks another; the statistics settings are the stage's (params/pipeline.yaml).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import pandas as pd

from vbench.errors import ParamsError
from vbench.params import load_yaml_section
from vbench.stats.campaign import Campaign, load_campaign
from vbench.stats.campaign_stats import StatsConfig, wanted_metric
from vbench.stats.compare import PLATFORM, Comparison, comparison_of, comparison_view
from vbench.stats.keys import natural_key

#: Where dvc.yaml's statistics stage takes its settings from, beside data/.
STAGE_PARAMS = Path("params") / "pipeline.yaml"
#: params/pipeline.yaml's keys -> StatsConfig's fields, as dvc.yaml passes them to the stage.
STAGE_KEYS = {"baseline": "baseline", "equivalence_pct": "equivalence_pct", "resamples": "n_resamples", "seed": "seed"}


def stage_settings(data_dir: Path) -> StatsConfig:
    """The statistics stage's settings from the repository's params/pipeline.yaml (what dvc.yaml
    passes it), so the notebook's numbers are the stage's; its defaults when the file is absent."""
    path = Path(data_dir).parent / STAGE_PARAMS
    if not path.is_file():
        return StatsConfig()
    section = load_yaml_section(path, "pipeline", required=True)
    given = {field: section[key] for key, field in STAGE_KEYS.items() if key in section}
    for key, field in STAGE_KEYS.items():
        v = given.get(field)
        if v is None:
            continue
        if field == "baseline" and (not isinstance(v, str) or not v):
            raise ParamsError(f"{path}: pipeline.{key}", f"must be a level's name, got {v!r}")
        if field != "baseline" and (
            isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0
        ):
            raise ParamsError(f"{path}: pipeline.{key}", f"must be a positive number, got {v!r}")
        if field in ("n_resamples", "seed") and not isinstance(v, int):  # int() would cut 1.5 to 1
            raise ParamsError(f"{path}: pipeline.{key}", f"must be a whole number, got {v!r}")
    if "n_resamples" in given:
        given["n_resamples"] = int(given["n_resamples"])
    if "seed" in given:
        given["seed"] = int(given["seed"])
    return StatsConfig(**given)


@dataclass(frozen=True, eq=False)
class CampaignData:
    raw: Path
    campaign: Campaign
    #: The failure records, the compared factor's level in `platform` as for the samples.
    failures: pd.DataFrame
    #: What `platform` holds and the level the others are divided by.
    comparison: Comparison
    #: The statistics settings, `baseline` the level compared against.
    config: StatsConfig
    #: What the campaign's design declares (platforms when it has no campaign.json).
    declared: Comparison
    #: The baseline the statistics stage compares the design's levels with.
    stage_baseline: str

    @property
    def samples(self) -> pd.DataFrame:
        return self.campaign.samples

    @property
    def name(self) -> str:
        return self.raw.name

    @property
    def baseline(self) -> str:
        return self.config.baseline

    @property
    def is_stage_comparison(self) -> bool:
        """The design's comparison against the stage's baseline: the statistics stage's numbers."""
        return self.comparison.compare == self.declared.compare and self.baseline == self.stage_baseline

    def benchmarks(self) -> list[str]:
        return sorted(self.samples["benchmark"].astype(str).unique(), key=natural_key) if len(self.samples) else []

    def metrics(self, benchmark: str) -> list[str]:
        """The metrics of `benchmark` the statistics compare (`campaign_stats.wanted_metric`)."""
        s = self.samples
        names = s.loc[s["benchmark"] == benchmark, "metric"].astype(str).unique() if len(s) else []
        return sorted((m for m in names if wanted_metric(m)), key=natural_key)

    def levels(self) -> list[str]:
        return self.campaign.platforms

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


def pick_baseline(levels: list[str], wanted: str | None, default: str) -> str:
    """`wanted` when it is a level, else `default` when it is one, else the first level."""
    for choice in (wanted, default):
        if choice is not None and choice in levels:
            return choice
    return levels[0] if levels else (wanted or default)


def _stamp(raw: Path) -> tuple:
    """What says a campaign's files changed: size and modification time of its inputs."""
    return tuple(
        (f.stat().st_size, f.stat().st_mtime_ns) if f.is_file() else None
        for f in (raw / "samples.jsonl", raw / "campaign.json")
    )


@lru_cache(maxsize=16)
def _read(raw: Path, comparison: Comparison, stamp: tuple) -> Campaign:
    # The notebook reloads a campaign at every change of comparison or baseline; reading it costs
    # seconds, and the same files give the same Campaign (which nothing here modifies).
    return load_campaign(raw, comparison)


def read(raw: Path, comparison: Comparison | None = None) -> Campaign:
    """`load_campaign(raw, comparison)`, read again only when the campaign's files changed."""
    raw = Path(raw).resolve()
    return _read(raw, comparison or comparison_of(raw), _stamp(raw))


def _failures(campaign: Campaign, comparison: Comparison) -> pd.DataFrame:
    f = pd.DataFrame(campaign.failures)
    # A failed run is a level of the compared factor too (its record carries the factors).
    if (
        len(f)
        and not comparison.is_platforms
        and all(c == PLATFORM or f"factor.{c}" in f.columns for c in comparison.compare)
    ):
        f = comparison_view(f, comparison.compare)
    return f


def load(
    raw: Path,
    compare: tuple[str, ...] | None = None,
    baseline: str | None = None,
    settings: StatsConfig = StatsConfig(),
) -> CampaignData:
    """The campaign at `raw` with `compare` (default: the design's) as its levels.

    With the design's own comparison and no `baseline` given, everything is as the statistics
    stage has it: the design's baseline, else the stage's, whether or not the samples hold it (then
    the stage, and so the notebook, says there is no baseline). Another comparison or baseline is
    the reader's: its baseline is `baseline` if it is a level, else the stage's, else the first."""
    raw = Path(raw)
    declared = comparison_of(raw)
    compare = tuple(compare) if compare else declared.compare
    own = compare == declared.compare
    if own and baseline is None:
        campaign = read(raw)
        chosen = declared.baseline_or(settings.baseline)
    else:
        campaign = read(raw, Comparison(compare))
        chosen = pick_baseline(
            campaign.platforms, baseline, declared.baseline_or(settings.baseline) if own else settings.baseline
        )
        # Every experiment against the chosen level (campaign_stats falls back to config.baseline).
        campaign = replace(campaign, baselines={})
    comparison = Comparison(compare, chosen)
    config = StatsConfig(
        baseline=chosen,
        conf=settings.conf,
        n_resamples=settings.n_resamples,
        seed=settings.seed,
        equivalence_pct=settings.equivalence_pct,
    )
    return CampaignData(
        raw,
        campaign,
        _failures(campaign, comparison),
        comparison,
        config,
        declared,
        declared.baseline_or(settings.baseline),
    )


def compare_choices(raw: Path) -> list[tuple[str, ...]]:
    """What can be compared in this campaign: the design's comparison first, then the platform and
    each design factor (`factor.*`) that has more than one level in the samples."""
    raw = Path(raw)
    declared = comparison_of(raw)
    samples = read(raw, Comparison()).samples  # the platforms' view keeps every factor.* column
    out = [declared.compare]
    if samples.empty:
        return out
    candidates = [PLATFORM] + sorted(c.removeprefix("factor.") for c in samples.columns if c.startswith("factor."))
    for name in candidates:
        col = PLATFORM if name == PLATFORM else f"factor.{name}"
        if (name,) not in out and samples[col].dropna().astype(str).nunique() > 1:
            out.append((name,))
    return out
