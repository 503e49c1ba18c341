"""A campaign directory as the statistics read it: tidy samples named for analysis, failures, host facts.

`load_campaign` reads `samples.jsonl` with `vbench.stats.tidy.read_rows` (the one reader, its rows
before they are a frame) and returns one row per sample with the columns `vbench.stats` needs
(experiment, platform, benchmark, metric, unit, value, repetition, size) plus every metadata key.
The campaign's statistics table (`vbench.stats.campaign_stats`, written by the statistics stage) and
the paper both start from it. It fills what older campaigns lack, and says so in `Campaign.notes`:

* `experiment`: the runner's, else "campaign".
* `repetition`: the runner's, else the rank of the run (`run_id`, ordered by its first
  timestamp) within its platform, benchmark and cell.
* `size`: the runner's, else the benchmark's own size parameter (`size_mb` of terasort,
  wordcount and sort as "64MB", `file_size_mb` of dfsio, `digits` of pi_digits).
* Samples describing one step of a multi-job benchmark (TeraGen/TeraSort/TeraValidate job
  phases) get the step in the metric, "terasort.map_shuffle_time", and per-attempt samples
  "terasort.attempt.reduce_merge_time": the same metric name is used for a job's
  reduce-merge phase and for each reduce attempt's merge, which must not be pooled.
* `pair_unit` (`vbench.stats.paired.PAIR_UNIT`): "round" on every sample of a campaign whose
  design (campaign.json) is of the lean shape, for which the planted-effect test adopted the t
  over every round as the preferred paired row (`vbench.stats.paired.rounds_are_units`).

`size` as given to the statistics is a *cell*: the size plus every design factor that varies
within the same experiment, benchmark and metric (replication, stress, workers...), e.g.
"64MB, replication=1", so that runs with different parameters are never pooled.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from vbench.benchmarks.hadoop.nnbench import BARRIER_KEY, BARRIER_S, OP_OF_METRIC
from vbench.errors import ParamsError
from vbench.samples import cpu_models, join_values
from vbench.stats.compare import Comparison, comparison_in, comparison_view, design_of
from vbench.stats.keys import natural_key
from vbench.stats.paired import PAIR_UNIT, ROUND, rounds_are_units
from vbench.stats.tidy import FACTOR_COLUMNS, SIZE_PARAMS, add_cells, plain as _plain, read_rows, text_as_objects
from vbench.wording import noun

__all__ = ["FACTOR_COLUMNS", "SIZE_PARAMS", "Campaign", "add_cells", "load_campaign", "merge_campaigns", "select"]

DEFAULT_EXPERIMENT = "campaign"


@dataclass
class Campaign:
    """What the statistics and the paper read from one campaign directory."""

    path: Path
    name: str
    samples: pd.DataFrame
    failures: list[dict] = field(default_factory=list)
    facts: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: experiment -> its baseline, where the design compares factor levels, not platforms.
    baselines: dict[str, str] = field(default_factory=dict)
    #: experiment as recorded -> as shown, where `distinct_experiments` renamed it beside another
    #: campaign's (the statistics stage's table of this campaign holds the recorded names).
    renamed: dict[str, str] = field(default_factory=dict)

    @property
    def platforms(self) -> list[str]:
        return sorted(self.samples["platform"].unique(), key=natural_key) if len(self.samples) else []


def _size_label(benchmark: str, meta: dict) -> str:
    if meta.get("size") not in (None, ""):
        v = meta["size"]
        return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)
    param = SIZE_PARAMS.get(benchmark)
    if param is None or meta.get(param) in (None, ""):
        return ""
    v = meta[param]
    if isinstance(v, (list, tuple)):
        return ""
    if param.endswith("_mb"):
        return f"{int(float(v))}MB" if float(v).is_integer() else f"{v}MB"
    return str(int(float(v)))


def _declared_metrics(benchmark: str) -> frozenset[str]:
    # Imported here: the registry imports every benchmark and what drives hosts (fabric), which
    # reading a campaign (the paper's build, a notebook) need not load.
    from vbench.benchmarks.registry import find

    try:
        return frozenset(find(benchmark)[1].METRICS)
    except ParamsError:  # an unknown benchmark (e.g. a future monitor) keeps its metric names
        return frozenset()


def _qualified_metric(row: Mapping[str, Any], declared: frozenset[str]) -> str:
    """The statistics' (and the paper's) name of a metric: `<step>.job_time`, `<step>.map_shuffle_time`,
    `<step>.attempt.reduce_merge_time`... Source names are distinct already
    (`terasort_job_time`, `terasort_map_shuffle_phase_time`, `reducer_merge_time`, see
    vbench.hadoop.history); older campaigns used bare names, which the step disambiguates."""
    step = str(row.get("step") or "")
    metric = row["metric"]
    if metric.startswith("counter."):
        return metric
    if row.get("attempt_id"):
        if metric.startswith("reducer_"):
            metric = "reduce_" + metric[len("reducer_") :]
        return f"{step or row['benchmark']}.attempt.{metric}"
    if step and metric.startswith(f"{step}_") and metric not in declared:
        rest = metric[len(step) + 1 :]
        return f"{step}.{rest.replace('_phase_time', '_time')}"
    if step and metric not in declared:
        return f"{step}.{metric}"
    return metric


def _read_facts(path: Path) -> list[dict]:
    f = path / "facts.json"
    if not f.is_file():
        return []
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ParamsError(str(f), f"not valid JSON ({exc.msg})") from None
    if isinstance(data, dict):  # {host: {facts}} as well as [{facts}, ...]
        data = [{"host": k, **v} for k, v in sorted(data.items()) if isinstance(v, dict)]
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise ParamsError(str(f), "expected a list of objects (one per host) or an object of host -> facts")
    return [{str(k): v for k, v in d.items()} for d in data]


def _present(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row without its NaN cells: `_size_label` and `_qualified_metric` ask whether a key is
    there, and a NaN is a missing value, as in the frame the row becomes. (A sample's value is never NaN.)"""
    return {k: v for k, v in row.items() if not (isinstance(v, float) and math.isnan(v))}


