"""vbench.explore.cost_split: one run's JobHistory phases beside the baseline's run of its block, and
the cost model's split of the predicted overhead by resource in seconds of that run, with the rest.

A synthetic campaign of known phases (native and gVisor, three blocks, an A/A copy and a warm-up
run that must not count), a synthetic attribution with known extra times, test_predict_cmd's
synthetic fit and calibration for the statistics stage's own prediction, and the committed
sandbox campaign's gVisor TeraSort for the cut at JobHistory's real times."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from matplotlib.patches import Rectangle

from tests.unit.explore_campaigns import committed
from tests.unit.test_predict_cmd import DRAWS, NODELAY, calibration_campaign, fit_campaign
from vbench.errors import ParamsError
from vbench.explore import cost_split as cs
from vbench.explore import figures, widgets
from vbench.explore.data import stage_settings
from vbench.stats import cost_model as cm
from vbench.stats.campaign import load_campaign
from vbench.stats.predicted_rows import COST_FIT_KEY, predicted_beside, predicted_rows
from vbench.stats.records import Interval

DATA = Path(__file__).resolve().parents[2] / "data"
TERASORT = cs.job_of("terasort")
#: (platform, block) -> the job's map, shuffle, merge and reduce seconds. gVisor's ratios to the
#: block's native run: 3.0, 2.0, 2.5, so its median pair is block 2.
PHASE_S = {
    ("native", 0): (4.0, 3.0, 0.5, 1.0),
    ("native", 1): (4.0, 3.0, 0.5, 1.0),
    ("native", 2): (4.0, 3.0, 0.5, 1.0),
    ("native~aa", 0): (4.2, 3.0, 0.5, 1.0),
    ("native~aa", 1): (4.2, 3.0, 0.5, 1.0),
    ("native~aa", 2): (4.2, 3.0, 0.5, 1.0),
    ("gvisor", 0): (14.0, 9.0, 0.5, 2.0),
    ("gvisor", 1): (9.0, 5.0, 0.5, 2.5),
    ("gvisor", 2): (12.0, 7.0, 0.75, 1.5),
}
NATIVE_JOB = 8.5


def _run_rows(platform: str, block: int, phases, *, warmup: bool = False, run_id: str | None = None) -> list[dict]:
    """One TeraSort run's samples as load_campaign names them: the job's time and VMware's two
    phases, two maps, two reducers (the second the last to shuffle and to merge) and their merges."""
    run_id = run_id or f"terasort-{platform}-{block}"
    job_id = f"job_{block}{len(platform)}_0001"
    start = 1_000_000.0 + 100_000 * block + (50_000 if warmup else 0)
    m, sh, me, re = phases
    finish = start + 1000 * (m + sh + me + re)
    base = {
        "experiment": "platforms",
        "platform": platform,
        "benchmark": "terasort",
        "unit": "s",
        "size": "64MB",
        "block": block,
        "round": 0,
        "run_id": run_id,
        "step": "terasort",
        "job_id": job_id,
        "job_start_ms": start,
        "job_finish_ms": finish,
        "warmup": warmup,
        "timestamp": start / 1000,
    }
    rows = [
        {**base, "metric": "terasort.job_time", "raw_metric": "terasort_job_time", "value": m + sh + me + re},
        {
            **base,
            "metric": "terasort.map_shuffle_time",
            "raw_metric": "terasort_map_shuffle_phase_time",
            "value": m + sh,
        },
        {
            **base,
            "metric": "terasort.reduce_merge_time",
            "raw_metric": "terasort_reduce_merge_phase_time",
            "value": me + re,
        },
    ]
    attempt = f"attempt_{job_id.removeprefix('job_')}"
    for i, end in enumerate((start + 1000 * (m - 1), start + 1000 * m)):
        rows.append(
            {
                **base,
                "metric": "terasort.attempt.map_attempt_time",
                "raw_metric": "map_attempt_time",
                "value": (end - start) / 1000,
                "attempt_id": f"{attempt}_m_00000{i}_0",
                "task_type": "MAP",
                "start_ms": start,
                "finish_ms": end,
            }
        )
    shuffle_end = start + 1000 * (m + sh)
    for i, (shuffled, merge) in enumerate(((shuffle_end - 500, me / 2), (shuffle_end, me))):
        aid = f"{attempt}_r_00000{i}_0"
        reducer = {
            **base,
            "attempt_id": aid,
            "task_type": "REDUCE",
            "start_ms": start + 1000,
            "finish_ms": finish - 100,
        }
        rows.append(
            {
                **reducer,
                "metric": "terasort.attempt.reduce_attempt_time",
                "raw_metric": "reduce_attempt_time",
                "value": (finish - 100 - start - 1000) / 1000,
                "shuffle_finish_ms": shuffled,
            }
        )
        rows.append(
            {
                **reducer,
                "metric": "terasort.attempt.reduce_merge_time",
                "raw_metric": "reducer_merge_time",
                "value": merge,
            }
        )
    return rows


def synthetic(**drop) -> pd.DataFrame:
    """The synthetic campaign; `drop`: platform -> columns its samples lack (a campaign recorded
    before attempts carried times) or "phases" (no phase sample at all, the job's time only)."""
    rows = [r for (p, b), ph in PHASE_S.items() for r in _run_rows(p, b, ph)]
    # A warm-up run of gVisor in block 1 at native's speed: counted, it would make block 1 the median.
    rows += _run_rows("gvisor", 1, PHASE_S[("native", 1)], warmup=True, run_id="terasort-gvisor-warm")
    frame = pd.DataFrame(rows)
    for platform, what in drop.items():
        mine = frame["platform"] == platform
        if what == "phases":
            frame = frame[~mine | (frame["metric"] == "terasort.job_time")]
        else:
            frame.loc[mine, list(what)] = None
    return frame.reset_index(drop=True)


def attribution(measured: float = 2.4) -> cm.Attribution:
    """cpu x1.5 with a share of 0.8 (+0.4 of native time), net_throughput x20 with 0.01 (+0.19),
    round_trip x0.5 with 0.1 (-0.05): predicted 1.54."""
    terms = tuple(
        cm.ResourceTerm(r, x, s, s * (x - 1), None, None)
        for r, x, s in (("cpu", 1.5, 0.8), ("net_throughput", 20.0, 0.01), ("round_trip", 0.5, 0.1))
    )
    predicted = 1 + sum(t.extra_time for t in terms)
    return cm.Attribution(
        "terasort",
        "gvisor",
        terms,
        predicted,
        math.log(predicted),
        math.log(measured),
        math.log(measured) - math.log(predicted),
    )


def model(measured: float = 2.4) -> cs.ModelView:
    a = attribution(measured)
    return cs.ModelView(Interval(a.predicted, 1.4, 1.7), Interval(measured, 2.2, 2.6), a, "costs-fit-nodelay")


# --- the measured side ------------------------------------------------------------------------------


def test_a_run_is_cut_at_jobhistorys_times_into_phases_that_add_up_to_its_job():
    r = cs.run_phases(synthetic(), "terasort-gvisor-2", TERASORT)
    assert r.cut == cs.PHASES and r.block == "2" and r.cell == "64MB" and r.jobs == 1
    assert [round(s, 9) for _, s in r.phases] == [12.0, 7.0, 0.75, 1.5]
    assert r.job_s == pytest.approx(21.25) and sum(s for _, s in r.phases) == pytest.approx(r.job_s)
    # map + shuffle and merge + reduce are VMware's two phases, as the run recorded them.
    two = r.coarsened(cs.TWO_PHASES)
    assert two.phases == (("map_shuffle", pytest.approx(19.0)), ("reduce_merge", pytest.approx(2.25)))
    assert r.coarsened(cs.JOB_ONLY).phases == (("job", pytest.approx(21.25)),)
    assert cs.run_phases(synthetic(), "terasort-gvisor-2", cs.job_of("wordcount")) is None


def test_the_median_block_pair_is_shown_beside_the_baselines_run_of_the_same_block():
    s = cs.cost_split(synthetic(), "gvisor", "terasort", "native")
    # Ratios 3.0, 2.0 and 2.5: the median is block 2's; the warm-up run (1.0) does not count.
    assert (s.run.run_id, s.native.run_id) == ("terasort-gvisor-2", "terasort-native-2")
    assert s.run_ratio == pytest.approx(2.5) and s.chosen == "the median of its 3 block pairs"
    assert s.model is None and s.model_note == "no model given" and s.predicted_s is None and s.rest_s is None
    assert s.notes == ()


def test_a_run_asked_for_is_shown_beside_its_own_blocks_baseline_run():
    s = cs.cost_split(synthetic(), "gvisor", TERASORT, "native", run_id="terasort-gvisor-0")
    assert (s.native.run_id, s.chosen, s.run_ratio) == ("terasort-native-0", "asked for", pytest.approx(3.0))
    # A run that is not the platform's falls back to the median, saying so.
    s = cs.cost_split(synthetic(), "gvisor", TERASORT, "native", run_id="terasort-native-1")
    assert s.run.run_id == "terasort-gvisor-2" and "is no run of gvisor's terasort" in s.notes[0]


def test_the_models_split_is_in_seconds_of_the_baseline_run_and_the_rest_closes_on_the_run():
    s = cs.cost_split(synthetic(), "gvisor", "terasort", "native", model(), model_note="ignored beside a model")
    assert s.model_note == ""
    assert dict(s.extra_s()) == pytest.approx({"cpu": 3.4, "net_throughput": 1.615, "round_trip": -0.425})
    assert s.predicted_s == pytest.approx(NATIVE_JOB * 1.54)
    assert s.rest_s == pytest.approx(21.25 - 13.09)
    # The campaign's unexplained part is measured / predicted - 1, over every block, not this pair's.
    assert s.unexplained == pytest.approx(2.4 / 1.54 - 1)
    parts = cs.split_parts(s)
    bar = parts[parts["bar"] == "model (costs-fit-nodelay)"].set_index("part")
    assert bar.loc[
        ["native time", "+ cpu", "+ net_throughput", "+ round_trip", "+ not explained"], "seconds"
    ].sum() == (pytest.approx(21.25))
    assert bar.loc["+ cpu", "cost ratio"] == 1.5 and bar.loc["+ cpu", "time share"] == 0.8
    assert bar.loc["+ cpu", "of baseline job"] == pytest.approx(0.4)
    assert bar.loc["= predicted", "of baseline job"] == pytest.approx(1.54)
    runs = parts[parts["bar"] == "gvisor run (block 2)"].set_index("part")["seconds"]
    assert runs.to_dict() == pytest.approx({"map": 12.0, "shuffle": 7.0, "merge": 0.75, "reduce": 1.5, "job": 21.25})


def test_a_pair_is_cut_as_finely_as_both_runs_allow():
    # Native's runs recorded no task times: both runs of the pair are cut into VMware's two phases.
    s = cs.cost_split(synthetic(native=("start_ms", "finish_ms", "shuffle_finish_ms")), "gvisor", "terasort", "native")
    assert s.run.phases == (("map_shuffle", pytest.approx(19.0)), ("reduce_merge", pytest.approx(2.25)))
    assert s.native.cut == cs.TWO_PHASES and "VMware's two phases only" in s.notes[0]
    # No phase sample at all: the job's time alone, said plainly.
    s = cs.cost_split(synthetic(gvisor="phases"), "gvisor", "terasort", "native")
    assert s.run.phases == (("job", pytest.approx(21.25)),) and s.native.phases == (("job", pytest.approx(8.5)),)
    assert "no JobHistory phase" in s.notes[0]


def test_what_can_be_split_and_which_is_shown():
    assert cs.timed_pairs(synthetic(), "native") == [("gvisor", "terasort")]  # not the A/A copy
    assert cs.cost_split(synthetic(), "lxc", "terasort", "native") is None
    assert cs.choose([("lxc", "terasort"), ("lxc", "wordcount")]) == ("lxc", "terasort", ())
    assert cs.choose([("gvisor", "wordcount"), ("lxc", "terasort")]) == ("gvisor", "wordcount", ())
    platform, job, notes = cs.choose([("lxc", "terasort"), ("lxc", "wordcount")], "gvisor", "dfsio_write")
    assert (platform, job) == ("lxc", "terasort") and len(notes) == 2 and "choices: lxc" in notes[0]
    with pytest.raises(ParamsError, match="not a job of the cost model"):
        cs.job_of("teragen")
    # NNBench's time per operation is a job of the model but not a JobHistory job's time: no phases.
    with pytest.raises(ParamsError, match="whose time has phases"):
        cs.job_of("nnbench_create_write")


def test_the_table_has_a_row_per_platform_and_job():
    splits = cs.cost_splits(synthetic(), "native", {("gvisor", "terasort"): model()})
    t = cs.split_table(splits)
    assert len(t) == 1 and t.loc[0, "block"] == "2" and t.loc[0, "run ratio"] == pytest.approx(2.5)
    assert t.loc[0, "map s"] == pytest.approx(12.0) and t.loc[0, "baseline map s"] == pytest.approx(4.0)
    assert t.loc[0, "+cpu s"] == pytest.approx(3.4) and t.loc[0, "not explained s"] == pytest.approx(8.16)
    assert t.loc[0, "measured ratio"] == 2.4 and t.loc[0, "predicted ratio"] == pytest.approx(1.54)
    no_model = cs.split_table(cs.cost_splits(synthetic(), "native", {}, "no fit campaign"))
    assert no_model.loc[0, "note"] == "no fit campaign" and no_model.loc[0, "not explained s"] is None


# --- the figure ---------------------------------------------------------------------------------------


def _bars(ax) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def test_the_figure_stacks_the_phases_and_the_models_parts_with_a_legend_naming_them():
    s = cs.cost_split(synthetic(), "gvisor", "terasort", "native", model())
    fig = figures.cost_split_figure(s)
    (ax,) = fig.axes
    bars = _bars(ax)
    assert len(bars) == 4 + 4 + (1 + 3 + 1)
    # Each bar ends where its parts add up: 8.5 s, 21.25 s and, for the model, the run's 21.25 s.
    by_row = {}
    for b in bars:
        by_row.setdefault(round(b.get_y() + b.get_height() / 2), []).append(b)
    assert max(b.get_x() + b.get_width() for b in by_row[2]) == pytest.approx(8.5)
    assert max(b.get_x() + b.get_width() for b in by_row[1]) == pytest.approx(21.25)
    hatched = [b for b in by_row[0] if b.get_hatch() == "xxxx"]
    assert len(hatched) == 1 and hatched[0].get_width() == pytest.approx(0.425)  # round_trip's -0.425 s
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == [
        "map (measured)",
        "shuffle (measured)",
        "merge (measured)",
        "reduce (measured)",
        "native job time",
        "+ cpu (model)",
        "+ net_throughput (model)",
        "+ round_trip (model)",
        "not explained by the model",
        "negative: less time",
    ]
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "cost model\n(costs-fit-nodelay)",
        "gvisor run\nblock 2",
        "native run\nblock 2",
    ]
    assert figures.png(fig)[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_a_model_the_figure_shows_the_runs_and_says_why():
    s = cs.cost_split(synthetic(), "gvisor", "terasort", "native", None, "no fit campaign (it is empty)")
    fig = figures.cost_split_figure(s)
    (ax,) = fig.axes
    assert len(_bars(ax)) == 8 and len(ax.get_yticklabels()) == 2
    assert "no model: no fit campaign (it is empty)" in ax.get_title()


# --- the statistics stage's prediction -----------------------------------------------------------------


FIT, ANALYSED = "costs-fit-nodelay", "analysed"


@pytest.fixture(scope="module")
def raw(tmp_path_factory) -> Path:
    """DATA/raw with test_predict_cmd's fit and a calibration whose native and `sandboxed` runs
    record TeraSort's two VMware phases."""
    raw = tmp_path_factory.mktemp("data") / "raw"
    fit_campaign(raw / FIT, factors=NODELAY, baseline="1.0")
    calibration_campaign(raw / ANALYSED, jobs=True, phases=("native", "sandboxed"))
    return raw


def test_the_model_is_the_statistics_stages_prediction(raw):
    models, why = cs.predictions(raw / ANALYSED, FIT, n_draws=DRAWS)
    assert why == "" and set(models) == {
        (p, j) for p in ("sandboxed", "slowvm") for j in ("terasort", "nnbench_create_write")
    }
    stage = predicted_rows(load_campaign(raw / FIT), load_campaign(raw / ANALYSED), n_draws=DRAWS)
    row = next(r for r in stage.table.rows if (r.platform, r.job) == ("sandboxed", "terasort"))
    m = models["sandboxed", "terasort"]
    assert m.attribution == row.attribution and m.predicted == row.predicted and m.fit == FIT
    s = cs.cost_split(load_campaign(raw / ANALYSED).samples, "sandboxed", "terasort", "native", m)
    assert s.run.cut == cs.TWO_PHASES
    assert s.predicted_s == pytest.approx(s.native.job_s * row.attribution.predicted)
    assert s.rest_s + s.predicted_s == pytest.approx(s.run.job_s)


def test_no_fit_or_a_fit_not_measured_is_said_not_raised(raw, tmp_path):
    """The statistics stage's reasons, word for word (`predicted_beside`): one reading of the key."""
    assert cs.predictions(raw / ANALYSED, "") == ({}, f"no fit campaign: {COST_FIT_KEY} is empty")
    models, why = cs.predictions(raw / ANALYSED, "costs-fit")
    assert models == {} and why == predicted_beside(raw / ANALYSED, "costs-fit").skipped != ""
    # The fit predicting itself: the engine's refusal, as the reason.
    models, why = cs.predictions(raw / FIT, FIT, n_draws=DRAWS)
    assert models == {} and "also configurations of the fit campaign" in why
    # A name that is a path: refused by the key's check, said, not raised.
    models, why = cs.predictions(raw / ANALYSED, "../elsewhere")
    assert models == {} and why.startswith("the cost model refuses it: ") and COST_FIT_KEY in why
    (tmp_path / "params").mkdir()
    (tmp_path / "params" / "paper.yaml").write_text("paper:\n  cost_fit_campaign: costs-fit-nodelay\n")
    assert cs.fit_campaign(tmp_path / "data") == "costs-fit-nodelay"
    assert cs.fit_campaign(tmp_path / "elsewhere" / "data") == ""


# --- on the committed data ----------------------------------------------------------------------------


def test_gvisors_terasort_in_sandbox_is_cut_at_its_jobhistory_times():
    samples = committed("sandbox").samples
    s = cs.cost_split(samples, "gvisor", "terasort", "native")
    assert s.run.cut == cs.PHASES and s.run.block == s.native.block
    for r in (s.run, s.native):
        recorded = samples[(samples["run_id"] == r.run_id) & (samples["metric"] == "terasort.map_shuffle_time")]
        assert r.coarsened(cs.TWO_PHASES).seconds("map_shuffle") == pytest.approx(float(recorded["value"].iloc[0]))
        assert sum(v for _, v in r.phases) == pytest.approx(r.job_s)
    ratios = sorted(ratio for _, _, ratio in cs.run_pairs(samples, "gvisor", TERASORT, "native"))
    assert len(ratios) == 3 and s.run_ratio == pytest.approx(ratios[1])


def _explorer(name: str) -> SimpleNamespace:
    """What show_cost_split reads of the notebook's Explorer, without its controls and statistics."""
    data = committed(name)
    return SimpleNamespace(data=data, settings=stage_settings(data.raw.parent.parent), data_dir=data.raw.parent.parent)


@pytest.fixture
def shown(monkeypatch) -> list:
    out = []
    monkeypatch.setattr(widgets, "display", out.append)
    monkeypatch.setattr(widgets.figures, "png", lambda fig: b"")
    return out


def test_the_notebooks_cell_says_plainly_when_there_is_no_fit_or_no_job(shown):
    s = widgets.show_cost_split(_explorer("reference"), fit="")
    # reference has no gVisor: its first platform beside native, not the A/A copy, and TeraSort.
    assert (s.platform, s.job, s.model) == ("lxc", "terasort", None)
    assert "No model: no fit campaign" in shown[0].data and len(shown) == 3  # the line, the table, the figure
    shown.clear()
    assert widgets.show_cost_split(_explorer("costs"), fit="") is None  # micro-benchmarks only
    assert "no phases to split" in shown[0].data and len(shown) == 1


def test_the_notebooks_cell_takes_the_statistics_stages_fit_by_default(shown):
    fit = cs.fit_campaign(DATA)
    s = widgets.show_cost_split(_explorer("reference"))
    assert fit and s.model is not None and s.model.fit == fit and s.model_note == ""
    assert s.model.predicted.estimate == pytest.approx(s.model.attribution.predicted)
    assert s.rest_s + s.predicted_s == pytest.approx(s.run.job_s)
    assert f"The cost model (fit `{fit}`" in shown[0].data
