"""The paper's figures, one function each: `fig_<name>(stats, samples, out_dir) -> list[Path]`.

Each draws from the statistics table (`stats`, as a `vbench.paper.results.StatisticsLookup`: means
with their Student-t intervals, ratios with the comparison's interval, paired by block where the
design paired the runs and Fieller's otherwise: the same numbers as the tables), in the shared
style of `vbench.paper.style`, and writes `<name>.pdf` (vector, for LaTeX) and `<name>.png` (for
notebooks). A figure whose data is absent from the campaign writes nothing and returns []; `build`
then puts a "not measured" note where the figure would be.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Callable

import matplotlib.ticker
import numpy as np
import pandas as pd

from vbench.explore.figures import MONITOR_PANELS, plot_counters
from vbench.monitor.monitor import one_per_counter
from vbench.stats.compare import LEVEL
from vbench.stats.keys import natural_key
from vbench.stats.table.groups import BLOCK_MEANS
from vbench.stats.tidy import plain, split_size_key
from vbench.wording import level_label

from vbench.paper import results as R
from vbench.paper import style
from vbench.paper.fmt import size_display, size_mb
from vbench.paper.sandbox import compared_platforms, sandbox_rows

BASELINE = "native"


def _series(
    stats: R.StatisticsLookup,
    experiment: str,
    benchmark: str,
    metric: str,
    *,
    statistic: str = "mean",
    method: str | None = "t",
) -> pd.DataFrame:
    """Rows of one statistic for one metric, with a numeric x (data size in MB) when the size is one."""
    if method is None:  # a comparison: the paired row where the runs are paired, else Fieller's
        r = R.comparison_rows(stats, statistic, experiment=experiment, benchmark=benchmark, metric=metric)
    else:
        r = R.rows(stats, experiment=experiment, benchmark=benchmark, metric=metric, statistic=statistic, method=method)
    if r.empty:
        return r
    r = r[r["estimate"].notna()].copy()
    r["x"] = r["size_label"].map(lambda s: size_mb(s) if s else None) if "size_label" in r.columns else None
    return r


def _errs(d: pd.DataFrame) -> np.ndarray | None:
    lo = (d["estimate"] - d["ci_low"]).to_numpy(dtype=float)
    hi = (d["ci_high"] - d["estimate"]).to_numpy(dtype=float)
    lo, hi = np.where(np.isnan(lo), 0.0, lo), np.where(np.isnan(hi), 0.0, hi)
    return np.vstack([lo, hi])


def _size_axis(ax, xs: list[float]) -> None:
    xs = sorted(set(xs))
    if len(xs) >= 3 and xs[-1] / xs[0] >= 4:
        ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.set_xticklabels([size_display(f"{x:g}MB") for x in xs])
    ax.minorticks_off()


def _platforms(d: pd.DataFrame, baseline: str = BASELINE) -> list[str]:
    ps = sorted(d["platform"].astype(str).unique(), key=natural_key)
    return ([baseline] if baseline in ps else []) + [p for p in ps if p != baseline and p != "all"]


def one_size(d: pd.DataFrame) -> bool:
    """Whether a panel's series has a single data size: no size axis then, a position per platform."""
    return d["x"].dropna().nunique() == 1


def _plot_vs_size(
    ax,
    d: pd.DataFrame,
    ylabel: str,
    title: str,
    group_col: str | None = None,
    baseline: str = BASELINE,
    xlabel: str = "data size",
) -> bool:
    """Each platform's series against data size (a line per platform and `group_col` level); with a
    single size, `_plot_platforms` instead: a size axis with one value shows nothing."""
    d = d[d["x"].notna()]
    if d.empty:
        return False
    groups = [None]
    if group_col and group_col in d.columns and d[group_col].astype(str).nunique() > 1:
        groups = sorted(d[group_col].astype(str).unique(), key=natural_key)
    if one_size(d):
        return _plot_platforms(ax, d, ylabel, title, group_col, groups, baseline)
    styles = ["-", "--", ":", "-."]
    for i, p in enumerate(_platforms(d, baseline)):
        for j, g in enumerate(groups):
            s = d[d["platform"] == p] if g is None else d[(d["platform"] == p) & (d[group_col].astype(str) == g)]
            s = s.sort_values("x")
            if s.empty:
                continue
            ax.errorbar(
                s["x"],
                s["estimate"],
                yerr=_errs(s),
                color=style.colour(p, i),
                marker=style.marker(p, i),
                linestyle=styles[j % len(styles)],
                label=_label(p, group_col, g),
            )
    _size_axis(ax, list(d["x"]))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return True