def _analysis_row(row: Mapping[str, Any], declared: dict[str, frozenset[str]]) -> dict[str, Any]:
    """A tidy row as the statistics read it: step-qualified metric, size label, lists and dicts as JSON."""
    r = _present(row)
    benchmark = r["benchmark"]
    out = {k: (json.dumps(v, sort_keys=True) if isinstance(v, (list, dict)) else v) for k, v in r.items()}
    out.update(
        raw_metric=r["metric"],
        size_label=_size_label(benchmark, r),
        metric=_qualified_metric(r, declared.setdefault(benchmark, _declared_metrics(benchmark))),
    )
    return out


def load_campaign(path: str | Path, comparison: Comparison | None = None) -> Campaign:
    """Read `<path>/samples.jsonl` (and `facts.json` if present) into a `Campaign`; `comparison`
    (default: the campaign's design, campaign.json) says what `platform` holds and its baseline:
    the explore notebook (vbench.explore) lets a reader compare another factor of the design."""
    tidy = read_rows(path)
    campaign_dir = tidy.path
    # A failure's dict has every failure's keys (NaN where its record had none), as a frame gives them.
    failures = pd.DataFrame(tidy.failures).to_dict("records")
    declared: dict[str, frozenset[str]] = {}
    # From the rows, not a frame's records: each keeps the keys its record has (building a frame to
    # read it back was a third of the reading).
    rows = [_analysis_row(r, declared) for r in tidy.samples]
    notes: list[str] = []
    if tidy.torn_bytes:
        notes.append(f"the last {tidy.torn_bytes} bytes of samples.jsonl are an append that did not finish; not read")
    if not rows:
        df = pd.DataFrame(
            columns=[
                "experiment",
                "platform",
                "benchmark",
                "metric",
                "unit",
                "value",
                "repetition",
                "size",
                "size_label",
                "raw_metric",
                "timestamp",
                "run_id",
            ]
        )
        notes.append("the campaign has no samples")
        return Campaign(campaign_dir, campaign_dir.name, df, failures, _read_facts(campaign_dir), notes)
    # Joined here as well as at the end: the reading below (cells, order, a compared factor's view)
    # groups and selects from ~100 columns too.
    df = text_as_objects(pd.DataFrame(rows))
    if "platform" not in df.columns:
        df["platform"] = "unknown"
        notes.append("samples carry no platform; shown as 'unknown'")
    df["platform"] = df["platform"].fillna("unknown").astype(str)
    if "experiment" not in df.columns or df["experiment"].isna().any():
        if "experiment" not in df.columns:
            df["experiment"] = DEFAULT_EXPERIMENT
        df["experiment"] = df["experiment"].fillna(DEFAULT_EXPERIMENT)
        notes.append(f"samples without an experiment are in experiment '{DEFAULT_EXPERIMENT}'")
    df["experiment"] = df["experiment"].astype(str)
    if "run_id" not in df.columns:
        df["run_id"] = ""
    df["run_id"] = df["run_id"].fillna("").astype(str)
    # campaign.json read once: its comparison, and its shape for the pairs (below).
    design = design_of(campaign_dir)
    comparison = comparison or comparison_in(design)
    if not comparison.is_platforms:
        df = comparison_view(df, comparison.compare)
        notes.append(f"compared: {', '.join(comparison.compare)} (baseline {comparison.baseline})")
    # A baseline the comparison names holds for every experiment (a platform study's is otherwise the
    # statistics' own, native unless told).
    baselines = {str(e): comparison.baseline for e in df["experiment"].unique()} if comparison.baseline else {}
    df = add_cells(df)
    if rounds_are_units(design):
        # Every pair of this design's runs counts its rounds as the independent unit (stats/paired.py).
        df[PAIR_UNIT] = ROUND
    if "repetition" not in df.columns or df["repetition"].isna().any():
        df = _derive_repetitions(df)
        notes.append("repetitions derived from run order (run_id by first timestamp) where the runner gave none")
    df = df.iloc[_sample_order(df, ["experiment", "platform", "benchmark", "metric", "size", "repetition"])]
    notes += machines_note(df) + jvm_note(df) + barrier_note(df)
    return Campaign(
        campaign_dir,
        campaign_dir.name,
        text_as_objects(df.reset_index(drop=True)),
        failures,
        _read_facts(campaign_dir),
        notes,
        baselines,
    )


