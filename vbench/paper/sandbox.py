"""The sandboxed-kernel section (issue #21): what gVisor, OCI and LXC cost each workload against native.

The section lays out the sandbox study's statistics table (`vbench.stats.campaign_stats`, read or
computed once by `vbench.paper.results.campaign_statistics`): per metric, each platform's
preferred ratio to the baseline, the row the stopping rule judges (`preferred_ratio_rows`), with
its interval, method and pairs. The rows are the micro-benchmarks (compute, block I/O, the network
path) and then the Hadoop jobs the same hosts ran, so a platform's micro-benchmark overheads stand
beside its job overheads. gVisor's two network stacks are two levels of the study's
`testbed.gvisor.network` factor, compared with the platforms (`compare: [platform,
gvisor.network]`), so they appear as `gvisor/sandbox` and `gvisor/host`; `gvisor` alone is
gVisor's default, its own stack (Hadoop on gVisor hosts: BusyBox's statx-free `ls`,
vbench.testbed.gvisor).

`vbench.paper.tables.comparisons.table_sandbox`, `vbench.paper.figures.fig_sandbox` and the `\\vbSandbox...`
macros draw from the rows built here, so the three show the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from vbench.params import PLATFORMS
from vbench.samples import is_aa
from vbench.stats.campaign import Campaign
from vbench.stats.keys import platform_order
from vbench.stats.stopping import preferred_ratio_rows
from vbench.stats.warmup import measured_samples

from vbench.paper import results as R
from vbench.paper.abstract import benchmark_name, reader_name
from vbench.paper.fmt import NOT_MEASURED_TEXT, and_list, interval_text, macro_name, tex_escape

#: The platform with a sandboxed kernel, and the label of its default network level where the study
#: compared gVisor's two network stacks (`vbench.stats.compare`: platform/level).
SANDBOX = "gvisor"
DEFAULT_LEVELS = {SANDBOX: f"{SANDBOX}/sandbox"}
#: Labels with macros of their own beside PLATFORMS': gVisor on the host's network stack.
EXTRA_LABELS = (f"{SANDBOX}/host",)


@dataclass(frozen=True)
class SandboxMetric:
    """One row of the section: a (benchmark, metric) of the sandbox design."""

    benchmark: str
    metric: str
    label: str  # plain text without commas (sentences list labels); the table escapes it
    stem: str  # of its macros: \vbSandbox<stem>Ratio<Platform>
    job: bool = False  # a Hadoop job's metric (below the micro-benchmarks)


#: The rows, in the order the table and figure show them: compute, block I/O, the network path,
#: then the Hadoop jobs (NameNode round trips, HDFS writes, then whole jobs).
SANDBOX_METRICS = (
    SandboxMetric("cpu", "events_per_s", "sysbench CPU", "Cpu"),
    SandboxMetric("fio", "seq_read_bw", "fio sequential read", "SeqRead"),
    SandboxMetric("fio", "seq_write_bw", "fio sequential write", "SeqWrite"),
    SandboxMetric("fio", "randread_iops", "fio random read", "RandRead"),
    SandboxMetric("iperf3", "throughput_mean", "iperf3 TCP throughput", "Tcp"),
    SandboxMetric("latency", "rtt_mean", "mean round trip", "RoundTrip"),
    SandboxMetric("latency", "rtt_p99", "p99 round trip", "RoundTripTail"),
    SandboxMetric("nnbench", "create_write_avg_latency", "NNBench create/write latency", "Nnbench", job=True),
    SandboxMetric("dfsio", "write_throughput", "TestDFSIO write throughput", "DfsioWrite", job=True),
    SandboxMetric("terasort", "terasort.job_time", "TeraSort job time", "Terasort", job=True),
    SandboxMetric("wordcount", "wordcount.job_time", "WordCount job time", "Wordcount", job=True),
)


@dataclass(frozen=True, eq=False)
class SandboxStudy:
    """The sandbox campaign as the section sees it: its name, statistics table and tidy samples."""

    name: str
    stats: R.StatisticsLookup
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
        """The comparison of a compared label; `gvisor` is gVisor's default level where the study
        compared its network stacks."""
        for label in (platform, DEFAULT_LEVELS.get(platform)):
            found = next((c for c in self.comparisons if c.platform == label), None)
            if found is not None:
                return found
        return None


def sandbox_study(campaign: Campaign, statistics: tuple[pd.DataFrame, str]) -> tuple[SandboxStudy, str]:
    """The sandbox campaign's study, from the campaign and its `campaign_statistics` (the statistics
    stage's table, else computed by the same function; with the build note saying which)."""
    stats, note = statistics
    return SandboxStudy(campaign.name, R.lookup_of(stats), campaign.samples), note


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