def _label(platform: str, group_col: str | None, group: str | None) -> str:
    """A series' legend entry: the platform, and the level of `group_col` named with its factor
    ("LXC, HDFS replication: 3"), never a bare "3"."""
    return style.label(platform) if group is None else f"{style.label(platform)}, {level_label({group_col: group})}"


def _plot_platforms(
    ax, d: pd.DataFrame, ylabel: str, title: str, group_col: str | None, groups: list, baseline: str
) -> bool:
    """One size: each platform a point with its interval at a position of its own (labelled with its
    name), the levels of `group_col` side by side within it (marker fill: the level); the size in the
    title."""
    platforms = _platforms(d, baseline)
    fills = ["full", "none", "left", "right"]
    step = 0.5 / max(len(groups), 1)
    for i, p in enumerate(platforms):
        for j, g in enumerate(groups):
            s = d[d["platform"] == p] if g is None else d[(d["platform"] == p) & (d[group_col].astype(str) == g)]
            if s.empty:
                continue
            ax.errorbar(
                [i + (j - (len(groups) - 1) / 2) * step] * len(s),
                s["estimate"],
                yerr=_errs(s),
                color=style.colour(p, i),
                marker=style.marker(p, i),
                fillstyle=fills[j % len(fills)],
                linestyle="none",
                label=_label(p, group_col, g),
            )
    ax.set_xticks(range(len(platforms)))
    ax.set_xticklabels([style.label(p).replace(" (", "\n(") for p in platforms])
    ax.set_xlim(-0.6, len(platforms) - 0.4)
    ax.minorticks_off()
    ax.grid(axis="x", visible=False)
    ax.set_xlabel("")
    ax.set_ylabel(ylabel)
    head, _, rest = title.partition("\n")  # "TestDFSIO write\n(campaign)": the size after the name
    size = size_display(f"{float(d['x'].dropna().iloc[0]):g}MB")
    ax.set_title(f"{head}, {size}" + (f"\n{rest}" if rest else ""))
    return True


def _experiment(stats, benchmark, metrics, prefer=("platforms", "scaling")):
    return R.pick_experiment(stats, benchmark, metrics, prefer)


def _finish(fig, axes, out_dir: Path, name: str) -> list[Path]:
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncol=legend_columns(labels), frameon=False)
    return style.save(fig, out_dir, name)


#: How many characters of legend labels (with their markers) a row of a page-wide figure
#: (style.WIDTH) holds; a narrower figure holds proportionally fewer.
LEGEND_CHARS = 80