#: How late after NNBench's barrier the last map may begin its operations and still have waited at
#: it: the client sees a map's end by polling about once a second (native, LXC and OCI read 0.2 to
#: 0.6 s, docs/results.md "NNBench's barrier").
LATE_AFTER_BARRIER_S = 2.0


def barrier_note(samples: pd.DataFrame) -> list[str]:
    """A note per platform (configuration) on which NNBench's last map began its operations more
    than LATE_AFTER_BARRIER_S after the barrier in some run (`nnbench.BARRIER_KEY`, in the samples
    since 426f2e9): the maps that began in time ran their operations beside the late ones' start-up,
    which on gVisor made create/write's time per operation x1.27 [1.00, 1.60] and its ratio to
    native's twice as noisy between blocks as with a barrier every map reached, over 8 blocks, one
    of them flagged by the quiet gate (docs/results.md, `costs-nnbench-barrier`; open/read did not
    move). NNBench's own count of maps that missed the barrier says 0 all the same.
    The note names the `barrier_s` that would have covered the latest start seen (with the same
    margin), where the samples carry the barrier they ran with. Pure."""
    if BARRIER_KEY not in samples.columns:
        return []
    # Each step's reading once: its samples (one per metric) carry the same metadata.
    cols = ["platform", "run_id", "metric", BARRIER_KEY, *([BARRIER_S] if BARRIER_S in samples.columns else [])]
    read = samples.loc[samples[BARRIER_KEY].notna(), cols]
    read = read.assign(step=read["metric"].map(OP_OF_METRIC)).drop_duplicates(["platform", "run_id", "step"])
    notes = []
    for platform, g in sorted(read.groupby("platform"), key=lambda kv: natural_key(kv[0])):
        late = g[BARRIER_KEY].astype(float)
        n_late = int((late > LATE_AFTER_BARRIER_S).sum())
        if n_late:
            notes.append(
                f"NNBench on {platform}: the last map began its operations more than {LATE_AFTER_BARRIER_S:g} s "
                f"after the barrier in {n_late} of {len(late)} steps (up to {late.max():.1f} s): the maps that "
                "began in time ran their operations beside the late ones' start-up, which can inflate and scatter "
                "the time per operation (gVisor's create/write: x1.27 [1.00, 1.60], twice the spread)"
                + _covering_barrier(g[late > LATE_AFTER_BARRIER_S])
            )
    return notes


