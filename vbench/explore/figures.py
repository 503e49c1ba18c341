"""The notebook's figures, drawn from the frames of vbench.explore; none computes a statistic of
its own. Figures are made without pyplot: a widget's callback that used pyplot would leave its
figure to the inline backend, which shows it again under whichever cell runs next. `png` renders
one for display."""

from __future__ import annotations

import io
import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from vbench.explore.compare import Ratio
from vbench.explore.cost_split import CostSplit
from vbench.explore.timeline import Timeline
from vbench.monitor.monitor import one_per_counter
from vbench.monitor.series import METRICS
from vbench.stats.keys import natural_key

TASK_COLOURS = {"MAP": "C0", "REDUCE": "C1"}
#: Shades of a reducer's phases: shuffle, merge (sort), reduce.
PHASE_ALPHA = {"shuffle": 0.35, "merge": 0.65, "reduce": 1.0}
UNSUCCESSFUL_MARKERS = {"FAILED": ("x", "red"), "KILLED": ("D", "darkorange")}
#: A job's measured phases (vbench.explore.cost_split): shades of blue, darkest first; a coarser
#: cut's part takes the shade of its first phase.
PHASE_COLOURS = {
    "map": "#08519c",
    "shuffle": "#4292c6",
    "merge": "#9ecae1",
    "reduce": "#deebf7",
    "map_shuffle": "#08519c",
    "reduce_merge": "#9ecae1",
    "job": "#4292c6",
}
#: The cost model's resources (vbench.stats.cost_model.RESOURCES): no blue, which the phases hold.
RESOURCE_COLOURS = {
    "cpu": "tab:red",
    "net_throughput": "tab:green",
    "round_trip": "tab:orange",
    "disk_seq_write": "tab:purple",
    "disk_seq_read": "tab:olive",
    "disk_random_read": "tab:cyan",
    "membw": "tab:pink",
    "syscall": "tab:brown",
    "spawn": "gold",
    "jvmstart": "black",
    "fileopen": "tab:blue",
    "rpc": "tab:gray",
    "jvmcpu": "darkred",
    "pagefault": "teal",
}
#: The model's bar starts from the baseline run's job time; what the model leaves over is hatched white.
SPLIT_BASE_COLOUR = "0.75"
SPLIT_REST = {"facecolor": "white", "edgecolor": "0.2", "hatch": ".."}
#: The time series' panels: title, metrics (vbench.monitor.series), y label, scale.
MONITOR_PANELS = (
    ("CPU", METRICS["cpu"], "% of CPUs", 1.0),
    ("storage", METRICS["disk"], "MiB/s", 1 / 2**20),
    ("network", METRICS["net"], "MiB/s", 1 / 2**20),
)


def _colours(levels: list[str]) -> dict[str, str]:
    return {lv: f"C{i % 10}" for i, lv in enumerate(levels)}


def png(fig: Figure, dpi: int = 90) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def _figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def _empty(message: str, size=(8, 1.2)) -> Figure:
    fig = _figure(*size)
    ax = fig.subplots()
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True)
    return fig