def legend_columns(labels: list[str], most: int = 4, width_chars: int = LEGEND_CHARS) -> int:
    """As many legend columns (at most `most`) as fit the page's width: matplotlib fills a
    legend column by column, each as wide as its longest label, and a row wider than the figure
    is cut at its edge (factor names such as 'Hadoop topology: a rack per physical host' are long).
    Pure."""
    for ncol in range(min(len(labels), most), 1, -1):
        rows = -(-len(labels) // ncol)
        columns = [labels[i * rows : (i + 1) * rows] for i in range(ncol)]
        if sum(max((len(lab) for lab in col), default=0) + 6 for col in columns) <= width_chars:
            return ncol
    return 1


#: The columns that name one group of the statistics table: its rows differ by statistic and method.
_GROUP = ["experiment", "platform", "benchmark", "metric", "size"]


def _mean_series(stats: R.StatisticsLookup, experiment: str, benchmark: str, metric: str) -> pd.DataFrame:
    """Each group's mean with its interval over its blocks' means, the design's unit, where the
    campaign recorded two blocks or more, else Student-t over its runs: the tables' rule
    (`vbench.paper.results.block_mean_row`). Runs of one block share its cluster instance; counted
    as independent samples, they would draw bars narrower than the design can claim."""
    t = _series(stats, experiment, benchmark, metric)
    blocks = _series(stats, experiment, benchmark, metric, method=BLOCK_MEANS)
    if blocks.empty or t.empty:
        return t if blocks.empty else blocks
    both = pd.concat([blocks, t])
    return both[~both.duplicated(subset=_GROUP, keep="first")]


def _sized(stats, experiment, benchmark, panels) -> list[tuple[pd.DataFrame, str]]:
    """(the metric's series where its size is known, title) of each (metric, title) panel that has any."""
    data = [(_mean_series(stats, experiment, benchmark, m), t) for m, t in panels]
    data = [(d[d["x"].notna()], t) for d, t in data if not d.empty]
    return [(d, t) for d, t in data if not d.empty]


def _replication_panels(data, ylabel: str, out_dir: Path, name: str, xlabel: str = "data size") -> list[Path]:
    """One panel a (series, title) against data size, a line per platform and HDFS replication (a
    position per platform where the panel has one size)."""
    if not data:
        return []
    style.apply()
    fig, axes = style.figure(len(data))
    for ax, (d, title) in zip(axes, data):
        _plot_vs_size(ax, d, ylabel, title, group_col="replication", xlabel=xlabel)
    return _finish(fig, axes, out_dir, name)


def _wordcount_panels(stats: R.StatisticsLookup) -> list[tuple[pd.DataFrame, str]]:
    ex = _experiment(stats, "wordcount", ["job_wall_time"])
    return _sized(stats, ex, "wordcount", [("job_wall_time", "WordCount")]) if ex else []


def fig_wordcount(stats: R.StatisticsLookup, samples: pd.DataFrame, out_dir: Path) -> list[Path]:
    """WordCount time against input size per platform, 95 % CI bars (Vasconcelos Fig. 1, Xavier Fig. 3)."""
    data = _wordcount_panels(stats)
    if not data:
        return []
    style.apply()
    fig, (ax,) = style.figure(1, height=2.4, width=3.6)
    _plot_vs_size(ax, data[0][0], "job time (s)", data[0][1], xlabel="input size")
    return _finish(fig, [ax], out_dir, "wordcount")


def _terasort_panels(stats: R.StatisticsLookup) -> list[tuple[pd.DataFrame, str]]:
    ex = _experiment(stats, "terasort", ["terasort_time"])
    if not ex:
        return []
    panels = [("teragen_time", "TeraGen"), ("terasort_time", "TeraSort"), ("teravalidate_time", "TeraValidate")]
    return _sized(stats, ex, "terasort", panels)


def fig_terasort(stats: R.StatisticsLookup, samples: pd.DataFrame, out_dir: Path) -> list[Path]:
    """TeraGen, TeraSort and TeraValidate times against data size (Vasconcelos Fig. 2, Xavier Fig. 4)."""
    return _replication_panels(_terasort_panels(stats), "elapsed time (s)", out_dir, "terasort")


def _dfsio_panels(stats: R.StatisticsLookup) -> list[tuple[pd.DataFrame, str]]:
    """Each panel from the experiment that measured its metric best (the paper's one ranking): the
    studies measured write and read in different designs (Xavier et al. wrote only); a panel of
    another campaign than the analysed one names it."""
    data = []
    for metric, title in (("write_throughput", "TestDFSIO write"), ("read_throughput", "TestDFSIO read")):
        ex = _experiment(stats, "dfsio", [metric])
        if ex:
            campaign = ex.partition("@")[2]
            data += _sized(stats, ex, "dfsio", [(metric, f"{title}\n({campaign})" if campaign else title)])
    return data


def fig_dfsio(stats: R.StatisticsLookup, samples: pd.DataFrame, out_dir: Path) -> list[Path]:
    """TestDFSIO write and read throughput against file size, per replication (Vasconcelos Fig. 3, Xavier Figs. 1-2)."""
    return _replication_panels(_dfsio_panels(stats), "throughput (MiB/s)", out_dir, "dfsio", xlabel="file size")


def _normalised_panels(stats: R.StatisticsLookup) -> list[tuple[pd.DataFrame, str]]:
    panels = [
        ("terasort", "teragen_time", "TeraGen"),
        ("terasort", "terasort_time", "TeraSort"),
        ("wordcount", "job_wall_time", "WordCount"),
    ]
    data = []
    for bench, metric, title in panels:
        ex = _experiment(stats, bench, [metric])
        if not ex:
            continue
        d = _series(stats, ex, bench, metric, statistic="ratio_to_baseline", method=None)
        if not d.empty:
            d = d[d["x"].notna()]
        if not d.empty:
            data.append((d, title))
    return data


def fig_normalised(stats: R.StatisticsLookup, samples: pd.DataFrame, out_dir: Path) -> list[Path]:
    """Execution time normalised to the baseline against data size (Jeong et al. Fig. 6), 95 % CIs of the ratio."""
    data = _normalised_panels(stats)
    if not data:
        return []
    style.apply()
    fig, axes = style.figure(len(data))
    for ax, (d, title) in zip(axes, data):
        ax.axhline(
            1.0, color=style.colour(BASELINE), linestyle="--", linewidth=0.8, label=f"{style.label(BASELINE)} (= 1)"
        )
        _plot_vs_size(ax, d, "time / native time", title, group_col="replication")
    return _finish(fig, axes, out_dir, "normalised")


#: The figures drawn against a size axis: their panels and the caption's words for that axis.
_SIZED_FIGURES: dict[str, tuple[Callable, str]] = {
    "wordcount": (_wordcount_panels, "against input size"),
    "terasort": (_terasort_panels, "against data size"),
    "dfsio": (_dfsio_panels, "against file size"),
    "normalised": (_normalised_panels, "against data size"),
}


def figure_caption(name: str, stats: R.StatisticsLookup, caption: str | None = None) -> str:
    """The caption of figure `name` (`FIGURES`'), saying what is drawn: a figure against a size axis
    whose panels each have one size draws a point per platform at that size, and says so; the
    factors' figure speaks of hatched bars only where it draws one."""
    caption = FIGURES[name][2] if caption is None else caption
    if name == "factors":
        r = _factor_rows(stats)
        hatched = (r["ci_low"].isna() | r["ci_high"].isna()).any()
        return caption if hatched else caption.replace(_FACTORS_HATCH, "")
    if name not in _SIZED_FIGURES or stats is None or stats.empty:
        return caption
    panels, against = _SIZED_FIGURES[name]
    data = panels(stats)
    single = [d for d, _t in data if one_size(d)]
    if not data or not single:
        return caption
    if len(single) == len(data):
        sizes = sorted({float(d["x"].dropna().iloc[0]) for d in single})
        at = size_display(f"{sizes[0]:g}MB") if len(sizes) == 1 else "one size a panel (in its title)"
        words = f"per platform at {at}"
        caption = caption.replace("line style: HDFS replication", "marker fill: HDFS replication")
    else:
        words = f"{against} (per platform where a panel has one size, named in its title)"
        caption = caption.replace("line style: HDFS replication", "line style or marker fill: HDFS replication")
    return caption.replace(f" {against} per platform", f" {words}").replace(f" {against}", f" {words}")


def fig_ratio(stats: R.StatisticsLookup, samples: pd.DataFrame, out_dir: Path) -> list[Path]:
    """Ratio of elapsed time to native per platform, TeraGen/TeraSort/TeraValidate (VMware Fig. 2)."""
    ex = _experiment(stats, "terasort", ["terasort_time"], ("platforms",))
    if not ex:
        return []
    sizes = R.sizes_for(stats, ex, "terasort", "terasort_time")
    size = sizes[-1] if sizes else None
    bars = []
    for metric, name in (
        ("teragen_time", "TeraGen"),
        ("terasort_time", "TeraSort"),
        ("teravalidate_time", "TeraValidate"),
    ):
        r = R.comparison_rows(stats, experiment=ex, benchmark="terasort", metric=metric, size=size)
        for _, row in r.iterrows():
            if pd.notna(row["estimate"]):
                bars.append((name, str(row["platform"]), row["estimate"], row["ci_low"], row["ci_high"]))
    if not bars:
        return []
    style.apply()
    d = pd.DataFrame(bars, columns=["benchmark", "platform", "estimate", "ci_low", "ci_high"])
    platforms = _platforms(d)
    names = [n for n in ("TeraGen", "TeraSort", "TeraValidate") if n in set(d["benchmark"])]
    fig, (ax,) = style.figure(1, height=2.4, width=3.8)
    width = 0.8 / max(len(platforms), 1)
    for i, p in enumerate(platforms):
        s = d[d["platform"] == p].set_index("benchmark").reindex(names).dropna(subset=["estimate"])
        xs = [names.index(n) + (i - (len(platforms) - 1) / 2) * width for n in s.index]
        ax.bar(
            xs,
            s["estimate"],
            width=width * 0.9,
            color=style.colour(p, i),
            hatch=style.hatch(p),
            edgecolor="white",
            label=style.label(p),
            yerr=_errs(s.reset_index()),
            error_kw={"elinewidth": 0.8, "capsize": 2},
        )
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names)
    ax.set_ylabel("elapsed time / native")
    ax.set_title(
        f"ratio to {BASELINE} ({size_display(split_size_key(size)[0] or size) if size else 'all sizes'}); lower is better"
    )
    return _finish(fig, [ax], out_dir, "ratio")


