"""The precision benchmark (selfbench/precision.py, issue #19 item 3): its analysis, a pure function
of the samples table, on a hand-made campaign with known CVs and ratios, warm-up runs that would
change both if they were counted, and runs taken on a flagged machine; the refusal on a loaded
machine; the plan's time estimate; the report rebuilt from a campaign directory."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.unit import selfbench_scripts
from vbench.samples import Sample
from vbench.stats.stopping import comparison_widths
from vbench.store import CampaignStore

REPO = Path(__file__).resolve().parents[2]

#: Measured values per block (3 rounds each); a platform's block 1 is its block 0 scaled (native x 2,
#: lxc x 2.2, the A/A copy x 2.1), so both blocks have the same CV: SD/mean = 1/11 for native, 1/12
#: for lxc. The scales differ so that the blocks' mean log ratios differ and the t over them (the
#: preferred interval when blocks hold rounds) has a width.
NATIVE = {0: [10.0, 11.0, 12.0], 1: [20.0, 22.0, 24.0]}
LXC = {0: [11.0, 12.0, 13.0], 1: [24.2, 26.4, 28.6]}
AA = {0: [10.0, 11.5, 11.5], 1: [21.0, 24.15, 24.15]}  # SD/mean = sqrt(0.75)/11
#: lxc's measured terasort runs in block 1, rounds 1 and 2, and one warm-up run were taken on a
#: flagged machine.
FLAGGED = {("lxc", "terasort", 1, 1, False), ("lxc", "terasort", 1, 2, False), ("native", "pi", 0, 0, True)}


@pytest.fixture(scope="module")
def precision():
    return selfbench_scripts.load("precision")


def _metrics(benchmark: str) -> list[tuple[str, str, float]]:
    """(metric, unit, scale) of one run: what each benchmark's run records, reported or not."""
    return {
        "terasort": [("terasort_job_time", "s", 1.0), ("teragen_job_time", "s", 0.5), ("terasort_time", "s", 2.0)],
        "pi": [("pi_job_time", "s", 1.5), ("job_wall_time", "s", 2.5)],
        "cpu": [("events_per_s", "events/s", 100.0), ("total_time", "s", 0.0)],
    }[benchmark]


def hand_made_samples() -> pd.DataFrame:
    rows = []
    t = 1_000_000.0
    for block in (0, 1):
        for bench in ("cpu", "terasort", "pi"):
            for platform, values in (("native", NATIVE), ("lxc", LXC), ("native~aa", AA)):
                # The warm-up run: far off, so counting it would change every CV and ratio.
                runs = [(0, True, 1000.0 * (1 + len(platform)))] + [(r, False, v) for r, v in enumerate(values[block])]
                for rnd, warm, value in runs:
                    t += 60
                    run_id = f"{bench}-{platform}-b{block}-r{rnd}{'-w' if warm else ''}"
                    verdict = "flagged" if (platform, bench, block, rnd, warm) in FLAGGED else "ok"
                    for metric, unit, scale in _metrics(bench):
                        rows.append(
                            {
                                "experiment": "platforms",
                                "platform": platform,
                                "benchmark": bench,
                                "metric": metric,
                                "unit": unit,
                                "size": "32MB" if bench == "terasort" else "",
                                "value": value * scale if scale else 5.0,
                                "repetition": block * 3 + rnd,
                                "block": block,
                                "round": rnd,
                                "warmup": warm,
                                "run_id": run_id,
                                "quiet.verdict": verdict,
                                "timestamp": t,
                            }
                        )
    return pd.DataFrame(rows)


def _cv(blocks: dict[int, list[float]]) -> float:
    return 100 * float(np.mean([np.std(v, ddof=1) / np.mean(v) for v in blocks.values()]))


def _row(report, platform: str, metric: str):
    return next(r for r in report.rows if r.platform == platform and r.metric == metric)


@pytest.fixture(scope="module")
def report(precision):
    return precision.analyse(hand_made_samples(), campaign="hand", n_resamples=999)


