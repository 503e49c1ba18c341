"""A campaign's statistics table: computed once by the statistics stage, read by the paper.

`campaign_stats(campaign, cfg)` is `compute_stats` over the metrics the study compares (counters,
map attempts and most latencies of bonnie are left out), each experiment against its own baseline
(the platform `cfg.baseline`, or the level a factor study's design names), with the cell's size
label and factor values joined back as columns. The statistics stage
(`vbench.pipeline.statistics`) writes it with `write_campaign_stats` to
`data/processed/<campaign>/`:

    stats.parquet  the table, every column with its type (what `read_campaign_stats` reads)
    stats.csv      the same table as text (`vbench.stats.format_table`), for people and diffs
    stats.json     the settings it was computed with and a digest of the inputs it was computed
                   from, so that a reader never takes stale or differently computed numbers;
                   and `rounds_per_block`: the rounds per block that would give each paired
                   comparison the narrowest interval per unit of machine time, with its inputs
                   (`rounds_per_block_advice`, vbench.stats.allocation); and `variance`: where
                   the variance lives, each headline metric's log (per configuration) and log
                   ratio (per comparison) split into drift, cluster instance, round and run
                   (`variance_section`, vbench.stats.variance)

Every row of a table, figure or macro of the paper is a row of this table (see
`vbench.paper.results`).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from vbench.errors import ParamsError
from vbench.samples import QUIET_CPU_PROBE, QUIET_MACHINE_PROBE, QUIET_VERDICT
from vbench.stats.allocation import block_costs, suggest_rounds_per_block
from vbench.stats.bootstrap import DEFAULT_RESAMPLES
from vbench.stats.campaign import Campaign
from vbench.stats.headlines import quoted_headlines
from vbench.stats.paired import BLOCK, PAIR_UNIT, ROUND
from vbench.stats.table import compute_stats
from vbench.stats.table.rows import DEFAULT_SEED
from vbench.stats.table.writer import write_table
from vbench.stats.tidy import FACTOR_COLUMNS, plain
from vbench.stats.variance import campaign_variance
from vbench.stats.warmup import CELL_ID, DUET_GROUP, DUET_PARTNERS

STATS_FILE = "stats.parquet"
STATS_CSV = "stats.csv"
STATS_META = "stats.json"
#: The files of a campaign directory the table is computed from (the design names the comparison).
INPUT_FILES = ("samples.jsonl", "campaign.json")

#: Step-qualified job phases (VMware's map-shuffle and reduce-merge) and per-attempt reduce phases.
_PHASE = re.compile(r"^[a-z_]+\.(job_time|map_shuffle_time|reduce_merge_time)$")
_ATTEMPT_REDUCE = re.compile(r"^[a-z_]+\.attempt\.reduce_(shuffle|merge|reduce|attempt)_time$")
#: Metrics whose unit does not say which way is better (vbench.stats.direction).
_LOWER_IS_BETTER = re.compile(r"(_cpu|^cpu_host|^cpu_remote|^retransmits|^abs_error)$")


def wanted_metric(metric: str) -> bool:
    """Whether the statistics compare a metric (counters, map attempts and bonnie latencies are left out)."""
    if ".counter." in metric or metric.startswith("counter."):
        return False
    if ".attempt." in metric:
        return bool(_ATTEMPT_REDUCE.match(metric))
    if "." in metric:
        return bool(_PHASE.match(metric))
    return not metric.endswith("_latency") or metric in (
        "create_write_avg_latency",
        "open_avg_latency",
        "close_avg_latency",
    )


#: Besides job times, the metrics `variance_metric` keeps: the paper's headline numbers and the
#: default design's micro-benchmark figures, which docs/statistics.md sets precision targets for.
_VARIANCE_FIGURES = quoted_headlines() | {("cpu", "events_per_s"), ("membw", "bandwidth"), ("fio", "randread_iops")}


def variance_metric(benchmark: str, metric: str) -> bool:
    """Whether the stage splits a metric's variance by level: every Hadoop job's JobHistory job time
    (`<step>.job_time`: what issue #51 and the precision report quote) and `_VARIANCE_FIGURES`;
    the rest is left out to keep stats.json a table a person reads."""
    return metric.endswith(".job_time") or (benchmark, metric) in _VARIANCE_FIGURES


class SharedRecord(dict):
    """A section of a statistics table's `attrs` (stats.json's `rounds_per_block`, `variance`):
    a dict, written and compared as one, that a copy shares rather than copies. pandas deep-copies
    a frame's attrs into every frame and column taken from it (a mask, a lookup's row), thousands
    of times when the paper or a notebook reads the table: copied, these sections made such reads
    take minutes. Nothing changes a section once `campaign_stats` has computed it."""

    def __deepcopy__(self, memo) -> SharedRecord:
        return self

    def __reduce__(self):
        return (SharedRecord, (dict(self),))


#: The sections of a statistics table's attrs that are kept as `SharedRecord`s.
SHARED_ATTRS = ("rounds_per_block", "variance")


def share_attrs(table: pd.DataFrame) -> pd.DataFrame:
    """`table` with its large attrs sections (`SHARED_ATTRS`) as `SharedRecord`s, in place."""
    for key in SHARED_ATTRS:
        if isinstance(table.attrs.get(key), dict):
            table.attrs[key] = SharedRecord(table.attrs[key])
    return table


def directions(metrics) -> dict[str, bool]:
    return {m: False for m in sorted(set(metrics)) if _LOWER_IS_BETTER.search(m)}


@dataclass(frozen=True)
class StatsConfig:
    """The settings of a statistics table; a reader asks for the ones it expects."""

    baseline: str = "native"
    conf: float = 0.95
    n_resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    equivalence_pct: float = 5.0


def compared_samples(campaign: Campaign) -> pd.DataFrame:
    """The campaign's samples of the metrics the statistics compare."""
    df = campaign.samples
    return df if df.empty else df[df["metric"].map(wanted_metric)]


