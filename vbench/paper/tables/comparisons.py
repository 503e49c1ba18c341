"""The comparisons with the baseline: every headline comparison with the method that gave its
interval (and the A/A self-check beside it), and the sandbox study's cost of each isolation level
per workload (issue #21)."""

from __future__ import annotations


import pandas as pd

from vbench.samples import aa_label, is_aa
from vbench.stats.paired import FIELLER, PAIRED_T, PAIRED_T_ROUNDS
from vbench.stats.quiet import quiet_counts

from vbench.paper import results as R
from vbench.paper import sandbox as S
from vbench.paper.fmt import NOT_MEASURED, code_tex, configuration_tex, interval_text, tex_escape, unit_tex
from vbench.paper.tables.grid import Grid, campaign_platforms, render


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
_METHOD_SHORT = {
    PAIRED_T: "paired-$t$",
    PAIRED_T_ROUNDS: "paired-$t$ (rounds)",
    "hierarchical bootstrap": "hier.\\ bootstrap",
    "fieller": "Fieller",
}
#: Where the paired t counts every round as a unit, and why (vbench.stats.paired.preferred_ratio).
ROUNDS_NOTE = (
    r"Paired-$t$ (rounds): $t$ over every round's log ratio, for designs whose configurations run on "
    r"clusters up together, several rounds a block, at least four blocks: there the planted-effect "
    r"test found a cluster instance adds nothing to the ratio, and this interval held both planted "
    r"effects in 10 of 10 repetitions."
)


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
                configuration_tex(p),
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
        if PAIRED_T_ROUNDS in methods:
            notes.append(ROUNDS_NOTE)
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
            r"Each platform against the baseline, with the method that gave the interval. A ratio below 1 and a "
            r"negative overhead are better.",
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
        ROUNDS_NOTE if PAIRED_T_ROUNDS in methods else "",
        r"Fieller: runs treated as independent; $n$ is platform/baseline runs." if FIELLER in methods else "",
        r"\texttt{gvisor/sandbox}: gVisor's own network stack (runsc's default); \texttt{gvisor/host}: the host "
        r"namespace's stack reached through the Sentry (" + code_tex("runsc --network=host") + ")."
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
            ["Metric", "Better"] + [rf"{configuration_tex(p)} / {configuration_tex(baseline)}" for p in platforms],
            body,
            "ll" + "c" * len(platforms),
            caption,
            "tab:sandbox",
            notes,
            size=r"\scriptsize",
            rules_after=rules,
        )
    )
