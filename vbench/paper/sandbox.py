"""The sandboxed-kernel section (issue #21): what gVisor and LXC cost each micro-benchmark against native.

The section lays out the sandbox study's statistics table (`vbench.stats.campaign_stats`, read or
computed once by `vbench.paper.results.campaign_statistics`): per metric, each platform's
preferred ratio to the baseline, the row the stopping rule judges (`preferred_ratio_rows`), with
its interval, method and pairs. Beside LXC's micro-benchmark ratios it sets the TeraSort job time
of the build's main campaign, where that campaign measured it. gVisor has none to set beside its
own: Hadoop runs on gVisor hosts (with BusyBox's statx-free `ls`, vbench.testbed.gvisor), but the
sandbox study runs the micro-benchmarks only, and the section says so.

`vbench.paper.tables.table_sandbox`, `vbench.paper.figures.fig_sandbox` and the `\\vbSandbox...`
macros draw from the rows built here, so the three show the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from vbench.params import PLATFORMS
from vbench.samples import is_aa
from vbench.stats.campaign import load_campaign
from vbench.stats.campaign_stats import StatsConfig
from vbench.stats.stopping import preferred_ratio_rows

from vbench.paper import results as R
from vbench.paper.fmt import NOT_MEASURED_TEXT, and_list, interval_text, macro_name, size_display, tex_escape

#: The platform with a sandboxed kernel, and the container it is compared with beside native.
SANDBOX = "gvisor"
CONTAINER = "lxc"


@dataclass(frozen=True)
class SandboxMetric:
    """One row of the section: a (benchmark, metric) of the sandbox design."""

    benchmark: str
    metric: str
    label: str  # plain text without commas (sentences list labels); the table escapes it
    stem: str  # of its macros: \vbSandbox<stem>Ratio<Platform>


#: The rows, in the order the table and figure show them: compute, block I/O, then the network path.
SANDBOX_METRICS = (
    SandboxMetric("cpu", "events_per_s", "sysbench CPU", "Cpu"),
    SandboxMetric("fio", "seq_read_bw", "fio sequential read", "SeqRead"),
    SandboxMetric("fio", "seq_write_bw", "fio sequential write", "SeqWrite"),
    SandboxMetric("fio", "randread_iops", "fio random read", "RandRead"),
    SandboxMetric("iperf3", "throughput_mean", "iperf3 TCP throughput", "Tcp"),
    SandboxMetric("latency", "rtt_mean", "mean round trip", "RoundTrip"),
    SandboxMetric("latency", "rtt_p99", "p99 round trip", "RoundTripTail"),
)

#: The Hadoop job time set beside the container's micro-benchmark ratios, first measured wins.
JOB_METRICS = (
    ("terasort.job_time", "TeraSort job time from JobHistory"),
    ("terasort_time", "TeraSort wall time"),
)


@dataclass(frozen=True, eq=False)
class SandboxStudy:
    """The sandbox campaign as the section sees it: its name, statistics table and tidy samples."""

    name: str
    stats: pd.DataFrame
    samples: pd.DataFrame


@dataclass(frozen=True, eq=False)
class Comparison:
    """One platform's preferred ratio to the baseline on one metric."""

    platform: str
    row: pd.Series  # the statistics table's row: estimate, ci_low, ci_high, method, n, n_pairs, ...
    ranks: bool  # its interval excludes 1 and every other platform's interval on this metric

    @property
    def text(self) -> str:
        return interval_text(self.row["estimate"], self.row["ci_low"], self.row["ci_high"])


@dataclass(frozen=True, eq=False)
class SandboxRow:
    metric: SandboxMetric
    unit: str
    higher_is_better: bool | None
    comparisons: tuple[Comparison, ...]  # platforms in vbench's order (native, lxc, oci, gvisor, qemu)

    def of(self, platform: str) -> Comparison | None:
        return next((c for c in self.comparisons if c.platform == platform), None)


def read_sandbox_study(campaign_dir: Path, cfg: StatsConfig) -> tuple[SandboxStudy, str]:
    """The sandbox campaign's statistics table (the statistics stage's, else computed by the same
    function) and samples, with the build note saying where the table came from."""
    campaign = load_campaign(Path(campaign_dir))
    stats, note = R.campaign_statistics(campaign, cfg)
    return SandboxStudy(campaign.name, stats, campaign.samples), note


# --- rows ---------------------------------------------------------------------------------------------


def _bounded(row: pd.Series) -> bool:
    return pd.notna(row["ci_low"]) and pd.notna(row["ci_high"])


def _disjoint(a: pd.Series, b: pd.Series) -> bool:
    return _bounded(a) and _bounded(b) and (a["ci_high"] < b["ci_low"] or b["ci_high"] < a["ci_low"])


def ranks(row: pd.Series, others: list[pd.Series]) -> bool:
    """Whether a ratio's interval settles its platform's place: it excludes 1 (the baseline) and
    overlaps no other platform's interval. An unbounded interval ranks nothing."""
    if not _bounded(row) or row["ci_low"] <= 1.0 <= row["ci_high"]:
        return False
    return all(_disjoint(row, o) for o in others)