def comparison_figure(values: pd.DataFrame, ratios: list[Ratio], metric: str, baseline: str) -> Figure:
    """Left: every run's value per cell and level. Right: each level's ratio to the baseline with
    the statistics' interval and method (vbench.explore.compare.ratios)."""
    if values.empty:
        return _empty(f"no samples of {metric}")
    unit = str(values["unit"].iloc[0])
    keys = sorted(
        {(c, lv) for c, lv in zip(values["cell"], values["level"])},
        key=lambda k: (natural_key(k[0]), natural_key(k[1])),
    )
    levels = sorted({lv for _, lv in keys}, key=natural_key)
    colour = _colours(levels)
    fig = _figure(11, 3.8)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.2, 1]})
    rng = np.random.default_rng(0)  # jitter only: the same picture every time
    for x, (cell, level) in enumerate(keys):
        v = values[(values["cell"] == cell) & (values["level"] == level)]["value"].to_numpy(dtype=float)
        left.scatter(x + rng.uniform(-0.12, 0.12, v.size), v, color=colour[level], s=22, zorder=3)
        if v.size:
            left.hlines(v.mean(), x - 0.25, x + 0.25, color="black", linewidth=1)
    left.set_xticks(range(len(keys)))
    left.set_xticklabels([f"{lv}\n{c}" if c else lv for c, lv in keys], fontsize=8)
    left.set_ylabel(f"{metric} [{unit}]")
    left.set_title("each run (bar: mean)", fontsize=10)
    shown = [r for r in ratios if r.ratio is not None]
    if shown:
        for y, r in enumerate(shown):
            err = [[r.ratio - r.low], [r.high - r.ratio]] if r.bounded else None
            right.errorbar(r.ratio, y, xerr=err, fmt="o", color=colour.get(r.level, "black"), capsize=4)
            right.annotate(
                f"{r.ratio:.3f} ({r.method})",
                (r.ratio, y),
                textcoords="offset points",
                xytext=(0, 7),
                ha="center",
                fontsize=8,
            )
        right.axvline(1.0, color="black", linestyle="--", linewidth=0.8)
        right.set_yticks(range(len(shown)))
        right.set_yticklabels([f"{r.level}\n{r.cell}" if r.cell else r.level for r in shown], fontsize=8)
        right.set_ylim(-0.7, len(shown) - 0.3)
        conf = next((r.conf_level for r in shown if r.conf_level), None)
        right.set_xlabel(f"ratio to {baseline}" + (f" ({conf * 100:g} % interval)" if conf else ""))
        right.set_title("vbench statistics: ratio to the baseline", fontsize=10)
    else:
        right.axis("off")
        why = ratios[0].note if ratios else f"one level only, or no baseline '{baseline}': nothing to compare"
        right.text(0.5, 0.5, f"no ratio to {baseline}:\n{why}", ha="center", va="center", wrap=True, fontsize=9)
    return fig


def order_figure(frame: pd.DataFrame, metric: str) -> Figure:
    """Values in run order, one colour per level, blocks shaded in turn, rounds labelled."""
    if frame.empty:
        return _empty(f"no samples of {metric}")
    fig = _figure(11, 3.2)
    ax = fig.subplots()
    levels = sorted(frame["level"].astype(str).unique(), key=natural_key)
    colour = _colours(levels)
    cells = sorted(frame["cell"].astype(str).unique(), key=natural_key)
    markers = dict(zip(cells, "os^DvP*X"))
    for i, block in enumerate(sorted(frame["block"].astype(str).unique(), key=natural_key)):
        b = frame[frame["block"].astype(str) == block]
        if block:
            ax.axvspan(b["order"].min() - 0.5, b["order"].max() + 0.5, color="0.9" if i % 2 == 0 else "0.97", zorder=0)
            ax.text(
                b["order"].mean(),
                1.0,
                f"block {block}",
                transform=ax.get_xaxis_transform(),
                ha="center",
                va="bottom",
                fontsize=8,
            )
    for (level, cell), g in frame.groupby(["level", "cell"], sort=False):
        ax.plot(
            g["order"],
            g["value"],
            linestyle="",
            marker=markers.get(str(cell), "o"),
            color=colour[str(level)],
            label=f"{level} {cell}".strip(),
        )
    if frame["round"].astype(str).ne("").any():
        for _, r in frame.iterrows():
            ax.annotate(
                f"r{r['round']}", (r["order"], r["value"]), textcoords="offset points", xytext=(4, 3), fontsize=7
            )
    ax.set_xlabel("run, in the order the campaign made them (gaps: other benchmarks ran)")
    ax.set_ylabel(f"{metric} [{frame['unit'].iloc[0]}]")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def _lanes(attempts: pd.DataFrame) -> list[int]:
    """A lane per attempt so that attempts overlapping in time on one node do not hide each other."""
    ends: list[float] = []
    out = []
    for start, finish in zip(attempts["start_s"], attempts["finish_s"]):
        lane = next((i for i, e in enumerate(ends) if e <= start), None)
        if lane is None:
            ends.append(finish)
            lane = len(ends) - 1
        else:
            ends[lane] = finish
        out.append(lane)
    return out


def _node_label(tl: Timeline, node: str) -> str:
    p = tl.attempts.loc[tl.attempts["node"] == node, "platform"]
    return f"{node} ({p.iloc[0]})" if len(p) and p.iloc[0] else node