def baselines_of(campaign: Campaign, cfg: StatsConfig) -> dict[str, list[str]]:
    """baseline -> the experiments compared with it, in baseline order: `cfg.baseline` for platform
    studies, the design's level for a factor study (e.g. bridge for a network-mode study)."""
    by_baseline: dict[str, list[str]] = {}
    df = compared_samples(campaign)
    for e in sorted(df["experiment"].unique()) if len(df) else ():
        by_baseline.setdefault(campaign.baselines.get(e, cfg.baseline), []).append(e)
    return dict(sorted(by_baseline.items()))


def campaign_stats(campaign: Campaign, cfg: StatsConfig = StatsConfig()) -> pd.DataFrame:
    """compute_stats over the metrics the study compares, with the cell's factors joined back as columns."""
    df = compared_samples(campaign)
    if df.empty:
        return pd.DataFrame()
    cols = ["experiment", "platform", "benchmark", "metric", "unit", "value", "repetition", "size"]
    # The design's pairing (block, round) and warm-up mark: the statistics pair runs by them and
    # exclude warm-ups by rule, so they must reach compute_stats.
    cols += [c for c in ("warmup", BLOCK, ROUND, PAIR_UNIT) if c in df.columns]
    # A duet's sides (vbench.stats.warmup.duet_orphans): a side whose partner failed is excluded.
    cols += [c for c in (CELL_ID, DUET_GROUP, DUET_PARTNERS) if DUET_GROUP in df.columns and c in df.columns]
    # The quiet-machine gate's verdict, to count the runs measured on a flagged machine (by run),
    # and its CPU probe beside this machine's reference for it, to say a slow day.
    quiet = (QUIET_VERDICT, "run_id", QUIET_CPU_PROBE, QUIET_MACHINE_PROBE)
    cols += [c for c in quiet if QUIET_VERDICT in df.columns and c in df.columns]
    tidy = df[cols].copy()
    tidy.attrs["source"] = str(campaign.path / "samples.jsonl")
    parts = []
    # Each experiment against its own baseline (seeds are per group, so splitting changes no number).
    for baseline, experiments in baselines_of(campaign, cfg).items():
        sub = tidy[tidy["experiment"].isin(experiments)]
        sub.attrs["source"] = tidy.attrs["source"]
        parts.append(
            compute_stats(
                sub,
                baseline=baseline,
                conf=cfg.conf,
                n_resamples=cfg.n_resamples,
                seed=cfg.seed,
                equivalence_pct=cfg.equivalence_pct,
                higher_is_better=directions(sub["metric"]),
                mixed=True,  # the stage's table is what the paper and readers see: with the mixed model's rows
            )
        )
    stats = parts[0] if len(parts) == 1 else _concat(parts)
    cells = cell_table(df)
    out = stats.merge(cells, on=["experiment", "benchmark", "metric", "size"], how="left")
    out.attrs.update(stats.attrs)
    out.attrs["rounds_per_block"] = rounds_per_block_advice(stats, campaign.samples)
    out.attrs["variance"] = variance_section(campaign, cfg)
    return share_attrs(out)


def variance_section(campaign: Campaign, cfg: StatsConfig) -> dict:
    """What stats.json keeps under `variance`: for every `variance_metric`, per experiment and cell,
    each configuration's log metric and each comparison's log ratio to its baseline split by level
    (`VarianceRow.record`). Beside the table rather than in it: its rows are per level and
    configuration, not the table's statistic per comparison, and no other row depends on them."""
    experiment_baseline = {e: b for b, experiments in baselines_of(campaign, cfg).items() for e in experiments}
    rows = campaign_variance(
        compared_samples(campaign),
        experiment_baseline,
        variance_metric,
        default_baseline=cfg.baseline,
        conf=cfg.conf,
    )
    return {"rows": [r.record() for r in rows]}