def sandbox_rows(stats: R.StatisticsLookup | None, baseline: str = "native") -> list[SandboxRow]:
    """The section's rows: per metric of `SANDBOX_METRICS` measured in `stats`, each platform's
    preferred ratio to `baseline` at the metric's largest cell, with whether it ranks the platforms."""
    if stats is None or stats.empty:
        return []
    preferred = preferred_ratio_rows(stats.table)
    # A table of its own (the preferred rows), looked up once per metric: its own lookup record.
    preferred = R.lookup_of(preferred[(preferred["baseline"].astype(str) == baseline) & preferred["estimate"].notna()])
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
        rows = sorted((r for _, r in found.iterrows()), key=lambda r: platform_order(str(r["platform"])))
        comparisons = tuple(Comparison(str(r["platform"]), r, ranks(r, [o for o in rows if o is not r])) for r in rows)
        out.append(SandboxRow(m, str(found["unit"].iloc[0]), _direction(found), comparisons))
    return out


def compared_platforms(rows: list[SandboxRow]) -> list[str]:
    """The platforms compared with the baseline in any row, in the rows' order."""
    return list(dict.fromkeys(c.platform for r in rows for c in r.comparisons))


def _levels(samples: pd.DataFrame | None, column: str) -> int:
    if samples is None or samples.empty or column not in samples.columns:
        return 0
    return int(measured_samples(samples)[column].dropna().map(str).nunique())


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


def hadoop_sentence(rows: list[SandboxRow]) -> str:
    """How Hadoop runs on gVisor hosts, and whether the study ran its jobs there."""
    head = (
        r"Hadoop runs on gVisor hosts: this runsc's Sentry refuses \texttt{statx}, which the guest's "
        r"coreutils \texttt{ls} calls and Hadoop's NodeManager needs, so every gVisor host gets BusyBox's "
        r"\texttt{ls} and \texttt{stat}"
    )
    if any(r.metric.job and r.of(SANDBOX) is not None for r in rows):
        return head + "."
    return head + r", but this build's sandbox study ran no Hadoop job there, so no job overhead on gVisor is shown."


def study_sentence(study: SandboxStudy | None) -> str:
    """What the sandbox study ran, or that this build has none."""
    if study is None or study.samples.empty:
        return (
            r"This build was given no sandbox campaign (\texttt{paper.sandbox\_campaign}), so gVisor was not "
            r"measured here: Table~\ref{tab:sandbox} and Figure~\ref{fig:sandbox} are empty."
        )
    s = measured_samples(study.samples)
    platforms = [p for p in PLATFORMS if p in set(s["platform"].astype(str))]
    kinds = s.get("benchmark_kind", pd.Series(index=s.index, dtype=object)).astype(str)
    micro = sorted(s.loc[kinds != "hadoop", "benchmark"].dropna().astype(str).unique())
    jobs = sorted(s.loc[kinds == "hadoop", "benchmark"].dropna().astype(str).unique())
    networks = []
    if "factor.gvisor.network" in s.columns:
        networks = list(dict.fromkeys(s["factor.gvisor.network"].dropna().astype(str)))
    blocks, rounds = blocks_of(s), _levels(s, "round")
    layout = f"{blocks} blocks" + (f" of {rounds} interleaved rounds" if rounds > 1 else "")
    # Names as a reader knows them, not vbench's identifiers or the campaign's (issue #54).
    ran = "the micro-benchmarks " + and_list([benchmark_name(b) for b in micro])
    if jobs:
        ran += " and the Hadoop jobs " + and_list([benchmark_name(b) for b in jobs])
    where = " (gVisor with its own network stack and with the host's)" if len(networks) > 1 else ""
    return (
        "The sandbox study ran "
        + and_list(["native" if p == "native" else reader_name(p) for p in platforms])
        + f" hosts{where} through {ran} in {layout}, every configuration in each block."
    )


def rank_sentence(rows: list[SandboxRow], baseline: str = "native") -> str:
    """Which ratios rank the platforms (interval clear of 1 and of the other platforms' intervals)."""
    if not rows:
        return ""
    parts = []
    for p in compared_platforms(rows):
        won = [tex_escape(r.metric.label) for r in rows if (c := r.of(p)) is not None and c.ranks]
        parts.append(f"{reader_name(p)} on " + (and_list(won) if won else "no metric"))
    return (
        rf"Ratios whose interval excludes 1 and the other platforms' intervals, and so rank the platforms "
        rf"against {reader_name(baseline)} and each other: " + "; ".join(parts) + "."
    )


#: The micro-benchmark ratios set beside a platform's job ratios: what the jobs wait on.
BESIDE = (("RoundTrip", "round trip"), ("Tcp", "TCP throughput"), ("Cpu", "CPU"), ("SeqWrite", "sequential write"))