def timeline_figure(tl: Timeline, title: str = "") -> Figure:
    """The run's task attempts per node: a bar per attempt from start to finish (reducers in their
    shuffle, merge and reduce phases), hatched where a speculative copy raced it, the jobs shaded;
    failed and killed attempts, which JobHistory gives no times for, marked right of the chart."""
    if tl.attempts.empty:
        return _empty("this run has no task attempts recorded (not a Hadoop job, or JobHistory was not reached)")
    if not tl.timed:
        return durations_figure(tl, title)
    timed = tl.attempts[tl.attempts["start_s"].notna()]
    nodes = tl.nodes()
    fig = _figure(11, 1.6 + 0.9 * len(nodes))
    ax, side = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [8, 1]})
    y_of: dict[str, float] = {}
    for k, node in enumerate(nodes):
        mine = timed[timed["node"] == node].sort_values("start_s")
        lanes = _lanes(mine)
        n_lanes = max(lanes, default=0) + 1
        height = 0.8 / n_lanes
        y_of[node] = k
        for (_, a), lane in zip(mine.iterrows(), lanes):
            y = k - 0.4 + lane * height
            colour = TASK_COLOURS.get(a["task_type"], "C2")
            hatch = "///" if a["speculation"] else None
            if a["task_type"] == "REDUCE" and pd.notna(a["shuffle_end_s"]):
                merge_end = a["merge_end_s"] if pd.notna(a["merge_end_s"]) else a["shuffle_end_s"]
                for phase, x0, x1 in (
                    ("shuffle", a["start_s"], a["shuffle_end_s"]),
                    ("merge", a["shuffle_end_s"], merge_end),
                    ("reduce", merge_end, a["finish_s"]),
                ):
                    if x1 > x0:
                        ax.broken_barh(
                            [(x0, x1 - x0)],
                            (y, height * 0.9),
                            facecolors=colour,
                            alpha=PHASE_ALPHA[phase],
                            hatch=hatch,
                            edgecolor="black",
                            linewidth=0.3,
                        )
            else:
                ax.broken_barh(
                    [(a["start_s"], a["finish_s"] - a["start_s"])],
                    (y, height * 0.9),
                    facecolors=colour,
                    hatch=hatch,
                    edgecolor="black",
                    linewidth=0.3,
                )
    for i, j in tl.jobs.dropna(subset=["start_s"]).reset_index(drop=True).iterrows():
        ax.axvspan(j["start_s"], j["finish_s"], color="0.9" if i % 2 == 0 else "0.96", zorder=0)
        ax.text(
            (j["start_s"] + j["finish_s"]) / 2,
            1.0,
            j["step"],
            transform=ax.get_xaxis_transform(),
            ha="center",
            va="bottom",
            fontsize=8,
        )
    ax.set_yticks(range(len(nodes)))
    ax.set_yticklabels([_node_label(tl, n) for n in nodes])
    ax.set_ylim(-0.6, len(nodes) - 0.4)
    ax.set_xlabel("seconds since the run's first job started")
    handles = [Patch(color=c, label=t.lower()) for t, c in TASK_COLOURS.items()]
    handles += [
        Patch(facecolor="C1", alpha=PHASE_ALPHA["shuffle"], label="reduce: shuffle"),
        Patch(facecolor="C1", alpha=PHASE_ALPHA["merge"], label="reduce: merge"),
        Patch(facecolor="white", edgecolor="black", hatch="///", label="raced a speculative copy"),
    ]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(0, -0.25), ncol=5, frameon=False)
    if title:
        ax.set_title(title, fontsize=10, pad=14)
    bad = tl.unsuccessful()
    for state, (marker, colour) in UNSUCCESSFUL_MARKERS.items():
        b = bad[bad["state"] == state]
        if len(b):
            counts = b.groupby("node").size()
            for node, n in counts.items():
                side.scatter(
                    0.3 if state == "FAILED" else 0.7, y_of.get(str(node), -1), marker=marker, color=colour, s=40
                )
                side.annotate(
                    str(n),
                    (0.3 if state == "FAILED" else 0.7, y_of.get(str(node), -1)),
                    textcoords="offset points",
                    xytext=(6, 4),
                    fontsize=8,
                )
    side.set_xlim(0, 1)
    side.set_xticks([0.3, 0.7])
    side.set_xticklabels(["failed", "killed"], fontsize=8)
    side.set_title("no times", fontsize=8)
    side.tick_params(left=False)
    return fig