#: Monitoring samples (issue #9): benchmark "monitor", metadata `elapsed_s` (seconds since the run began).
#: The time-series figure's panels are the explore view's (vbench.explore.figures.MONITOR_PANELS).


def fig_timeseries(
    stats: R.StatisticsLookup,
    samples: pd.DataFrame,
    out_dir: Path,
    timeseries: pd.DataFrame | None = None,
    jobs: list[tuple[str, float, float]] | None = None,
) -> list[Path]:
    """CPU, storage and network use over one monitored run (VMware Figs. 3-5): the first series of
    `timeseries` (vbench.monitor tidy rows), with the run's jobs shaded when `jobs` gives their
    (name, start, finish) in epoch seconds."""
    if timeseries is None or timeseries.empty:
        return []
    series = sorted(timeseries["series"].astype(str).unique(), key=natural_key)[0]
    d = one_per_counter(timeseries[timeseries["series"] == series])
    if d.empty:
        return []
    t0 = float(d["time"].min())
    style.apply()
    fig, axes = style.figure(len(MONITOR_PANELS), height=2.6)
    hosts = sorted(d["host"].astype(str).unique(), key=natural_key)
    for ax, (title, metrics, ylabel, scale) in zip(axes, MONITOR_PANELS):
        plot_counters(ax, d, hosts, metrics, scale, t0)
        for k, (name, start, finish) in enumerate(jobs or []):
            ax.axvspan(start - t0, finish - t0, color="0.85" if k % 2 == 0 else "0.93", zorder=0)
            if ax is axes[0]:
                ax.text(
                    (start + finish) / 2 - t0,
                    1.0,
                    name.replace("tera", ""),
                    transform=ax.get_xaxis_transform(),
                    ha="center",
                    va="bottom",
                    fontsize=6,
                )
        ax.set_title(title, pad=9)
        ax.set_xlabel("time since start (s)")
        ax.set_ylabel(ylabel)
    return _finish(fig, axes, out_dir, "timeseries")


