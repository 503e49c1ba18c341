"""The paper's sandboxed-kernel section (issue #21) from the committed sandbox campaign, and without one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("seaborn")

from vbench.paper import figures as F  # noqa: E402
from vbench.paper import sandbox as S  # noqa: E402
from vbench.paper import style  # noqa: E402
from vbench.paper.abstract import reader_name  # noqa: E402
from vbench.paper.build import generate  # noqa: E402
from vbench.paper.fmt import configuration_tex, interval_text, tex_escape  # noqa: E402
from vbench.paper.results import lookup_of  # noqa: E402
from vbench.stats.campaign import load_campaign  # noqa: E402
from vbench.stats.campaign_stats import INPUT_FILES, StatsConfig, campaign_stats  # noqa: E402
from vbench.stats.stopping import preferred_ratio_rows  # noqa: E402

COMMITTED_SANDBOX = Path(__file__).resolve().parents[2] / "data" / "raw" / "sandbox"
RESAMPLES = 200  # the preferred rows are paired-t, which no resample count changes
METHOD_SHORT = {"paired-t (blocks)": "paired-$t$", "fieller": "Fieller"}

pytestmark = pytest.mark.skipif(
    not (COMMITTED_SANDBOX / "samples.jsonl").exists(), reason="no committed sandbox campaign"
)


@pytest.fixture(scope="module")
def sandbox_dir(tmp_path_factory) -> Path:
    """The committed campaign's inputs in a fresh data tree: no data/processed/ whose settings could differ."""
    dest = tmp_path_factory.mktemp("data") / "raw" / "sandbox"
    dest.mkdir(parents=True)
    for name in INPUT_FILES:
        shutil.copyfile(COMMITTED_SANDBOX / name, dest / name)
    return dest


@pytest.fixture(scope="module")
def sandbox_stats(sandbox_dir) -> pd.DataFrame:
    """What the statistics say, computed here through vbench.stats."""
    return campaign_stats(load_campaign(sandbox_dir), StatsConfig(n_resamples=RESAMPLES))


@pytest.fixture(scope="module")
def preferred(sandbox_stats) -> pd.DataFrame:
    return preferred_ratio_rows(sandbox_stats)


@pytest.fixture(scope="module")
def built(main_campaign, sandbox_dir, tmp_path_factory):
    return generate(main_campaign, tmp_path_factory.mktemp("paper"), n_resamples=RESAMPLES, sandbox_dir=sandbox_dir)


def _expected(preferred: pd.DataFrame, metric: S.SandboxMetric, platform: str) -> pd.Series:
    r = preferred[
        (preferred["benchmark"] == metric.benchmark)
        & (preferred["metric"] == metric.metric)
        & (preferred["platform"] == platform)
        & (preferred["baseline"] == "native")
    ]
    assert len(r) == 1, (metric, platform)
    return r.iloc[0]


def _clear(a: pd.Series, b: pd.Series) -> bool:
    """a's interval excludes 1 and b's interval (the table's mark, computed independently)."""
    return not a["ci_low"] <= 1 <= a["ci_high"] and (a["ci_high"] < b["ci_low"] or b["ci_high"] < a["ci_low"])


def _measured_metrics(preferred: pd.DataFrame) -> list[S.SandboxMetric]:
    """The section's metrics that the committed campaign measured."""
    have = set(zip(preferred["benchmark"], preferred["metric"]))
    return [m for m in S.SANDBOX_METRICS if (m.benchmark, m.metric) in have]


def _labels(preferred: pd.DataFrame) -> list[str]:
    """The compared labels of the committed campaign, in the section's order."""
    found = preferred[preferred["baseline"] == "native"]["platform"].astype(str).unique()
    return sorted(found, key=S.platform_order)


