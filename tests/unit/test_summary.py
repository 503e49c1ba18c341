"""The closing summary of a campaign (vbench.report): verdicts by the statistics' own rows, the
text, the forest plot, the stage times, and `vbench campaign summary` on the committed campaign."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from vbench import cli
from vbench.report import rows
from vbench.report import summary as S
from vbench.report.campaign import notebook_times, stage_times, summarise, write_summary
from vbench.report.forest import forest_figure, ticks
from vbench.report.text import markdown, terminal_lines
from vbench.samples import Sample, append_records
from vbench.stats.table import compute_stats

ROOT = Path(__file__).resolve().parents[2]


def ratio(r, low, high, *, level="lxc", unit="s", equivalent=False, holm=None, pct=5.0) -> S.Ratio:
    return S.Ratio(
        experiment="platforms",
        benchmark="terasort",
        cell="128MB",
        metric="terasort_time",
        unit=unit,
        level=level,
        baseline="native",
        ratio=r,
        low=low,
        high=high,
        method="paired-t (blocks)",
        n=4,
        n_baseline=4,
        n_pairs=4,
        equivalent=equivalent,
        holm_differs=holm,
        equivalence_pct=pct,
    )


# --- the wording, from the records ---------------------------------------------------------------


def test_an_interval_covering_1_is_not_distinguishable_at_this_precision():
    r = ratio(1.047, 0.978, 1.120)
    assert S.sentence(r) == "LXC is 4.7 % slower [-2.2, +12.0]: not distinguishable from native at this precision"
    assert S.verdict(r).kind == S.UNCLEAR


def test_an_interval_entirely_above_1_is_a_measurable_difference():
    r = ratio(1.12, 1.05, 1.20, holm=True)
    assert S.sentence(r) == "LXC is 12.0 % slower [+5.0, +20.0]: measurably slower than native"
    assert S.verdict(r).kind == S.DIFFERS


def test_inside_the_equivalence_band_when_tost_says_so():
    r = ratio(1.01, 0.98, 1.03, equivalent=True)
    assert S.sentence(r) == "LXC is 1.0 % slower [-2.0, +3.0]: equivalent to native within +/-5 % (TOST)"
    assert S.verdict(r).kind == S.EQUIVALENT


def test_inside_the_band_but_tost_not_rejecting_after_holm_is_not_called_equivalent():
    r = ratio(1.01, 0.98, 1.03, equivalent=False)
    assert S.verdict(r).kind == S.UNCLEAR


def test_a_gvisor_sized_ratio_reads_as_a_factor():
    r = ratio(3.1, 2.8, 3.4, level="gvisor", holm=True)
    assert S.sentence(r) == "gVisor is 3.1x slower [2.8x, 3.4x]: measurably slower than native"


def test_a_factor_below_1_reads_the_other_way_with_its_interval_inverted():
    r = ratio(0.25, 0.2, 0.5, level="gvisor", unit="Mbit/s", holm=True)
    assert S.change_text(r) == "gVisor is 4.0x slower [2.0x, 5.0x]"


def test_a_throughput_below_1_is_slower_and_its_interval_reads_in_the_same_sense():
    r = ratio(0.95, 0.91, 0.99, unit="Mbit/s", holm=True)
    assert S.sentence(r) == "LXC is 5.0 % slower [+1.0, +9.0]: measurably slower than native"


def test_a_time_below_1_is_faster():
    assert S.change_text(ratio(0.969, 0.914, 1.027)) == "LXC is 3.1 % faster [-2.7, +8.6]"


def test_a_difference_holm_does_not_confirm_says_so():
    text = S.verdict(ratio(3.3, 3.0, 3.6, level="gvisor", holm=False)).text
    assert text.startswith("measurably slower than native (by its interval; Holm")


def test_no_interval_says_why():
    r = S.Ratio(**{**ratio(1.0, None, None).__dict__, "note": "baseline mean not different from 0"})
    assert S.verdict(r) == S.Verdict(S.NO_INTERVAL, "no interval: baseline mean not different from 0")


def test_a_factor_study_names_its_levels():
    r = S.Ratio(**{**ratio(1.2, 1.1, 1.3, level="nat").__dict__, "baseline": "bridge", "compare": ("network.mode",)})
    assert (
        S.sentence(r) == "network.mode=nat is 20.0 % slower [+10.0, +30.0]: measurably slower than network.mode=bridge"
    )


def test_the_aa_line_gives_the_noise_from_its_half_width():
    a = S.AACheck("terasort", "128MB", "terasort_time", "native~aa", "native", 1.01, 0.895, 1.14, "paired-t", 4)
    assert a.half_width_pct == pytest.approx(12.13, abs=0.01)
    assert S.aa_text(a) == "passes (1 is inside); differences under about 12 % cannot be told apart"
    failing = S.AACheck("cpu", "", "events_per_s", "native~aa", "native", 1.1, 1.05, 1.15, "paired-t", 4)
    assert S.aa_text(failing).startswith("FAILS: native differs from itself")
    line = S.noise_text((a, failing), "2026-11-24")
    assert line.startswith("A/A passes on 1 of 2 metrics, FAILS on 1")
    assert "this machine's noise on 2026-11-24: differences under about" in line
    assert S.noise_text(()).startswith("no A/A copy in this design")
    unbounded = S.AACheck("pi", "", "job_wall_time", "native~aa", "native", 1.0, None, None, "fieller", 2)
    assert S.noise_text((unbounded,)) == "the A/A checks have no interval: this campaign's own noise is not known"
    assert (a.passes, failing.passes, unbounded.passes) == (True, False, None)  # from each interval: 1 inside or not


# --- the wording, from the statistics table's rows ----------------------------------------------

COLUMNS = ["experiment", "platform", "benchmark", "metric", "unit", "size", "statistic", "method", "estimate"]
COLUMNS += ["ci_low", "ci_high", "n", "baseline", "n_baseline", "n_pairs", "p_value", "p_adjusted", "verdict"]
COLUMNS += ["preferred", "direction", "note"]


def rows_of(platform: str, est: float, low: float, high: float, *, tost_p: float, holm_p: float) -> list[dict]:
    """The rows the statistics write for one paired comparison: the paired ratio (preferred),
    Fieller's beside it, the paired TOST (preferred) and Welch's."""
    common = dict(experiment="platforms", platform=platform, benchmark="terasort", metric="terasort_time")
    common.update(unit="s", size="128MB", baseline="native", n=4, n_baseline=4, direction="lower_is_better", note="")
    return [
        {**common, "statistic": "ratio_to_baseline", "method": "paired-t (blocks)", "estimate": est, "ci_low": low,
         "ci_high": high, "n_pairs": 4, "p_value": holm_p / 10, "p_adjusted": holm_p, "preferred": True},
        {**common, "statistic": "ratio_to_baseline", "method": "fieller", "estimate": est, "ci_low": low * 0.9,
         "ci_high": high * 1.1, "preferred": False},
        {**common, "statistic": "equivalence", "method": "paired-t (blocks)", "estimate": est, "ci_low": low,
         "ci_high": high, "p_value": tost_p / 10, "p_adjusted": tost_p, "preferred": True},
        {**common, "statistic": "equivalence", "method": "tost_welch", "estimate": est, "p_value": 0.001,
         "preferred": False},
    ]  # fmt: skip


def test_verdicts_follow_the_tables_preferred_rows():
    table = pd.DataFrame(
        rows_of("lxc", 1.047, 0.978, 1.120, tost_p=0.3, holm_p=0.4)
        + rows_of("oci", 1.12, 1.05, 1.20, tost_p=0.6, holm_p=0.01)
        + rows_of("qemu", 1.01, 0.98, 1.03, tost_p=0.01, holm_p=0.9)
        + rows_of("gvisor", 3.1, 2.8, 3.4, tost_p=1.0, holm_p=0.001),
        columns=COLUMNS,
    )
    rs = rows.ratios(table, None, 5.0)
    assert [(r.level, S.verdict(r).kind) for r in rs] == [
        ("lxc", S.UNCLEAR),
        ("oci", S.DIFFERS),
        ("qemu", S.EQUIVALENT),  # Welch's TOST (not preferred) rejecting does not count; the paired one does
        ("gvisor", S.DIFFERS),
    ]
    assert S.sentence(rs[0]) == "LXC is 4.7 % slower [-2.2, +12.0]: not distinguishable from native at this precision"
    assert S.sentence(rs[3]) == "gVisor is 3.1x slower [2.8x, 3.4x]: measurably slower than native"
    assert rs[0].counts() == "n 4/4, 4 pairs" and rs[0].method == "paired-t (blocks)"


def blocked_samples(effects: dict[str, float], blocks: int = 6, noise: float = 0.002) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = []
    for b in range(blocks):
        day = rng.normal(0, 0.05)
        for platform, effect in effects.items():
            value = 100 * np.exp(day + np.log(effect) + rng.normal(0, noise))
            rows.append(
                dict(experiment="platforms", platform=platform, benchmark="terasort", metric="terasort_time",
                     unit="s", value=value, repetition=b, size="128MB", block=b)
            )  # fmt: skip
    return pd.DataFrame(rows)


def test_the_verdicts_of_a_real_statistics_table():
    table = compute_stats(
        blocked_samples({"native": 1.0, "native~aa": 1.0, "lxc": 1.005, "gvisor": 3.0}), n_resamples=199
    )
    rs = {r.level: r for r in rows.ratios(table, None, 5.0)}
    assert S.verdict(rs["lxc"]).kind == S.EQUIVALENT
    eq = table[(table.statistic == "equivalence") & (table.platform == "lxc") & (table.preferred == True)]  # noqa: E712
    assert eq.verdict.iloc[0].startswith("near-native")  # the table's own word for it
    assert S.change_text(rs["gvisor"]).startswith("gVisor is 3.0x slower [")
    assert S.verdict(rs["gvisor"]).kind == S.DIFFERS
    (aa,) = rows.aa_checks(table, None)
    assert aa.level == "native~aa" and aa.passes is True
    assert [r.level for r in S.split_aa(tuple(rs.values()))] == ["gvisor", "lxc"]


# --- the text, the figure, the times --------------------------------------------------------------


def summary(**kw) -> S.CampaignSummary:
    aa = S.AACheck("terasort", "128MB", "terasort_time", "native~aa", "native", 1.01, 0.895, 1.14, "paired-t", 4)
    fields = dict(
        campaign="c",
        path="data/raw/c",
        compare=("platform",),
        settings=S.Settings("native", 5.0, 9999, 20141, "computed now"),
        ratios=(ratio(1.047, 0.978, 1.120), ratio(3.1, 2.8, 3.4, level="gvisor", holm=True), ratio(1.0, 0.9, 1.1, level="native~aa")),
        aa=(aa,),
        runs=12,
        measured="2026-11-24",
        times=(S.StageTime("02-calibrate", 700.0, "calibrate.json"),),
        next_steps=(("the paper", "paper/build/paper.pdf"),),
    )  # fmt: skip
    return S.CampaignSummary(**{**fields, **kw})


def test_terminal_lines_say_each_comparison_the_aa_and_where_to_look():
    text = "\n".join(line for line, _ in terminal_lines(summary()))
    assert "terasort[128MB] terasort_time lxc/native  1.047 [0.978, 1.120]  paired-t (blocks), n 4/4, 4 pairs" in text
    assert "    gVisor is 3.1x slower [2.8x, 3.4x]: measurably slower than native" in text
    assert "native~aa/native  1.010 [0.895, 1.140]" in text  # the A/A under its own heading, not as a comparison
    assert "native (A/A copy) is" not in text
    assert "this machine's noise on 2026-11-24: differences under about 12 % cannot be told apart" in text
    assert "Time: 02-calibrate 11.7 min (calibrate.json)" in text
    assert text.rstrip().endswith("the paper: paper/build/paper.pdf")


def test_markdown_has_the_figure_a_row_per_comparison_and_the_aa():
    md = markdown(summary())
    assert "![ratio to native, 95 % intervals](forest.png)" in md
    assert (
        "| terasort[128MB] terasort_time gvisor/native | 3.100 [2.800, 3.400] | paired-t (blocks) | 4/4, 4 pairs |"
        in md
    )
    assert "## A/A: native against its own copy" in md
    assert "forest.png" not in markdown(summary(), figure=False)


def test_the_forest_plot_has_a_row_per_comparison_and_aa_on_a_log_axis(tmp_path):
    fig = forest_figure(summary())
    (ax,) = fig.axes
    assert ax.get_xscale() == "log"
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [
        "terasort[128MB] terasort_time lxc/native",
        "terasort[128MB] terasort_time gvisor/native",
        "A/A terasort[128MB] terasort_time native~aa/native",
    ]
    files = [write_summary(summary(), tmp_path / "c", tmp_path / f"out{i}") for i in range(2)]
    for a, b in ((files[0].png, files[1].png), (files[0].svg, files[1].svg)):
        assert a.read_bytes() == b.read_bytes()  # the same summary, the same bytes


def test_an_empty_summary_still_draws():
    fig = forest_figure(summary(ratios=(), aa=()))
    assert fig.axes[0].texts[0].get_text() == "campaign c: nothing compared"


def test_ticks_never_crowd():
    assert ticks(0.85, 1.2) == [0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2]
    wide = ticks(0.03, 40)
    gaps = np.diff(np.log(wide))
    assert 1.0 in wide and gaps.min() >= 0.07 * np.log(40 / 0.03)


def test_stage_times_prefer_the_executed_notebook_then_the_stage_record_then_the_samples(tmp_path):
    raw, executed = tmp_path / "raw" / "c", tmp_path / "executed"
    raw.mkdir(parents=True)
    executed.mkdir()
    nb = {"cells": [], "metadata": {"papermill": {"duration": 93.5, "parameters": {"campaign": "c"}}}}
    (executed / "03-hadoop-suite.ipynb").write_text(json.dumps(nb))
    other = {"cells": [], "metadata": {"papermill": {"duration": 5.0, "parameters": {"campaign": "other"}}}}
    (executed / "04-statistics.ipynb").write_text(json.dumps(other))
    (raw / "calibrate.json").write_text(json.dumps({"seconds": 700.0}))
    samples = pd.DataFrame(
        {"timestamp": [0.0, 50.0, 100.0, 400.0, 1000.0], "benchmark_kind": ["micro", "micro", "hadoop", "hadoop", "x"]}
    )
    assert set(notebook_times(executed, "c")) == {"03-hadoop-suite"}
    times = stage_times(raw, samples, executed)
    assert [(t.stage, t.seconds, Path(t.source).name) for t in times] == [
        ("02-calibrate", 700.0, "calibrate.json"),
        ("03-hadoop-suite", 93.5, "03-hadoop-suite.ipynb"),
    ]


# --- on campaigns ---------------------------------------------------------------------------------


def small_campaign(raw: Path) -> None:
    records = []
    for b in range(4):
        for platform, effect in (("native", 1.0), ("lxc", 1.2)):
            md = {"platform": platform, "block": b, "run_id": f"{platform}-{b}", "experiment": "platforms"}
            md.update({"quiet.verdict": "flagged" if b == 0 else "ok", "benchmark_kind": "hadoop", "size_mb": 64})
            records.append(Sample("terasort", "terasort_time", 100 * effect + b, "s", md, timestamp=1795530302.0 + b))
    append_records(raw / "samples.jsonl", records)


def test_a_campaign_without_a_checkout_is_summarised_and_written_beside_it(tmp_path):
    raw = tmp_path / "camp"
    small_campaign(raw)
    s = summarise(raw)
    assert s.settings.source == "computed now (vbench.stats.campaign_stats)"
    (r,) = S.split_aa(s.ratios)
    assert r.label == "terasort[64MB] terasort_time lxc/native" and S.verdict(r).kind == S.DIFFERS
    assert s.quiet.flagged == 2 and s.quiet.runs == 8 and s.runs == 8
    assert s.measured == "2026-11-24"
    files = write_summary(s, raw)
    assert files.markdown == raw / "summary" / "summary.md" and files.png.is_file() and files.svg.is_file()
    text = "\n".join(line for line, _ in terminal_lines(s))
    assert "Quiet gate: 2 of 8 runs measured while it flagged the machine" in text
    assert "no A/A copy in this design" in text


def test_campaign_summary_prints_the_committed_reference_campaign(tmp_path, capsys):
    """`vbench campaign summary reference` on the committed campaign's samples and design, in a
    copy of its directory (the summary files are written beside the campaign)."""
    raw = tmp_path / "data" / "raw" / "reference"
    raw.mkdir(parents=True)
    for name in ("samples.jsonl", "campaign.json", "calibrate.json", "suite.json"):
        shutil.copy(ROOT / "data" / "raw" / "reference" / name, raw / name)
    assert cli.main(["campaign", "summary", "reference", "--data", str(tmp_path / "data")]) == 0
    out = capsys.readouterr().out
    assert "vbench summary: campaign reference" in out
    assert "terasort[128MB] terasort_time lxc/native  0.969 [0.913, 1.027]  paired-t (blocks), n 4/4, 4 pairs" in out
    assert "LXC is 3.1 % faster [-2.7, +8.7]: not distinguishable from native at this precision" in out
    assert "terasort[128MB] terasort_time native~aa/native  1.010 [0.895, 1.140]" in out
    assert "A/A passes on 4 of 4 metrics; this machine's noise on 2026-11-24" in out
    assert "Quiet gate: 0 of 156 runs measured while it flagged the machine" in out
    assert "02-calibrate 11.6 min (calibrate.json), 03-hadoop-suite 18.8 min (suite.json)" in out
    assert "paper/build/paper.pdf (not built yet" in out
    assert (raw / "summary" / "summary.md").is_file() and (raw / "summary" / "forest.svg").is_file()


def test_campaign_summary_without_a_name_is_the_pipelines_analysis_campaign(tmp_path, capsys):
    params = tmp_path / "params"
    params.mkdir()
    (params / "pipeline.yaml").write_text("pipeline:\n  analysis_campaign: camp\n")
    small_campaign(tmp_path / "data" / "raw" / "camp")
    argv = ["campaign", "summary", "--data", str(tmp_path / "data"), "--params-dir", str(params)]
    assert cli.main(argv) == 0
    assert "vbench summary: campaign camp" in capsys.readouterr().out


def test_a_run_ends_with_its_summary_and_a_failing_one_never_raises(tmp_path, monkeypatch):
    from vbench.commands.campaign_cmd import closing_summary
    from vbench.errors import ParamsError

    raw = tmp_path / "camp"
    small_campaign(raw)
    console = Console(record=True, width=200)
    closing_summary(raw, 42.0, console)
    text = console.export_text()
    assert "vbench summary: campaign camp" in text and "this run 42 s (the runner)" in text

    def refuse(*a, **k):
        raise ParamsError("campaign.json", "not a design")

    monkeypatch.setattr("vbench.report.campaign.summarise", refuse)
    console = Console(record=True, width=200)
    closing_summary(raw, 1.0, console)
    assert console.export_text().startswith(f"summary: none for {raw}: campaign.json: not a design")


def test_the_problems_note_counts_in_words():
    import pandas as pd

    from vbench.report.campaign import problems_note

    one, four, none = (pd.DataFrame() for _ in range(3))
    one.attrs["problems"] = ["x"]
    four.attrs["problems"] = ["a", "b", "c", "d"]
    assert problems_note(one) == ["1 group of the statistics table lacks a number; its rows' notes say why"]
    assert problems_note(four)[0].startswith("4 groups of the statistics table lack a number")
    assert problems_note(none) == []


def test_a_failing_aa_is_drawn_as_a_difference_and_named_in_the_legend():
    from dataclasses import replace

    from vbench.report.forest import AA_COLOUR, AA_FAILS_COLOUR

    (passing,) = summary().aa
    failing = replace(passing, ratio=1.096, low=1.018, high=1.181)
    for aa, colour, label in ((passing, AA_COLOUR, ""), (failing, AA_FAILS_COLOUR, " (fails)")):
        fig = forest_figure(summary(aa=(aa,)))
        (ax,) = fig.axes
        assert ax.get_yticklabels()[-1].get_text() == f"A/A terasort[128MB] terasort_time native~aa/native{label}"
        assert any(line.get_color() == colour and line.get_marker() == "s" for line in ax.get_lines())
        legend = [t.get_text() for t in fig.legends[0].get_texts()]
        assert any(t.startswith("A/A fails") for t in legend) == (aa is failing)


def _committed(tmp_path: Path, name: str) -> Path:
    raw = tmp_path / "data" / "raw" / name
    raw.mkdir(parents=True)
    for f in ("samples.jsonl", "campaign.json"):
        shutil.copy(ROOT / "data" / "raw" / name / f, raw / f)
    return raw


def test_a_design_comparing_platform_and_cpu_group_reads_against_native_at_its_first_level(tmp_path, capsys):
    """outside-load compared [platform, cpu_group] without naming a baseline: its summary once had
    no ratio ("no baseline 'native'"); native without the group is its baseline now."""
    _committed(tmp_path, "outside-load")
    data = ["--data", str(tmp_path / "data")]
    assert cli.main(["campaign", "summary", "outside-load", *data]) == 0
    out = capsys.readouterr().out
    assert "terasort[128MB] terasort_time lxc/False/native/False  1.311 [1.243, 1.384]" in out
    assert "terasort[128MB] terasort_time native/True/native/False  1.253 [1.043, 1.505]" in out
    assert "no ratio" not in out


def test_summary_reads_a_campaign_under_another_comparison_beside_its_own(tmp_path, capsys):
    raw = _committed(tmp_path, "outside-load")
    data = ["--data", str(tmp_path / "data")]
    assert cli.main(["campaign", "summary", "outside-load", "--compare", "platform", *data]) == 0
    out = capsys.readouterr().out
    # LXC / native within each level of the group, as docs/results.md quotes them.
    assert "terasort[128MB, cpu_group=False] terasort_time lxc/native  1.311 [1.243, 1.384]" in out
    assert "terasort[128MB, cpu_group=True] terasort_time lxc/native  1.010 [0.776, 1.313]" in out
    assert (raw / "summary" / "by-platform" / "summary.md").is_file() and not (raw / "summary" / "summary.md").exists()
    assert (
        cli.main(["campaign", "summary", "outside-load", "--compare", "cpu_group", "--baseline", "False", *data]) == 0
    )
    out = capsys.readouterr().out
    assert "terasort[128MB, platform=native] terasort_time True/False  1.253 [1.043, 1.505]" in out
    assert cli.main(["campaign", "summary", "outside-load", "--compare", "cpu_groups", *data]) == 2
    err = capsys.readouterr().err
    assert "--compare" in err and "['cpu_groups'] is not among the campaign's factors ['platform', 'cpu_group']" in err
    assert cli.main(["campaign", "summary", "outside-load", "--baseline", "native", *data]) == 2
    assert "--baseline" in capsys.readouterr().err
    assert (
        cli.main(["campaign", "summary", "outside-load", "--compare", "cpu_group", "--baseline", "false", *data]) == 2
    )
    assert "'false' is not a compared level of this campaign; its levels: ['False', 'True']" in capsys.readouterr().err
    assert cli.main(["campaign", "summary", "outside-load", "--compare", "platform", "--baseline", "lxc", *data]) == 0
    assert "terasort[128MB, cpu_group=False] terasort_time native/lxc" in capsys.readouterr().out


def test_profile_compares_the_designs_levels_or_the_ones_asked(tmp_path, capsys):
    _committed(tmp_path, "outside-load")
    data = ["--data", str(tmp_path / "data")]
    assert cli.main(["campaign", "profile", "outside-load", *data]) == 0
    out = capsys.readouterr().out
    assert "compared jobs native/False 5, lxc/False 5, lxc/True 5, native/True 5" in out
    assert cli.main(["campaign", "profile", "outside-load", "--compare", "platform", *data]) == 0
    out = capsys.readouterr().out
    assert "terasort / terasort [128MB, cpu_group=True]" in out and "compared jobs native 5, lxc 5" in out