def job_sentence(rows: list[SandboxRow], baseline: str = "native") -> str:
    """Per platform, its job ratios beside the micro-benchmark ratios measured on the same hosts in
    the same blocks: which micro-benchmark overheads go with which job overheads."""
    jobs = [r for r in rows if r.metric.job]
    if not jobs:
        return (
            r"The sandbox study of this build ran no Hadoop job, so no job overhead stands beside the "
            r"micro-benchmark ratios (not measured)."
        )
    by_stem = {r.metric.stem: r for r in rows}
    parts = []
    for p in compared_platforms(jobs):
        job_text = [f"{tex_escape(r.metric.label)} {c.text}" for r in jobs if (c := r.of(p)) is not None]
        micro = [
            f"{label} {c.text}"
            for stem, label in BESIDE
            if (r := by_stem.get(stem)) is not None and (c := r.of(p)) is not None
        ]
        text = f"{reader_name(p)}: " + and_list(job_text)
        if micro:
            text += ", beside " + and_list(micro)
        parts.append(text)
    return (
        rf"Each platform's job ratios to {reader_name(baseline)}, beside its micro-benchmark ratios from the same "
        r"hosts and blocks: " + "; ".join(parts) + "."
    )


def sandbox_ratio(rows: list[SandboxRow], stem: str) -> pd.Series | None:
    """gVisor's ratio row (its default level, its own network stack) on one job metric, or None."""
    row = next((r for r in rows if r.metric.stem == stem and r.metric.job), None)
    c = row.of(SANDBOX) if row is not None else None
    return c.row if c is not None else None


def abstract_sentence(rows: list[SandboxRow], baseline: str = "native") -> str:
    """The abstract's answer for the sandboxed kernel: gVisor's ratio on TeraSort's job time and
    NNBench's create/write latency (a NameNode round trip); empty without either. Only gVisor's: the
    containers' answer is the one campaign `vbench.paper.abstract` quotes, not this study's second."""
    ratios = {stem: sandbox_ratio(rows, stem) for stem in ("Terasort", "Nnbench")}
    said = {
        stem: interval_text(r["estimate"], r["ci_low"], r["ci_high"]) for stem, r in ratios.items() if r is not None
    }
    if not said:
        return ""
    base = reader_name(baseline)
    if "Terasort" in said:
        text = f"TeraSort's job took {said['Terasort']} times as long as on {base}"
        text += f" and an NNBench create/write {said['Nnbench']} times" if "Nnbench" in said else ""
    else:
        text = f"an NNBench create/write took {said['Nnbench']} times as long as on {base}"
    return f"On gVisor, whose user-space kernel serves every system call, {text}."


def host_stack_measured(rows: list[SandboxRow]) -> bool:
    """Whether gVisor on the host's network stack was measured: the section's clauses on it are
    left out otherwise (they would read "not measured times ...")."""
    return any(r.of(label) is not None for r in rows for label in EXTRA_LABELS)


def macro_labels(baseline: str = "native") -> list[str]:
    """The compared labels that get macros: every platform but the baseline, and gVisor on the host's stack."""
    return [p for p in PLATFORMS if p != baseline] + list(EXTRA_LABELS)


def sandbox_macros(study: SandboxStudy | None, baseline: str = "native") -> dict[str, str]:
    """Every `\\vbSandbox...` macro; those of platforms or metrics not measured read "not measured"."""
    rows = sandbox_rows(study.stats if study is not None else None, baseline)
    by_stem = {r.metric.stem: r for r in rows}
    m = {
        "vbSandboxCampaign": tex_escape(study.name) if study is not None else NOT_MEASURED_TEXT,
        "vbSandboxSentence": study_sentence(study),
        "vbSandboxRankSentence": rank_sentence(rows, baseline),
        "vbSandboxHadoopSentence": hadoop_sentence(rows),
        "vbSandboxJobSentence": job_sentence(rows, baseline),
        "vbSandboxAbstractSentence": abstract_sentence(rows, baseline),
        "vbHasSandboxGvisorHost": "1" if host_stack_measured(rows) else "0",
    }
    for metric in SANDBOX_METRICS:
        row = by_stem.get(metric.stem)
        for p in macro_labels(baseline):
            c = row.of(p) if row is not None else None
            m[macro_name("Sandbox", metric.stem, "Ratio", p)] = NOT_MEASURED_TEXT if c is None else c.text
            m[macro_name("Sandbox", metric.stem, "Method", p)] = (
                NOT_MEASURED_TEXT if c is None else tex_escape(R.method_text(str(c.row["method"])))
            )
    return m