def durations_figure(tl: Timeline, title: str = "") -> Figure:
    """What an attempt-level chart can say when the samples hold durations but no start times:
    each attempt's duration on its node, per job. Not a timeline, and labelled so."""
    a = tl.attempts[tl.attempts["elapsed_s"].notna()]
    steps = sorted(a["step"].unique(), key=lambda s: (tl.jobs["step"].tolist() + [s]).index(s))
    nodes = tl.nodes()
    fig = _figure(11, 1.6 + 0.7 * len(nodes))
    axes = fig.subplots(1, len(steps), sharey=True, squeeze=False)
    for ax, step in zip(axes[0], steps):
        s = a[a["step"] == step]
        for k, node in enumerate(nodes):
            mine = s[s["node"] == node]
            n = max(len(mine), 1)
            for i, (_, r) in enumerate(mine.iterrows()):
                y = k - 0.4 + i * 0.8 / n
                ax.barh(
                    y,
                    r["elapsed_s"],
                    height=0.8 / n * 0.9,
                    align="edge",
                    color=TASK_COLOURS.get(r["task_type"], "C2"),
                    edgecolor="black",
                    linewidth=0.3,
                )
        job = tl.jobs[tl.jobs["step"] == step]
        ax.set_title(f"{step}" + (f" (job {job['elapsed_s'].iloc[0]:.1f} s)" if len(job) else ""), fontsize=9)
        ax.set_xlabel("attempt duration (s)")
    axes[0][0].set_yticks(range(len(nodes)))
    axes[0][0].set_yticklabels([_node_label(tl, n) for n in nodes])
    handles = [Patch(color=c, label=t.lower()) for t, c in TASK_COLOURS.items()]
    axes[0][-1].legend(handles=handles, fontsize=7, loc="upper right")
    fig.suptitle(
        (title + "\n" if title else "") + "durations only: this run's samples carry no start or finish "
        "times (recorded from vbench a06a173 on), so when each attempt ran is unknown",
        fontsize=9,
    )
    return fig


_COUNTER_STYLES = ["-", "--", ":", "-."]


def plot_counters(ax, d: pd.DataFrame, hosts: list[str], metrics, scale: float, t0: float) -> None:
    """One panel of a time-series figure: a line per host (colour), counter (line style) and side,
    the time from `t0`. The paper's figure draws its panels with it too."""
    for j, metric in enumerate(metrics):
        for i, host in enumerate(hosts):
            for side, g in d[(d["metric"] == metric) & (d["host"] == host)].groupby("side"):
                g = g.sort_values("time")
                label = f"{host}{'' if side == 'guest' else ' (machine side)'} {metric.split('_')[1]}"
                ax.plot(
                    g["time"] - t0,
                    g["value"] * scale,
                    color=f"C{i}",
                    linestyle=_COUNTER_STYLES[j % 4],
                    linewidth=0.9,
                    label=label,
                )


def timeseries_figure(ts: pd.DataFrame, tl: Timeline | None = None, title: str = "") -> Figure:
    """CPU, storage and network per host over the run (machine-scope counters once, as
    "machine"), the run's jobs shaded when their times are known."""
    d = one_per_counter(ts) if ts is not None and not ts.empty else pd.DataFrame()
    if d.empty:
        return _empty("no time series values (every counter was hidden from the sampler)")
    t0 = tl.t0 if tl is not None and tl.t0 is not None else float(d["time"].min())
    fig = _figure(12, 3.4)
    axes = fig.subplots(1, len(MONITOR_PANELS))
    hosts = sorted(d["host"].astype(str).unique(), key=natural_key)
    for ax, (name, metrics, ylabel, scale) in zip(axes, MONITOR_PANELS):
        plot_counters(ax, d, hosts, metrics, scale, t0)
        if tl is not None:
            for k, job in tl.jobs.dropna(subset=["start_s"]).reset_index(drop=True).iterrows():
                ax.axvspan(job["start_s"], job["finish_s"], color="0.88" if k % 2 == 0 else "0.95", zorder=0)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("seconds since the run's first job" if tl is not None and tl.t0 is not None else "seconds")
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=6)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def _split_bar(ax, y: float, segments: list[tuple[str, float, dict]]) -> tuple[float, float]:
    """One bar of stacked segments (label, seconds, style) from 0, a negative one drawn back over
    the parts before it and cross-hatched; returns the lowest and highest point the bar reaches."""
    at, low, high = 0.0, 0.0, 0.0
    for _, seconds, style in segments:
        left, width = (at, seconds) if seconds >= 0 else (at + seconds, -seconds)
        negative = {"hatch": "xxxx", "alpha": 0.7} if seconds < 0 else {}
        ax.barh(y, width, left=left, height=0.6, linewidth=0.5, **{"edgecolor": "0.2", **style, **negative})
        at += seconds
        low, high = min(low, at), max(high, at)
    return low, high


