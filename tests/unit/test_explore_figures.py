"""vbench.explore.figures draw what the frames hold: one bar per timed attempt, a mark per
unsuccessful one, a point and interval per ratio."""

from __future__ import annotations

from pathlib import Path

from matplotlib.collections import PathCollection, PolyCollection

from vbench.explore import compare, figures, order, run, timeline

from tests.unit.explore_campaigns import committed

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"


def _bars(ax) -> list:
    return [c for c in ax.collections if isinstance(c, PolyCollection)]


def test_the_gantt_has_a_bar_per_attempt_phase_and_a_mark_per_node_with_unsuccessful_ones():
    d = committed("liu2012-terasort")
    tl = timeline.timeline(d.samples, d.samples["run_id"].iloc[0])
    fig = figures.timeline_figure(tl)
    gantt, side = fig.axes
    ok = tl.attempts[tl.attempts["state"] == "SUCCEEDED"]
    reduces = ok[ok["task_type"] == "REDUCE"]
    phases = sum(
        int(x1 > x0)
        for _, r in reduces.iterrows()
        for x0, x1 in (
            (r["start_s"], r["shuffle_end_s"]),
            (r["shuffle_end_s"], r["merge_end_s"]),
            (r["merge_end_s"], r["finish_s"]),
        )
    )
    assert len(_bars(gantt)) == (len(ok) - len(reduces)) + phases
    hatched = [c for c in _bars(gantt) if c.get_hatch()]
    assert len(hatched) >= ok["speculation"].sum()
    unsuccessful_nodes = tl.unsuccessful().groupby(["state", "node"]).ngroups
    assert len(side.collections) == unsuccessful_nodes == 1
    assert [t.get_text() for t in gantt.get_yticklabels()] == ["worker1 (native)", "worker2 (qemu)"]
    assert figures.png(fig)[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_start_times_the_chart_says_it_shows_durations_only():
    d = committed("netmodes")  # measured before attempts carried their start times
    tl = timeline.timeline(d.samples, d.samples.loc[d.samples["benchmark"] == "terasort", "run_id"].iloc[0])
    fig = figures.timeline_figure(tl)
    assert "durations only" in fig.get_suptitle()
    assert sum(len(ax.patches) for ax in fig.axes) == len(tl.attempts)


def test_the_comparison_figure_plots_each_ratio_with_its_interval():
    d = committed("netmodes")
    rs = compare.ratios(compare.campaign_statistics(d).table, "terasort", "terasort_time")
    fig = figures.comparison_figure(compare.level_values(d, "terasort", "terasort_time"), rs, "terasort_time", "bridge")
    left, right = fig.axes
    assert (
        len([c for c in left.collections if isinstance(c, PathCollection)]) == len(d.levels()) * 2
    )  # per (cell, level)
    assert len(right.get_yticklabels()) == len([r for r in rs if r.ratio is not None]) == 4
    assert right.get_xlabel() == "ratio to bridge (95 % interval)"


def test_order_and_time_series_figures_draw_from_the_frames():
    d = committed("monitoring")
    run_id = d.samples["run_id"].iloc[0]
    frame = order.run_order(d, "terasort", "terasort_time")
    assert len(figures.order_figure(frame, "terasort_time").axes[0].lines) == 1
    detail = run.run_detail(d, run_id)
    fig = figures.timeseries_figure(detail.timeseries, timeline.timeline(d.samples, run_id))
    assert [ax.get_title() for ax in fig.axes] == ["CPU", "storage", "network"]
    assert all(ax.lines for ax in fig.axes)
