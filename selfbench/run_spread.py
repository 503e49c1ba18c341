"""Where a TeraSort run's spread lives inside the run (issue #51 item 3), read from what every
sample already carries: JobHistory's job start and finish and each task attempt's start and
finish, and the job's counters. Exploratory: no run is added, none dropped.

Per campaign, every pair of configurations measured in the same block and round (and, in a design
with benchmark-parameter levels, at the same level) gives one difference of each run's parts:

  set-up   job start -> the first map attempt's start (the ApplicationMaster asking for and
           launching containers)
  maps     the first map attempt's start -> the last map attempt's finish
  tail     the last map's finish -> the last reduce's finish (what the reduces do after the maps)
  commit   the last reduce's finish -> job finish

The four add up to the job time, so each part's share of the variance of the difference of job
times (cov(part, job) / var(job)) adds up to 1. Beside them: the correlation of the log ratio of
job times with the log ratio of the tasks' own CPU time (CPU_MILLISECONDS), and its s.d.

`--aa-by PARAM` reads a design whose benchmark parameter PARAM has levels run on the same clusters
(params/experiments/lean-jit.yaml): per level, the s.d. of the A/A log ratio of job time over its
rounds after each block's mean is removed, the one-sided F test of the levels' variances, the
tasks' CPU time of each level against the first (paired by configuration, block and round), and
each level's job time against the first.

    python3 selfbench/run_spread.py DATA/raw/CAMPAIGN [...] [--aa-by task_jit] [--json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vbench.samples import AA_SUFFIX  # noqa: E402
from vbench.stats.tidy import read_campaign  # noqa: E402

#: The measured job (TeraSort's own step, not TeraGen's).
STEP = "terasort"
PARTS = ("setup", "maps", "tail", "commit")
CPU = "counter.terasort.TaskCounter.CPU_MILLISECONDS"
JOB = "terasort_job_time"


@dataclass(frozen=True)
class SpreadReading:
    campaign: str
    runs: int
    pairs: int
    mean_job_s: float
    #: s.d. of the within-round difference of job times (s), and as a log ratio.
    sd_diff_s: float
    sd_log_ratio: float
    #: part -> its share of the variance of the difference of job times (they add up to 1).
    shares: dict[str, float]
    #: part -> s.d. of its within-round difference (s).
    sd_parts_s: dict[str, float]
    #: The maps' start stagger (last map start - first), s.d. of its difference (s).
    sd_map_stagger_s: float
    #: Correlation of the log ratio of job times with that of the tasks' CPU time, and the latter's s.d.
    corr_job_cpu: float
    sd_log_cpu_ratio: float


def configuration(samples: pd.DataFrame) -> pd.Series:
    """A run's configuration: its platform label and the factor levels that set it apart. Pure."""
    factors = sorted(c for c in samples.columns if c.startswith("factor.slowdown.") or c.startswith("factor.hadoop."))
    label = samples["platform"].astype(str)
    for c in factors:
        label = label + "[" + samples[c].astype(str) + "]"
    return label


def runs_frame(samples: pd.DataFrame, level: str | None = None) -> pd.DataFrame:
    """One row per compared TeraSort run: configuration, block, round, the benchmark-parameter
    `level` (if given), job time, its parts (s), the maps' start stagger and the tasks' CPU s. Pure."""
    s = samples[samples["benchmark"] == "terasort"]
    if "warmup" in s.columns:
        s = s[s["warmup"] != True]  # noqa: E712 (a column of True/False/NaN)
    s = s.assign(config=configuration(s))
    attempts = s[s["metric"].isin(["map_attempt_time", "reduce_attempt_time"]) & (s.get("step") == STEP)]
    per_run = s[s["metric"].isin([JOB, CPU])].pivot_table(index="run_id", columns="metric", values="value")
    keys = ["config", "block", "round"] + ([f"factor.{level}"] if level else [])
    ident = s.drop_duplicates("run_id").set_index("run_id")[keys]
    rows = []
    for run_id, g in attempts.groupby("run_id"):
        maps, reduces = g[g["metric"] == "map_attempt_time"], g[g["metric"] == "reduce_attempt_time"]
        if maps.empty or reduces.empty or run_id not in per_run.index:
            continue
        start, finish = float(g["job_start_ms"].iloc[0]), float(g["job_finish_ms"].iloc[0])
        last_map = float(maps["finish_ms"].max())
        rows.append(
            {
                "run_id": run_id,
                **ident.loc[run_id].to_dict(),
                "job": (finish - start) / 1000,
                "setup": (float(maps["start_ms"].min()) - start) / 1000,
                "maps": (last_map - float(maps["start_ms"].min())) / 1000,
                "tail": (float(reduces["finish_ms"].max()) - last_map) / 1000,
                "commit": (finish - float(reduces["finish_ms"].max())) / 1000,
                "map_stagger": (float(maps["start_ms"].max()) - float(maps["start_ms"].min())) / 1000,
                "cpu": float(per_run.loc[run_id].get(CPU, math.nan)) / 1000,
            }
        )
    out = pd.DataFrame(rows)
    if level and not out.empty:
        out = out.rename(columns={f"factor.{level}": "level"})
    return out


