"""Where two fresh clusters differ (issue #51 item 3): does the placement of TeraSort's map tasks
across the workers explain a run's job time?

YARN places each map attempt on whichever NodeManager has room when the AM asks; on a two-worker
cluster the 4 maps of TeraSort 128 MB land 2+2, 3+1 or 4+0, and a worker holding 3 or 4 of them
runs them on its share of 2 CPUs while the other idles. Every map attempt's sample records its
node (JobHistory), so the committed campaigns already say how often each split happened and what
it cost. Per campaign (exploratory: no run is added, none dropped):

  split      the runs' map splits across workers, largest first ("2+2", "3+1", "4+0"), with the
             count and the median job time per configuration
  effect     the log job time's change per extra map on the busiest worker (OLS of log job time
             on the busiest worker's map count, with a fixed effect per configuration and one per
             block and round, so that drift and platform are not read as placement), with its
             95 % interval
  explained  the s.d. of the residual log job time without and with the placement term: how much
             of the run-to-run spread placement is

    python3 selfbench/placement_reading.py DATA/raw/CAMPAIGN [DATA/raw/CAMPAIGN ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import statsmodels.api as sm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vbench.stats.tidy import read_campaign  # noqa: E402

#: The measured job (TeraSort's own step, not TeraGen's or TeraValidate's).
STEP = "terasort"


@dataclass(frozen=True)
class PlacementReading:
    campaign: str
    runs: int
    splits: dict[str, dict[str, tuple[int, float]]]  # configuration -> split -> (runs, median job s)
    effect: float | None  # log job time per extra map on the busiest worker
    effect_low: float | None
    effect_high: float | None
    residual_sd_without: float | None
    residual_sd_with: float | None


def split_label(nodes: list[str], workers: int) -> str:
    """ "3+1": the maps per worker, largest first, idle workers as 0 up to `workers`. Pure."""
    counts = sorted(pd.Series(nodes).value_counts().tolist(), reverse=True)
    counts += [0] * max(0, workers - len(counts))
    return "+".join(str(c) for c in counts)


def runs_frame(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per compared TeraSort run: configuration, block, round, job time, busiest worker's
    map count, split. Pure."""
    s = samples[(samples["benchmark"] == "terasort")]
    if "warmup" in s.columns:
        s = s[s["warmup"] != True]  # noqa: E712 (a column of True/False/NaN)
    maps = s[(s["metric"] == "map_attempt_time") & (s.get("step") == STEP)]
    jobs = s[s["metric"] == "terasort_job_time"]
    if maps.empty or jobs.empty:
        return pd.DataFrame()
    placed = maps.groupby("run_id").agg(nodes=("node", list), workers=("workers", "first"))
    placed["busiest"] = placed["nodes"].map(lambda n: int(pd.Series(n).value_counts().max()))
    placed["split"] = [split_label(n, int(w)) for n, w in zip(placed["nodes"], placed["workers"])]
    keys = ["run_id", "platform", "block"] + [c for c in ("round", "size_mb") if c in jobs.columns]
    j = jobs[keys + ["value"]].rename(columns={"value": "job_s"}).set_index("run_id")
    out = j.join(placed[["busiest", "split"]], how="inner").reset_index()
    if "round" not in out.columns:
        out["round"] = 0
    # A campaign of several sizes (size-512) is read per size: a configuration is platform and size.
    if "size_mb" in out.columns and out["size_mb"].nunique() > 1:
        out["platform"] = out["platform"].astype(str) + " " + out["size_mb"].map(lambda v: f"{int(v)}MB")
    return out


def reading(name: str, runs: pd.DataFrame) -> PlacementReading:
    """The split table and the placement effect of one campaign's runs (runs_frame). Pure."""
    splits = {
        str(cfg): {str(sp): (int(len(g)), float(g["job_s"].median())) for sp, g in grp.groupby("split", sort=True)}
        for cfg, grp in runs.groupby("platform", sort=True)
    }
    y = np.log(runs["job_s"].to_numpy(float))
    # Block and round within a size: each size's runs of a block are their own moment.
    size = runs["size_mb"].astype(str) if "size_mb" in runs.columns else ""
    moment = size + "/" + runs["block"].astype(str) + "/" + runs["round"].astype(str)
    fixed = pd.get_dummies(runs[["platform"]].astype(str).assign(cell=moment), drop_first=True).to_numpy(float)
    base = np.column_stack([np.ones(len(y)), fixed]) if fixed.size else np.ones((len(y), 1))
    with_placement = np.column_stack([base, runs["busiest"].to_numpy(float)])
    effect = low = high = sd_without = sd_with = None
    if runs["busiest"].nunique() > 1 and len(y) > with_placement.shape[1]:
        fit = sm.OLS(y, with_placement).fit()
        sd_without, sd_with = math.sqrt(sm.OLS(y, base).fit().scale), math.sqrt(fit.scale)
        effect = float(fit.params[-1])
        low, high = (float(v) for v in fit.conf_int(0.05)[-1])
    return PlacementReading(name, len(runs), splits, effect, low, high, sd_without, sd_with)


def report(r: PlacementReading) -> str:
    lines = [f"## {r.campaign}: {r.runs} compared TeraSort runs"]
    for cfg, by in r.splits.items():
        lines.append(f"  {cfg}: " + ", ".join(f"{sp} x{n} ({med:.1f} s)" for sp, (n, med) in by.items()))
    if r.effect is None:
        lines.append("  effect: one split only (or too few runs): not estimable")
    else:
        pct = lambda v: 100 * (math.exp(v) - 1)  # noqa: E731
        lines.append(
            f"  effect of one more map on the busiest worker: {pct(r.effect):+.1f} % "
            f"[{pct(r.effect_low):+.1f}, {pct(r.effect_high):+.1f}] job time"
        )
        lines.append(
            f"  residual s.d. of log job time: {r.residual_sd_without:.3f} without placement, "
            f"{r.residual_sd_with:.3f} with it"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("campaigns", nargs="+", type=Path)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    out = []
    for d in a.campaigns:
        runs = runs_frame(read_campaign(d).samples)
        if runs.empty:
            print(f"## {d.name}: no TeraSort map placement recorded", file=sys.stderr)
            continue
        out.append(reading(d.name, runs))
    if a.json:
        print(json.dumps([asdict(r) for r in out], indent=1))
    else:
        print("\n\n".join(report(r) for r in out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