def test_table_shows_the_preferred_ratio_of_every_metric_and_platform(built, preferred, sandbox_dir):
    assert "sandbox" in built.tables_with_data
    assert any("sandbox: statistics computed here" in n for n in built.notes)
    tex = (built.out_dir / "generated" / "tables" / "sandbox.tex").read_text()
    labels = _labels(preferred)
    assert "gvisor" in {lb.partition("/")[0] for lb in labels} and "lxc" in labels
    assert "Metric & Better & " + " & ".join(f"{configuration_tex(p)} / native" for p in labels) + r" \\" in tex
    blocks = load_campaign(sandbox_dir).samples["block"].nunique()
    assert f"{int(blocks)} blocks give a paired-$t$ interval {int(blocks) - 1} degree" in tex
    lines = tex.splitlines()
    metrics = _measured_metrics(preferred)
    assert metrics
    for metric in metrics:
        [line] = [ln for ln in lines if ln.startswith(tex_escape(metric.label) + " ")]
        cells = line.removesuffix(r" \\").split(" & ")
        for i, p in enumerate(labels):
            row = _expected(preferred, metric, p)
            rivals = [_expected(preferred, metric, o) for o in labels if o != p]
            mark = r"$^\ast$" if all(_clear(row, r) for r in rivals) else ""
            assert cells[2 + i].startswith(interval_text(row["estimate"], row["ci_low"], row["ci_high"]) + mark), (
                metric,
                p,
            )
    # One method and n throughout: said once in the notes, not in every cell.
    if preferred["method"].nunique() == 1 and preferred["n_pairs"].nunique() == 1:
        assert "Every interval: paired by block, $n$ = " in tex


def test_macros_quote_gvisor_round_trip_and_tcp_ratios(built, preferred):
    macros = (built.out_dir / "generated" / "macros.tex").read_text()
    gvisor = next(p for p in _labels(preferred) if p in ("gvisor", "gvisor/sandbox"))
    for stem, metric in (("RoundTrip", "rtt_mean"), ("Tcp", "throughput_mean")):
        [m] = [x for x in S.SANDBOX_METRICS if x.metric == metric]
        row = _expected(preferred, m, gvisor)
        text = interval_text(row["estimate"], row["ci_low"], row["ci_high"])
        assert rf"\newcommand{{\vbSandbox{stem}RatioGvisor}}{{{text}}}" in macros
    assert r"\newcommand{\vbSandboxRoundTripMethodGvisor}{paired by block}" in macros
    host = any(p == "gvisor/host" for p in _labels(preferred))
    assert rf"\newcommand{{\vbHasSandboxGvisorHost}}{{{int(host)}}}" in macros
    assert r"The sandbox study ran native, LXC" in macros
    assert r"Hadoop runs on gVisor hosts" in macros and r"BusyBox's \texttt{ls}" in macros
    jobs = [m for m in _measured_metrics(preferred) if m.job]
    if jobs:  # each platform's job ratios beside its micro-benchmark ratios
        row = _expected(preferred, jobs[0], gvisor)
        assert (
            rf"{reader_name(gvisor)}: {jobs[0].label} " + interval_text(row["estimate"], row["ci_low"], row["ci_high"])
            in macros
        )
        assert "beside round trip" in macros
    else:
        assert "ran no Hadoop job" in macros


def test_figure_plots_the_same_ratios_on_a_log_axis(sandbox_stats, preferred, monkeypatch, tmp_path):
    drawn = []
    monkeypatch.setattr(style, "save", lambda fig, out_dir, name: drawn.append(fig) or [out_dir / f"{name}.pdf"])
    assert F.fig_sandbox(lookup_of(sandbox_stats), pd.DataFrame(), tmp_path)
    [ax] = drawn[0].axes
    assert ax.get_xscale() == "log"
    assert any(list(line.get_xdata()) == [1.0, 1.0] for line in ax.lines)  # native, marked at 1
    labels = _labels(preferred)
    # Legends name platforms as a reader knows them (style.label): "gVisor", not "gvisor".
    assert [c.get_label() for c in ax.containers] == [style.label(p) for p in labels]
    for platform, container in zip(labels, ax.containers):
        want = [_expected(preferred, m, platform)["estimate"] for m in _measured_metrics(preferred)]
        assert list(container.lines[0].get_xdata()) == pytest.approx(want), platform