def _tick_label(cell: str, width: int = 14) -> str:
    """A factor cell's tick label: a line per part, long names (a campaign's) broken at their
    hyphens so neighbouring cells' labels do not overlap."""
    parts = cell.split(", ")
    return "\n".join(line for part in parts for line in textwrap.wrap(part, width, break_on_hyphens=True))


def level_labels(samples: pd.DataFrame | None) -> dict[tuple[str, str], str]:
    """(experiment, compared level) -> the level named with its factor(s), "VMs per host: 2", from a
    comparison view's `level.*` columns (vbench.stats.compare): the statistics table's `platform`
    holds the bare level ("2"), which names no factor. A level the samples do not name is absent."""
    cols = [c for c in samples.columns if c.startswith(LEVEL)] if samples is not None else []
    if not cols or samples.empty:
        return {}
    compared = samples[samples[cols].notna().any(axis=1)].drop_duplicates(["experiment", "platform"])
    return {
        (str(row["experiment"]), str(row["platform"])): level_label(
            {c.removeprefix(LEVEL): plain(row[c]) for c in cols if pd.notna(row[c])}
        )
        for _, row in compared.iterrows()
    }


#: fig_factors' panels: (metric, title), in order.
_FACTOR_PANELS = (("teragen_time", "TeraGen"), ("terasort_time", "TeraSort"), ("job_wall_time", "WordCount"))
#: fig_factors' caption's sentence on hatched bars: said only where one is drawn (`figure_caption`).
_FACTORS_HATCH = (
    "; hatched bars have no interval (fewer than two runs, or an interval unbounded because the "
    "baseline's runs vary too much)"
)