def _covering_barrier(steps: pd.DataFrame) -> str:
    """ "; a barrier_s of N s ..." for one platform's late steps: the barrier each ran with plus how
    late its last map began, plus LATE_AFTER_BARRIER_S of margin, rounded up to 10 s; "" where the
    samples do not say the barrier. Pure."""
    if BARRIER_S not in steps.columns:
        return ""
    reach = pd.to_numeric(steps[BARRIER_S], errors="coerce") + steps[BARRIER_KEY].astype(float)
    if reach.isna().any():
        return ""
    covering = 10 * math.ceil((float(reach.max()) + LATE_AFTER_BARRIER_S) / 10)
    return f"; a {BARRIER_S} of {covering} s or more would have let every map wait in these runs"


def machines_note(samples: pd.DataFrame) -> list[str]:
    """A note when a campaign's samples name more than one CPU (`cpu_model`, stamped by the
    runner): a campaign resumed in another working session may have run on another machine.
    Blocks still pair configurations measured together; a block that itself spans machines
    compares machines as well as platforms, and is named. Pure."""
    if "cpu_model" not in samples.columns:
        return []
    # Each distinct (block, field) once: a campaign holds thousands of samples and a few values.
    cols = ["cpu_model", *(["block"] if "block" in samples.columns else [])]
    distinct = samples[cols].dropna(subset=["cpu_model"]).drop_duplicates()
    # A sample whose hosts ran on two machines names both in one field (vbench.samples.join_values).
    named = distinct["cpu_model"].map(cpu_models)
    models = sorted({m for ms in named for m in ms}, key=natural_key)
    if len(models) < 2:
        return []
    note = f"samples measured on {len(models)} machines ({join_values(models)})"
    if "block" in distinct.columns:
        per_block: dict[object, set[str]] = {}
        for block, ms in zip(distinct["block"], named):
            if ms and pd.notna(block):
                per_block.setdefault(block, set()).update(ms)
        split = sorted((b for b, ms in per_block.items() if len(ms) > 1), key=natural_key)
        if split:
            note += "; blocks spanning two machines, whose ratios compare machines too: " + ", ".join(
                str(b) for b in split
            )
    return [note]


def jvm_note(samples: pd.DataFrame) -> list[str]:
    """A note when the configurations compared ran different JVM builds (`java_version`, each host's
    `java -version`): a container's or a sandbox's JVM is its guest image's, native's the machine's,
    and on the machines lent here the image's was a later patch release than the machine's (17.0.19
    against 17.0.15, every campaign to 2026-12-06), so each ratio between them holds the JVM's
    difference as well as the platform's. Nothing where every configuration names one build, nor
    where the design varies the build itself (`hadoop.jdk` a factor: its ratio is the build's). Pure."""
    builds = jvm_builds(samples)
    if not jvm_builds_differ(builds) or jvm_compared(samples):
        return []
    on: dict[tuple[str, ...], list[str]] = {}
    for platform in sorted(builds, key=natural_key):
        on.setdefault(builds[platform], []).append(platform)
    said = "; ".join(f"{', '.join(platforms)} {' and '.join(b)}" for b, platforms in on.items())
    return [
        f"the configurations ran different JVM builds ({said}): each ratio between them holds the JVM's "
        "difference as well as the platform's (a container's or a sandbox's JVM is its guest image's, native's "
        "the machine's)"
    ]