def rounds_per_block_advice(stats: pd.DataFrame, samples: pd.DataFrame) -> dict:
    """For every paired comparison whose variance the table splits by level (blocks with several
    rounds), the rounds per block that minimise its interval's variance per unit of machine time,
    from the table's `variance_between_blocks` / `variance_within_block` rows and the block and
    round costs measured from the samples' timestamps. What stats.json keeps under
    `rounds_per_block`; the runner does not read it."""
    costs = block_costs(samples)
    advice = {"costs": asdict(costs), "comparisons": []}
    if stats.empty:
        return advice
    key = ["experiment", "benchmark", "metric", "size", "platform", "baseline"]
    levels = stats[stats["statistic"].isin(["variance_between_blocks", "variance_within_block"])]
    for k, g in levels.groupby(key, sort=True):
        by = dict(zip(g["statistic"], g["estimate"]))
        var_block, var_round = by.get("variance_between_blocks"), by.get("variance_within_block")
        s = suggest_rounds_per_block(
            None if pd.isna(var_block) else float(var_block),
            None if pd.isna(var_round) else float(var_round),
            costs.block_s,
            costs.round_s,
        )
        advice["comparisons"].append({**dict(zip(key, k)), **s.record()})
    return advice


def concat_stats(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """The statistics tables of several campaigns as one (their experiments are distinct): the
    statistics columns, the size label, then every factor column of any of them ("" where a
    campaign has no such factor), as `campaign_stats` over the merged campaigns would lay it out."""
    tables = [t for t in tables if not t.empty]
    if not tables:
        return pd.DataFrame()
    if len(tables) == 1:
        return tables[0]
    out = _concat(tables)
    factors = [c for c in FACTOR_COLUMNS if c in out.columns]
    out[factors] = out[factors].fillna("")
    rest = [c for c in out.columns if c not in factors]
    return out[rest + factors]


def _concat(parts: list[pd.DataFrame]) -> pd.DataFrame:
    out = pd.concat(parts, ignore_index=True)
    out.attrs.update(parts[0].attrs)
    out.attrs["problems"] = [p for part in parts for p in part.attrs.get("problems", [])]
    return out


def cell_table(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per (experiment, benchmark, metric, size) with its size label and factor values."""
    factors = [c for c in FACTOR_COLUMNS if c in samples.columns]
    keys = ["experiment", "benchmark", "metric", "size"]
    rows = []
    for key, grp in samples.groupby(keys, sort=False):
        row = dict(zip(keys, key))
        row["size_label"] = grp["size_label"].iloc[0]
        for c in factors:
            vals = grp[c].dropna()
            row[c] = plain(vals.iloc[0]) if len(vals) else ""
        rows.append(row)
    return pd.DataFrame(rows, columns=[*keys, "size_label", *factors])


# --- the statistics stage's output -------------------------------------------------------------


def inputs_digest(campaign_dir: Path) -> dict[str, str]:
    """sha256 of each input file the campaign directory holds (see INPUT_FILES)."""
    out = {}
    for name in INPUT_FILES:
        f = Path(campaign_dir) / name
        if f.is_file():
            out[name] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


def write_campaign_stats(table: pd.DataFrame, cfg: StatsConfig, campaign_dir: Path, out: Path) -> Path:
    """Write `table` (of the campaign in `campaign_dir`, computed with `cfg`) into `out`; returns the parquet file."""
    out.mkdir(parents=True, exist_ok=True)
    table.to_parquet(out / STATS_FILE, index=False)
    write_table(table, out / STATS_CSV)
    meta = {
        "settings": asdict(cfg),
        "inputs": inputs_digest(campaign_dir),
        "exclusion_rule": table.attrs.get("exclusion_rule", ""),
        "problems": table.attrs.get("problems", []),
        "rounds_per_block": table.attrs.get("rounds_per_block", {}),
        "variance": table.attrs.get("variance", {}),
    }
    (out / STATS_META).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out / STATS_FILE


def read_campaign_stats(out: Path, cfg: StatsConfig, campaign_dir: Path) -> pd.DataFrame | None:
    """The table the statistics stage wrote into `out` for the campaign in `campaign_dir`, or None
    when there is none. Output computed with other settings, or from other samples than the
    campaign holds now, is refused (ParamsError naming the file), never read as if it were current."""
    table, meta_file = Path(out) / STATS_FILE, Path(out) / STATS_META
    if not (table.is_file() and meta_file.is_file()):
        return None
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        settings, inputs = meta["settings"], meta["inputs"]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise ParamsError(
            str(meta_file),
            "not the statistics stage's record (settings, inputs); re-run the statistics stage (dvc repro statistics)",
        ) from None
    wanted = asdict(cfg)
    differ = [f"{k}={settings.get(k)!r} (asked: {v!r})" for k, v in wanted.items() if settings.get(k) != v]
    if differ:
        raise ParamsError(
            str(meta_file),
            f"the statistics were computed with {', '.join(differ)}; re-run the "
            "statistics stage with these settings, or ask for its settings",
        )
    now = inputs_digest(campaign_dir)
    if inputs != now:
        changed = sorted(k for k in set(inputs) | set(now) if inputs.get(k) != now.get(k))
        raise ParamsError(
            str(meta_file),
            f"the statistics were computed from another {' and '.join(changed)} than "
            f"{campaign_dir} holds now; re-run the statistics stage (dvc repro statistics)",
        )
    return share_attrs(pd.read_parquet(table))