def _factor_rows(stats: R.StatisticsLookup) -> pd.DataFrame:
    """fig_factors' bars: each comparison of a level with its factor's baseline that has an estimate,
    in the figure's panels' metrics (no row when there is none). Pure."""
    none = pd.DataFrame(columns=["experiment", "size", "baseline", "metric", "estimate", "ci_low", "ci_high"])
    if stats is None or stats.empty or "baseline" not in stats.table.columns:
        return none
    r = R.comparison_rows(stats)
    if r.empty:
        return none
    r = r[(r["baseline"].astype(str) != BASELINE) & r["estimate"].notna()]
    return r[r["metric"].isin([m for m, _t in _FACTOR_PANELS])]


def fig_factors(stats: R.StatisticsLookup, samples: pd.DataFrame, out_dir: Path) -> list[Path]:
    """Time normalised to a factor level's baseline (e.g. network mode vs bridge) per cell of the
    other factors (e.g. VMs per host), 95 % CIs of the ratio (Jeong et al. Figs. 6 and 8, VMware's
    VMs per host): the studies whose design compares environment factors, not platforms."""
    r = _factor_rows(stats)
    panels = [(m, t) for m, t in _FACTOR_PANELS if (r["metric"] == m).any()]
    if not panels:
        return []
    named = level_labels(samples)

    def level_names(d: pd.DataFrame) -> list[str]:
        return [named.get(k, k[1]) for k in zip(d["experiment"].astype(str), d["platform"].astype(str))]

    # One colour per level across the panels: a level missing from one panel (TeraGen has no
    # WordCount cells) must not shift the others' colours away from the legend's.
    every_level = sorted(set(level_names(r[r["metric"].isin([m for m, _t in panels])])), key=natural_key)
    # Each panel as wide as its cells need, so that every cell's label has the same room.
    n_cells = [
        max(r[r["metric"] == m].groupby(["experiment", "size", "baseline"], dropna=False).ngroups, 2)
        for m, _t in panels
    ]
    label_width = max(10, 90 // sum(n_cells))
    style.apply()
    fig, axes = style.figure(len(panels), height=2.6, widths=n_cells)
    for ax, (metric, title) in zip(axes, panels):
        d = r[r["metric"] == metric]
        experiments = d["experiment"].astype(str)
        base_names = [named.get(k, k[1]) for k in zip(experiments, d["baseline"].astype(str))]
        # A cell is one experiment's size and baseline: two studies (or two runs of one design)
        # may share a size and a level name, and each is normalised to its own baseline.
        # Named by campaign, never by the statistics' `<experiment>@<campaign>` key.
        names = {e: R.experiment_name(samples, e) for e in experiments.unique()}
        cell = experiments.map(names) + ", " + d["size"].astype(str) + ", vs " + pd.Series(base_names, index=d.index)
        d = d.assign(_cell=cell.to_numpy(), _level=level_names(d), _base=base_names)
        cells = sorted(d["_cell"].unique(), key=natural_key)
        levels = sorted(d["_level"].unique(), key=natural_key)
        bases = sorted(d["_base"].unique(), key=natural_key)
        # Each cell's bars centred on its tick: the levels it has, not every level of the panel.
        in_cell = d.groupby("_cell")["_level"].agg(set)
        present = {c: [lv for lv in levels if lv in in_cell[c]] for c in cells}
        width = 0.8 / max(max(len(v) for v in present.values()), 1)
        for level in levels:
            i = every_level.index(level)
            s = d[d["_level"] == level].set_index("_cell")
            s = s.reindex(cells).dropna(subset=["estimate"])
            xs = np.array(
                [cells.index(c) + (present[c].index(level) - (len(present[c]) - 1) / 2) * width for c in s.index]
            )
            has_ci = (s["ci_low"].notna() & s["ci_high"].notna()).to_numpy()
            ax.bar(
                xs[has_ci],
                s["estimate"][has_ci],
                width=width * 0.9,
                color=style.colour(level, i),
                label=level if has_ci.any() else None,
                yerr=_errs(s[has_ci].reset_index(drop=True)),
                error_kw={"elinewidth": 0.8, "capsize": 2},
            )
            # No interval (n < 2, or a Fieller interval unbounded by noise): hatched, no error bar,
            # so a point estimate is never drawn as if it were precise.
            ax.bar(
                xs[~has_ci],
                s["estimate"][~has_ci],
                width=width * 0.9,
                color=style.colour(level, i),
                hatch="///",
                edgecolor="white",
                label=level if not has_ci.any() else None,
            )
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(cells)))
        ax.set_xticklabels([_tick_label(c, label_width) for c in cells])
        ax.set_ylabel(f"time / time at {bases[0]}" if len(bases) == 1 else "ratio to baseline")
        ax.set_title(title)
    return _finish(fig, axes, out_dir, "factors")


