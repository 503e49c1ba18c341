"""The paper's tables, one function each, in the layouts of the studies they revisit.

Every function takes the statistics table (`vbench.paper.results.paper_statistics`), the tidy
samples and the baseline, and returns the LaTeX of one `table` environment (booktabs rules,
siunitx numbers). Cells are "mean +/- half-width of the 95 % Student-t CI" from the statistics
table; a cell with no data is an em dash, a cell with one run is the bare mean with a dagger,
and a table with no data at all still compiles, as one "not measured in this campaign" row.
Nothing here formats a number by hand: `vbench.paper.fmt` does.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable

import pandas as pd

from vbench.benchmarks import netmatrix as NM
from vbench.benchmarks.micro.bonnie import TEST_OF_METRIC
from vbench.params import PLATFORMS
from vbench.stats.campaign_stats import StatsConfig
from vbench.stats.compare import LEVEL, measured_platforms
from vbench.samples import aa_label, is_aa
from vbench.stats.describe import t_interval
from vbench.stats.keys import natural_key
from vbench.stats.slowdown import slowdown_stats
from vbench.stats.paired import FIELLER, PAIRED_T
from vbench.stats.table import quiet_counts
from vbench.stats.tidy import split_size_key, stamp_list, stamp_mapping
from vbench.wording import noun

from vbench.paper import results as R
from vbench.paper import sandbox as S
from vbench.paper.delta import machine_platform
from vbench.paper.fmt import NOT_MEASURED, digits_display, interval_text, num_pm, size_display, tex_escape, unit_tex


# --- rendering --------------------------------------------------------------------------------------


@dataclass
class Grid:
    """A table's content before it becomes LaTeX."""

    header: list[str]
    rows: list[list[str]]
    colspec: str
    caption: str
    label: str
    notes: list[str]
    size: str = r"\small"
    rules_after: tuple[int, ...] = ()  # \midrule after these body rows (0-based)
    above: str = ""  # a header line above `header` (column groups), with its own rules

    @property
    def empty(self) -> bool:
        return not self.rows