def test_without_a_sandbox_campaign_the_section_says_so_and_the_build_works(main_campaign, tmp_path):
    res = generate(main_campaign, tmp_path, n_resamples=RESAMPLES)
    assert "sandbox" in res.tables_absent and "sandbox" in res.figures_absent
    gen = tmp_path / "generated"
    assert "not measured in this campaign" in (gen / "tables" / "sandbox.tex").read_text()
    assert "fbox" in (gen / "figures" / "sandbox.tex").read_text()
    macros = (gen / "macros.tex").read_text()
    assert r"\newcommand{\vbSandboxSentence}{This build was given no sandbox campaign" in macros
    assert r"\newcommand{\vbSandboxRoundTripRatioGvisor}{\emph{not measured}}" in macros
    assert r"\newcommand{\vbSandboxTerasortRatioGvisorHost}{\emph{not measured}}" in macros
    assert r"\newcommand{\vbHasTableSandbox}{0}" in macros
    assert "ran no Hadoop job there, so no job overhead on gVisor is shown" in macros
    assert "ran no Hadoop job, so no job overhead stands beside" in macros


def _comparison(platform: str, estimate: float) -> S.Comparison:
    row = pd.Series({"estimate": estimate, "ci_low": estimate * 0.9, "ci_high": estimate * 1.1, "method": "x"})
    return S.Comparison(platform, row, False)


def test_the_job_sentence_sets_each_platform_s_jobs_beside_its_micro_benchmarks():
    def row(stem: str, **ratios: float) -> S.SandboxRow:
        [m] = [x for x in S.SANDBOX_METRICS if x.stem == stem]
        return S.SandboxRow(m, "s", False, tuple(_comparison(p.replace("_", "/"), r) for p, r in ratios.items()))

    rows = [
        row("RoundTrip", lxc=1.1, gvisor_sandbox=3.0, gvisor_host=2.0),
        row("Cpu", lxc=1.0, gvisor_sandbox=0.9),
        row("Terasort", lxc=1.02, gvisor_sandbox=2.5, gvisor_host=2.4),
    ]
    text = S.job_sentence(rows)
    sandbox = rows[2].of("gvisor/sandbox").text
    assert rf"gVisor: TeraSort job time {sandbox}, beside round trip {rows[0].of('gvisor/sandbox').text}" in text
    assert rf"gVisor on the host's network stack: TeraSort job time {rows[2].of('gvisor/host').text}" in text
    assert rf"CPU {rows[1].of('gvisor/sandbox').text}" in text
    # `gvisor` is gVisor's default network level where the study compared both
    assert rows[0].of("gvisor").platform == "gvisor/sandbox" and rows[1].of("oci") is None
    assert "(not measured)" in S.job_sentence(rows[:2])
    # The abstract gives gVisor's answer alone (its default network level): the containers' is the
    # one campaign vbench.paper.abstract quotes, not this study's second one.
    assert S.abstract_sentence(rows) == (
        f"On gVisor, whose user-space kernel serves every system call, TeraSort's job took {sandbox} times as "
        "long as on native hosts."
    )
    assert S.abstract_sentence(rows[:2]) == ""
    # The section speaks of gVisor on the host's stack only where it was measured.
    assert S.host_stack_measured(rows) and not S.host_stack_measured(rows[1:2])


def _row(low, high) -> pd.Series:
    return pd.Series({"estimate": (low + high) / 2, "ci_low": low, "ci_high": high})


@pytest.mark.parametrize(
    "row, others, expected",
    [
        (_row(4.0, 13.0), [_row(0.9, 1.1)], True),  # clear of 1 and of the other platform
        (_row(1.2, 1.5), [_row(1.4, 2.0)], False),  # clear of 1, overlapping the other
        (_row(0.8, 1.3), [_row(4.0, 9.0)], False),  # holds 1
        (_row(2.0, float("nan")), [], False),  # unbounded ranks nothing
    ],
)
def test_a_ratio_ranks_only_when_clear_of_one_and_of_every_other_interval(row, others, expected):
    assert S.ranks(row, others) is expected
