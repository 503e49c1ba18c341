"""Where two campaigns ran a cost-vector benchmark differently (vbench.stats.bench_settings), and
`vbench predict` saying so (issue #53: jvmstart's and rpc's measures changed under their names)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from vbench.stats.bench_settings import (
    CLUSTER_FIELDS,
    NOT_RECORDED,
    cells_like,
    settings_differ,
    settings_fields,
    settings_of,
)
from vbench.stats.campaign import load_campaign
from vbench.stats.cost_prediction import prediction_inputs


def _samples(benchmark: str, **settings) -> pd.DataFrame:
    rows = [{"benchmark": benchmark, "metric": "m", "value": 1.0, **settings} for _ in range(3)]
    rows.append({"benchmark": "cpu", "metric": "events_per_s", "value": 9.0})
    return pd.DataFrame(rows)


def test_the_settings_are_the_configs_fields_but_how_much_is_timed():
    assert settings_fields("jvmstart") == ("windows", "warmup_starts", "java_home", "copies")
    assert settings_fields("rpc") == ("payload", "java_home", "other_cpus_busy", "copies")
    assert settings_fields("syscall") == ()


def test_a_setting_a_campaign_did_not_record_reads_as_what_its_samples_were_measured_with():
    # jvmstart's windows and warm starts came in 3719756: before, one window of cold starts.
    old = _samples("jvmstart", count=10, java_home="/j")
    assert settings_of(old, "jvmstart") == {
        "windows": frozenset({"1"}),
        "warmup_starts": frozenset({"0"}),
        "java_home": frozenset({"/j"}),
        "copies": frozenset({"1"}),  # copies came in issue #53's session of 2026-12-06: one loop before
    }
    assert settings_of(old, "rpc") == {}  # none of its samples
    # A setting whose module says nothing of samples without it reads "not recorded".
    assert settings_of(_samples("rpc", other_cpus_busy=False), "rpc")["payload"] == frozenset({NOT_RECORDED})
    assert settings_of(_samples("rpc", payload=64), "rpc")["other_cpus_busy"] == frozenset({"False"})
    # A value missing from some samples (a column of NaN there) reads the same, beside the rest.
    mixed = pd.concat([old, _samples("jvmstart", windows=7.0, java_home="/j")], ignore_index=True)
    assert settings_of(mixed, "jvmstart")["windows"] == frozenset({"1", "7"})
    assert math.isnan(mixed["windows"].iloc[0])


def test_only_the_settings_that_differ_are_named_in_one_note_per_resource():
    fit = _samples("jvmstart", count=10, java_home="/j")
    cal = pd.concat(
        [_samples("jvmstart", count=2, windows=7, warmup_starts=3, java_home="/j"), _samples("rpc", payload=64)],
        ignore_index=True,
    )
    notes = settings_differ(
        {"jvmstart": "jvmstart", "rpc": "rpc"}, fit, cal, "the fit's costs (a)", "the calibration (b)"
    )
    assert notes == [
        "jvmstart: jvmstart ran with other settings in the fit's costs (a) than in the calibration (b) "
        "(windows 1 against 7; warmup_starts 0 against 3): its cost ratios may not "
        "measure the same thing in both (docs/benchmarks.md, a benchmark's settings)"
    ]  # count (how much is timed) is not named; rpc is in one campaign only


def test_the_same_settings_make_no_note():
    a = _samples("rpc", payload=64, java_home="/j", other_cpus_busy=True, seconds=3.0)
    b = _samples("rpc", payload=64, java_home="/j", other_cpus_busy=True, seconds=10.0)
    assert settings_differ({"rpc": "rpc"}, a, b, "x", "y") == []
    c = _samples("rpc", payload=64, java_home="/j")  # before other_cpus_busy existed: idle
    [note] = settings_differ({"rpc": "rpc"}, c, a, "x", "y")
    assert "(other_cpus_busy False against True)" in note
    idle = _samples("rpc", payload=64, java_home="/j", other_cpus_busy=False)
    assert settings_differ({"rpc": "rpc"}, c, idle, "x", "y") == []


RAW = Path(__file__).resolve().parents[2] / "data" / "raw"


def test_predict_notes_a_jvm_start_timed_two_ways_in_the_committed_campaigns():
    # costs-fit-memory timed jvmstart as the mean of 10 cold starts, costs-micro-cv (after 3719756)
    # as the median of 7 windows after 3 warm starts; both timed rpc before other_cpus_busy existed.
    inputs = prediction_inputs(
        load_campaign(RAW / "costs-fit-memory"), load_campaign(RAW / "costs-micro-cv"), ("rpc", "jvmstart")
    )
    said = [n for n in inputs.notes if "ran with other settings" in n]
    assert len(said) == 1 and said[0].startswith(
        "jvmstart: jvmstart ran with other settings in the fit's costs (costs-fit-memory) than in the calibration "
        "(costs-micro-cv) (windows 1 against 7; warmup_starts 0 against 3)"
    )


def test_every_setting_said_to_predate_its_samples_is_a_field_of_its_config_with_a_valid_value():
    from vbench.benchmarks.hadoop import HADOOP_BENCHMARKS
    from vbench.benchmarks.micro import MICRO_BENCHMARKS

    for name, module in {**MICRO_BENCHMARKS, **HADOOP_BENCHMARKS}.items():
        before = getattr(module, "SETTINGS_BEFORE_RECORDED", {})
        assert set(before) <= set(module.Config.model_fields), name
        module.Config(**before)  # each a value the config takes


def test_jobs_are_compared_in_their_own_settings_and_their_clusters():
    fit = _samples("terasort", size_mb=16, workers=2.0, hadoop_version="3.4.2", hadoop_config_hash="aa")
    same = _samples("terasort", size_mb=16, workers=2, hadoop_version="3.4.2", hadoop_config_hash="aa")
    assert (
        settings_differ({"terasort": "terasort"}, fit, same, "x", "y", ratios="job ratios", also=CLUSTER_FIELDS) == []
    )
    other = _samples("terasort", size_mb=64, workers=3, hadoop_version="3.4.2", hadoop_config_hash="bb")
    [note] = settings_differ({"terasort": "terasort"}, fit, other, "x", "y", ratios="job ratios", also=CLUSTER_FIELDS)
    assert "(size_mb 16 against 64; workers 2 against 3; hadoop_config_hash aa against bb)" in note
    assert "its job ratios may not measure the same thing" in note
    # Without `also` the cluster is not compared; a TeraSort sample from before gate/generate/task_jit
    # existed reads as what it ran (TeraValidate, input each run, tiered JIT), not "not recorded".
    [only_size] = settings_differ({"terasort": "terasort"}, fit, other, "x", "y")
    assert "(size_mb 16 against 64)" in only_size
    old = _samples("terasort", size_mb=16)
    assert settings_of(old, "terasort")["gate"] == frozenset({"teravalidate"})
    new = _samples(
        "terasort", size_mb=16, gate="teravalidate", generate="each_run", task_jit="tiered", generate_only=False
    )
    assert settings_differ({"terasort": "terasort"}, old, new, "x", "y") == []


def test_predict_notes_jobs_timed_with_speculation_off_against_jobs_timed_with_it_on():
    # costs-nospec-fit-amd ran its jobs with speculative execution off (another Hadoop configuration
    # hash); costs-jvm-sameday-confirm's jobs ran with it on.
    inputs = prediction_inputs(
        load_campaign(RAW / "costs-nospec-fit-amd"),
        load_campaign(RAW / "costs-jvm-sameday-confirm"),
    )
    said = [n for n in inputs.notes if "job ratios may not" in n]
    assert {n.split(":")[0] for n in said} == {"terasort", "wordcount"}
    assert all(
        "in the fit (costs-nospec-fit-amd) than in the measured jobs (costs-jvm-sameday-confirm)" in n for n in said
    )
    assert all("hadoop_config_hash 5d18e4e4762a18fe against 51034554938a02fb" in n for n in said)


def test_predict_with_fit_costs_notes_a_benchmark_run_otherwise_in_the_fits_own_calibration():
    # costs-plant-busy priced rpc with the other CPUs busy; costs-fit-memory's own calibration, idle.
    inputs = prediction_inputs(
        load_campaign(RAW / "costs-fit-memory"),
        load_campaign(RAW / "costs-platforms-busy"),
        ("rpc", "jvmstart"),
        measured_in=(load_campaign(RAW / "costs-jvm-sameday-confirm"),),
        fit_costs_in=load_campaign(RAW / "costs-plant-busy"),
    )
    said = [n for n in inputs.notes if "ran with other settings" in n]
    assert said == [
        "rpc: rpc ran with other settings in the fit's costs (costs-plant-busy) than in the fit's own calibration "
        "(costs-fit-memory) (other_cpus_busy True against False): its cost ratios may not measure the same thing "
        "in both (docs/benchmarks.md, a benchmark's settings)"
    ]


TIMED = ("terasort", "terasort.job_time")


def _cell(size: str, config_hash: str, size_mb: int = 16) -> pd.DataFrame:
    rows = [
        {"benchmark": "terasort", "metric": "terasort.job_time", "value": 10.0, "size": size, "size_mb": size_mb}
        | {"hadoop_config_hash": config_hash, "workers": 2, "platform": p}
        for p in ("native", "gvisor")
    ]
    return pd.DataFrame(rows)


def test_a_campaign_that_timed_a_job_in_two_settings_is_cut_to_the_fits():
    fit = _cell("16MB", "off")
    two = pd.concat([_cell("16MB, speculative=False", "off"), _cell("16MB, speculative=True", "on")], ignore_index=True)
    cut, notes = cells_like(
        two,
        fit,
        [("terasort", "terasort.job_time"), ("wordcount", "wordcount.job_time")],
        "costs-x",
        also=CLUSTER_FIELDS,
    )
    assert set(cut["size"]) == {"16MB, speculative=False"}
    assert len(cut) == 2
    assert notes == [
        "terasort in costs-x: cell '16MB, speculative=False' read (its settings are the fit's), "
        "'16MB, speculative=True' left out"
    ]
    # Without the cluster's fields the two cells are alike (both 16 MB): neither is chosen.
    same, said = cells_like(two, fit, [TIMED], "costs-x")
    assert same is two and said == []


def test_a_campaign_with_one_cell_or_none_like_the_fits_is_left_as_it_is():
    fit = _cell("16MB", "off")
    one = _cell("16MB", "on")
    assert cells_like(one, fit, [TIMED], "c", also=CLUSTER_FIELDS) == (one, [])
    sizes = pd.concat([_cell("16MB", "on", 16), _cell("64MB", "on", 64)], ignore_index=True)
    kept, notes = cells_like(sizes, fit, [TIMED], "c", also=CLUSTER_FIELDS)
    assert kept is sizes and notes == []  # none is the fit's: the model's refusal names both


def test_predict_pools_the_cell_of_a_two_setting_campaign_that_is_the_fits():
    # costs-nospec-gvisor timed TeraSort with speculation on and off; the fit ran it off.
    inputs = prediction_inputs(
        load_campaign(RAW / "costs-nospec-fit-amd"),
        load_campaign(RAW / "costs-nospec-sameday-amd"),
        ("rpc",),
        measured_in=tuple(
            load_campaign(RAW / n) for n in ("costs-accounting-gvisor", "costs-nospec-gvisor", "costs-sentry-gvisor")
        ),
    )
    terasort = next(p for p in inputs.pooled if p.job == "terasort" and p.platform == "gvisor")
    assert [r.campaign for r in terasort.readings] == [
        "costs-accounting-gvisor",
        "costs-nospec-gvisor",
        "costs-sentry-gvisor",
    ]
    assert any("cell '16MB, speculative=False' read" in n for n in inputs.notes)
