"""The isolation slowdown (Xavier et al., Table III): one computation for `vbench isolation` and the paper.

slowdown % = (mean TeraSort time beside the stress / mean time beside an idle neighbour - 1) x 100,
a row of `compute_stats` with the stress level as the "platform" and `none` as the baseline, so the
intervals are the statistics table's: Fieller's (the paper's; honest with 3 runs) and the two-sample
BCa bootstrap (docs/statistics.md: too narrow below ~10 runs, shown for contrast).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from vbench.stats.bootstrap import DEFAULT_RESAMPLES
from vbench.stats.keys import natural_key
from vbench.stats.table import compute_stats
from vbench.stats.table.rows import DEFAULT_SEED

#: The stress level every other is compared with: an idle neighbour.
BASELINE = "none"
METRIC = "terasort_time"


def slowdown_stats(
    samples: pd.DataFrame, *, conf: float = 0.95, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> pd.DataFrame:
    """Statistics of TeraSort beside each stress, per platform (experiment = "<experiment>/<platform>").

    `samples`: tidy rows (vbench.stats.tidy) carrying `stress`; rows of other metrics are ignored.
    The size is the paper's size label where the frame has one (its `size` holds the whole cell,
    stress included), else the runner's `size`."""
    if samples is None or samples.empty or "stress" not in samples.columns:
        return pd.DataFrame()
    df = samples[(samples["benchmark"] == "terasort") & (samples["metric"] == METRIC) & samples["stress"].notna()]
    if df.empty:
        return pd.DataFrame()
    size = df["size_label"] if "size_label" in df.columns else df["size"] if "size" in df.columns else ""
    tidy = pd.DataFrame(
        {
            "experiment": df["experiment"].astype(str) + "/" + df["platform"].astype(str),
            "platform": df["stress"].astype(str),
            "benchmark": df["benchmark"],
            "metric": df["metric"],
            "unit": df["unit"],
            "value": df["value"],
            "repetition": df["repetition"],
            "size": pd.Series(size, index=df.index).astype(str),
        }
    )
    tidy.attrs["source"] = "isolation samples"
    return compute_stats(tidy, baseline=BASELINE, conf=conf, n_resamples=n_resamples, seed=seed)


@dataclass(frozen=True)
class Slowdown:
    """One stress level of one platform, as `vbench isolation` prints it."""

    experiment: str  # "<experiment>/<platform>"
    stress: str
    n: int
    mean_s: float
    pct: float | None  # % slower than beside the idle neighbour; None for the baseline itself
    fieller: tuple[float, float]  # 95 % interval of pct (NaN: none)
    bootstrap: tuple[float, float]

    def text(self, interval: tuple[float, float] | None = None) -> str:
        low, high = interval or self.fieller
        if self.pct is None or math.isnan(self.pct):
            return "-"
        if math.isnan(low) or math.isnan(high):
            return f"{self.pct:+.1f} % (no CI: fewer than 2 runs of this stress or of the baseline)"
        return f"{self.pct:+.1f} % [{low:+.1f}, {high:+.1f}]"


def slowdown_rows(stats: pd.DataFrame, stress_order: tuple[str, ...] = ()) -> list[Slowdown]:
    """The rows of a `slowdown_stats` table: per platform, the baseline first, then `stress_order`,
    then any other stress by name."""
    if stats is None or stats.empty:
        return []
    means = stats[(stats["statistic"] == "mean") & (stats["method"] == "t")]
    out = []
    for experiment in sorted(means["experiment"].unique(), key=natural_key):
        here = stats[stats["experiment"] == experiment]
        present = set(means.loc[means["experiment"] == experiment, "platform"])  # not "all" (tests across)
        order = list(dict.fromkeys([BASELINE, *stress_order]))
        for stress in [s for s in order if s in present] + sorted(present - set(order), key=natural_key):
            rows = here[here["platform"] == stress]
            mean = rows[(rows["statistic"] == "mean") & (rows["method"] == "t")].iloc[0]
            fieller, boot = (_interval(rows, m) for m in ("fieller", "bca_bootstrap"))
            out.append(
                Slowdown(
                    experiment,
                    stress,
                    int(mean["n"]),
                    float(mean["estimate"]),
                    None if stress == BASELINE else fieller[0],
                    fieller[1:],
                    boot[1:],
                )
            )
    return out


def _interval(rows: pd.DataFrame, method: str) -> tuple[float, float, float]:
    r = rows[(rows["statistic"] == "overhead_pct") & (rows["method"] == method)]
    if r.empty:
        return (math.nan, math.nan, math.nan)
    x = r.iloc[-1]
    return tuple(float(v) if pd.notna(v) else math.nan for v in (x["estimate"], x["ci_low"], x["ci_high"]))
