"""The micro-benchmarks' tables: Vasconcelos & Freitas, Tables 1-5 (bonnie++, iperf3, pi digits),
Liu et al.'s disk speed per node (Figs. 2-3: dd, hdparm) and Jeong et al.'s iperf3 matrix per
network mode (Fig. 4)."""

from __future__ import annotations


import pandas as pd

from vbench.benchmarks import netmatrix as NM
from vbench.stats.describe import t_interval
from vbench.stats.keys import natural_key
from vbench.stats.tidy import split_size_key

from vbench.paper import results as R
from vbench.paper.delta import machine_platform
from vbench.paper.fmt import NOT_MEASURED, configuration_tex, digits_display, num_pm, tex_escape, unit_tex
from vbench.paper.tables.columns import MetricRows, platform_columns
from vbench.paper.tables.grid import Cells, Grid, campaign_platforms, experiment_tex, n_range, render, where_note


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
    module=__name__,
)
#: File metadata operations of bonnie++ (Vasconcelos & Freitas, Table 2).
table_bonnie_metadata = MetricRows(
    "table_bonnie_metadata",
    "bonnie",
    _BONNIE_METADATA,
    r"File metadata operations of bonnie++ (after Vasconcelos \& Freitas, Table~2). Higher is better.",
    "tab:bonnie-metadata",
    "Test",
    module=__name__,
)
#: CPU use during the bonnie++ tests (Vasconcelos & Freitas, Table 3).
table_bonnie_cpu = MetricRows(
    "table_bonnie_cpu",
    "bonnie",
    _BONNIE_CPU,
    r"CPU use during the bonnie++ tests (after Vasconcelos \& Freitas, Table~3). Lower is better.",
    "tab:bonnie-cpu",
    "Test",
    module=__name__,
)


def _rows_per_size(stats, samples, baseline, benchmark: str, metric: str, label_of):
    """(platforms, experiment, cells, body) of a micro-benchmark table with a column per platform: a
    row per cell of `metric` (labelled `label_of(size)`) in the experiment that measured it best."""
    platforms = campaign_platforms(samples, baseline)
    experiment = R.pick_experiment(stats, benchmark, [metric], ("micro", "platforms"))
    cells = Cells(stats)
    body = []
    if experiment:
        for size in R.sizes_for(stats, experiment, benchmark, metric):
            body.append([label_of(size)] + [cells.mean(experiment, p, benchmark, metric, size) for p in platforms])
    return platforms, experiment, cells, body


def _iperf_interval(size: str) -> str:
    """An iperf3 cell's reporting interval ("interval=3" -> "3"), else the cell itself ("all": none)."""
    return tex_escape(size.split("interval=")[-1].split(",")[0] if "interval=" in size else size or "all")


def table_iperf(stats, samples, baseline="native") -> str:
    """iperf3 throughput per second of a run (Vasconcelos & Freitas, Table 4)."""
    platforms, experiment, cells, body = _rows_per_size(
        stats, samples, baseline, "iperf3", "throughput", _iperf_interval
    )
    if experiment:
        mean_sizes = R.sizes_for(stats, experiment, "iperf3", "throughput_mean")
        if mean_sizes:
            body.append(
                [r"whole run"]
                + [cells.mean(experiment, p, "iperf3", "throughput_mean", mean_sizes[-1]) for p in platforms]
            )
    return platform_columns(
        cells,
        body,
        r"Second",
        platforms,
        samples,
        baseline,
        (experiment, None),
        r"Network throughput of iperf3 per second of a run (after Vasconcelos \& Freitas, Table~4). Higher is better.",
        "tab:iperf",
        about=r"Throughput in \unit{\mega\bit\per\second}, one row per reporting interval.",
        rules_after=(len(body) - 2,),
    )