def test_every_reported_comparison_and_nothing_else(report):
    got = {(r.platform, r.benchmark, r.size, r.metric) for r in report.rows}
    want = {
        (p, b, s, m)
        for p in ("lxc", "native~aa")
        for b, s, m in (
            ("terasort", "32MB", "terasort_job_time"),
            ("terasort", "32MB", "teragen_job_time"),
            ("pi", "", "pi_job_time"),
            ("cpu", "", "events_per_s"),
        )
    }
    assert got == want  # wall times and sysbench's other figures are not quoted; native is the baseline
    assert all(r.baseline == "native" for r in report.rows)


def test_cv_within_block_is_the_mean_over_blocks_of_the_measured_runs_cv(report, precision):
    for metric in ("terasort_job_time", "pi_job_time", "events_per_s"):
        lxc, aa = _row(report, "lxc", metric), _row(report, "native~aa", metric)
        assert lxc.cv_within_block_pct == pytest.approx(100 / 12)
        assert lxc.cv_within_block_baseline_pct == pytest.approx(100 / 11)
        assert aa.cv_within_block_pct == pytest.approx(_cv(AA))
    # A block with one measured run has no SD: it is left out, not counted as 0.
    one = pd.DataFrame({"block": [0, 0, 0, 1], "value": [10.0, 11.0, 12.0, 99.0], "warmup": [False] * 4})
    assert precision.cv_within_block(one) == pytest.approx(100 / 11)
    assert precision.cv_within_block(one.assign(warmup=[False, False, True, False])) == pytest.approx(
        100 * np.std([10.0, 11.0], ddof=1) / 10.5
    )


def test_ratios_are_the_paired_ratios_of_the_measured_runs_with_the_stopping_rules_interval(report):
    samples = hand_made_samples()
    for platform, values in (("lxc", LXC), ("native~aa", AA)):
        row = _row(report, platform, "terasort_job_time")
        logs = [math.log(x / y) for b in (0, 1) for x, y in zip(values[b], NATIVE[b])]
        assert row.ratio == pytest.approx(math.exp(np.mean(logs)), rel=1e-9)
        assert row.n == row.n_baseline == 6 and row.n_pairs == 6
        assert row.ci_low < row.ratio < row.ci_high
        assert row.half_width_pct == pytest.approx(100 * (row.ci_high - row.ci_low) / 2 / row.ratio)
    # The same interval and method as the adaptive stopping rule reads from the statistics table.
    widths = comparison_widths(samples, "native", [("terasort", "terasort_job_time")], n_resamples=999)
    for w in widths:
        row = _row(report, w.platform, "terasort_job_time")
        assert (row.method, row.ratio) == (w.method, w.ratio)
        assert row.half_width_pct == pytest.approx(w.half_width_pct)
    # Blocks of several rounds: t over the block means, the interval whose coverage holds with few blocks (#18).
    assert _row(report, "lxc", "terasort_job_time").method == "paired-t (blocks)"


def test_runs_on_a_flagged_machine_are_counted_once_per_run(report):
    assert report.runs == 2 * 3 * 3 * 4 and report.measured_runs == 2 * 3 * 3 * 3
    assert report.flagged_runs == 3 and report.flagged_measured_runs == 2
    assert report.unchecked_runs == 0
    assert _row(report, "lxc", "terasort_job_time").flagged == 2
    assert _row(report, "lxc", "teragen_job_time").flagged == 2
    assert _row(report, "native~aa", "terasort_job_time").flagged == 0
    assert _row(report, "lxc", "pi_job_time").flagged == 0  # the flagged pi run was a warm-up


def test_the_aa_verdict_and_the_minutes(report, precision):
    assert {label for label, _ in report.aa} == {
        "terasort[32MB] terasort_job_time",
        "terasort[32MB] teragen_job_time",
        "pi pi_job_time",
        "cpu events_per_s",
    }
    assert all(v.startswith("A/A") for _, v in report.aa)
    assert _row(report, "native~aa", "pi_job_time").aa_verdict.startswith("A/A")
    assert _row(report, "lxc", "pi_job_time").aa_verdict == ""
    ts = hand_made_samples()["timestamp"]
    assert report.minutes == pytest.approx((ts.max() - ts.min()) / 60)
    assert "timestamps" in report.minutes_source
    timed = precision.analyse(hand_made_samples(), seconds=1500.0, n_resamples=199)
    assert (timed.minutes, timed.minutes_source) == (25.0, "runner")


