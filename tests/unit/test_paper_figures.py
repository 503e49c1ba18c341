"""The paper's figures against data size (issue #54 item 3): a panel with one size draws a point per
platform, not a size axis with one tick, and its caption says so; the A/A copy reads apart from LXC."""

from __future__ import annotations

import colorsys
import math

import pandas as pd
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("seaborn")

import matplotlib.pyplot as plt  # noqa: E402

from vbench.paper import figures as F  # noqa: E402
from vbench.paper import style  # noqa: E402
from vbench.paper.results import lookup_of  # noqa: E402

from tests.unit.builders import ESTIMATE_COLUMNS, STATS_KEY_COLUMNS  # noqa: E402

COLS = [*STATS_KEY_COLUMNS, "size", *ESTIMATE_COLUMNS, "size_label", "replication"]
PLATFORMS = ("native", "lxc", "native~aa")


def _mean(platform, metric, est, size):
    return ["platforms", platform, "terasort", metric, "s", size, "mean", "t", est, est - 1.0, est + 1.0, 3, size, "2"]


def _ratio(platform, metric, est, size):
    row = ["platforms", platform, "terasort", metric, "s", size, "ratio_to_baseline", "fieller"]
    return [*row, est, est - 0.05, est + 0.05, 3, size, "2"]


def _stats(sizes: tuple[str, ...]):
    rows = []
    for k, size in enumerate(sizes):
        for metric in ("teragen_time", "terasort_time", "teravalidate_time"):
            for j, p in enumerate(PLATFORMS):
                rows.append(_mean(p, metric, 20.0 * (k + 1) + j, size))
                if p != "native":
                    rows.append(_ratio(p, metric, 1.0 + 0.02 * j, size))
    return lookup_of(pd.DataFrame(rows, columns=COLS))


def _panel(sizes: tuple[str, ...]):
    (d, title), *_ = F._terasort_panels(_stats(sizes))
    style.apply()
    fig, (ax,) = style.figure(1)
    assert F._plot_vs_size(ax, d, "elapsed time (s)", title, group_col="replication")
    return fig, ax


def test_one_size_draws_a_position_per_platform_and_no_size_axis():
    fig, ax = _panel(("128MB",))
    try:
        assert [t.get_text() for t in ax.get_xticklabels()] == ["native", "LXC", "native\n(A/A copy)"]
        assert list(ax.get_xticks()) == [0, 1, 2]
        assert ax.get_xlabel() == "" and ax.get_xscale() == "linear"
        assert ax.get_title() == "TeraGen, 128 MB"
        assert ax.get_legend_handles_labels()[1] == ["native", "LXC", "native (A/A copy)"]
    finally:
        plt.close(fig)


def test_two_sizes_keep_the_size_axis():
    fig, ax = _panel(("64MB", "128MB"))
    try:
        assert ax.get_xlabel() == "data size"
        assert list(ax.get_xticks()) == [64.0, 128.0]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["64 MB", "128 MB"]
        assert ax.get_title() == "TeraGen"
    finally:
        plt.close(fig)


def test_the_caption_says_against_data_size_only_when_there_is_more_than_one():
    one = F.figure_caption("terasort", _stats(("128MB",)))
    assert "against data size" not in one and "elapsed time per platform at 128 MB;" in one
    assert "against data size" in F.figure_caption("terasort", _stats(("64MB", "128MB")))
    assert "per platform at 128 MB;" in F.figure_caption("normalised", _stats(("128MB",)))
    assert F.figure_caption("ratio", _stats(("128MB",))) == F.FIGURES["ratio"][2]


def test_figures_are_drawn_at_one_size_and_at_two(tmp_path):
    for sizes in (("128MB",), ("64MB", "128MB")):
        stats = _stats(sizes)
        for fn in (F.fig_terasort, F.fig_normalised, F.fig_ratio):
            paths = fn(stats, None, tmp_path)
            assert paths and all(p.stat().st_size > 0 for p in paths), fn.__name__


def _luma(rgb) -> float:
    r, g, b = rgb[:3]
    return 0.299 * r + 0.587 * g + 0.114 * b


def test_the_aa_copy_differs_from_lxc_in_hue_and_in_greyscale():
    aa, lxc, native = style.colour("native~aa", 1), style.colour("lxc", 0), style.colour("native")
    # Whatever position the figure gives it, the A/A copy has one colour.
    assert all(style.colour("native~aa", i) == aa for i in range(6))
    assert abs(_luma(aa) - _luma(lxc)) >= 0.25
    assert colorsys.rgb_to_hsv(*aa[:3])[1] < 0.1 < colorsys.rgb_to_hsv(*lxc[:3])[1]  # a grey beside an orange
    assert aa != native and style.marker("native~aa") not in {style.marker(p) for p in style.PLATFORM_ORDER}
    assert style.hatch("native~aa") and style.hatch("lxc") is None
    assert style.label("native~aa") == "native (A/A copy)" and style.label("lxc") == "LXC"
    assert not math.isclose(_luma(aa), _luma(native), abs_tol=0.05)


def test_legend_columns_fit_long_factor_names():
    from vbench.paper.figures import legend_columns

    short = ["LXC", "native", "OCI", "native (A/A copy)"]
    assert legend_columns(short) == 4
    long = [
        "Hadoop topology: a rack per physical host",
        "VMs per host: 4",
        "network: NAT",
        "network: bridge + NAT",
        "VMs per host: 2",
    ]
    n = legend_columns(long)
    assert 1 <= n < 4
    rows = -(-len(long) // n)
    widths = [max(len(x) for x in long[i * rows : (i + 1) * rows]) + 6 for i in range(n)]
    assert sum(widths) <= 80