def _direction(rows: pd.DataFrame) -> bool | None:
    d = str(rows["direction"].iloc[0]) if "direction" in rows.columns and not rows.empty else ""
    return {"higher_is_better": True, "lower_is_better": False}.get(d)


def sandbox_rows(stats: pd.DataFrame | None, baseline: str = "native") -> list[SandboxRow]:
    """The section's rows: per metric of `SANDBOX_METRICS` measured in `stats`, each platform's
    preferred ratio to `baseline` at the metric's largest cell, with whether it ranks the platforms."""
    if stats is None or stats.empty:
        return []
    preferred = preferred_ratio_rows(stats)
    preferred = preferred[(preferred["baseline"].astype(str) == baseline) & preferred["estimate"].notna()]
    order = {p: i for i, p in enumerate(PLATFORMS)}
    out = []
    for m in SANDBOX_METRICS:
        experiment = R.pick_experiment(stats, m.benchmark, [m.metric], ("platforms",))
        if experiment is None:
            continue
        sizes = R.sizes_for(stats, experiment, m.benchmark, m.metric)
        found = R.rows(
            preferred, experiment=experiment, benchmark=m.benchmark, metric=m.metric, size=sizes[-1] if sizes else None
        )
        if found.empty:
            continue
        found = found[~found["platform"].astype(str).map(is_aa)]  # the A/A self-check is not a platform
        if found.empty:
            continue
        rows = sorted(
            (r for _, r in found.iterrows()), key=lambda r: (order.get(str(r["platform"]), len(order)), r["platform"])
        )
        comparisons = tuple(Comparison(str(r["platform"]), r, ranks(r, [o for o in rows if o is not r])) for r in rows)
        out.append(SandboxRow(m, str(found["unit"].iloc[0]), _direction(found), comparisons))
    return out


def compared_platforms(rows: list[SandboxRow]) -> list[str]:
    """The platforms compared with the baseline in any row, in the rows' order."""
    return list(dict.fromkeys(c.platform for r in rows for c in r.comparisons))


def _measured(samples: pd.DataFrame) -> pd.DataFrame:
    """The samples the statistics count: warm-up runs are excluded by their rule."""
    if "warmup" not in samples.columns:
        return samples
    return samples[~samples["warmup"].astype("boolean").fillna(False).astype(bool)]


def _levels(samples: pd.DataFrame | None, column: str) -> int:
    if samples is None or samples.empty or column not in samples.columns:
        return 0
    return int(_measured(samples)[column].dropna().map(str).nunique())


def blocks_of(samples: pd.DataFrame | None) -> int:
    """Blocks of the measured (not warm-up) runs: the paired interval's independent units."""
    return _levels(samples, "block")


def degrees_sentence(blocks: int) -> str:
    """Why the intervals are wide: a paired-t interval over `blocks` blocks has blocks - 1 degrees of freedom."""
    if blocks < 2:
        return "With fewer than two blocks no paired interval exists."
    df = blocks - 1
    return (
        rf"The campaign's {blocks} blocks give a paired-$t$ interval {df} degree{'s' if df != 1 else ''} "
        "of freedom, so the intervals are wide."
    )


# --- sentences and macros -----------------------------------------------------------------------------


def hadoop_sentence() -> str:
    """Why gVisor has micro-benchmark overheads and no job overheads here."""
    return (
        r"Hadoop runs on gVisor hosts (this runsc's Sentry refuses \texttt{statx}, which the guest's "
        r"coreutils \texttt{ls} calls and Hadoop's NodeManager needs, so every gVisor host gets BusyBox's "
        r"\texttt{ls} and \texttt{stat}), but the sandbox study ran the micro-benchmarks only, so no job "
        r"overhead on gVisor stands beside them."
    )


def study_sentence(study: SandboxStudy | None) -> str:
    """What the sandbox study ran, or that this build has none."""
    if study is None or study.samples.empty:
        return (
            r"This build was given no sandbox campaign (\texttt{paper.sandbox\_campaign}), so gVisor was not "
            r"measured here: Table~\ref{tab:sandbox} and Figure~\ref{fig:sandbox} are empty."
        )
    s = study.samples
    platforms = [p for p in PLATFORMS if p in set(s["platform"].astype(str))]
    benchmarks = sorted(s["benchmark"].dropna().astype(str).unique())
    blocks, rounds = blocks_of(s), _levels(s, "round")
    layout = f"{blocks} blocks" + (f" of {rounds} interleaved rounds" if rounds > 1 else "")
    return (
        rf"The sandbox study (campaign \texttt{{{tex_escape(study.name)}}}) ran "
        + and_list([tex_escape(p) for p in platforms])
        + " hosts through the micro-benchmarks "
        + and_list([rf"\texttt{{{tex_escape(b)}}}" for b in benchmarks])
        + f" in {layout}, every platform in each block."
    )