def test_markdown_and_json_say_the_same_and_loaded_is_the_first_line(report, precision):
    quiet = precision.LoadRecord(1.0, 0.31, (0.5, 1.5, 1.0))
    text = precision.markdown(report, quiet)
    first, *rest = text.splitlines()
    assert "LOADED" not in first and "campaign hand" in first
    assert "0.31 before" in text and "min 0.50, mean 1.00, max 1.50 (3 readings" in text
    assert "3 of 72 runs taken on a flagged machine (2 of the 54 measured" in text
    lxc = _row(report, "lxc", "terasort_job_time")
    line = next(x for x in rest if x.startswith("| lxc / native | terasort[32MB] terasort_job_time |"))
    assert f"| {lxc.ratio:.3f} | +/-{lxc.half_width_pct:.1f} % | {lxc.method} |" in line
    assert "| 8.3 % (native 9.1 %) | 6 / 6 (6) | 2 |" in line
    doc = json.loads(json.dumps(precision.report_json(report, quiet)))
    assert doc["first_line"] == first and doc["loaded"] is False
    j = next(r for r in doc["rows"] if r["platform"] == "lxc" and r["metric"] == "terasort_job_time")
    assert j["half_width_pct"] == pytest.approx(lxc.half_width_pct) and j["flagged"] == 2
    loaded = precision.LoadRecord(1.0, 1.52, (), allowed_loaded=True)
    assert precision.markdown(report, loaded).splitlines()[0].startswith("# LOADED machine (load average 1.52")


@pytest.mark.parametrize(("script", "loader"), [("precision", "load_design"), ("planted", "load_studies")])
def test_a_loaded_machine_is_refused_before_anything_starts(script, loader, monkeypatch, capsys, tmp_path):
    """This script and planted.py refuse alike (`refused_loaded`), before reading a design."""
    mod = selfbench_scripts.load(script)
    monkeypatch.setattr(mod, "read_load1", lambda: 1.25)

    def never(*a, **kw):
        raise AssertionError("nothing may start on a loaded machine")

    monkeypatch.setattr(mod, loader, never)
    assert mod.main(["--out", str(tmp_path / "c")]) == 2
    assert "1.25" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("script", ["precision", "planted"])
@pytest.mark.parametrize("how", [["--plan"], ["--out", "OUT", "--allow-loaded"]])
def test_a_design_the_machine_cannot_hold_is_refused_in_one_line_naming_it(script, how, monkeypatch, capsys, tmp_path):
    """On a machine too small for the designs' clusters, the plan and the run say so in one line
    per design, naming it, its file and the field, and exit 2: no traceback, and nothing started
    (no campaign, the run's directory not made)."""
    import vbench.campaign.runner
    from vbench.machine_fit import MachineFacts

    def never(*a, **kw):
        raise AssertionError("nothing may start on a machine that cannot hold the design")

    mod = selfbench_scripts.load(script)
    monkeypatch.setattr(vbench.campaign.runner, "run_campaign", never)
    monkeypatch.setattr(MachineFacts, "local", classmethod(lambda cls: MachineFacts(mem_total_mb=4000, cpus=2)))
    monkeypatch.setattr(mod, "read_load1", lambda: 0.1)
    out = tmp_path / "c"
    assert mod.main([str(out) if a == "OUT" else a for a in how]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith("refused: design ") for line in err)
    assert all("(params/experiments/" in line and ".yaml): configuration native" in line for line in err)
    assert all("hadoop.nodemanager_memory_mb: " in line and "this machine has 4000 MiB" in line for line in err)
    assert not out.exists()


def test_the_refusal_of_clusters_up_together_names_the_design_and_the_field(capsys):
    """Each cluster fits alone, a block's clusters do not together: the runner's own check, said
    as one line naming the design (`block_refusal`, no /proc read: the machine is passed in)."""
    from vbench.campaign.study import load_study
    from vbench.machine_fit import MachineFacts

    precision = selfbench_scripts.load("precision")
    study = load_study(REPO / "params", "lean")  # native, lxc and the A/A copy up together
    small, enough = MachineFacts(mem_total_mb=12000, cpus=2), MachineFacts(mem_total_mb=24152, cpus=2)
    line = precision.block_refusal(study, small)
    assert line.startswith("refused: design lean (params/experiments/lean.yaml): experiment.interleave: the 3 ")
    assert "\n" not in line and "this machine has 12000 MiB" in line
    assert precision.block_refusal(study, enough) is None
    assert precision.refused_designs([study, study], small) and capsys.readouterr().err.count("refused: design") == 2