def table_pi_digits(stats, samples, baseline="native") -> str:
    """Time to compute N digits of pi (Vasconcelos & Freitas, Table 5)."""
    platforms, experiment, cells, body = _rows_per_size(
        stats, samples, baseline, "pi_digits", "time", lambda n: digits_display(n) if n.isdigit() else tex_escape(n)
    )
    return platform_columns(
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


# --- Liu et al., Figs. 2-3 -------------------------------------------------------------------------

#: (benchmark, metric, column) of Liu et al.'s per-node disk figures: dd with fdatasync (Fig. 2),
#: hdparm -t (Fig. 3).
_NODE_DISKS = (("dd", "write_bw", "dd write"), ("hdparm", "buffered_read_bw", "hdparm read"))


def table_node_disks(stats, samples, baseline="native") -> str:
    """dd's write and hdparm's read speed per node (Liu et al., Figs 2-3): the mean with a t interval
    over the node's block means (`_node_interval`: over its repeats only where the campaign has
    fewer than two blocks, and the note says so), the node's platform its own in a mixed cluster
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
    pooled: list[int] = []
    units = dict(zip(df["benchmark"], df["unit"].astype(str))) if not df.empty else {}
    for ex in experiments:
        part = df[df["experiment"].astype(str) == ex]
        values = {key: _node_interval(grp) for key, grp in part.groupby(["machine", "node", "benchmark"])}
        for p in campaign_platforms(part.assign(platform=part["machine"]), baseline):
            for node in sorted(part.loc[part["machine"] == p, "node"].unique(), key=natural_key):
                cells, ratios = [], []
                for b, _m, _name in _NODE_DISKS:
                    found = values.get((p, node, b))
                    if found is None:
                        cells.append(NOT_MEASURED)
                        ratios.append(NOT_MEASURED)
                        continue
                    iv, n, by_block = found
                    (ns if by_block else pooled).append(n)
                    cells.append(num_pm(iv.estimate, iv.low, iv.high))
                    others = [
                        v[0].estimate
                        for (q, n, bb), v in values.items()
                        if q == baseline and bb == b and not (p == baseline and n == node)
                    ]
                    ratios.append(
                        rf"\num{{{iv.estimate / (sum(others) / len(others)):.2f}}}" if others else NOT_MEASURED
                    )
                lead = [experiment_tex(samples, ex)] if multi else []
                body.append(lead + [configuration_tex(p), tex_escape(node)] + cells + ratios)
    header = (["Campaign"] if multi else []) + ["Platform", "Node"]
    header += [f"{name} ({unit_tex(units[b])})" if b in units else name for b, _, name in _NODE_DISKS]
    header += [f"{name} vs {tex_escape(baseline)}" for _, _, name in _NODE_DISKS]
    notes = []
    if body:
        unit = []
        if ns:
            unit.append(
                f"over the node's means of {n_range(ns)} blocks, the design's unit (a block's repeats share"
                " its cluster instance: averaged, not counted as independent)"
            )
        if pooled:
            unit.append(
                f"over every repeat on the node, {n_range(pooled)}, where the campaign recorded fewer than two"
                " blocks: repeats counted as independent, block-to-block variation not in the interval"
            )
        notes.append(
            r"Mean $\pm$ half-width of the 95\,\% Student-$t$ interval "
            + "; elsewhere ".join(unit)
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


def _node_interval(grp: pd.DataFrame):
    """(interval, n, by block) of one node's samples of one benchmark: t over its blocks' means
    where every sample carries its block and there are at least two, else t over its samples."""
    if "block" in grp.columns and grp["block"].notna().all() and grp["block"].map(str).nunique() >= 2:
        means = grp.groupby(grp["block"].map(str))["value"].mean().to_numpy(dtype=float)
        return t_interval(means), int(means.size), True
    x = grp["value"].to_numpy(dtype=float)
    return t_interval(x), int(x.size), False


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
    cells = Cells(stats)
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
    notes = [
        cells.notes() if body else "",
        about if body else "",
        where_note(samples, experiment, None) if body else "",
    ]
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