def fig_sandbox(stats: R.StatisticsLookup, samples: pd.DataFrame, out_dir: Path) -> list[Path]:
    """Per micro-benchmark and Hadoop job metric, each platform's ratio to native with its 95 % interval
    (the sandbox study, `vbench.paper.sandbox`), on a log axis: a sandbox's costs span orders of magnitude."""
    rows = sandbox_rows(stats, BASELINE)
    if not rows:
        return []
    platforms = compared_platforms(rows)
    style.apply()
    fig, (ax,) = style.figure(1, height=0.9 + 0.32 * len(rows), width=4.8)
    step = 0.7 / max(len(platforms), 1)
    for i, p in enumerate(platforms):
        points = [(y, r.of(p)) for y, r in enumerate(rows) if r.of(p) is not None]
        d = pd.DataFrame(
            [
                {"y": y + (i - (len(platforms) - 1) / 2) * step, **c.row[["estimate", "ci_low", "ci_high"]].to_dict()}
                for y, c in points
            ]
        )
        bounded = (d["ci_low"].notna() & d["ci_high"].notna()).to_numpy()
        ax.errorbar(
            d["estimate"][bounded],
            d["y"][bounded],
            xerr=_errs(d[bounded]),
            color=style.colour(p, i),
            marker=style.marker(p, i),
            linestyle="none",
            label=style.label(p),
        )
        # No interval (too few pairs, or Fieller's unbounded): a hollow marker, never a precise-looking point.
        ax.plot(
            d["estimate"][~bounded],
            d["y"][~bounded],
            marker=style.marker(p, i),
            markerfacecolor="none",
            color=style.colour(p, i),
            linestyle="none",
        )
    ax.axvline(1.0, color="black", linewidth=0.8, linestyle="--", label=f"{style.label(BASELINE)} (= 1)")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(
        [
            f"{r.metric.label}\n({'higher' if r.higher_is_better else 'lower'} is better)"
            if r.higher_is_better is not None
            else r.metric.label
            for r in rows
        ]
    )
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first metric on top, as in the table
    micro = [i for i, r in enumerate(rows) if not r.metric.job]
    if micro and len(micro) < len(rows):  # the Hadoop jobs below a rule, as in the table
        ax.axhline(max(micro) + 0.5, color="grey", linewidth=0.6)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel(f"ratio to {BASELINE} (log scale)")
    return _finish(fig, [ax], out_dir, "sandbox")