def within_round_differences(runs: pd.DataFrame) -> pd.DataFrame:
    """Every pair of configurations in the same block, round (and level): the later-named minus
    the earlier-named, for the job time, its parts and the stagger, with the log ratios of job
    and CPU time. Pure."""
    cols = ["job", *PARTS, "map_stagger"]
    keys = ["block", "round"] + (["level"] if "level" in runs.columns else [])
    rows = []
    for _, g in runs.groupby(keys):
        g = g.set_index("config")
        for a, b in itertools.combinations(sorted(g.index.unique()), 2):
            if isinstance(g.loc[a], pd.DataFrame) or isinstance(g.loc[b], pd.DataFrame):
                continue  # a configuration twice in one round: not a pair
            d = (g.loc[b, cols] - g.loc[a, cols]).astype(float).to_dict()
            d["log_job"] = math.log(g.loc[b, "job"] / g.loc[a, "job"])
            d["log_cpu"] = math.log(g.loc[b, "cpu"] / g.loc[a, "cpu"])
            d["pair"] = f"{b}/{a}"
            rows.append(d)
    return pd.DataFrame(rows)


def spread_reading(campaign: str, runs: pd.DataFrame) -> SpreadReading | None:
    """The shares of the within-round differences' variance, per part. Pure. Each pair kind's
    mean is removed first, so a planted or platform effect is not read as spread."""
    diffs = within_round_differences(runs)
    if len(diffs) < 3:
        return None
    centred = diffs.groupby("pair", group_keys=False)[[c for c in diffs.columns if c != "pair"]].apply(
        lambda g: g - g.mean()
    )
    var = float(centred["job"].var())
    return SpreadReading(
        campaign=campaign,
        runs=len(runs),
        pairs=len(diffs),
        mean_job_s=round(float(runs["job"].mean()), 2),
        sd_diff_s=round(math.sqrt(var), 3),
        sd_log_ratio=round(float(centred["log_job"].std()), 4),
        shares={p: round(float(np.cov(centred[p], centred["job"])[0, 1]) / var, 3) for p in PARTS},
        sd_parts_s={p: round(float(centred[p].std()), 3) for p in PARTS},
        sd_map_stagger_s=round(float(centred["map_stagger"].std()), 3),
        corr_job_cpu=round(float(np.corrcoef(centred["log_job"], centred["log_cpu"])[0, 1]), 3),
        sd_log_cpu_ratio=round(float(centred["log_cpu"].std()), 4),
    )


# -- a design with benchmark-parameter levels on the same clusters (lean-jit) ------------------------


@dataclass(frozen=True)
class LevelSpread:
    level: str
    pairs: int
    #: s.d. of the A/A log ratio of job time (and of the tasks' CPU time) after block means.
    sd_aa: float
    sd_aa_cpu: float
    dof: int
    #: Mean A/A log ratio with its paired-t 95 % interval over the rounds (as ratios).
    aa_ratio: float
    aa_low: float
    aa_high: float
    #: This level against the first, paired by configuration, block and round (ratios, 95 %).
    job_vs_first: tuple[float, float, float] | None
    cpu_vs_first: tuple[float, float, float] | None
    #: One-sided F test that this level's A/A variance is below the first's.
    f_p_below_first: float | None