def cost_split_figure(split: CostSplit) -> Figure:
    """Horizontal stacked bars in seconds: the baseline's run and the platform's run of one block
    cut into their JobHistory phases, and the cost model's split of the platform's time: the
    baseline run's job time, each resource's predicted extra time, and the rest it does not explain
    (the platform run's time less the prediction). Without a model, the two runs and why not."""
    phases = [(p, s, {"facecolor": PHASE_COLOURS.get(p, "C0")}) for p, s in split.native.phases]
    bars = [
        (f"{split.baseline} run\nblock {split.native.block or '-'}", phases, f"{split.native.job_s:.1f} s"),
        (
            f"{split.platform} run\nblock {split.run.block or '-'}",
            [(p, s, {"facecolor": PHASE_COLOURS.get(p, "C0")}) for p, s in split.run.phases],
            f"{split.run.job_s:.1f} s (x{split.run_ratio:.2f})",
        ),
    ]
    m = split.model
    if m is not None:
        model = [(f"{split.baseline} job time", split.native.job_s, {"facecolor": SPLIT_BASE_COLOUR})]
        model += [(r, s, {"facecolor": RESOURCE_COLOURS.get(r, "C7")}) for r, s in split.extra_s()]
        model.append(("not explained by the model", split.rest_s, SPLIT_REST))
        iv = m.predicted
        told = f"predicted x{iv.estimate:.2f}" + (f" [{iv.low:.2f}, {iv.high:.2f}]" if iv.bounded else "")
        bars.append((f"cost model\n({m.fit})" if m.fit else "cost model", model, told))
    fig = _figure(10, 1.6 + 0.6 * len(bars))
    ax = fig.subplots()
    reaches = [_split_bar(ax, len(bars) - 1 - k, segments) for k, (_, segments, _) in enumerate(bars)]
    right = max(high for _, high in reaches) or 1.0
    for k, ((_, _, text), (_, high)) in enumerate(zip(bars, reaches)):
        ax.text(high + right * 0.01, len(bars) - 1 - k, text, va="center", fontsize=8)
    ax.set_yticks(range(len(bars)))
    ax.set_yticklabels([label for label, _, _ in reversed(bars)], fontsize=8)
    ax.set_xlim(min(low for low, _ in reaches), right * 1.3)
    ax.set_xlabel(f"seconds of the {split.job} job")
    title = f"{split.platform} {split.job}: where one run's time went, and where the cost model says it went"
    if m is None:
        title += "\n" + textwrap.fill(textwrap.shorten(f"no model: {split.model_note}", 360), 130)
    ax.set_title(title, fontsize=9)
    handles = [Patch(facecolor=c["facecolor"], edgecolor="0.2", label=f"{p} (measured)") for p, _, c in phases]
    if m is not None:
        handles.append(Patch(facecolor=SPLIT_BASE_COLOUR, edgecolor="0.2", label=f"{split.baseline} job time"))
        handles += [
            Patch(facecolor=RESOURCE_COLOURS.get(r, "C7"), edgecolor="0.2", label=f"+ {r} (model)")
            for r, _ in split.extra_s()
        ]
        handles.append(Patch(**SPLIT_REST, label="not explained by the model"))
    if any(s < 0 for _, segments, _ in bars for _, s, _ in segments):
        handles.append(Patch(facecolor="white", edgecolor="0.2", hatch="xxxx", label="negative: less time"))
    fig.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 5), fontsize=8, frameon=False)
    return fig