#: What the intervals of the figures of means are over (`_mean_series`).
_OVER_BLOCKS = " over the blocks' means, the design's unit (over the runs where a campaign recorded one block)."

#: Every figure: name -> (function, label, caption, what it follows).
FIGURES: dict[str, tuple[Callable, str, str, str]] = {
    "wordcount": (
        fig_wordcount,
        "fig:wordcount",
        r"WordCount job time against input size per platform; bars are 95\,\% Student-$t$ intervals" + _OVER_BLOCKS,
        "Vasconcelos & Freitas Fig. 1; Xavier et al. Fig. 3",
    ),
    "terasort": (
        fig_terasort,
        "fig:terasort",
        r"TeraGen, TeraSort and TeraValidate elapsed time against data size; bars are 95\,\% Student-$t$ intervals"
        + _OVER_BLOCKS,
        "Vasconcelos & Freitas Fig. 2; Xavier et al. Fig. 4",
    ),
    "dfsio": (
        fig_dfsio,
        "fig:dfsio",
        r"TestDFSIO write and read throughput against file size (line style: HDFS replication); "
        r"bars are 95\,\% Student-$t$ intervals" + _OVER_BLOCKS,
        "Vasconcelos & Freitas Fig. 3; Xavier et al. Figs. 1-2",
    ),
    "normalised": (
        fig_normalised,
        "fig:normalised",
        r"Execution time normalised to the native baseline against data size; bars are 95\,\% intervals of "
        r"the ratio (paired by block where the runs are paired, Fieller's otherwise). Below 1 is faster "
        r"than native.",
        "Jeong et al. Fig. 6",
    ),
    "ratio": (
        fig_ratio,
        "fig:ratio",
        r"Ratio of elapsed time to native at the largest data size, with 95\,\% intervals (paired by block "
        r"where the runs are paired, Fieller's otherwise). Lower is better.",
        "VMware Fig. 2",
    ),
    "factors": (
        fig_factors,
        "fig:factors",
        r"Execution time normalised to the baseline level of the compared factor (e.g.\ the bridged "
        r"network) in each cell of the other factors (e.g.\ VMs per physical host, data size); bars are "
        r"95\,\% intervals of the ratio (paired by block where the runs are paired, Fieller's otherwise)"
        + _FACTORS_HATCH
        + ".",
        "Jeong et al. Figs. 6 and 8; VMware, VMs per host",
    ),
    "sandbox": (
        fig_sandbox,
        "fig:sandbox",
        r"What a sandboxed kernel costs: each platform's ratio to native per micro-benchmark metric and, below "
        r"the rule, per Hadoop job metric of the same hosts, with its 95\,\% interval (paired by block where the "
        r"runs are paired, Fieller's otherwise; hollow markers have none), on a log scale; the dashed line is native.",
        "this paper's sandbox study",  # the caption's "After ...": no issue number in print
    ),
    "timeseries": (
        fig_timeseries,
        "fig:timeseries",
        r"CPU, storage and network use during one monitored TeraSort run (TeraGen, TeraSort, TeraValidate "
        r"shaded), sampled every second on every host. Native hosts share the machine's kernel, so their "
        r"CPU and disk counters are the machine's (shown once, as \emph{machine}); network is per host.",
        "VMware Figs. 3-5",
    ),
}