def _t_interval(x: np.ndarray) -> tuple[float, float, float]:
    m, se = float(np.mean(x)), float(np.std(x, ddof=1) / math.sqrt(len(x)))
    t = float(stats.t.ppf(0.975, len(x) - 1))
    return (round(math.exp(m), 4), round(math.exp(m - t * se), 4), round(math.exp(m + t * se), 4))


def aa_by_level(runs: pd.DataFrame, reference: str) -> list[LevelSpread]:
    """Per level of the benchmark parameter, the A/A spread over rounds and the level's effect
    against the `reference` level (listed first, the others after it, sorted). Pure."""
    base = runs[~runs["config"].str.contains(AA_SUFFIX, regex=False)]
    copy = runs[runs["config"].str.contains(AA_SUFFIX, regex=False)]
    keys = ["block", "round", "level"]
    aa = base.set_index(keys)[["job", "cpu"]].join(copy.set_index(keys)[["job", "cpu"]].add_suffix("_aa")).dropna()
    aa["log_job"] = np.log(aa["job_aa"] / aa["job"])
    aa["log_cpu"] = np.log(aa["cpu_aa"] / aa["cpu"])
    levels = [reference, *sorted(str(x) for x in set(runs["level"].astype(str)) - {reference})]
    runs = runs.assign(level=runs["level"].astype(str))
    aa = aa.rename(index=str, level="level")
    out: list[LevelSpread] = []
    first_var = None
    for level in levels:
        x = aa.xs(level, level="level")
        within = x[["log_job", "log_cpu"]] - x.groupby(level="block")[["log_job", "log_cpu"]].transform("mean")
        dof = len(x) - x.index.get_level_values("block").nunique()
        var_job = float((within["log_job"] ** 2).sum() / dof)
        var_cpu = float((within["log_cpu"] ** 2).sum() / dof)
        ratio = _t_interval(x["log_job"].to_numpy())
        vs_job = vs_cpu = None
        p = None
        if level != levels[0]:
            paired = (
                runs[runs["level"] == levels[0]]
                .set_index(["config", "block", "round"])[["job", "cpu"]]
                .join(
                    runs[runs["level"] == level]
                    .set_index(["config", "block", "round"])[["job", "cpu"]]
                    .add_suffix("_l")
                )
            )
            vs_job = _t_interval(np.log(paired["job_l"] / paired["job"]).to_numpy())
            vs_cpu = _t_interval(np.log(paired["cpu_l"] / paired["cpu"]).to_numpy())
            p = round(float(stats.f.cdf(var_job / first_var[0], dof, first_var[1])), 4)
        else:
            first_var = (var_job, dof)
        out.append(
            LevelSpread(
                level=str(level),
                pairs=len(x),
                sd_aa=round(math.sqrt(var_job), 4),
                sd_aa_cpu=round(math.sqrt(var_cpu), 4),
                dof=dof,
                aa_ratio=ratio[0],
                aa_low=ratio[1],
                aa_high=ratio[2],
                job_vs_first=vs_job,
                cpu_vs_first=vs_cpu,
                f_p_below_first=p,
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("campaigns", nargs="+", type=Path)
    ap.add_argument("--aa-by", help="a benchmark parameter whose levels ran on the same clusters")
    ap.add_argument("--reference", help="with --aa-by: the level the others are read against")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    report: list[dict] = []
    for d in args.campaigns:
        runs = runs_frame(read_campaign(d).samples, args.aa_by)
        if runs.empty:
            print(f"{d}: no TeraSort runs with task attempts", file=sys.stderr)
            continue
        if args.aa_by:
            groups = [(str(lv), runs[runs["level"] == lv]) for lv in dict.fromkeys(runs["level"])]
        else:
            groups = [("", runs)]
        for label, r in groups:
            reading = spread_reading(d.name + (f" [{args.aa_by}={label}]" if label else ""), r)
            if reading is not None:
                report.append(asdict(reading))
        if args.aa_by:
            reference = args.reference or str(runs["level"].iloc[0])
            report += [{"campaign": d.name, "by": args.aa_by, **asdict(x)} for x in aa_by_level(runs, reference)]
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for row in report:
            print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