@pytest.mark.parametrize("script", ["precision", "planted"])
def test_an_interrupted_run_ends_in_one_line_saying_how_to_resume(script, monkeypatch, capsys, tmp_path):
    """Ctrl-C or SIGTERM (vbench.lifecycle.Terminated) while the campaigns run: exit 130 and one
    line, not a traceback (the runner has torn its testbeds down by then)."""
    from vbench.lifecycle import Terminated

    def interrupted(args):
        raise Terminated("received signal SIGTERM")

    mod = selfbench_scripts.load(script)
    monkeypatch.setattr(mod, "run", interrupted)
    assert mod.main(["--out", str(tmp_path / "c")]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{script}: interrupted (received signal SIGTERM); the same --out resumes it"]


@pytest.mark.parametrize("script", ["precision", "planted"])
def test_a_design_file_refused_as_it_loads_is_one_line_naming_the_file(script, capsys, tmp_path):
    import shutil

    params = tmp_path / "params"
    shutil.copytree(REPO / "params", params)
    for design in (params / "experiments").glob("*.yaml"):
        design.write_text(design.read_text().replace("  workers: 2\n", "  workers: two\n"))
    mod = selfbench_scripts.load(script)
    assert mod.main(["--plan", "--params-dir", str(params)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("refused: ") and "experiment.workers: expected an integer" in err[0]
    assert f"{params}/experiments/" in err[0]


def test_the_load_sampler_reads_until_stopped(precision):
    readings = iter([0.1, 0.2, 0.3, 0.4, 0.5] + [0.6] * 1000)
    s = precision.LoadSampler(0.01, lambda: next(readings)).start()
    deadline = time.monotonic() + 10
    while len(s.readings) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    got = s.stop()
    assert got[:3] == [0.1, 0.2, 0.3]
    n = len(s.readings)
    time.sleep(0.05)
    assert len(s.readings) == n  # stopped means stopped


def test_the_estimate_costs_the_runners_plan(precision):
    from vbench.campaign.design import Experiment, load_experiment

    design = load_experiment(REPO / "params" / "experiments" / "precision.yaml")
    assert (design.platforms, design.aa, design.repetitions, design.rounds) == (("native", "lxc"), True, 4, 1)
    # The estimate of the same design in rounds: warm-up runs, sessions and gate checks all count.
    exp = Experiment.model_validate(
        {**design.model_dump(mode="json"), "repetitions": 2, "rounds": 3, "interleave": "concurrent"}
    )
    benches = ("cpu", "terasort")
    assert {s.benchmark for s in (*exp.calibrate, *exp.suite)} == set(benches)
    costs = precision.Costs({"terasort": 50.0, "pi": 20.0, "cpu": 5.0}, {"native": 40.0, "lxc": 60.0}, 2.0)
    est = precision.estimate(exp, costs)
    configs, blocks = 3, 2
    per_bench = blocks * configs * (1 + exp.rounds)  # a warm-up run per fresh cluster, then one per round
    assert est.runs == {b: blocks * configs * exp.rounds for b in benches} | {
        f"{b} (warm-up)": blocks * configs for b in benches
    }
    assert est.bringups == blocks * configs and est.sessions == blocks
    assert est.gate_checks == blocks * 2 * exp.rounds  # calibration's rounds, then the suite's
    want = per_bench * (50 + 5) + blocks * (40 + 40 + 60) + est.gate_checks * 2.0
    assert est.seconds == pytest.approx(want)


def write_campaign(raw: Path) -> None:
    """The hand-made samples as a campaign directory's ledger, as the runner stores them."""
    store = CampaignStore(raw)
    df = hand_made_samples()
    meta_cols = ["platform", "block", "round", "warmup", "quiet.verdict", "repetition"]
    for run_id, run in df.groupby("run_id", sort=False):
        first = run.iloc[0]
        stamp = {c: (first[c].item() if hasattr(first[c], "item") else first[c]) for c in meta_cols}
        stamp |= {"experiment": "platforms", "campaign": "camp", "cell_id": run_id}
        if first["benchmark"] == "terasort":
            stamp["size_mb"] = 32
        recs = [Sample(r.benchmark, r.metric, float(r.value), r.unit, {}, float(r.timestamp)) for r in run.itertuples()]
        store.save_runs([(run_id, recs, {})], stamp)


def test_the_report_is_rebuilt_from_a_campaign_directory(precision, tmp_path, capsys):
    raw = tmp_path / "camp"
    write_campaign(raw)
    (raw / precision.RUN_FILE).write_text(
        json.dumps({"load": {"limit": 1.0, "before": 0.2, "during": [0.4], "interval_s": 30, "allowed_loaded": False}})
    )
    assert precision.main(["--campaign", str(raw)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# vbench precision benchmark, campaign camp") and "0.20 before the run" in out
    doc = json.loads((raw / precision.REPORT_FILE).read_text())
    assert doc["flagged_runs"] == 3 and doc["measured_runs"] == 54 and len(doc["rows"]) == 8
    j = next(r for r in doc["rows"] if r["platform"] == "lxc" and r["metric"] == "terasort_job_time")
    assert j["cv_within_block_pct"] == pytest.approx(100 / 12) and j["n_pairs"] == 6


def test_a_run_goes_through_the_runner_and_keeps_the_load_readings(precision, tmp_path, monkeypatch, capsys):
    from vbench.campaign import runner
    from vbench.campaign.runner import CampaignResult

    monkeypatch.setattr(precision, "read_load1", lambda: 0.25)
    seen = {}

    def fake_run_campaign(exp, testbed, hadoop, raw, **kw):  # the runner, minus the clusters
        seen.update(exp=exp, raw=raw, hooks=kw.get("round_hooks"))
        write_campaign(raw)
        time.sleep(0.05)  # the load sampler reads meanwhile
        return CampaignResult(ran=["x"] * 54, warmups=18, seconds=1234.0)

    monkeypatch.setattr(runner, "run_campaign", fake_run_campaign)
    out = tmp_path / "run"
    assert precision.main(["--out", str(out), "--load-interval", "0.01"]) == 0
    assert seen["exp"].name == "precision" and seen["raw"] == out and seen["hooks"] is None
    text = capsys.readouterr().out
    assert "# vbench precision benchmark, campaign run" in text
    assert "0.25 before the run" in text and "campaign: 20.6 min (runner)" in text
    run_doc = json.loads((out / precision.RUN_FILE).read_text())
    assert run_doc["load"]["before"] == 0.25 and run_doc["load"]["during"] and set(run_doc["load"]["during"]) == {0.25}
    assert run_doc["seconds"] == 1234.0 and run_doc["result"]["ran"] == 54
    assert json.loads((out / precision.REPORT_FILE).read_text())["minutes"] == pytest.approx(1234.0 / 60)


def test_the_report_says_where_the_variance_lives_as_the_statistics_stage_does(report, precision):
    from vbench.stats.variance import campaign_variance

    got = {(v.metric, v.configuration, v.baseline) for v in report.variance}
    metrics = {"events_per_s", "terasort_job_time", "teragen_job_time", "pi_job_time"}
    want = {(m, p, "") for m in metrics for p in ("native", "lxc", "native~aa")}
    want |= {(m, p, "native") for m in metrics for p in ("lxc", "native~aa")}
    assert got == want
    samples = hand_made_samples()
    keep = [precision.is_reported(b, m) for b, m in zip(samples["benchmark"], samples["metric"])]
    same = campaign_variance(samples[keep], {}, precision.is_reported, default_baseline="native")
    assert [v.record() for v in report.variance] == [v.record() for v in same]
    lxc = next(
        v for v in report.variance if (v.metric, v.configuration, v.baseline) == ("terasort_job_time", "lxc", "")
    )
    # Warm-up runs are left out: 2 blocks x 3 rounds x 1 run, and no probe in these samples.
    assert lxc.result.layout.text() == "2 x 3 x 1" and lxc.result.slope is None
    quiet = precision.LoadRecord(1.0, 0.31)
    text = precision.markdown(report, quiet)
    assert "Where the variance lives" in text
    assert "| lxc / native | terasort[32MB] terasort_job_time | 2 x 3 x 1 |" in text
    doc = json.loads(json.dumps(precision.report_json(report, quiet), allow_nan=False))
    assert doc["variance"] == [v.record() for v in report.variance]