def render(g: Grid) -> str:
    ncols = len(g.header)
    lines = [
        r"\begin{table}[htbp]",
        r"\centering",
        g.size,
        rf"\caption{{{g.caption}}}",
        rf"\label{{{g.label}}}",
        rf"\begin{{tabular}}{{{g.colspec}}}",
        r"\toprule",
        *([g.above] if g.above else []),
        " & ".join(g.header) + r" \\",
        r"\midrule",
    ]
    if g.empty:
        lines.append(rf"\multicolumn{{{ncols}}}{{c}}{{\emph{{not measured in this campaign}}}} \\")
    for i, row in enumerate(g.rows):
        lines.append(" & ".join(row) + r" \\")
        if i in g.rules_after and i != len(g.rows) - 1:
            lines.append(r"\midrule")
    lines += [r"\bottomrule", r"\end{tabular}"]
    notes = [n for n in g.notes if n and (not g.empty or not n.startswith(ABSENT_PREFIX))]
    if notes:
        lines.append(r"\par\smallskip\parbox{0.95\linewidth}{\footnotesize\raggedright " + " ".join(notes) + "}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def campaign_platforms(samples: pd.DataFrame, baseline: str) -> list[str]:
    if samples is None or samples.empty:
        return []
    ps = sorted(samples["platform"].astype(str).unique(), key=natural_key)
    return ([baseline] if baseline in ps else []) + [p for p in ps if p != baseline]


def emulated_platforms(samples: pd.DataFrame | None) -> set[str]:
    """The platforms whose hosts ran under software emulation (QEMU's TCG) in these samples, from
    the runs' `host_accelerators` and `host_platforms` stamps (dicts, or their JSON text after
    tidying). A mixed cluster's VM marks its own platform only. Pure."""
    cols = ["host_accelerators", "host_platforms"]
    if samples is None or any(c not in samples.columns for c in cols):
        return set()

    out: set[str] = set()
    stamps = samples[cols].dropna().map(lambda v: v if isinstance(v, str) else json.dumps(dict(v), sort_keys=True))
    for accelerators, platforms in stamps.drop_duplicates().itertuples(index=False):
        hosts = stamp_mapping(platforms)
        out |= {str(hosts[h]) for h, a in stamp_mapping(accelerators).items() if a == "tcg" and h in hosts}
    return out


#: The mark of an emulated platform's column and its note.
EMULATED_MARK = r"$^{\ddagger}$"
EMULATED_NOTE = (
    EMULATED_MARK + r" A QEMU guest under TCG, software emulation of the CPU (this machine has no usable KVM):"
    r" an emulator's figures, not a hypervisor's."
)


#: How a table names the platforms vbench runs that none of the campaigns it reads ran (e.g.
#: gVisor beside the studies' tables: only the sandbox study runs it, and it has its own table).
ABSENT_PREFIX = "Not run in the campaigns this table reads: "


def _absent_note(samples: pd.DataFrame, baseline: str) -> str:
    missing = [p for p in PLATFORMS if p not in campaign_platforms(samples, baseline)]
    return (ABSENT_PREFIX + ", ".join(tex_escape(p) for p in missing) + ".") if missing else ""


def _n_range(ns: list[int]) -> str:
    """`$n=3$`, or `$n=2$--$5$` when the counts differ (`$n=0$` for none)."""
    lo, hi = (min(ns), max(ns)) if ns else (0, 0)
    return f"$n={lo}$" if lo == hi else f"$n={lo}$--${hi}$"


def _cell_notes(ns: list[int], any_missing: bool, any_single: bool, conf_pct: str = "95") -> str:
    parts = [rf"Mean $\pm$ half-width of the {conf_pct}\,\% Student-$t$ confidence interval"]
    if ns:
        if min(ns) == max(ns):
            parts[0] += f" over {_n_range(ns)} sample{'s' if ns[0] != 1 else ''}."
        else:
            parts[0] += f" over {_n_range(ns)} samples per cell."
    else:
        parts[0] += "."
    if any_single:
        parts.append(r"$^\dagger$~one run only: no interval.")
    if any_missing:
        parts.append(r"\textemdash~not measured.")
    return " ".join(parts)


class _Cells:
    """Collects cells and the facts the table's notes need (n range, gaps, single runs)."""

    def __init__(self, stats: pd.DataFrame) -> None:
        self.stats = stats
        self.ns: list[int] = []
        self.missing = False
        self.single = False
        self.any_value = False

    def mean(self, experiment, platform, benchmark, metric, size) -> str:
        row = R.mean_row(self.stats, experiment, platform, benchmark, metric, size) if experiment else None
        return self.from_row(row)

    def from_row(self, row) -> str:
        if row is None or pd.isna(row["estimate"]):
            self.missing = True
            return NOT_MEASURED
        self.any_value = True
        n = int(row["n"]) if pd.notna(row["n"]) else 0
        self.ns.append(n)
        if pd.isna(row["ci_low"]) or pd.isna(row["ci_high"]):
            self.single = True
        return num_pm(row["estimate"], row["ci_low"], row["ci_high"])

    def notes(self) -> str:
        return _cell_notes(self.ns, self.missing, self.single)


@dataclass(frozen=True)
class MetricRows:
    """A table in the layout of most of the studies' tables: a row per (label, metric) of one
    benchmark, a column per platform. Called like every table function."""

    name: str
    benchmark: str
    metrics: tuple[tuple[str, str], ...]
    caption: str
    label: str
    first_col: str
    prefer: tuple[str, ...] = ("micro", "platforms")

    @property
    def __name__(self) -> str:
        # docs/paper-map.md names every table by its function's name; this one stands for one.
        return self.name

    def __call__(self, stats, samples, baseline="native") -> str:
        platforms = campaign_platforms(samples, baseline)
        names = [m for _, m in self.metrics]
        experiment = R.pick_experiment(stats, self.benchmark, names, self.prefer)
        if experiment:
            # One experiment fills the table: the platforms only other experiments ran (another
            # study's factor levels, the default campaign's A/A copy) would be columns of dashes.
            ran = set(R.rows(stats, experiment=experiment)["platform"].astype(str))
            platforms = [p for p in platforms if p in ran] or platforms
        cells = _Cells(stats)
        body = []
        size_used = None
        untimed = untimed_tests(samples, experiment) if self.benchmark == "bonnie" and experiment else {}
        any_untimed = False
        if experiment:
            for text, metric in self.metrics:
                sizes = R.sizes_for(stats, experiment, self.benchmark, metric)
                size = sizes[-1] if sizes else None
                size_used = size_used or size
                unit = _unit_of(stats, self.benchmark, metric)
                label_cell = f"{text} ({unit_tex(unit)})" if unit_tex(unit) else text
                row = [label_cell]
                for p in platforms:
                    cell = cells.mean(experiment, p, self.benchmark, metric, size)
                    if cell == NOT_MEASURED and TEST_OF_METRIC.get(metric) in untimed.get(p, ()):
                        cell, any_untimed = UNTIMED, True
                    row.append(cell)
                body.append(row)
        where = (experiment, size_used)
        return _platform_columns(
            cells,
            body,
            self.first_col,
            platforms,
            samples,
            baseline,
            where,
            self.caption,
            self.label,
            about=UNTIMED_NOTE if any_untimed else "",
        )


#: A bonnie++ cell that ran but printed "+++++": the test ended too fast to time.
UNTIMED = r"\emph{untimed}"
UNTIMED_NOTE = (
    r"\emph{untimed}: measured, but bonnie++ finished the test too fast to time at this file size "
    r"(it prints +++++), on every run of the platform."
)


def untimed_tests(samples: pd.DataFrame, experiment: str) -> dict[str, set[str]]:
    """platform -> the bonnie++ tests that every one of its runs in `experiment` finished too fast
    to time (the runs' `too_fast`, vbench.benchmarks.micro.bonnie). Pure."""
    if samples is None or samples.empty or "too_fast" not in samples.columns:
        return {}
    rows = samples[(samples["benchmark"] == "bonnie") & (samples["experiment"] == experiment)]
    out: dict[str, set[str]] = {}
    for platform, group in rows.groupby(rows["platform"].astype(str)):
        runs = [stamp_list(v) for v in group.drop_duplicates("run_id")["too_fast"]] if "run_id" in group else []
        if runs and all(r is not None for r in runs):
            out[platform] = set.intersection(*(set(r) for r in runs))
    return out


def _platform_columns(
    cells: _Cells,
    body: list[list[str]],
    first_col: str,
    platforms: list[str],
    samples,
    baseline: str,
    where: tuple[str | None, str | None],
    caption: str,
    label: str,
    about: str = "",
    **grid,
) -> str:
    """A table with a column per platform, its notes those of every such table: the cells' (n,
    gaps), `about` (what the numbers are), `where` (experiment, size) they come from, and the
    platforms this campaign did not measure. No measured cell: no rows."""
    body = body if cells.any_value else []
    # A platform this table has no value for gets no column (its page is not wide enough for every
    # platform of a campaign): the note names it instead.
    keep = [i for i in range(len(platforms)) if not body or any(row[i + 1] != NOT_MEASURED for row in body)]
    unmeasured = [platforms[i] for i in range(len(platforms)) if i not in keep]
    body = [[row[0]] + [row[i + 1] for i in keep] for row in body]
    platforms = [platforms[i] for i in keep]
    emulated = emulated_platforms(samples) & set(platforms)
    header = [first_col] + [tex_escape(p) + (EMULATED_MARK if p in emulated else "") for p in platforms]
    notes = [
        cells.notes() if body else "",
        about if body else "",
        _where(*where) if body else "",
        EMULATED_NOTE if body and emulated else "",
        ("Not measured in this table: " + ", ".join(tex_escape(p) for p in unmeasured) + ".") if unmeasured else "",
        _absent_note(samples, baseline),
    ]
    return render(Grid(header, body, "l" + "c" * len(platforms), caption, label, notes, **grid))


def _unit_of(stats, benchmark, metric) -> str:
    r = R.rows(stats, benchmark=benchmark, metric=metric, statistic="mean", method="t")
    return str(r["unit"].iloc[0]) if not r.empty else ""


def _as_count(level: object) -> float:
    """A factor's level as the count it names ("1" guest per host); a label that is no number counts
    as many, so its noun reads plural."""
    try:
        return float(str(level))
    except ValueError:
        return 0.0


def _vs_base_note(column: str, job: str, base: str) -> str:
    """What a factor table's "vs <base level>" column holds, in its note."""
    return (
        rf"Elapsed times in \unit{{\second}}; ``{column}'': {job}'s time over its time with {base}, "
        r"with its 95\,\% interval (paired by block where each block ran both). "
    )


def _where(experiment, size) -> str:
    bits = [f"Experiment \\texttt{{{tex_escape(experiment)}}}"] if experiment else []
    if size:
        bits.append(f"cell \\texttt{{{tex_escape(size)}}}")
    return (", ".join(bits) + ".") if bits else ""


# --- Vasconcelos & Freitas, Tables 1-5 ------------------------------------------------------------


_BONNIE_BLOCK = (("Sequential write", "seq_write_bw"), ("Rewrite", "rewrite_bw"), ("Sequential read", "seq_read_bw"))
_BONNIE_METADATA = (
    ("Sequential create", "seq_create"),
    ("Sequential delete", "seq_delete"),
    ("Random create", "random_create"),
    ("Random delete", "random_delete"),
)
_BONNIE_CPU = (
    ("Sequential write CPU", "seq_write_cpu"),
    ("Rewrite CPU", "rewrite_cpu"),
    ("Read CPU", "seq_read_cpu"),
    ("Random seek CPU", "random_seeks_cpu"),
)

#: Block I/O of bonnie++ (Vasconcelos & Freitas, Table 1).
table_bonnie_block = MetricRows(
    "table_bonnie_block",
    "bonnie",
    _BONNIE_BLOCK,
    r"Block I/O of bonnie++ per platform (after Vasconcelos \& Freitas, Table~1). Higher is better.",
    "tab:bonnie-block",
    "Test",
)
#: File metadata operations of bonnie++ (Vasconcelos & Freitas, Table 2).
table_bonnie_metadata = MetricRows(
    "table_bonnie_metadata",
    "bonnie",
    _BONNIE_METADATA,
    r"File metadata operations of bonnie++ (after Vasconcelos \& Freitas, Table~2). Higher is better.",
    "tab:bonnie-metadata",
    "Test",
)
#: CPU use during the bonnie++ tests (Vasconcelos & Freitas, Table 3).
table_bonnie_cpu = MetricRows(
    "table_bonnie_cpu",
    "bonnie",
    _BONNIE_CPU,
    r"CPU use during the bonnie++ tests (after Vasconcelos \& Freitas, Table~3). Lower is better.",
    "tab:bonnie-cpu",
    "Test",
)


def table_iperf(stats, samples, baseline="native") -> str:
    """iperf3 throughput per second of a run (Vasconcelos & Freitas, Table 4)."""
    platforms = campaign_platforms(samples, baseline)
    experiment = R.pick_experiment(stats, "iperf3", ["throughput"], ("micro", "platforms"))
    cells = _Cells(stats)
    body = []
    if experiment:
        sizes = R.sizes_for(stats, experiment, "iperf3", "throughput")
        for size in sizes:
            interval = size.split("interval=")[-1].split(",")[0] if "interval=" in size else size or "all"
            body.append(
                [tex_escape(interval)] + [cells.mean(experiment, p, "iperf3", "throughput", size) for p in platforms]
            )
        mean_sizes = R.sizes_for(stats, experiment, "iperf3", "throughput_mean")
        if mean_sizes:
            body.append(
                [r"whole run"]
                + [cells.mean(experiment, p, "iperf3", "throughput_mean", mean_sizes[-1]) for p in platforms]
            )
    return _platform_columns(
        cells,
        body,
        r"Second",
        platforms,
        samples,
        baseline,
        (experiment, None),
        r"Network throughput of iperf3 per second of a run (after Vasconcelos \& Freitas, Table~4).",
        "tab:iperf",
        about=r"Throughput in \unit{\mega\bit\per\second}, one row per reporting interval.",
        rules_after=(len(body) - 2,),
    )


def table_pi_digits(stats, samples, baseline="native") -> str:
    """Time to compute N digits of pi (Vasconcelos & Freitas, Table 5)."""
    platforms = campaign_platforms(samples, baseline)
    experiment = R.pick_experiment(stats, "pi_digits", ["time"], ("micro", "platforms"))
    cells = _Cells(stats)
    body = []
    if experiment:
        for size in R.sizes_for(stats, experiment, "pi_digits", "time"):
            label = digits_display(size) if size.isdigit() else tex_escape(size)
            body.append([label] + [cells.mean(experiment, p, "pi_digits", "time", size) for p in platforms])
    return _platform_columns(
        cells,
        body,
        r"Pi digits",
        platforms,
        samples,
        baseline,
        (experiment, None),
        r"Time to compute digits of pi (after Vasconcelos \& Freitas, Table~5). Lower is better.",
        "tab:pi-digits",
        about=r"Times in \unit{\second}.",
    )


# --- Xavier et al., Tables I-III --------------------------------------------------------------------


#: NNBench latencies per platform (Xavier et al., Table I).
table_nnbench = MetricRows(
    "table_nnbench",
    "nnbench",
    (("Open/read", "open_avg_latency"), ("Create/write", "create_write_avg_latency")),
    r"NameNode latency measured by NNBench (after Xavier et al., Table~I). Lower is better.",
    "tab:nnbench",
    "Operation",
    prefer=("platforms",),
)
#: MRBench average job time per platform (Xavier et al., Table II).
table_mrbench = MetricRows(
    "table_mrbench",
    "mrbench",
    (("Execution time", "avg_job_time"),),
    r"Average job time of MRBench's small jobs (after Xavier et al., Table~II). Lower is better.",
    "tab:mrbench",
    "",
    prefer=("platforms",),
)

#: Hadoop Pi's job time per platform (Vasconcelos & Freitas, Fig. 6: 10^10 samples over 6 maps).
table_hadoop_pi = MetricRows(
    "table_hadoop_pi",
    "pi",
    (("Job time", "job_wall_time"), ("Reported by the job", "reported_time")),
    r"Hadoop Pi, a CPU-bound MapReduce job with almost no I/O (after Vasconcelos \& Freitas, Fig.~6). "
    r"Lower is better.",
    "tab:hadoop-pi",
    "",
    prefer=("platforms",),
)

ISOLATION_STRESSES = (("cpu", "CPU"), ("memory", "Memory"), ("io", "I/O"), ("forkbomb", "Fork bomb"))


def isolation_stats(samples: pd.DataFrame, cfg: StatsConfig = StatsConfig()) -> pd.DataFrame:
    """The slowdown beside each stress (vbench.stats.slowdown, which `vbench isolation` prints too)."""
    return slowdown_stats(samples, conf=cfg.conf, n_resamples=cfg.n_resamples, seed=cfg.seed)


def table_isolation(stats, samples, baseline="native", iso: pd.DataFrame | None = None) -> str:
    """Performance isolation: TeraSort slowdown beside a stressed neighbour (Xavier et al., Table III)."""
    iso = isolation_stats(samples) if iso is None else iso
    body = []
    any_value = False
    if iso is not None and not iso.empty:
        for experiment in sorted(iso["experiment"].unique(), key=natural_key):
            row = [tex_escape(experiment.split("/", 1)[-1])]
            for stress, _ in ISOLATION_STRESSES:
                r = R.rows(iso, experiment=experiment, platform=stress, statistic="overhead_pct", method="fieller")
                if r.empty or pd.isna(r.iloc[-1]["estimate"]):
                    row.append(NOT_MEASURED)
                else:
                    x = r.iloc[-1]
                    any_value = True
                    row.append(interval_text(x["estimate"], x["ci_low"], x["ci_high"]))
            body.append(row)
    if not any_value:
        body = []
    header = ["Platform"] + [name for _, name in ISOLATION_STRESSES]
    notes = [
        r"Slowdown of TeraSort in \% (positive: slower) beside a container running the stress, relative to"
        r" TeraSort beside an idle one; estimate and 95\,\% Fieller interval of the ratio of means."
        if body
        else "",
        r"\textemdash~not measured." if body and any(NOT_MEASURED in c for r_ in body for c in r_) else "",
        r"$^\dagger$~fewer than two runs of the stress or of the baseline: no interval."
        if any(r"$^\dagger$" in c for r_ in body for c in r_)
        else "",
    ]
    return render(
        Grid(
            header,
            body,
            "l" + "c" * len(ISOLATION_STRESSES),
            r"Performance isolation (after Xavier et al., Table~III). Lower is better.",
            "tab:isolation",
            notes,
        )
    )


# --- Liu et al., Tables 1-2 -------------------------------------------------------------------------

_PHASES = (("shuffle", "Shuffle"), ("merge", "Sort (merge)"), ("reduce", "Reduce"), ("attempt", "Total"))


def table_reducer_phases(stats, samples, baseline="native") -> str:
    """Reduce-task phases per node (Liu et al., Tables 1-2): mean over attempts with a t interval."""
    body, ns = [], []
    single = missing = False
    bench = None
    for candidate in ("sort", "terasort"):
        if (
            samples is not None
            and not samples.empty
            and samples["metric"].astype(str).str.startswith(f"{candidate}.attempt.reduce_").any()
        ):
            bench = candidate
            break
    if bench:
        df = samples[samples["metric"].astype(str).str.startswith(f"{bench}.attempt.reduce_")]
        df = df[df["benchmark"] == bench]
        nodes = df["node"].fillna("?").astype(str) if "node" in df.columns else pd.Series("?", index=df.index)
        df = df.assign(node=nodes)
        plats = campaign_platforms(df, baseline)
        for p in plats:
            for node in sorted(df.loc[df["platform"] == p, "node"].unique(), key=natural_key):
                row = [tex_escape(p), tex_escape(node)]
                for phase, _ in _PHASES:
                    x = df[
                        (df["platform"] == p)
                        & (df["node"] == node)
                        & (df["metric"] == f"{bench}.attempt.reduce_{phase}_time")
                    ]["value"].to_numpy(dtype=float)
                    if x.size == 0:
                        missing = True
                        row.append(NOT_MEASURED)
                        continue
                    iv = t_interval(x)
                    ns.append(int(x.size))
                    single |= iv.low is None
                    row.append(num_pm(iv.estimate, iv.low, iv.high))
                body.append(row)
    header = ["Platform", "Node"] + [f"{name}" for _, name in _PHASES]
    notes = []
    if body:
        notes.append(
            rf"Reduce attempts of \texttt{{{bench}}} (all repetitions and sizes pooled), times in \unit{{\second}}; "
            r"mean $\pm$ half-width of the 95\,\% Student-$t$ interval over the node's "
            + _n_range(ns)
            + " attempts. Sort is Hadoop's merge phase."
        )
        if single:
            notes.append(r"$^\dagger$~one attempt only.")
        if missing:
            notes.append(r"\textemdash~not measured.")
    return render(
        Grid(
            header,
            body,
            "ll" + "c" * len(_PHASES),
            r"Reduce-task phases per node (after Liu et al., Tables~1--2).",
            "tab:reducer-phases",
            notes,
        )
    )


# --- Liu et al.: the heterogeneous cluster's straggler ---------------------------------------------


def table_pernode(stats, samples, baseline="native") -> str:
    """Per-node task times of a (mixed) cluster and its straggler (Liu et al.): from the task
    attempts JobHistory recorded, succeeded and failed, by `vbench.stats.pernode`."""
    from vbench.stats import pernode

    rows = pernode.node_table(samples) if samples is not None and not samples.empty else []
    body, rules = [], []
    previous = None
    for r in rows:
        key = (r.cluster, r.step, r.task_type)
        if previous is not None and key != previous:
            rules.append(len(body) - 1)
        previous = key
        body.append(
            [
                tex_escape(r.step),
                r.task_type.lower(),
                tex_escape(r.node),
                tex_escape(r.platform),
                str(r.tasks),
                NOT_MEASURED if r.mean_s is None else rf"\num{{{r.mean_s:.1f}}}",
                NOT_MEASURED if r.max_s is None else rf"\num{{{r.max_s:.1f}}}",
                NOT_MEASURED if r.vs_others is None else rf"\num{{{r.vs_others:.2f}}}",
                str(r.failed),
                str(r.lost_races),
            ]
        )
    notes = []
    if body:
        verdicts = [v for v in pernode.stragglers(rows) if v.node]
        notes.append(
            r"Task attempts per node from JobHistory (all runs pooled), times in \unit{\second}; "
            r"``vs others'': the node's mean over the median of the other nodes' means; "
            r"``failed'': attempts sent to the node that failed (and were re-run elsewhere); "
            r"``outrun'': its attempts killed because a speculative copy of the task finished first."
        )
        notes.append(
            "Straggler: "
            + (
                "; ".join(tex_escape(f"{v.step} {v.task_type.lower()}: {v.verdict}") for v in verdicts) + "."
                if verdicts
                else "none found (a node at 1.5x the others' median with 3 or more tasks, or one that finished none)."
            )
        )
        if any(NOT_MEASURED in c for r_ in body for c in r_):
            notes.append(r"\textemdash~no attempt succeeded on this node.")
    return render(
        Grid(
            ["Step", "Task", "Node", "Platform", "Tasks", "Mean", "Max", "vs others", "Failed", "Outrun"],
            body,
            "llllrrrrrr",
            r"Task times per node of a heterogeneous cluster (after Liu et al.).",
            "tab:pernode",
            notes,
            rules_after=tuple(rules),
        )
    )


#: (benchmark, metric, column) of Liu et al.'s per-node disk figures: dd with fdatasync (Fig. 2),
#: hdparm -t (Fig. 3).
_NODE_DISKS = (("dd", "write_bw", "dd write"), ("hdparm", "buffered_read_bw", "hdparm read"))


def table_node_disks(stats, samples, baseline="native") -> str:
    """dd's write and hdparm's read speed per node (Liu et al., Figs 2-3): the mean with a t interval
    over every repeat on the node, the node's platform its own in a mixed cluster
    (`vbench.paper.delta.machine_platform`), and the node's mean over the other baseline nodes' of
    its experiment (Liu's VM against the physical machines). Pure."""
    df = samples.iloc[0:0] if samples is None else samples
    if not df.empty:
        keys = {(b, m) for b, m, _ in _NODE_DISKS}
        df = df[[(b, m) in keys for b, m in zip(df["benchmark"], df["metric"])]]
    if not df.empty:
        host = df["host"] if "host" in df.columns else pd.Series(None, index=df.index, dtype=object)
        df = df.assign(node=host.fillna("?").astype(str), machine=machine_platform(df))
    experiments = sorted(df["experiment"].astype(str).unique(), key=natural_key) if not df.empty else []
    multi = len(experiments) > 1
    body: list[list[str]] = []
    ns: list[int] = []
    units = dict(zip(df["benchmark"], df["unit"].astype(str))) if not df.empty else {}
    for ex in experiments:
        part = df[df["experiment"].astype(str) == ex]
        values = {
            key: grp["value"].to_numpy(dtype=float) for key, grp in part.groupby(["machine", "node", "benchmark"])
        }
        for p in campaign_platforms(part.assign(platform=part["machine"]), baseline):
            for node in sorted(part.loc[part["machine"] == p, "node"].unique(), key=natural_key):
                cells, ratios = [], []
                for b, _m, _name in _NODE_DISKS:
                    x = values.get((p, node, b))
                    if x is None:
                        cells.append(NOT_MEASURED)
                        ratios.append(NOT_MEASURED)
                        continue
                    iv = t_interval(x)
                    ns.append(int(x.size))
                    cells.append(num_pm(iv.estimate, iv.low, iv.high))
                    others = [
                        v.mean()
                        for (q, n, bb), v in values.items()
                        if q == baseline and bb == b and not (p == baseline and n == node)
                    ]
                    ratios.append(
                        rf"\num{{{iv.estimate / (sum(others) / len(others)):.2f}}}" if others else NOT_MEASURED
                    )
                lead = [tex_escape(ex)] if multi else []
                body.append(lead + [tex_escape(p), tex_escape(node)] + cells + ratios)
    header = (["Experiment"] if multi else []) + ["Platform", "Node"]
    header += [f"{name} ({unit_tex(units[b])})" if b in units else name for b, _, name in _NODE_DISKS]
    header += [f"{name} vs {tex_escape(baseline)}" for _, _, name in _NODE_DISKS]
    notes = []
    if body:
        notes.append(
            r"Mean $\pm$ half-width of the 95\,\% Student-$t$ interval over every repeat on the node (all runs "
            + f"pooled), {_n_range(ns)}"
            + r". dd writes with \texttt{conv=fdatasync} (the disk's speed, not the page cache's); hdparm~\texttt{-t} "
            rf"reads the block device under the work directory. ``vs {tex_escape(baseline)}'': the node's mean over "
            rf"the mean of the other {tex_escape(baseline)} nodes of its experiment."
        )
        if any(NOT_MEASURED in c for row in body for c in row):
            notes.append(r"\textemdash~not measured.")
        if any(r"^\dagger" in c for row in body for c in row):
            notes.append(r"$^\dagger$~one repeat only.")
    return render(
        Grid(
            header,
            body,
            "l" * (len(header) - 2 * len(_NODE_DISKS)) + "c" * (2 * len(_NODE_DISKS)),
            r"Disk speed per node: dd write and hdparm read (after Liu et al., Figs.~2--3). Higher is better.",
            "tab:node-disks",
            notes,
        )
    )


# --- Jeong et al., Fig. 4 ------------------------------------------------------------------------

#: Fig. 4's pairs in its order, with what each crosses.
_NETMATRIX_PAIRS = (
    (NM.SAME, "one host"),
    (NM.GUEST_HOST, "guest to its host"),
    (NM.OTHER_HOST, "guest to another host"),
    (NM.CROSS, "two hosts"),
)


def table_netmatrix(stats, samples, baseline="native") -> str:
    """The iperf3 matrix per network mode (Jeong et al., Fig. 4): each pair's throughput sending
    and receiving, the mean with a t interval over the blocks, a column per mode (the design's
    compared level, the baseline mode first). Reads the statistics of the experiment that
    measured `netmatrix`, and the samples for the rate of the shaped link. Pure."""
    metric = "throughput_mean"
    experiment = R.pick_experiment(stats, NM.NAME, [metric], ("netmatrix",)) if stats is not None else None
    cells = _Cells(stats)
    body: list[list[str]] = []
    modes: list[str] = []
    if experiment:
        base = R.compared_baseline(stats, experiment=experiment, benchmark=NM.NAME, metric=metric)
        modes = R.platforms_in(stats, base, experiment=experiment, benchmark=NM.NAME, metric=metric)
        # A cell's size key is its label, then the parameters the design varied (reverse=True).
        sizes = {split_size_key(k)[0]: k for k in R.sizes_for(stats, experiment, NM.NAME, metric)}
        for kind, crosses in _NETMATRIX_PAIRS:
            for direction in (NM.SEND, NM.RECEIVE):
                size = sizes.get(NM.cell_label(kind, direction))
                row = [cells.mean(experiment, m, NM.NAME, metric, size) if size else NOT_MEASURED for m in modes]
                if all(c == NOT_MEASURED for c in row):
                    continue
                lead = rf"{NM.JEONG_LABELS[kind]} ({crosses})" if direction == NM.SEND else ""
                body.append([lead, direction, *row])
    rates = _shaped_rates(samples, experiment)
    about = (
        r"Throughput in \unit{\mega\bit\per\second}, the receiver's mean over a run, TCP's slow start left out; "
        r"``send'': the first guest sends, ``receive'': it receives (iperf3~\texttt{-R}). "
        r"The guests sit on emulated physical hosts (network namespaces)"
        + (
            f"; the paths between them cross a link shaped to {rates} \\unit{{\\mega\\bit\\per\\second}}."
            if rates
            else "."
        )
    )
    notes = [cells.notes() if body else "", about if body else "", _where(experiment, None) if body else ""]
    header = ["Pair (Jeong et al.)", "Direction", *(tex_escape(m) for m in modes)]
    return render(
        Grid(
            header,
            body if cells.any_value else [],
            "ll" + "c" * len(modes),
            r"The iperf3 matrix per network mode (after Jeong et al., Fig.~4). Higher is better.",
            "tab:netmatrix",
            notes,
            rules_after=tuple(range(1, len(body), 2)),
        )
    )


def _shaped_rates(samples, experiment) -> str:
    """The shaped link's rate(s) the experiment's netmatrix samples crossed, as text ("200")."""
    if samples is None or samples.empty or not experiment or "configured_mbit" not in samples.columns:
        return ""
    part = samples[(samples["benchmark"] == NM.NAME) & (samples["experiment"] == experiment)]
    rates = sorted({float(v) for v in part["configured_mbit"].dropna()})
    return " and ".join(f"{r:g}" for r in rates)


# --- VMware, Tables 2-4 -----------------------------------------------------------------------------

_TERA = (
    ("teragen_time", "TeraGen"),
    ("terasort_time", "TeraSort"),
    ("teravalidate_time", "TeraValidate"),
    ("terasort.map_shuffle_time", "map-shuffle"),
    ("terasort.reduce_merge_time", "reduce-merge"),
)
_TERA_HEADER = ["TeraGen", "TeraSort", "TeraValidate", "map-shuffle", "reduce-merge"]


def _tera_cells(cells: _Cells, stats, experiment, platform, size, extra=()) -> list[str]:
    out = [cells.mean(experiment, platform, "terasort", m, size) for m, _ in _TERA]
    return out + [cells.mean(experiment, platform, "terasort", m, size) for m in extra]


def table_tera_elapsed(stats, samples, baseline="native") -> str:
    """TeraGen/TeraSort/TeraValidate elapsed times and TeraSort phases per platform (VMware, Table 2)."""
    experiment = R.pick_experiment(stats, "terasort", ["terasort_time"], ("platforms",))
    cells = _Cells(stats)
    body = []
    size = None
    elsewhere = []  # platforms of the merged campaigns that this experiment did not run
    if experiment:
        sizes = R.sizes_for(stats, experiment, "terasort", "terasort_time")
        size = sizes[-1] if sizes else None
        ran = set(R.platforms_in(stats, baseline, experiment=experiment, benchmark="terasort", size=size))
        platforms = set(measured_platforms(samples))  # not a factor study's levels (bridge, rack, 2...)
        for p in campaign_platforms(samples, baseline):
            if p not in ran:
                if p in platforms:
                    elsewhere.append(p)
                continue
            body.append([tex_escape(p)] + _tera_cells(cells, stats, experiment, p, size))
    if not cells.any_value:
        body = []
    notes = [
        cells.notes() if body else "",
        r"Elapsed times in \unit{\second}; map-shuffle and reduce-merge are the"
        r" TeraSort job's phases from the job history."
        if body
        else "",
        _where(experiment, size) if body else "",
        ("Measured in other experiments only: " + ", ".join(tex_escape(p) for p in elsewhere) + ".")
        if body and elsewhere
        else "",
        _absent_note(samples, baseline),
    ]
    return render(
        Grid(
            ["Platform"] + _TERA_HEADER,
            body,
            "l" + "c" * 5,
            r"Elapsed times of the TeraSort suite per platform (after VMware, Table~2). Lower is better.",
            "tab:tera-elapsed",
            notes,
            size=r"\footnotesize",
        )
    )


def _experiments_comparing(samples, label: str) -> list[str]:
    """Experiments whose TeraSort runs compare levels of the design factor `label` (the level
    stays readable by name in a comparison view, vbench.stats.compare). Pure."""
    col = LEVEL + label
    if samples is None or samples.empty or col not in samples.columns:
        return []
    tera = samples[(samples["benchmark"] == "terasort") & samples[col].notna()]
    varied = tera.groupby(tera["experiment"].astype(str))[col].nunique()
    return sorted(varied[varied > 1].index, key=natural_key)


def _compared_experiments(stats, samples, label: str, metric: str):
    """(experiment, its largest size, its baseline level) of each experiment whose TeraSort-suite
    runs compare levels of the design factor `label` and hold `metric`. Pure."""
    for experiment in _experiments_comparing(samples, label):
        sizes = R.sizes_for(stats, experiment, "terasort", metric)
        if sizes:
            base = R.compared_baseline(stats, experiment=experiment, benchmark="terasort", metric=metric)
            yield experiment, sizes[-1], base


def _ratio_to_base_cell(stats, experiment, level, base_level, metric, size) -> str:
    """`metric` at `level` over its value at the design's baseline level, with its interval
    (paired where the blocks pair); "1" for the baseline level itself."""
    ratio = R.ratio_row(stats, experiment, level, "terasort", metric, size)
    if ratio is not None:
        return interval_text(ratio["estimate"], ratio["ci_low"], ratio["ci_high"])
    return "1" if level == base_level else NOT_MEASURED


def table_vms_per_host(stats, samples, baseline="native") -> str:
    """Elapsed times of the TeraSort suite per number of guests on each emulated physical host
    (VMware, Table 2's rows of 1 to 20 VMs per host, and Fig. 2's ratios): a row per level of a
    design comparing `vms_per_host`, TeraSort's time over the design's baseline level with its
    interval (paired where the blocks pair). Pure."""
    cells = _Cells(stats)
    body: list[list[str]] = []
    where: list[str] = []
    base_level = ""
    for experiment, size, base_level in _compared_experiments(stats, samples, "vms_per_host", "terasort_time"):
        part = samples[samples["experiment"].astype(str) == experiment]
        guests = ", ".join(sorted({str(p) for p in part.get("host_platform", part["platform"]).dropna()}))
        for level in R.platforms_in(stats, base_level, experiment=experiment, benchmark="terasort", size=size):
            body.append(
                [f"{tex_escape(guests)}, {tex_escape(level)}"]
                + _tera_cells(cells, stats, experiment, level, size)
                + [_ratio_to_base_cell(stats, experiment, level, base_level, "terasort_time", size)]
            )
        where.append(_where(experiment, size))
    if not cells.any_value:
        body = []
    notes = [
        cells.notes() if body else "",
        _vs_base_note(
            f"TeraSort vs {tex_escape(base_level)}",
            "TeraSort",
            f"{tex_escape(base_level)} {noun(_as_count(base_level), 'guest')} per host",
        )
        + (
            r"The row's guests sit on emulated physical hosts "
            r"(network namespaces joined by a shaped link): what grouping them changes here is which transfers "
            r"cross that link, not the NUMA locality VMware attributes its speed-up to."
        )
        if body
        else "",
        " ".join(where) if body else "",
    ]
    return render(
        Grid(
            ["Guests, per host"] + _TERA_HEADER + [f"TeraSort vs {tex_escape(base_level) or '1'}"],
            body,
            "l" + "c" * 6,
            r"Elapsed times of the TeraSort suite per number of guests on each host (after VMware, Table~2 and "
            r"Fig.~2). Lower is better.",
            "tab:vms-per-host",
            notes,
            size=r"\footnotesize",
        )
    )


def _replication_cells(stats) -> list[tuple[str, str, str]]:
    """(experiment, size key, replication) of TeraSort suite cells, in experiments where replication
    varies, a data size's replication levels together. Keyed on TeraGen, the one step every run
    has (`generate_only` runs have no TeraSort)."""
    r = R.rows(stats, benchmark="terasort", metric="teragen_time", statistic="mean", method="t")
    if r.empty or "replication" not in r.columns:
        return []
    out = []
    for experiment, grp in r.groupby("experiment", sort=False):
        reps = grp["replication"].astype(str)
        if reps.nunique() < 2:
            continue
        for size, rep in sorted(
            {(s, x) for s, x in zip(grp["size"].astype(str), reps)},
            key=lambda t: (natural_key(split_size_key(t[0])[0]), natural_key(t[1]), natural_key(t[0])),
        ):
            out.append((str(experiment), size, rep))
    return out


def _grouped(combos: list[tuple[str, str, str]]) -> list[tuple[tuple[str, str], list[tuple[str, str]]]]:
    """`_replication_cells` grouped by (experiment, data size label), in order, each group's
    (size key, replication) cells. Pure."""
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for experiment, size, rep in combos:
        groups.setdefault((experiment, split_size_key(size)[0]), []).append((size, rep))
    return list(groups.items())


def table_racks(stats, samples, baseline="native") -> str:
    """TeraGen's elapsed time per Hadoop topology (Jeong et al., Fig. 7: virtual rack grouping
    against none): a row per level of a design comparing `topology`, TeraGen's time over the
    design's baseline level with its interval (paired where the blocks pair). Pure."""
    cells = _Cells(stats)
    body: list[list[str]] = []
    where: list[str] = []
    base_level = ""
    compared = list(_compared_experiments(stats, samples, "topology", "teragen_time"))
    for experiment, size, base_level in compared:
        if len(compared) > 1:  # two runs of the design (e.g. with speculative execution off): say whose rows
            body.append([rf"\multicolumn{{3}}{{l}}{{\emph{{{tex_escape(experiment)}}}}}"])
        for level in R.platforms_in(stats, base_level, experiment=experiment, benchmark="terasort", size=size):
            body.append(
                [
                    tex_escape(level),
                    cells.mean(experiment, level, "terasort", "teragen_time", size),
                    _ratio_to_base_cell(stats, experiment, level, base_level, "teragen_time", size),
                ]
            )
        where.append(_where(experiment, size))
    if not cells.any_value:
        body = []
    notes = [
        cells.notes() if body else "",
        _vs_base_note(f"vs {tex_escape(base_level)}", "TeraGen", f"the {tex_escape(base_level)} topology")
        + (
            r"With \texttt{rack} the guests of each emulated physical host form a Hadoop rack, so each "
            r"block's second and third replicas go to one other host and cross the shaped link between "
            r"hosts once; with \texttt{flat} (one default rack) they go to any two other nodes."
        )
        if body
        else "",
        " ".join(where) if body else "",
    ]
    return render(
        Grid(
            ["Hadoop topology", "TeraGen", f"vs {tex_escape(base_level) or 'flat'}"],
            body,
            "lcc",
            r"TeraGen's elapsed time with and without virtual rack grouping (after Jeong et al., "
            r"Figure~7). Lower is better.",
            "tab:racks",
            notes,
            size=r"\footnotesize",
        )
    )


def table_tera_replication(stats, samples, baseline="native") -> str:
    """Single versus triple HDFS replica (VMware, Table 3 beside Table 2)."""
    cells = _Cells(stats)
    body, rules = [], []
    combos = _replication_cells(stats)
    for (experiment, label), group in _grouped(combos):
        # Several campaigns and sizes share this table: each group of rows says whose it is.
        head = f"{tex_escape(experiment)}" + (f", {tex_escape(label)}" if label else "")
        body.append([rf"\multicolumn{{7}}{{l}}{{\emph{{{head}}}}}"])
        for size, rep in group:
            for p in campaign_platforms(samples, baseline):
                if R.mean_row(stats, experiment, p, "terasort", "teragen_time", size) is None:
                    continue
                body.append([tex_escape(rep), tex_escape(p)] + _tera_cells(cells, stats, experiment, p, size))
        rules.append(len(body) - 1)
    if not cells.any_value:
        body = []
    notes = [
        cells.notes() if body else "",
        r"Elapsed times in \unit{\second}; each group of rows is one experiment (its campaign after"
        r" the \texttt{@}) and data size; a run of TeraGen alone has no TeraSort or TeraValidate."
        if body
        else "",
        "" if body else r"No experiment of this campaign varied the HDFS replication.",
    ]
    return render(
        Grid(
            ["Replicas", "Platform"] + _TERA_HEADER,
            body,
            "ll" + "c" * 5,
            r"TeraSort suite with different HDFS replication (after VMware, Tables~2--3).",
            "tab:tera-replication",
            notes,
            size=r"\footnotesize",
            rules_after=tuple(rules),
        )
    )


def scaling_sizes(sizes: list[str]) -> tuple[list[str], str]:
    """The cells of one size series and the factors they share ("" when none): the cells without
    other factors if two or more, else the largest series of one factor combination, the last in
    natural order on a tie (VMware's Table 4 ran triple replication: `replication=3` before `=1`).
    Pure."""
    series: dict[str, list[str]] = {}
    for s in sizes:
        label, levels = split_size_key(s)
        if label:  # a sizeless cell is no point of a size series
            series.setdefault(levels, []).append(s)
    if len(series.get("", [])) >= 2:
        return series[""], ""
    best = max(sorted(series, key=natural_key, reverse=True), key=lambda k: len(series[k]), default="")
    return (series[best], best) if len(series.get(best, [])) >= 2 else ([], "")


def table_tera_scaling(stats, samples, baseline="native") -> str:
    """Dataset-size scaling with TeraSort throughput (VMware, Table 4)."""
    experiment, sizes, shared = None, [], ""
    for ex in R.experiments_for(stats, "terasort", ["terasort_time"], ("scaling", "platforms")):
        sizes, shared = scaling_sizes(R.sizes_for(stats, ex, "terasort", "terasort_time"))
        if sizes:
            experiment = ex
            break
    cells = _Cells(stats)
    body, rules = [], []
    if experiment:
        for p in campaign_platforms(samples, baseline):
            added = False
            for size in sizes:
                if R.mean_row(stats, experiment, p, "terasort", "terasort_time", size) is None:
                    continue
                body.append(
                    [tex_escape(p), tex_escape(size_display(split_size_key(size)[0]))]
                    + _tera_cells(cells, stats, experiment, p, size, extra=("terasort_throughput",))
                )
                added = True
            if added:
                rules.append(len(body) - 1)
    if not cells.any_value:
        body = []
    notes = [
        cells.notes() if body else "",
        r"Elapsed times in \unit{\second}; throughput is the data size over the TeraSort time,"
        r" in \unit{\mebi\byte\per\second}."
        if body
        else "",
        _where(experiment, None) if body else "",
        f"Every size at {tex_escape(shared)}." if body and shared else "",
        "" if body else r"No experiment of this campaign ran TeraSort at two or more sizes.",
    ]
    return render(
        Grid(
            ["Platform", "Size"] + _TERA_HEADER + ["Throughput"],
            body,
            "ll" + "c" * 6,
            r"TeraSort suite against data size, with throughput (after VMware, Table~4).",
            "tab:tera-scaling",
            notes,
            size=r"\scriptsize",
            rules_after=tuple(rules),
        )
    )


# --- comparisons with the baseline -----------------------------------------------------------------

#: (benchmark, metric, label): the comparisons the overhead table lists, when measured.
_COMPARISONS = (
    ("terasort", "terasort.job_time", "TeraSort job (JobHistory)"),
    ("terasort", "terasort_time", "TeraSort wall"),
    ("terasort", "teragen_time", "TeraGen"),
    ("terasort", "teravalidate_time", "TeraValidate"),
    ("wordcount", "job_wall_time", "WordCount"),
    ("sort", "sort_time", "Sort"),
    ("dfsio", "write_throughput", "TestDFSIO write"),
    ("dfsio", "read_throughput", "TestDFSIO read"),
    ("pi", "pi.job_time", "Pi job (JobHistory)"),
    ("pi", "job_wall_time", "Pi wall"),
    ("nnbench", "create_write_avg_latency", "NNBench create/write"),
    ("mrbench", "avg_job_time", "MRBench"),
)
#: The method column's short names (the note spells them out).
_METHOD_SHORT = {"paired-t (blocks)": "paired-$t$", "hierarchical bootstrap": "hier.\\ bootstrap", "fieller": "Fieller"}


def _known(v) -> bool:
    return v is not None and not pd.isna(v)


def _n_text(ra) -> str:
    """A comparison's n: its pairs where the interval is paired, else platform/baseline runs."""
    pairs, n_plat, n_base = ra.get("n_pairs"), ra.get("n"), ra.get("n_baseline")
    if str(ra["method"]) != "fieller" and _known(pairs):
        return str(int(pairs))
    if _known(n_plat) and _known(n_base):
        return f"{int(n_plat)}/{int(n_base)}"
    return NOT_MEASURED


def _aa_text(stats, experiment, baseline, bench, metric, size) -> tuple[str, bool]:
    """The A/A self-check's ratio for a comparison (text, whether its interval misses 1)."""
    aa = R.ratio_row(stats, experiment, aa_label(baseline), bench, metric, size)
    if aa is None or pd.isna(aa["estimate"]):
        return NOT_MEASURED, False
    missed = _known(aa["ci_low"]) and _known(aa["ci_high"]) and not aa["ci_low"] <= 1.0 <= aa["ci_high"]
    return interval_text(aa["estimate"], aa["ci_low"], aa["ci_high"]) + (
        r"\textsuperscript{\dag}" if missed else ""
    ), missed


def table_overheads(stats, samples, baseline="native") -> str:
    """Every headline comparison with the baseline: ratio, interval, overhead and the method that
    gave them; with an A/A self-check in the campaign, its ratio beside every comparison."""
    body, methods = [], set()
    with_aa = aa_label(baseline) in campaign_platforms(samples, baseline)
    aa_missed = False
    for bench, metric, text in _COMPARISONS:
        experiment = R.pick_experiment(stats, bench, [metric], ("platforms",))
        if not experiment:
            continue
        sizes = R.sizes_for(stats, experiment, bench, metric)
        size = sizes[-1] if sizes else None
        for p in campaign_platforms(samples, baseline):
            if p == baseline or is_aa(p):
                continue
            ra = R.ratio_row(stats, experiment, p, bench, metric, size)
            if ra is None or pd.isna(ra["estimate"]):
                continue
            ov = R.ratio_row(stats, experiment, p, bench, metric, size, "overhead_pct")
            method = str(ra["method"])
            methods.add(method)
            n = _n_text(ra)
            row = [
                tex_escape(text),
                tex_escape(p),
                interval_text(ra["estimate"], ra["ci_low"], ra["ci_high"]),
                NOT_MEASURED
                if ov is None or pd.isna(ov["estimate"])
                else interval_text(ov["estimate"], ov["ci_low"], ov["ci_high"]),
                _METHOD_SHORT.get(method, tex_escape(method)),
                n,
            ]
            if with_aa:
                aa_text, missed = _aa_text(stats, experiment, baseline, bench, metric, size)
                aa_missed |= missed
                row.append(aa_text)
            body.append(row)
    notes = []
    if body:
        notes.append(
            rf"Ratio platform/{tex_escape(baseline)} and overhead in \% (positive: worse), with 95\,\% intervals."
        )
        if methods & {"paired-t (blocks)", "hierarchical bootstrap"}:
            notes.append(
                r"Where the design ran every platform in each block, the interval comes from the within-block "
                r"log ratios: paired-$t$ over the blocks (over the blocks' mean log ratios when blocks hold "
                r"several rounds: a block is the independent unit); $n$ is the number of pairs. A block effect that slows every "
                r"platform alike then cancels instead of widening the interval."
            )
        if "fieller" in methods:
            notes.append(
                r"Fieller: runs treated as independent (no block holds both platforms, or fewer than two "
                r"pairs); $n$ is platform/baseline runs."
            )
        if with_aa:
            notes.append(
                rf"A/A: {tex_escape(baseline)} run twice, as two configurations of the same design, and "
                r"compared like any platform; its ratio must hold 1, so it is the campaign's own "
                r"false-positive check beside every comparison."
                + (
                    r" \textsuperscript{\dag}The A/A interval misses 1: read that comparison with care."
                    if aa_missed
                    else ""
                )
            )
        quiet = quiet_counts(samples)
        if quiet is not None:
            notes.append(rf"Quiet-machine gate: {tex_escape(quiet.text())}.")
    head = ["Comparison", "Platform", "Ratio [CI]", r"Overhead (\%) [CI]", "Method", "$n$"] + (
        ["A/A [CI]"] if with_aa else []
    )
    return render(
        Grid(
            head,
            body,
            "llcccc" + ("c" if with_aa else ""),
            r"Each platform against the baseline, with the method that gave the interval.",
            "tab:overheads",
            notes,
            size=r"\footnotesize",
        )
    )


# --- a sandboxed kernel (issue #21) ---------------------------------------------------------------


def table_sandbox(stats, samples, baseline="native") -> str:
    """What each isolation level costs each workload: every compared platform's preferred ratio to the
    baseline with its interval, micro-benchmarks above the Hadoop jobs, from the sandbox study's
    statistics (`vbench.paper.sandbox`); the method and n of each cell go to the notes unless they differ."""
    rows = S.sandbox_rows(stats, baseline)
    platforms = S.compared_platforms(rows)
    comparisons = [c for r in rows for c in r.comparisons]
    methods = {str(c.row["method"]) for c in comparisons}
    ns = {_n_text(c.row) for c in comparisons}
    body = []
    for r in rows:
        unit = unit_tex(r.unit)
        cells = [f"{tex_escape(r.metric.label)} ({unit})" if unit else tex_escape(r.metric.label)]
        cells.append({True: "higher", False: "lower"}.get(r.higher_is_better, NOT_MEASURED))
        for p in platforms:
            c = r.of(p)
            if c is None:
                cells.append(NOT_MEASURED)
                continue
            cell = c.text + (r"$^\ast$" if c.ranks else "")
            if len(methods) > 1 or len(ns) > 1:
                method = _METHOD_SHORT.get(str(c.row["method"]), tex_escape(c.row["method"]))
                cell += rf" ({method}, $n$={_n_text(c.row)})"
            cells.append(cell)
        body.append(cells)
    last_micro = max((i for i, r in enumerate(rows) if not r.metric.job), default=None)
    rules = (last_micro,) if last_micro is not None and last_micro < len(rows) - 1 else ()
    uniform = ""
    if comparisons and len(methods) == 1 and len(ns) == 1:
        method = next(iter(methods))
        uniform = rf"Every interval: {tex_escape(R.method_text(method))}, $n$ = {next(iter(ns))}."
    notes = [
        rf"Ratio of each platform's mean to {tex_escape(baseline)}'s with its 95\,\% interval; ``better'' says "
        r"which way the metric improves (for round trips, latencies and job times, a ratio above 1 is slower). "
        r"Micro-benchmarks above the rule, Hadoop jobs below it."
        if body
        else "",
        uniform,
        r"Paired-$t$: $t$ over the blocks' mean log ratios, every platform having run in each block; $n$: the "
        r"pairs of runs (block, round) behind it."
        if PAIRED_T in methods
        else "",
        r"Fieller: runs treated as independent; $n$ is platform/baseline runs." if FIELLER in methods else "",
        r"\texttt{gvisor/sandbox}: gVisor's own network stack (runsc's default); \texttt{gvisor/host}: the host "
        r"namespace's stack reached through the Sentry (\texttt{runsc --network=host})."
        if any("/" in p for p in platforms)
        else "",
        r"Not measured: this build was given no sandbox campaign (\texttt{paper.sandbox\_campaign})."
        if samples is None or samples.empty
        else "",
        r"On gVisor, fio's sequential reads are served from memory (direct I/O does not reach the disk in this "
        r"runsc): no disk measurement."
        if any(r.metric.metric == "seq_read_bw" and r.of(S.SANDBOX) is not None for r in rows)
        else "",
    ]
    caption = (
        r"What each isolation level costs each workload: each platform's ratio to "
        + tex_escape(baseline)
        + r", micro-benchmarks and Hadoop jobs measured on the same hosts in the same blocks, with 95\,\% "
        r"intervals. "
        + (S.degrees_sentence(S.blocks_of(samples)) + " " if body else "")
        + r"$^\ast$: the interval excludes 1 and every other platform's interval, so the ratio ranks the platforms."
    )
    return render(
        Grid(
            ["Metric", "Better"] + [rf"{tex_escape(p)} / {tex_escape(baseline)}" for p in platforms],
            body,
            "ll" + "c" * len(platforms),
            caption,
            "tab:sandbox",
            notes,
            size=r"\scriptsize",
            rules_after=rules,
        )
    )


# --- testbed ----------------------------------------------------------------------------------------

_TESTBED_FROM_SAMPLES = (
    ("Kernel", "kernel"),
    ("Java", "java_version"),
    ("Hadoop", "hadoop_version"),
    ("Hadoop config hash", "hadoop_config_hash"),
    ("Hosts", "hosts"),
    ("Workers", "workers"),
    ("Image hash", "image_hash"),
    ("vbench commit", "vbench_commit"),
)
_TESTBED_FROM_FACTS = (
    ("Virtualisation seen", "virt"),
    ("Accelerator", "accelerator"),
    ("CPU model", "cpu_model"),
    ("vCPUs", "vcpus"),
    ("Memory (MiB)", "mem_total_mb"),
    ("Memory limit (MiB)", "memory_limit_mb"),
    ("Limits", "limits"),
)


def _distinct(values) -> str:
    vals = sorted(
        {_plain_text(v) for v in values if v is not None and str(v) not in ("", "nan", "None")}, key=natural_key
    )
    return ", ".join(vals)


def testbed_rows(
    samples: pd.DataFrame, facts: list[dict], baseline: str
) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(platforms, [(attribute, value per platform)]) from the samples' provenance and host facts."""
    platforms = campaign_platforms(samples, baseline)
    for f in facts:
        p = str(f.get("platform", ""))
        if p and p not in platforms:
            platforms.append(p)
    out = []
    for name, key in _TESTBED_FROM_FACTS[:2]:
        out.append(
            (
                name,
                [
                    _distinct(f.get(key) for f in facts if str(f.get("platform", "")) == p)
                    or _from_samples(samples, p, key)
                    for p in platforms
                ],
            )
        )
    for name, key in _TESTBED_FROM_SAMPLES:
        out.append(
            (
                name,
                [
                    _from_samples(samples, p, key)
                    or _distinct(f.get(key) for f in facts if str(f.get("platform", "")) == p)
                    for p in platforms
                ],
            )
        )
    for name, key in _TESTBED_FROM_FACTS[2:]:
        out.append(
            (
                name,
                [
                    _distinct(f.get(key) for f in facts if str(f.get("platform", "")) == p)
                    or _from_samples(samples, p, key)
                    for p in platforms
                ],
            )
        )
    out.append(
        (
            "Samples",
            [
                str(int((samples["platform"] == p).sum())) if samples is not None and not samples.empty else "0"
                for p in platforms
            ],
        )
    )
    out = [(n, v) for n, v in out if any(v)]
    return platforms, out


def _plain_text(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _from_samples(samples, platform, key) -> str:
    if samples is None or samples.empty or key not in samples.columns:
        return ""
    values = samples.loc[samples["platform"] == platform, key].dropna()
    if key == "java_version":
        values = values.map(java_short)
    return _distinct(values)


def java_short(text) -> str:
    """`openjdk version "17.0.15" 2025-04-15` -> `OpenJDK 17.0.15`."""
    m = re.search(r'(\w+) version "([^"]+)"', str(text))
    return f"{'OpenJDK' if m[1].lower() == 'openjdk' else m[1]} {m[2]}" if m else str(text)


def table_testbed(stats, samples, baseline="native", facts: list[dict] | None = None) -> str:
    """The testbed: per platform (a row each), what the hosts were and which software ran (host
    facts + provenance). An attribute with one value on every platform that recorded it is said
    once, in the note, so that the table fits its page; hashes and commits are printed with their
    first 7 characters, as git abbreviates them."""
    platforms, attrs = testbed_rows(samples, facts or [], baseline)
    attrs = [(name, [_short_hashes(name, v) for v in vals]) for name, vals in attrs]
    common = [
        (n, vals) for n, vals in attrs if n != "Samples" and len({v for v in vals if v}) == 1 and len(platforms) > 1
    ]
    columns = [(n, vals) for n, vals in attrs if (n, vals) not in common]
    header = ["Platform"] + [_TESTBED_HEADERS.get(n, tex_escape(n)) for n, _ in columns]
    body = [
        [tex_escape(p)] + [_breakable(name, vals[i]) if vals[i] else NOT_MEASURED for name, vals in columns]
        for i, p in enumerate(platforms)
    ]
    colspec = "l" + "".join(
        "r"
        if n in ("Samples", "vCPUs")
        else r">{\raggedright\arraybackslash}p{%.2f\linewidth}" % _TESTBED_WIDTHS.get(n, 0.08)
        for n, _ in columns
    )
    said_once = "; ".join(
        f"{tex_escape(n)} {_breakable(n, next(v for v in vals if v))}"
        + (
            " (not recorded for " + ", ".join(tex_escape(p) for p, v in zip(platforms, vals) if not v) + ")"
            if not all(vals)
            else ""
        )
        for n, vals in common
    )
    notes = [
        "From the provenance every sample carries"
        + (" and the hosts' facts (facts.json)." if facts else "; no host facts (facts.json) in this campaign."),
        (rf"The same on every platform: {said_once}." if said_once else ""),
        r"Virt.\ seen: the virtualisation the hosts detected. Hashes and commits: their first 7 characters.",
        r"\textemdash~not recorded.",
        _absent_note(samples, baseline),
    ]
    return render(
        Grid(
            header,
            body,
            colspec,
            "Testbed per platform, as recorded with the samples.",
            "tab:testbed",
            notes,
            size=r"\footnotesize\setlength{\tabcolsep}{3pt}",
        )
    )


#: The testbed table's column headers where the attribute's name is too wide for its column.
_TESTBED_HEADERS = {
    "Virtualisation seen": r"Virt.\ seen",
    "Hadoop config hash": "Hadoop config",
    "vbench commit": "vbench commit",
}
#: The testbed table's column widths (fractions of the line), for the attributes that need more or
#: less than the others' 0.08.
_TESTBED_WIDTHS = {
    "Virtualisation seen": 0.06,
    "Kernel": 0.10,
    "Java": 0.07,
    "Hosts": 0.10,
    "Workers": 0.06,
    "Image hash": 0.07,
    "vbench commit": 0.09,
    "CPU model": 0.09,
    "Hadoop config hash": 0.08,
}
_TESTBED_HASHES = ("Hadoop config hash", "Image hash", "vbench commit")


def _short_hashes(name: str, value: str) -> str:
    """A hash or commit attribute's values cut to their first 7 characters (distinct, in order)."""
    if name not in _TESTBED_HASHES or not value:
        return value
    out: list[str] = []
    for v in value.split(", "):
        short = v[:7] if re.fullmatch(r"[0-9a-f]{8,}", v) else v
        if short not in out:
            out.append(short)
    return ", ".join(out)


def _hosts(value: str) -> str:
    """`master, worker1, worker2, master, worker1` -> `master, worker1--2`: the distinct host names,
    numbered ones as a range."""
    names = list(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    numbered: dict[str, list[int]] = {}
    plain = []
    for n in names:
        m = re.fullmatch(r"(\D+)(\d+)", n)
        if m:
            numbered.setdefault(m[1], []).append(int(m[2]))
        else:
            plain.append(n)
    out = [tex_escape(n) for n in plain]
    for stem, nums in numbered.items():
        nums = sorted(set(nums))
        if len(nums) > 2 and nums == list(range(nums[0], nums[-1] + 1)):
            out.append(f"{tex_escape(stem)}{nums[0]}--{nums[-1]}")
        else:
            out += [f"{tex_escape(stem)}{k}" for k in nums]
    return r",\allowbreak{} ".join(out)


def _breakable(name: str, v: str) -> str:
    """Escaped text that may break after commas; hashes in typewriter type."""
    if name == "Hosts":
        return _hosts(v)
    if name in _TESTBED_HASHES:
        return r",\allowbreak{} ".join(r"\texttt{" + tex_escape(x) + "}" for x in v.split(", "))
    return tex_escape(v).replace(",", r",\allowbreak ")


#: Every table: name -> (function, label, what it follows). docs/paper-map.md follows it (a test checks).
TABLES: dict[str, tuple[Callable, str, str]] = {
    "testbed": (table_testbed, "tab:testbed", "host facts and sample provenance"),
    "bonnie_block": (table_bonnie_block, "tab:bonnie-block", "Vasconcelos & Freitas, Table 1"),
    "bonnie_metadata": (table_bonnie_metadata, "tab:bonnie-metadata", "Vasconcelos & Freitas, Table 2"),
    "bonnie_cpu": (table_bonnie_cpu, "tab:bonnie-cpu", "Vasconcelos & Freitas, Table 3"),
    "iperf": (table_iperf, "tab:iperf", "Vasconcelos & Freitas, Table 4"),
    "pi_digits": (table_pi_digits, "tab:pi-digits", "Vasconcelos & Freitas, Table 5"),
    "nnbench": (table_nnbench, "tab:nnbench", "Xavier et al., Table I"),
    "mrbench": (table_mrbench, "tab:mrbench", "Xavier et al., Table II"),
    "isolation": (table_isolation, "tab:isolation", "Xavier et al., Table III"),
    "hadoop_pi": (table_hadoop_pi, "tab:hadoop-pi", "Vasconcelos & Freitas, Fig. 6"),
    "reducer_phases": (table_reducer_phases, "tab:reducer-phases", "Liu et al., Tables 1-2"),
    "pernode": (table_pernode, "tab:pernode", "Liu et al., heterogeneous cluster"),
    "node_disks": (table_node_disks, "tab:node-disks", "Liu et al., Figs. 2-3"),
    "netmatrix": (table_netmatrix, "tab:netmatrix", "Jeong et al., Fig. 4"),
    "tera_elapsed": (table_tera_elapsed, "tab:tera-elapsed", "VMware, Table 2"),
    "vms_per_host": (table_vms_per_host, "tab:vms-per-host", "VMware, Table 2 (VMs per host)"),
    "racks": (table_racks, "tab:racks", "Jeong et al., Fig. 7"),
    "tera_replication": (table_tera_replication, "tab:tera-replication", "VMware, Table 3"),
    "tera_scaling": (table_tera_scaling, "tab:tera-scaling", "VMware, Table 4"),
    "overheads": (table_overheads, "tab:overheads", "every headline comparison with its method"),
    "sandbox": (table_sandbox, "tab:sandbox", "the sandbox study (issue #21): a sandboxed kernel's cost"),
}


def has_data(tex: str) -> bool:
    """Whether a rendered table has any measured row."""
    return "not measured in this campaign}" not in tex
