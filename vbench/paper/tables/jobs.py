"""The Hadoop jobs' tables: Xavier et al., Tables I-III (NNBench, MRBench, performance isolation),
Vasconcelos & Freitas's Hadoop Pi (Fig. 6), and Liu et al.'s reduce-task phases (Tables 1-2) and
per-node task times of a heterogeneous cluster."""

from __future__ import annotations


import pandas as pd

from vbench.stats.campaign_stats import StatsConfig
from vbench.stats.describe import t_interval
from vbench.stats.keys import natural_key
from vbench.stats.slowdown import slowdown_stats

from vbench.paper import results as R
from vbench.paper.fmt import NOT_MEASURED, configuration_tex, interval_text, num_pm, tex_escape
from vbench.paper.tables.columns import MetricRows
from vbench.paper.tables.grid import Grid, campaign_platforms, n_range, render


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
    module=__name__,
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
    module=__name__,
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
    module=__name__,
)

ISOLATION_STRESSES = (("cpu", "CPU"), ("memory", "Memory"), ("io", "I/O"), ("forkbomb", "Fork bomb"))


def isolation_stats(samples: pd.DataFrame, cfg: StatsConfig = StatsConfig()) -> pd.DataFrame:
    """The slowdown beside each stress (vbench.stats.slowdown, which `vbench isolation` prints too)."""
    return slowdown_stats(samples, conf=cfg.conf, n_resamples=cfg.n_resamples, seed=cfg.seed)


def table_isolation(stats, samples, baseline="native", iso: R.StatisticsLookup | None = None) -> str:
    """Performance isolation: TeraSort slowdown beside a stressed neighbour (Xavier et al., Table III)."""
    iso = R.lookup_of(isolation_stats(samples)) if iso is None else iso
    body = []
    any_value = False
    if iso is not None and not iso.empty:
        for experiment in sorted(iso.table["experiment"].unique(), key=natural_key):
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
                row = [configuration_tex(p), tex_escape(node)]
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
            + n_range(ns)
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
            r"Reduce-task phases per node (after Liu et al., Tables~1--2). Lower is better.",
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
                configuration_tex(r.platform),
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
            r"``outrun'': its attempts killed because another attempt of the same task (the first or a speculative "
            r"copy) finished first."
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
            r"Task times per node of a heterogeneous cluster (after Liu et al.). Lower is better.",
            "tab:pernode",
            notes,
            rules_after=tuple(rules),
        )
    )