def jvm_builds(samples: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    """Each configuration's JVM builds (by `platform`: where the statistics compare a factor, such as
    `hadoop.jdk`, its compared level), as `java -version` named them ("openjdk 17.0.15"); empty where
    the samples recorded none. Pure."""
    if "java_version" not in samples.columns:
        return {}
    distinct = samples[["platform", "java_version"]].dropna().drop_duplicates()
    distinct = distinct[distinct["java_version"].astype(str).str.strip() != ""]  # an empty field names no build
    return {
        str(platform): tuple(sorted({_java_build(v) for v in g["java_version"]}, key=natural_key))
        for platform, g in distinct.groupby("platform")
    }


#: Where a sample says its `hadoop.jdk` level: a factor's column, or the compared level's where the
#: statistics compare it (`vbench.stats.compare.comparison_view`).
JDK_COLUMNS = ("level.jdk", "factor.jdk")


def jvm_compared(samples: pd.DataFrame) -> bool:
    """Whether the design varied the JVM build on purpose (`hadoop.jdk` a factor of two levels):
    then a ratio between builds is what it measured, not a confound. Pure."""
    return any(c in samples.columns and samples[c].dropna().nunique() > 1 for c in JDK_COLUMNS)


def jvm_builds_differ(builds: dict[str, tuple[str, ...]]) -> bool:
    """Whether `jvm_builds`' configurations name more than one build between them. Pure."""
    return len({b for bs in builds.values() for b in bs}) > 1


def _java_build(version: object) -> str:
    """'openjdk 17.0.15' from `java -version`'s first line ('openjdk version "17.0.15" 2025-04-15'). Pure."""
    text = str(version).strip()
    parts = text.split('"')
    return f"{parts[0].split()[0]} {parts[1]}" if len(parts) >= 3 and parts[0].split() else text


def _sample_order(df: pd.DataFrame, keys: list[str]) -> list[int]:
    """Positions of `df`'s rows in the natural order of `keys`, then by timestamp, then by index label,
    the sort keys read from the columns once, not cell by cell."""
    columns = [[natural_key(v) for v in df[k].to_numpy()] for k in keys]
    stamps = [float(t) for t in df["timestamp"].to_numpy()]
    sort_keys = list(zip(*columns, stamps, df.index.tolist()))
    return sorted(range(len(sort_keys)), key=sort_keys.__getitem__)


def distinct_experiments(campaigns: list[Campaign]) -> list[Campaign]:
    """The campaigns with every experiment name used once: an experiment whose name an earlier
    campaign of the list already holds is shown as `<experiment>@<campaign>` (e.g. the Xavier
    study's `platforms@xavier2014` beside the default campaign's `platforms`). Each design names
    its comparison `platforms` by default, so the studies a paper adds would otherwise clash."""
    taken: set[str] = set()
    out = []
    for c in campaigns:
        names = sorted(set(c.samples["experiment"].astype(str)), key=natural_key) if len(c.samples) else []
        renamed = {e: f"{e}@{c.name}" for e in names if e in taken}
        taken |= {renamed.get(e, e) for e in names}
        if not renamed:
            out.append(c)
            continue
        samples = c.samples.assign(experiment=c.samples["experiment"].astype(str).replace(renamed))
        baselines = {renamed.get(e, e): b for e, b in c.baselines.items()}
        note = f"{noun(len(renamed), 'experiment')} shown as " + ", ".join(
            f"{new} ({old} here)" for old, new in renamed.items()
        )
        out.append(replace(c, samples=samples, baselines=baselines, renamed=renamed, notes=[*c.notes, note]))
    return out


def merge_campaigns(main: Campaign, others: list[Campaign]) -> Campaign:
    """One campaign of several (each keeps its experiments): e.g. the paper's main campaign plus
    the studies of other factors (network modes, VMs per host...). Facts are the main one's."""
    if not others:
        return main
    clash = set(main.samples["experiment"]) & {e for o in others for e in o.samples["experiment"]}
    if clash:
        n = len(clash)
        raise ParamsError(
            "paper.extra_campaigns",
            f"{noun(n, 'experiment')} {sorted(clash)} {noun(n, 'appears', 'appear')} in more than one campaign",
        )
    # Columns one campaign lacks come out of concat as blocks of their own: joined again (text_as_objects).
    samples = text_as_objects(pd.concat([main.samples, *(o.samples for o in others)], ignore_index=True))
    return Campaign(
        main.path,
        main.name,
        samples,
        main.failures + [f for o in others for f in o.failures],
        main.facts,
        main.notes + [f"{o.name}: {n}" for o in others for n in o.notes],
        {**main.baselines, **{k: v for o in others for k, v in o.baselines.items()}},
    )


def _derive_repetitions(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    given = df["repetition"] if "repetition" in df.columns else pd.Series(pd.NA, index=df.index)
    derived = pd.Series(1, index=df.index, dtype="int64")
    for _, grp in df.groupby(["experiment", "platform", "benchmark", "size"], sort=False):
        first = grp.groupby("run_id")["timestamp"].min().sort_values(kind="mergesort")
        rank = {rid: i + 1 for i, rid in enumerate(first.index)}
        derived.loc[grp.index] = grp["run_id"].map(rank).astype("int64")
    df["repetition"] = given.where(given.notna(), derived)
    return df


def select(samples: pd.DataFrame, **where) -> pd.DataFrame:
    """Rows whose columns equal the given values (compared as text; a missing column matches nothing)."""
    mask = pd.Series(True, index=samples.index)
    for col, val in where.items():
        if col not in samples.columns:
            return samples.iloc[0:0]
        mask &= samples[col].map(_plain) == _plain(val)
    return samples[mask]