def rank_sentence(rows: list[SandboxRow], baseline: str = "native") -> str:
    """Which ratios rank the platforms (interval clear of 1 and of the other platforms' intervals)."""
    if not rows:
        return ""
    parts = []
    for p in compared_platforms(rows):
        won = [tex_escape(r.metric.label) for r in rows if (c := r.of(p)) is not None and c.ranks]
        parts.append(f"{tex_escape(p)} on " + (and_list(won) if won else "no metric"))
    return (
        rf"Ratios whose interval excludes 1 and the other platforms' intervals, and so rank the platforms "
        rf"against {tex_escape(baseline)} and each other: " + "; ".join(parts) + "."
    )


def job_ratio(
    stats: pd.DataFrame | None, platform: str, baseline: str
) -> tuple[str, pd.Series, pd.Series | None] | None:
    """The main campaign's TeraSort job-time comparison of `platform`: (what was timed, preferred ratio
    row, preferred overhead row), or None when that campaign did not measure it."""
    if stats is None or stats.empty:
        return None
    for metric, text in JOB_METRICS:
        experiment = R.pick_experiment(stats, "terasort", [metric], ("platforms",))
        if experiment is None:
            continue
        sizes = R.sizes_for(stats, experiment, "terasort", metric)
        where = dict(
            experiment=experiment,
            platform=platform,
            baseline=baseline,
            benchmark="terasort",
            metric=metric,
            size=sizes[-1] if sizes else None,
        )
        ratio = R.rows(preferred_ratio_rows(stats), **where)
        if ratio.empty or pd.isna(ratio["estimate"].iloc[0]):
            continue
        table = stats[stats["preferred"].fillna(False).astype(bool)]
        overhead = R.rows(table, statistic="overhead_pct", **where)
        cell = f"{text} ({size_display(sizes[-1])})" if sizes and sizes[-1] else text
        return cell, ratio.iloc[0], overhead.iloc[0] if not overhead.empty else None
    return None


def job_sentence(main_stats: pd.DataFrame | None, main_name: str, rows: list[SandboxRow], baseline: str) -> str:
    """The container's micro-benchmark ratios beside its TeraSort job time in the main campaign."""
    job = job_ratio(main_stats, CONTAINER, baseline)
    p, b = tex_escape(CONTAINER), tex_escape(baseline)
    micro = {r.metric.stem: r.of(CONTAINER) for r in rows}
    beside = [
        f"{label} {c.text}"
        for stem, label in (("RoundTrip", "round trip"), ("Tcp", "TCP throughput"), ("Cpu", "CPU"))
        if (c := micro.get(stem)) is not None
    ]
    if job is None:
        return (
            rf"The main campaign of this build (\texttt{{{tex_escape(main_name)}}}) has no TeraSort job time on {p}, "
            rf"so no job overhead is set beside {p}'s micro-benchmark ratios here (not measured)."
        )
    what, ratio, overhead = job
    how = tex_escape(R.method_text(str(ratio["method"])))
    if overhead is not None:
        how += rf"; overhead {interval_text(overhead['estimate'], overhead['ci_low'], overhead['ci_high'])}\,\%"
    head = (
        rf"On {p}, the {tex_escape(what)} of the main campaign \texttt{{{tex_escape(main_name)}}} "
        rf"was {interval_text(ratio['estimate'], ratio['ci_low'], ratio['ci_high'])} times {b}'s ({how})"
    )
    if not beside:
        return head + "; the micro-benchmark ratios to set beside it were not measured in this build."
    return head + rf", beside {p}/{b} ratios of " + and_list(beside) + " in the sandbox study."


def sandbox_macros(
    study: SandboxStudy | None, main_stats: pd.DataFrame | None, main_name: str, baseline: str = "native"
) -> dict[str, str]:
    """Every `\\vbSandbox...` macro; those of platforms or metrics not measured read "not measured"."""
    rows = sandbox_rows(study.stats if study is not None else None, baseline)
    by_stem = {r.metric.stem: r for r in rows}
    m = {
        "vbSandboxCampaign": tex_escape(study.name) if study is not None else NOT_MEASURED_TEXT,
        "vbSandboxSentence": study_sentence(study),
        "vbSandboxRankSentence": rank_sentence(rows, baseline),
        "vbSandboxHadoopSentence": hadoop_sentence(),
        "vbSandboxJobSentence": job_sentence(main_stats, main_name, rows, baseline),
    }
    for metric in SANDBOX_METRICS:
        row = by_stem.get(metric.stem)
        for p in PLATFORMS:
            if p == baseline:
                continue
            c = row.of(p) if row is not None else None
            m[macro_name("Sandbox", metric.stem, "Ratio", p)] = NOT_MEASURED_TEXT if c is None else c.text
            m[macro_name("Sandbox", metric.stem, "Method", p)] = (
                NOT_MEASURED_TEXT if c is None else tex_escape(R.method_text(str(c.row["method"])))
            )
    return m
