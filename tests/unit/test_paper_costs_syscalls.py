"""The cost-model section's second part, "The system-call level" (vbench.paper.costs.SYSCALLS,
issue #53 item 3), on synthetic campaigns with a known answer, and its absence while
params/paper.yaml's `syscall_fit_campaign` and `syscall_calibration_campaign` are empty.

Three campaigns, as params/experiments/costs-fit-syscalls.yaml reads them: a fit shaped like it
(native unplanted, "False", and with every system call stopped under ptrace, "True", 5 blocks; the
one planted level moves a system call's, a process creation's and a JVM's start's costs together),
a calibration shaped like `costs` (native, gVisor and "slowvm", those three costs alone, no job) and
the jobs of a campaign shaped like `sandbox` (the same platforms, test_predict_cmd's micro-benchmarks
and the suite's jobs). The builders are test_predict_cmd's, with the three costs among the
micro-benchmarks and each job's true share of a JVM's start added to its true ratio while the
campaigns are written. The section's first part is test_paper_costs': a fit shaped like
costs-fit-nodelay and `sandbox` as its calibration.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

import numpy as np

import tests.unit.test_predict_cmd as P
from tests.unit.builders import cli_runner
from tests.unit.test_paper_costs import _needs_figures
from tests.unit.test_predict_cmd import (
    BLOCKS,
    DRAWS,
    MICRO,
    NODELAY,
    PLATFORMS,
    _campaign_json,
    _run_samples,
    calibration_campaign,
    fit_campaign,
    platform_meta,
)
from vbench.samples import append_records
from vbench.errors import ParamsError
from vbench.paper import costs as C
from vbench.paper.fmt import sig_digits
from vbench.paper.inputs import (
    PaperInputs,
    campaign_list,
    check_syscall_fit,
    committed_inputs,
    cpu_replications_of,
    pooled_tests_of,
    rest_tests_of,
)
from vbench.stats import cost_model as cm
from vbench.stats.campaign import load_campaign

ROOT = Path(__file__).resolve().parents[2]
FIT, SANDBOX = "costs-fit-nodelay", "sandbox"
SYSCALL_FIT, CALIBRATION = "costs-fit-syscalls", "costs"
#: A calibration like `costs` that timed jobs of its own too (which the rows must not take).
TIMED_CALIBRATION = "costs-timed"
#: The three costs `costs` calibrates, as the micro-benchmarks record them: resource -> (benchmark,
#: metric, unit, native's value, higher is better).
SYSCALL_MICRO = {
    "syscall": ("syscall", "syscall_ns", "ns", 160.0, False),
    "spawn": ("spawn", "spawn_us", "us", 900.0, False),
    "jvmstart": ("jvmstart", "jvm_start_ms", "ms", 60.0, False),
}
#: test_predict_cmd's other micro-benchmarks, which `costs` does not run.
OTHER_MICRO = tuple(MICRO)
#: costs-fit-syscalls' planted factor: (unplanted, planted, the resource the fit fits), and what the
#: stops cost on native where planted (the builder's configuration "1").
STOPS = {"slowdown.syscall_stops": (False, True, "jvmstart")}
STOPPED = {"jvmstart": 2.8, "syscall": 1000.0, "spawn": 2.5}
#: gVisor: test_predict_cmd's sandboxed platform with `costs`' three costs of gVisor.
GVISOR = {**PLATFORMS["sandboxed"], "jvmstart": 3.0, "syscall": 129.0, "spawn": 10.0}
PLATFORMS_HERE = ("native", "gvisor", "slowvm")
#: Each job's true share of native time that scales with a JVM's start.
JVM_SHARES = {"terasort": 0.2, "nnbench_create_write": 0.3}
KEYS = ("syscall_fit_campaign", "syscall_calibration_campaign")
#: A first run of the fit's design whose stops moved a JVM's start too little for its rule 1 (a
#: cost ratio above 1.5 at its interval's lower bound), as costs-fit-syscalls' did before
#: costs-fit-syscalls-confirm: params/paper.yaml's `syscall_fit_superseded`.
SUPERSEDED, SUPERSEDED_KEY = "costs-fit-syscalls-first", "syscall_fit_superseded"
WEAK_STOPS = {**STOPPED, "jvmstart": 1.3}
#: A second campaign that stopped only the process and thread calls beside every call (and none), as
#: costs-fit-process did: params/paper.yaml's `syscall_levels_campaign`. At the process level every
#: cost moves PART of its way to every call's, so every job's extra time is PART of every call's;
#: the one-byte call too (x400), so its levels do not move a call and a process creation apart and
#: its fit is not read.
LEVELS, LEVELS_KEY = "costs-fit-levels", "syscall_levels_campaign"
PART = 0.4
#: The same with the call unmoved at the process level and a process creation moved x3.2 there (x6.5
#: with every call stopped), as costs-fit-process-confirm's design asks: its fit is read.
LEVELS_APART = "costs-fit-levels-apart"
APART_EVERY = {**STOPPED, "spawn": 6.5}
#: A campaign on a day of its own, as costs-gvisor-network: native and gVisor on its own network
#: stack and on the host's, the three costs and the jobs, predicted by the levels' fit: one of
#: params/paper.yaml's `syscall_levels_heldout`. The host stack's round trip and JVM start cost
#: less, so its jobs take less time than on gVisor's own stack, by a known ratio. The second held
#: out, as costs-oneday, is TIMED_CALIBRATION: native, one gVisor and "slowvm", no stacks.
HELDOUT, HELDOUT_KEY = "costs-gvisor-stacks", "syscall_levels_heldout"
HELDOUT_SEED = 53008
HOST_STACK = {**GVISOR, "round_trip": 2.0, "jvmstart": 2.0}


def _true_ratio(job: str, costs: dict[str, float], _ratio=P.true_ratio) -> float:
    """test_predict_cmd's true ratio plus the job's share of a JVM's start times its extra cost."""
    return _ratio(job, costs) + JVM_SHARES[job] * (costs.get("jvmstart", 1.0) - 1)


def _levels_campaign(d: Path, every: dict[str, float], part: float = PART, unmoved: tuple[str, ...] = ()) -> Path:
    """Native hosts with no system call stopped, only the process calls ("process") and every call
    (True), BLOCKS blocks, little noise: at the process level each cost but the `unmoved` ones
    (native's there) is 1 + `part` of every call's extra cost, so each job's extra time is `part`
    of every call's (the true ratio is linear in the costs, and a call's cost is not in it)."""
    process = {r: 1.0 if r in unmoved else 1 + part * (c - 1) for r, c in every.items()}
    return planted_levels_campaign(d, {"process": process, True: every}, seed=53001, prefix="levels")


def section_base(raw: Path) -> None:
    """The cost section's first fit (FIT) and `sandbox` (native, gVisor as the sandboxed platform,
    a slow VM) under `raw`: what every later subsection's build needs beside its own campaigns."""
    fit_campaign(raw / FIT, factors=NODELAY, baseline="1.0")
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(PLATFORMS, "gvisor", PLATFORMS["sandboxed"])
        calibration_campaign(raw / SANDBOX, ("native", "gvisor", "slowvm"), jobs=True, seed=3)


def planted_levels_campaign(d: Path, at_levels: dict, seed: int, prefix: str) -> Path:
    """Native hosts with no system call stopped ("False") and at each of `at_levels` (level -> its
    costs there), BLOCKS blocks, little noise, the design seeded `seed`; run ids `prefix`-level-block."""
    _campaign_json(d, compare=["slowdown.syscall_stops"], baseline="False", seed=seed)
    rng = np.random.default_rng(7)
    records = []
    for block in range(BLOCKS):
        for level, costs in ((False, {}), *at_levels.items()):
            meta = {
                "experiment": "planted",
                "platform": "native",
                "factor.slowdown.syscall_stops": level,
                "block": block,
                "round": 0,
                "repetition": block,
                "warmup": False,
                "run_id": f"{prefix}-{level}-{block}",
            }
            records += _run_samples(rng, meta, costs, sd_cost=0.01, sd_job=0.002)
    append_records(d / "samples.jsonl", records)
    return d


def _heldout_campaign(d: Path) -> Path:
    """Native, gVisor on its own stack and on the host's (compared as `platform` and
    `gvisor.network`, as costs-gvisor-network's design does), BLOCKS blocks, the three costs and the
    jobs; seeded HELDOUT_SEED."""
    _campaign_json(d, compare=["platform", "gvisor.network"], baseline=None, seed=HELDOUT_SEED)
    rng = np.random.default_rng(11)
    records = []
    for block in range(BLOCKS):
        for platform, network, costs in (
            ("native", None, {}),
            ("gvisor", "sandbox", GVISOR),
            ("gvisor", "host", HOST_STACK),
        ):
            stack = {"gvisor.network": network} if network else {}
            meta = platform_meta(platform, block, f"heldout-{platform}-{network}-{block}", **stack)
            records += [
                s for s in _run_samples(rng, meta, costs) if s.benchmark not in {MICRO[r][0] for r in OTHER_MICRO}
            ]
    append_records(d / "samples.jsonl", records)
    return d


@pytest.fixture(scope="module")
def raw(tmp_path_factory) -> Path:
    """DATA/raw with the section's two fits, `costs` (and a `costs` that timed jobs too) and `sandbox`."""
    raw = tmp_path_factory.mktemp("data") / "raw"
    fit_campaign(raw / FIT, factors=NODELAY, baseline="1.0")  # the first part's, as test_paper_costs'
    with pytest.MonkeyPatch.context() as mp:
        for resource, spec in SYSCALL_MICRO.items():
            mp.setitem(MICRO, resource, spec)
        mp.setitem(PLATFORMS, "gvisor", GVISOR)
        mp.setattr(P, "true_ratio", _true_ratio)
        fit_campaign(raw / SYSCALL_FIT, factors=STOPS, baseline="False", planted_costs=STOPPED, costs_in={"1": STOPPED})
        fit_campaign(
            raw / SUPERSEDED, factors=STOPS, baseline="False", planted_costs=WEAK_STOPS, costs_in={"1": WEAK_STOPS}
        )
        _levels_campaign(raw / LEVELS, STOPPED)
        _levels_campaign(raw / LEVELS_APART, APART_EVERY, unmoved=("syscall",))
        _heldout_campaign(raw / HELDOUT)
        calibration_campaign(raw / CALIBRATION, PLATFORMS_HERE, drop=OTHER_MICRO)
        calibration_campaign(raw / TIMED_CALIBRATION, PLATFORMS_HERE, jobs=True, seed=5, drop=OTHER_MICRO)
        calibration_campaign(raw / SANDBOX, PLATFORMS_HERE, jobs=True, seed=3, drop=tuple(SYSCALL_MICRO))
    return raw


def _study(raw: Path, fit: str, calibration: str, measured: str | None = None) -> C.CostStudy:
    return C.cost_study(
        load_campaign(raw / fit),
        load_campaign(raw / calibration),
        measured=load_campaign(raw / measured) if measured else None,
        n_draws=DRAWS,
    )


@pytest.fixture(scope="module")
def study(raw) -> C.CostStudy:
    return _study(raw, FIT, SANDBOX)


@pytest.fixture(scope="module")
def syscalls(raw) -> C.CostStudy:
    return _study(raw, SYSCALL_FIT, CALIBRATION, SANDBOX)


def _measured_ratios(raw: Path, campaign: str, conf: float) -> dict:
    """(job, platform) -> the measured ratio's interval, read from `campaign`'s samples alone."""
    ratios = cm.job_ratios_of(load_campaign(raw / campaign).samples, baseline="native", conf=conf)
    return {(r.job, r.platform): r.ratio.interval(conf) for r in ratios}


def _bounds(iv) -> tuple:
    return iv.estimate, iv.low, iv.high


# --- the study -------------------------------------------------------------------------------------


def test_the_system_call_level_fits_a_jvms_start_on_the_one_planted_configuration(syscalls):
    assert (syscalls.fit_name, syscalls.calibration_name, syscalls.measured_name) == (SYSCALL_FIT, CALIBRATION, SANDBOX)
    assert syscalls.resources == ("jvmstart",) and syscalls.unfitted == ("syscall", "spawn")
    assert all(design == ("True",) for _, design in syscalls.designs) and syscalls.blocks == 5
    assert [(r.job, r.platform) for r in syscalls.rows] == [
        (job, platform) for job in sorted(JVM_SHARES) for platform in ("gvisor", "slowvm")
    ]
    for r in syscalls.rows:
        [share] = r.fit.coefficients
        assert share.resource == "jvmstart" and share.estimate == pytest.approx(JVM_SHARES[r.job], abs=0.1), r
    assert syscalls.rejected == ()  # one row, one share: no lack-of-fit test


def test_the_rows_measured_ratios_are_the_measured_campaigns(raw, syscalls):
    """`costs` timed no job: every measured ratio is `sandbox`'s. Without it nothing is compared."""
    want = _measured_ratios(raw, SANDBOX, syscalls.conf)
    assert len(syscalls.rows) == 4
    for r in syscalls.rows:
        assert _bounds(r.measured) == pytest.approx(_bounds(want[r.job, r.platform])), r
    for a in syscalls.attributions:
        assert _bounds(a.measured) == pytest.approx(_bounds(want[a.job, a.platform]))
    frame = C.cost_frame(syscalls)
    assert set(frame["measured_campaign"]) == {SANDBOX} and set(frame["calibration_campaign"]) == {CALIBRATION}
    with pytest.raises(ParamsError) as err:
        _study(raw, SYSCALL_FIT, CALIBRATION)
    assert err.value.field == str(raw / CALIBRATION / "samples.jsonl") and "timed none of the jobs" in err.value.message


def test_a_calibration_that_timed_jobs_of_its_own_is_not_where_the_measured_ratios_come_from(raw):
    mine = _measured_ratios(raw, TIMED_CALIBRATION, cm.DEFAULT_CONF)
    compared = _study(raw, SYSCALL_FIT, TIMED_CALIBRATION, SANDBOX)
    want = _measured_ratios(raw, SANDBOX, compared.conf)
    assert compared.measured_name == SANDBOX
    for r in compared.rows:
        assert _bounds(r.measured) == pytest.approx(_bounds(want[r.job, r.platform])), r
        assert r.measured.estimate != pytest.approx(mine[r.job, r.platform].estimate), r
    # Alone, the same calibration compares its own.
    alone = _study(raw, SYSCALL_FIT, TIMED_CALIBRATION)
    assert alone.measured_name == TIMED_CALIBRATION
    assert all(_bounds(r.measured) == pytest.approx(_bounds(mine[r.job, r.platform])) for r in alone.rows)


# --- the LaTeX -------------------------------------------------------------------------------------


def test_the_subsection_follows_the_first_parts_table_and_figure_with_its_own_table(study, syscalls):
    tex = C.section_tex(study, syscalls)
    first, second = tex.split(r"\subsection{The system-call level}\label{sec:costs-syscalls}")
    assert first.index(r"\input{generated/tables/costs.tex}") < first.index(r"\input{generated/figures/costs.tex}")
    assert second.strip().endswith(r"\input{generated/tables/costs-syscalls.tex}")
    assert "generated/figures/costs-syscalls" not in tex  # no second figure
    assert first.rstrip() + "\n" == C.section_tex(study)  # the first part as it is without the second
    # What was planted, and why a JVM's start is what was fitted (the design's rule 3).
    assert C.SYSCALL_PLANTED in second and "JVM start before it ran" in second and "rule 3" in second
    # Its numbers are its rows', said by the first part's sentences about its own table.
    s = syscalls.summary
    assert r"Table~\ref{tab:costs-syscalls}, the median absolute error" in second and r"\ref{fig:" not in second
    assert C.pct_text(s.median_abs_error) in second and f"agreed in {s.agrees} of {s.rows}" in second
    assert "1 planted configuration in 5 blocks" in second and r"as campaign \texttt{costs} calibrated them" in second
    [terasort, _nnbench] = syscalls.attributions
    [part] = terasort.parts()
    assert part.resource == "jvmstart" and f"{C.pct_text(part.share)} to JVM start" in second
    # The one planted level moved the three costs together: not "no planted slowdown moved them".
    assert "no planted slowdown moved" not in second.split(r"\input{")[0]
    assert "which no planted slowdown moved on their own" in first  # the first part's, as it was
    assert (
        "The planted level moved system calls, process creation and JVM start together, so the fit cannot give "
        "their shares apart: the part it gives JVM start stands for them all." in second
    )
    prose = second.split(r"\input{")[0].strip()
    assert "\n\n" not in prose  # one paragraph


def test_the_table_is_the_first_parts_with_its_label_and_the_three_campaigns(study, syscalls):
    table = C.table_costs(syscalls, C.SYSCALLS)
    assert r"\label{tab:costs-syscalls}" in table and r"\label{tab:costs}" not in table
    assert "under system-call stops" in table and "under planted slowdowns" not in table
    for campaign in (SYSCALL_FIT, CALIBRATION, SANDBOX):
        assert rf"\texttt{{{campaign}}}" in table, campaign
    assert r"Calibrated: campaign \texttt{costs}; measured: campaign \texttt{sandbox}" in table
    assert C.summary_text(syscalls) in table
    # The resources its one level moved with the fitted one are not said to be moved by none.
    assert "no planted slowdown moved them on their own" not in table
    assert "moved by the planted level together with JVM start" in table
    for r in syscalls.rows:
        assert C.pct_text(r.error.estimate, signed=True).removesuffix(r"\,\%") in table
    text = table + C.section_tex(study, syscalls)
    assert "_" not in text and "gvisor" not in text and "gVisor" in text  # names as a reader knows them
    # The first part's table is as it was: one campaign measured and calibrated.
    main = C.table_costs(study)
    assert r"Measured and calibrated: campaign \texttt{sandbox}" in main and r"\label{tab:costs}" in main


def test_without_the_second_study_the_section_has_no_subsection(study, syscalls):
    assert "subsection" not in C.section_tex(study) and "costs-syscalls" not in C.section_tex(study)
    with pytest.raises(ValueError):
        C.section_tex(None, syscalls)


# --- a first run that failed its rule 1 ----------------------------------------------------------------


def test_a_superseded_first_run_is_its_rule_1_computed_from_its_samples(raw):
    first = C.superseded_fit(load_campaign(raw / SUPERSEDED))
    [failed] = first.failed
    assert (first.name, failed.resource, failed.configuration, failed.planting) == (SUPERSEDED, "jvmstart", "True", 1)
    # Its 95 % interval of a JVM's start's cost under the stops against the unplanted hosts.
    costs = cm.cost_vectors_of(load_campaign(raw / SUPERSEDED).samples, baseline="False")
    want = next(v for v in costs if v.platform == "True").ratio("jvmstart").interval(0.95)
    assert _bounds(failed.ratio) == pytest.approx(_bounds(want))
    assert failed.ratio.estimate == pytest.approx(WEAK_STOPS["jvmstart"], abs=0.1) and failed.ratio.low < 1.5
    # A run whose rule 1 holds superseded nothing: the sentence would be false.
    with pytest.raises(ParamsError) as err:
        C.superseded_fit(load_campaign(raw / SYSCALL_FIT))
    assert err.value.field == str(raw / SYSCALL_FIT / "samples.jsonl") and "rule 1" in err.value.message


def test_the_subsection_says_the_first_run_failed_its_rule_1_in_one_sentence(raw, study, syscalls):
    first = C.superseded_fit(load_campaign(raw / SUPERSEDED))
    iv = first.failed[0].ratio
    est, low, high = (rf"\num{{{sig_digits(v, 3)}}}" for v in (iv.estimate, iv.low, iv.high))
    sentence = (
        rf"A first run of the same design, campaign \texttt{{{SUPERSEDED}}}, failed its rule 1 (the cost ratio of "
        rf"JVM start was {est} [{low}, {high}], under \num{{1.5}} at its lower bound; "
        r"95\,\% intervals), and by its design nothing else of it is read."
    )
    assert C.superseded_sentence(first) == sentence
    tex = C.section_tex(study, syscalls, first)
    first_part, second = tex.split(r"\subsection{The system-call level}")
    # In the subsection, after what was planted and before what was fitted on the run that is read.
    assert sentence not in first_part
    assert second.index(C.SYSCALL_PLANTED) < second.index(sentence) < second.index("The shares of JVM start")
    assert tex.replace(sentence + " ", "") == C.section_tex(study, syscalls)  # the one sentence added
    with pytest.raises(ValueError):
        C.section_tex(study, None, first)


# --- a second campaign: only the process and thread calls stopped ------------------------------------


def test_the_process_level_s_known_part_of_every_job_s_cost_is_read_from_its_samples(raw):
    for name in (LEVELS, LEVELS_APART):
        levels = C.level_parts(load_campaign(raw / name))
        assert levels.name == name and [j for j, _ in levels.parts] == ["terasort", "nnbench_create_write"]
        for _, iv in levels.parts:
            assert iv.estimate == pytest.approx(PART, abs=0.02) and iv.low < PART < iv.high
    # Its fit's rule 1: the process level moved the call x400 too, so nothing moved the two apart.
    assert not levels_of(raw, LEVELS).apart.passes
    assert levels_of(raw, LEVELS).apart.unresolved == C.LEVELS_FIT_RESOURCES == ("syscall", "spawn")
    apart = levels_of(raw, LEVELS_APART).apart
    assert apart.passes and apart.order == (("spawn", "process"), ("syscall", "True"))
    # Without a calibration there is no fit to read, whatever rule 1 says.
    assert levels_of(raw, LEVELS_APART).fit is None


def levels_of(raw: Path, name: str, calibrated: bool = False) -> C.LevelParts:
    if not calibrated:
        return C.level_parts(load_campaign(raw / name))
    return C.level_parts(load_campaign(raw / name), load_campaign(raw / CALIBRATION), load_campaign(raw / SANDBOX))


def test_the_subsection_says_the_part_in_one_sentence_after_the_first_run(raw, study, syscalls):
    levels = levels_of(raw, LEVELS, calibrated=True)
    assert levels.fit is None  # rule 1 fails: its fit is not read
    sentence = C.level_parts_sentence(levels)
    assert sentence.startswith(
        rf"A second campaign, \texttt{{{LEVELS}}}, stopped only the process and thread calls (their creation, "
        "exec, wait and exit) beside every call: of what stopping every call cost a job, that level gave "
        r"TeraSort \num{40}\,\% ["
    )
    assert r"and NNBench create/write \num{40}\,\% [" in sentence
    assert (
        r"(95\,\% intervals over its blocks); the rest is paid at the jobs' ordinary calls. Its own fit, on "
        "system calls and process creation, failed its rule 1 (its levels did not move them apart) and is not read."
    ) in sentence
    first = C.superseded_fit(load_campaign(raw / SUPERSEDED))
    tex = C.section_tex(study, syscalls, first, levels)
    first_part, second = tex.split(r"\subsection{The system-call level}")
    assert sentence not in first_part and C.LEVELS.title not in tex
    assert second.index(C.superseded_sentence(first)) < second.index(sentence) < second.index("The shares of JVM start")
    assert tex.replace(sentence + " ", "") == C.section_tex(study, syscalls, first)  # the one sentence added
    with pytest.raises(ValueError):
        C.section_tex(study, None, None, levels)


def test_a_fit_whose_levels_move_the_two_costs_apart_is_read_in_a_subsection_of_its_own(raw, study, syscalls):
    levels = levels_of(raw, LEVELS_APART, calibrated=True)
    fit = levels.fit
    assert fit is not None and fit.fit_name == LEVELS_APART and fit.resources == ("syscall", "spawn")
    assert (fit.calibration_name, fit.measured_name) == (CALIBRATION, SANDBOX)
    # The fit is `vbench predict CALIBRATION --fit LEVELS_APART --measured SANDBOX --resources syscall,spawn`'s.
    told = C.cost_study(
        load_campaign(raw / LEVELS_APART),
        load_campaign(raw / CALIBRATION),
        measured=load_campaign(raw / SANDBOX),
        resources=("syscall", "spawn"),
    )
    assert [(r.platform, r.job, r.predicted) for r in told.rows] == [(r.platform, r.job, r.predicted) for r in fit.rows]
    # A JVM's start, moved by both levels, is calibrated but not apart from the two.
    assert "jvmstart" in fit.unfitted
    tex = C.section_tex(study, syscalls, None, levels)
    syscall_part, levels_part = tex.split(rf"\subsection{{{C.LEVELS.title}}}\label{{{C.LEVELS.label}}}")
    assert r"\subsection{The system-call level}" in syscall_part and C.level_parts_sentence(levels) not in tex
    opening = C.levels_sentence(levels)
    assert levels_part.index(opening) < levels_part.index(C.fitted_sentence(fit))
    # What the partial level did to a JVM's threads is said where its fit is read, before the fit.
    assert (
        levels_part.index(opening)
        < levels_part.index(C.PARTIAL_LEVELS_THREADS)
        < levels_part.index(C.fitted_sentence(fit))
    )
    assert "its rule 1, that the levels move them apart, holds. Without the model, of what stopping every " in opening
    assert "the first level gave TeraSort" in opening
    assert levels_part.strip().endswith(r"\input{generated/tables/costs-syscall-levels.tex}")
    assert rf"Table~\ref{{{C.LEVELS.table_label}}}" in levels_part
    assert (
        "The planted levels moved JVM start with system calls and process creation, so the fit cannot give its "
        "share apart: the parts it gives system calls and process creation stand for it too."
    ) in levels_part
    table = C.table_costs(fit, C.LEVELS)
    assert r"\label{tab:costs-syscall-levels}" in table
    assert "moved by the planted levels with system calls and process creation and so not apart from them" in table


def test_vbench_predict_names_the_levels_design_s_resources_when_not_told(raw):
    from vbench.stats.cost_prediction import prediction_inputs

    fit, cal = load_campaign(raw / LEVELS_APART), load_campaign(raw / CALIBRATION)
    # Not told, rule 1 fits the JVM's start both levels moved; a note says what the design fits.
    assert any("--resources syscall,spawn" in n for n in prediction_inputs(fit, cal).notes)
    told = prediction_inputs(fit, cal, C.LEVELS_FIT_RESOURCES)
    assert told.apart.passes and not any("compares system-call levels" in n for n in told.notes)
    one_level = prediction_inputs(load_campaign(raw / SYSCALL_FIT), cal)
    assert not any("compares system-call levels" in n for n in one_level.notes)


def test_a_job_whose_every_call_ratio_holds_1_has_no_part():
    iv = C.Interval(None, None, None, "the whole level's ratio 1 has an interval holding 1")
    assert C._part_clause("terasort", iv) == "TeraSort no part (its every-call ratio holds 1)"


def test_a_campaign_without_the_process_level_is_refused_naming_its_samples(raw):
    with pytest.raises(ParamsError) as err:
        C.level_parts(load_campaign(raw / SYSCALL_FIT))
    assert err.value.field == str(raw / SYSCALL_FIT / "samples.jsonl") and "'process'" in err.value.message


# --- params/paper.yaml's keys ------------------------------------------------------------------------


def test_the_committed_keys_are_set_exactly_when_the_paper_stage_depends_on_their_samples():
    """Set, the paper stage depends on both campaigns' samples (or DVC would not rebuild the part when
    they change); empty, on neither. The statistics stage does not read them."""
    paper = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]

    def deps(stage: str) -> list[str]:
        return [d if isinstance(d, str) else next(iter(d)) for d in stages[stage]["deps"]]

    assert bool(paper[KEYS[0]]) == bool(paper[KEYS[1]])
    for key in KEYS:
        dep = f"data/raw/${{paper.{key}}}/samples.jsonl"
        assert f"-p {key} ${{paper.{key}}}" in stages["paper"]["cmd"]
        assert [d for d in deps("paper") if key in d] == ([dep] if paper[key] else []), key
        assert not any(key in d for d in deps("statistics")) and key not in stages["statistics"]["cmd"]
        if paper[key]:
            assert (ROOT / "data" / "raw" / str(paper[key]) / "samples.jsonl").is_file(), key


def _measured(raw: Path, *names: str) -> Path:
    """DATA/raw with a samples.jsonl in each of `names`: what the checks look at, no more."""
    for name in names:
        (raw / name).mkdir(parents=True, exist_ok=True)
        (raw / name / "samples.jsonl").write_text("")
    return raw


def _committed(tmp_path: Path, raw: Path, **paper) -> list[tuple[str, str]]:
    """`committed_inputs` of params/paper.yaml's section (the four keys the cost model reads, as
    committed, with `paper`'s instead) written under `tmp_path`."""
    params = tmp_path / "params"
    params.mkdir(exist_ok=True)
    (params / "pipeline.yaml").write_text(yaml.safe_dump({"pipeline": {"monitoring_campaign": "mon"}}))
    keys = {"sandbox_campaign": SANDBOX, "cost_fit_campaign": FIT, KEYS[0]: SYSCALL_FIT, KEYS[1]: CALIBRATION}
    (params / "paper.yaml").write_text(yaml.safe_dump({"paper": {**keys, **paper}}))
    return committed_inputs(params, raw)


def test_the_committed_rebuild_passes_both_campaigns_on(tmp_path):
    raw = _measured(tmp_path / "raw", SANDBOX, FIT, SYSCALL_FIT, CALIBRATION)
    assert _committed(tmp_path, raw) == [
        ("sandbox", SANDBOX),
        ("cost-fit", FIT),
        ("syscall-fit", SYSCALL_FIT),
        ("syscall-calibration", CALIBRATION),
    ]
    # Both empty: the part is omitted, nothing refused.
    assert _committed(tmp_path, raw, **{KEYS[0]: "", KEYS[1]: None}) == [("sandbox", SANDBOX), ("cost-fit", FIT)]
    inputs = PaperInputs.from_params({"cost_fit_campaign": FIT, KEYS[0]: "", KEYS[1]: ""})
    args = inputs.build_arguments(raw)
    assert args["syscall_fit_dir"] is None and args["syscall_calibration_dir"] is None
    assert not any(flag.startswith("syscall") for flag, _ in inputs.flags())


@pytest.mark.parametrize("key", KEYS)
def test_a_key_naming_a_campaign_with_no_samples_is_refused_naming_the_file_and_the_key(tmp_path, key):
    raw = _measured(tmp_path / "raw", SANDBOX, FIT, SYSCALL_FIT, CALIBRATION)
    (raw / "unmeasured").mkdir()  # a directory, but no samples in it
    field = f"{tmp_path / 'params' / 'paper.yaml'}: paper.{key}"
    for name in ("unmeasured", "gone"):
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **{key: name})
        assert err.value.field == field, name
        assert str(raw / name / "samples.jsonl") in err.value.message
        # The hint runs the campaign the key names, not one typed into the check.
        assert f"(`vbench campaign run {name}`)" in err.value.message
    # Not a plain name: refused before any directory is looked at.
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **{key: "../costs"})
    assert err.value.field == field


@pytest.mark.parametrize(
    "key, name, flag",
    [(SUPERSEDED_KEY, SUPERSEDED, "syscall-fit-superseded"), (LEVELS_KEY, LEVELS, "syscall-levels")],
)
def test_a_sentence_campaign_s_key_is_passed_on_or_refused_naming_the_file_and_the_key(tmp_path, key, name, flag):
    raw = _measured(tmp_path / "raw", SANDBOX, FIT, SYSCALL_FIT, CALIBRATION, name)
    assert _committed(tmp_path, raw, **{key: name})[-1] == (flag, name)
    field = f"{tmp_path / 'params' / 'paper.yaml'}: paper.{key}"
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **{key: "gone"})
    assert err.value.field == field and str(raw / "gone" / "samples.jsonl") in err.value.message
    assert "(`vbench campaign run gone`)" in err.value.message
    # Said in the system-call level's subsection: not without it.
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **{key: name, KEYS[0]: "", KEYS[1]: ""})
    assert err.value.field == field and "needs paper.syscall_fit_campaign set too" in err.value.message


@pytest.mark.parametrize("key", [SUPERSEDED_KEY, LEVELS_KEY])
def test_a_sentence_campaign_s_key_is_set_exactly_when_the_paper_stage_depends_on_its_samples(key):
    paper = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["paper"]
    deps = [d if isinstance(d, str) else next(iter(d)) for d in stage["deps"]]
    dep = f"data/raw/${{paper.{key}}}/samples.jsonl"
    assert f"-p {key} ${{paper.{key}}}" in stage["cmd"]
    assert [d for d in deps if key in d] == ([dep] if paper.get(key) else [])
    if paper.get(key):
        assert paper[KEYS[0]] and paper[key] != paper[KEYS[0]]
        assert (ROOT / "data" / "raw" / str(paper[key]) / "samples.jsonl").is_file()


def test_one_key_alone_or_either_without_the_fit_is_refused_naming_the_key(tmp_path):
    raw = _measured(tmp_path / "raw", SANDBOX, FIT, SYSCALL_FIT, CALIBRATION)
    fields = {key: f"{tmp_path / 'params' / 'paper.yaml'}: paper.{key}" for key in KEYS}
    for set_key, empty_key in (KEYS, KEYS[::-1]):
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **{empty_key: ""})
        assert err.value.field == fields[set_key] and f"needs {fields[empty_key]} set too" in err.value.message
    # The system-call level is a part of the cost model's section: not without its fit.
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, cost_fit_campaign="")
    assert err.value.field == fields[KEYS[0]] and "needs paper.cost_fit_campaign set too" in err.value.message


def test_the_builds_check_names_its_arguments_or_the_options_it_is_told(tmp_path):
    raw = _measured(tmp_path / "raw", FIT, SYSCALL_FIT)
    with pytest.raises(ParamsError) as err:
        check_syscall_fit(raw / SYSCALL_FIT, raw / "gone", raw / FIT)
    assert err.value.field == "syscall_calibration_dir"
    with pytest.raises(ParamsError) as err:
        check_syscall_fit(raw / SYSCALL_FIT, raw / "gone", raw / FIT, "--syscall-fit", "--syscall-calibration")
    assert err.value.field == "--syscall-calibration"
    check_syscall_fit(None, None, None)  # omitted


def test_the_command_refuses_a_system_call_level_it_cannot_read(tmp_path, capsys):
    _needs_figures()
    raw = _measured(tmp_path / "raw", "main", SANDBOX, FIT, CALIBRATION)
    run = cli_runner(capsys)
    argv = ("paper", "build", "--campaign", str(raw / "main"), "--out", str(tmp_path / "paper"), "--no-pdf")
    argv += ("--sandbox", str(raw / SANDBOX), "--cost-fit", str(raw / FIT))
    rc, err = run(*argv, "--syscall-fit", str(raw / "gone"), "--syscall-calibration", str(raw / CALIBRATION))
    assert rc == 2 and "--syscall-fit" in err and str(raw / "gone" / "samples.jsonl") in err
    rc, err = run(*argv, "--syscall-calibration", str(raw / CALIBRATION))
    assert rc == 2 and "--syscall-calibration" in err and "--syscall-fit" in err
    rc, err = run(*argv, "--syscall-fit-superseded", str(raw / "gone"))
    assert rc == 2 and "--syscall-fit-superseded" in err and str(raw / "gone" / "samples.jsonl") in err
    rc, err = run(*argv, "--syscall-levels", str(raw / "gone"))
    assert rc == 2 and "--syscall-levels" in err and str(raw / "gone" / "samples.jsonl") in err
    assert not (tmp_path / "paper" / "generated").exists()


# --- the build ---------------------------------------------------------------------------------------


def test_the_build_writes_the_subsection_and_its_table_only_with_both_campaigns(main_campaign, raw, tmp_path):
    from vbench.paper.build import generate

    given = {"n_resamples": 200, "sandbox_dir": raw / SANDBOX, "cost_fit_dir": raw / FIT}
    syscall_dirs = {"syscall_fit_dir": raw / SYSCALL_FIT, "syscall_calibration_dir": raw / CALIBRATION}
    superseded = {"syscall_fit_superseded_dir": raw / SUPERSEDED, "syscall_levels_dir": raw / LEVELS_APART}
    res = generate(main_campaign, tmp_path / "with", **given, **syscall_dirs, **superseded)
    gen = tmp_path / "with" / "generated"
    section = (gen / "costs.tex").read_text()
    assert r"\subsection{The system-call level}" in section
    assert C.superseded_sentence(C.superseded_fit(load_campaign(raw / SUPERSEDED))) in section
    # The levels' fit holds its rule 1: its subsection and table, predicting `costs`' platforms.
    assert C.levels_sentence(levels_of(raw, LEVELS_APART, calibrated=True)) in section
    levels_table = (gen / "tables" / "costs-syscall-levels.tex").read_text()
    assert r"\label{tab:costs-syscall-levels}" in levels_table
    levels_rows = pd.read_csv(gen / "costs-syscall-levels.csv")
    assert set(levels_rows["fit_campaign"]) == {LEVELS_APART} and len(levels_rows) == 4
    assert (gen / "costs-syscall-levels_attribution.csv").is_file()
    assert "costs-syscall-levels" in res.tables_with_data
    assert sum(n.startswith(f"cost model: fitted on {LEVELS_APART} (syscall, spawn)") for n in res.notes) == 1
    assert r"\input{generated/tables/costs-syscalls.tex}" in section
    table = (gen / "tables" / "costs-syscalls.tex").read_text()
    assert r"\label{tab:costs-syscalls}" in table and rf"\texttt{{{CALIBRATION}}}" in table
    rows = pd.read_csv(gen / "costs-syscalls.csv")
    assert len(rows) == 4 and set(rows["platform"]) == {"gvisor", "slowvm"}
    assert set(zip(rows["fit_campaign"], rows["calibration_campaign"], rows["measured_campaign"])) == {
        (SYSCALL_FIT, CALIBRATION, SANDBOX)
    }
    assert (gen / "costs-syscalls_attribution.csv").is_file() and not list((gen / "figures").glob("costs-syscalls*"))
    assert "costs-syscalls" in res.tables_with_data and "costs" in res.tables_with_data
    assert r"\newcommand{\vbHasTableCostsSyscalls}{1}" in (gen / "macros.tex").read_text()
    assert sum(n.startswith(f"cost model: fitted on {SYSCALL_FIT} (jvmstart)") for n in res.notes) == 1
    assert not any("system-call level is omitted" in n for n in res.notes)

    res = generate(main_campaign, tmp_path / "without", **given)
    gen = tmp_path / "without" / "generated"
    section = (gen / "costs.tex").read_text()
    assert "subsection" not in section and r"\label{sec:costs}" in section
    assert not (gen / "tables" / "costs-syscalls.tex").exists() and not (gen / "costs-syscalls.csv").exists()
    assert "costs-syscalls" not in res.tables_with_data + res.tables_absent
    assert not (gen / "tables" / "costs-syscall-levels.tex").exists()
    assert sum(n == C.SYSCALL_OMITTED_NOTE for n in res.notes) == 1


# --- a day of its own: the levels' fit held out ------------------------------------------------------


@pytest.fixture(scope="module")
def heldout(raw) -> C.HeldOut:
    levels = levels_of(raw, LEVELS_APART, calibrated=True)
    return C.held_out(load_campaign(raw / HELDOUT), load_campaign(raw / LEVELS_APART), levels)


def test_a_held_out_campaign_is_predicted_by_the_levels_fit_from_its_own_costs(raw, heldout):
    """Its rows are `vbench predict HELDOUT --fit LEVELS --resources syscall,spawn --seed <its seed>`'s:
    the levels' fit, its own calibration and its own jobs; its host-stack gVisor attributed."""
    expected = C.cost_study(
        load_campaign(raw / LEVELS_APART),
        load_campaign(raw / HELDOUT),
        seed=HELDOUT_SEED,
        platform=C.HOST_STACK,
        resources=C.LEVELS_FIT_RESOURCES,
    )
    study = heldout.study
    assert study.resources == C.LEVELS_FIT_RESOURCES and study.seed == HELDOUT_SEED
    assert study.fit_name == LEVELS_APART and study.calibration_name == study.measured_name == HELDOUT
    assert [(r.job, r.platform, r.predicted, r.measured) for r in study.rows] == [
        (r.job, r.platform, r.predicted, r.measured) for r in expected.rows
    ]
    assert {r.platform for r in study.rows} == {C.OWN_STACK, C.HOST_STACK}
    assert {a.platform for a in study.attributions} == {C.HOST_STACK}
    assert heldout.name == HELDOUT and heldout.blocks == BLOCKS


def test_the_two_network_stacks_ratio_recovers_the_known_answer(heldout):
    truth = {job: _true_ratio(job, HOST_STACK) / _true_ratio(job, GVISOR) for job in JVM_SHARES}
    got = dict(heldout.stacks)
    assert set(got) == set(truth)
    for job, ratio in truth.items():
        assert ratio < 0.8  # the host stack is cheaper here: a contrast worth reading
        # One seeded draw of 5 blocks: the estimate near the truth, its interval clear of 1 as the truth is.
        assert got[job].estimate == pytest.approx(ratio, rel=0.1), job
        assert got[job].high < 1, job


def test_a_held_out_campaign_is_not_read_where_the_levels_fit_is_not(raw, study, syscalls):
    levels = levels_of(raw, LEVELS, calibrated=True)
    assert levels.fit is None
    assert C.held_out(load_campaign(raw / HELDOUT), load_campaign(raw / LEVELS), levels) is None
    with pytest.raises(ValueError, match="held-out"):
        C.section_tex(study, syscalls, levels=levels, heldouts=[C.HeldOut(HELDOUT, BLOCKS, syscalls)])


def test_the_held_out_subsection_follows_the_levels_fit_s(raw, study, syscalls, heldout):
    levels = levels_of(raw, LEVELS_APART, calibrated=True)
    section = C.section_tex(study, syscalls, levels=levels, heldouts=[heldout])
    part_of = C.heldout_part(heldout)
    assert (part_of.name, part_of.table_label, part_of.label) == (
        f"costs-heldout-{HELDOUT}",
        f"tab:costs-heldout-{HELDOUT}",
        f"sec:costs-heldout-{HELDOUT}",
    )
    assert part_of.title == "The levels' fit held out: gVisor on both network stacks"
    head = rf"\subsection{{{part_of.title}}}\label{{{part_of.label}}}"
    assert section.index(rf"\label{{{C.LEVELS.label}}}") < section.index(head)
    part = section[section.index(head) :]
    opening = part.splitlines()[1]
    assert opening.startswith(
        rf"Campaign \texttt{{{HELDOUT}}} calibrated the same costs and timed the same jobs on native and on "
        "gVisor, on its own network stack (netstack, in the Sentry) and on the host's "
        r"(\texttt{runsc -{}-network=host}), in runs of its own (5 blocks), none of them in any fit"
    )
    stacks = C.and_list([C._stack_clause(j, iv) for j, iv in heldout.stacks])
    assert f"Per job, the host stack's time over gVisor's own was {stacks} (95" in opening
    assert "none of them in any fit: a second test of the levels' fit above." in opening
    assert rf"and each gVisor level of campaign \texttt{{{HELDOUT}}} was then predicted" in opening
    assert rf"Table~\ref{{{part_of.table_label}}}" in part
    assert part.strip().endswith(rf"\input{{generated/tables/costs-heldout-{HELDOUT}.tex}}")
    table = C.table_costs(heldout.study, part_of)
    assert rf"\label{{tab:costs-heldout-{HELDOUT}}}" in table and "gVisor, host stack" in table
    assert rf"Measured and calibrated: campaign \texttt{{{HELDOUT}}}" in table
    # Without it, no such subsection.
    assert head not in C.section_tex(study, syscalls, levels=levels)


@pytest.fixture(scope="module")
def second_heldout(raw) -> C.HeldOut:
    """A second day of its own, as costs-oneday: one gVisor beside native and "slowvm", no stacks."""
    levels = levels_of(raw, LEVELS_APART, calibrated=True)
    return C.held_out(load_campaign(raw / TIMED_CALIBRATION), load_campaign(raw / LEVELS_APART), levels)


def test_two_held_out_campaigns_are_two_subsections_in_the_list_s_order_with_labels_of_their_own(
    raw, study, syscalls, heldout, second_heldout
):
    levels = levels_of(raw, LEVELS_APART, calibrated=True)
    section = C.section_tex(study, syscalls, levels=levels, heldouts=[heldout, second_heldout])
    first, second = C.heldout_part(heldout), C.heldout_part(second_heldout)
    assert second.label == f"sec:costs-heldout-{TIMED_CALIBRATION}"
    assert len({first.name, second.name}) == len({first.table_label, second.table_label}) == 2
    # A campaign's labels are its own wherever the list puts it.
    swapped = C.section_tex(study, syscalls, levels=levels, heldouts=[second_heldout, heldout])
    assert swapped.index(rf"\label{{{second.label}}}") < swapped.index(rf"\label{{{first.label}}}")
    assert first.label not in C.section_tex(study, syscalls, levels=levels, heldouts=[second_heldout])
    heads = [section.index(rf"\label{{{p.label}}}") for p in (C.LEVELS, first, second)]
    assert heads == sorted(heads) and section.count(r"\subsection{") == 4
    part = section[heads[2] :]
    # Without gVisor's two stacks: a title naming its platforms, each of them predicted, no stacks said.
    assert second.title == rf"The levels' fit held out on \texttt{{{TIMED_CALIBRATION}}}: gVisor and slowvm"
    assert rf"\subsection{{{second.title}}}\label{{{second.label}}}" in section
    assert "none of them in any fit: a third test of the levels' fit above." in part
    assert rf"and each platform of campaign \texttt{{{TIMED_CALIBRATION}}} was then predicted" in part
    assert "gVisor level" not in part and "host stack" not in part
    assert rf"Table~\ref{{{second.table_label}}}" in part
    assert part.strip().endswith(rf"\input{{generated/tables/costs-heldout-{TIMED_CALIBRATION}.tex}}")
    table = C.table_costs(second_heldout.study, second)
    assert rf"\label{{{second.table_label}}}" in table and first.table_label not in table


def test_the_held_out_key_is_passed_on_or_refused_naming_the_file_and_the_key(tmp_path):
    raw = _measured(tmp_path / "raw", SANDBOX, FIT, SYSCALL_FIT, CALIBRATION, LEVELS_APART, HELDOUT, "second")
    with_levels = {LEVELS_KEY: LEVELS_APART}
    assert _committed(tmp_path, raw, **with_levels, **{HELDOUT_KEY: f"{HELDOUT}, second"})[-3:] == [
        ("syscall-levels", LEVELS_APART),
        ("syscall-levels-heldout", HELDOUT),
        ("syscall-levels-heldout", "second"),
    ]
    # Empty: no held-out campaign, nothing refused.
    assert _committed(tmp_path, raw, **with_levels, **{HELDOUT_KEY: ""})[-1] == ("syscall-levels", LEVELS_APART)
    field = f"{tmp_path / 'params' / 'paper.yaml'}: paper.{HELDOUT_KEY}"
    # Each campaign listed is checked: the second as the first.
    for listed in ("gone", f"{HELDOUT},gone"):
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **with_levels, **{HELDOUT_KEY: listed})
        assert err.value.field == field and str(raw / "gone" / "samples.jsonl") in err.value.message, listed
        assert "(`vbench campaign run gone`)" in err.value.message
    # Twice, its two subsections would share their labels.
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **with_levels, **{HELDOUT_KEY: f"{HELDOUT},second,{HELDOUT}"})
    assert err.value.field == field and f"lists {HELDOUT!r} twice" in err.value.message
    # Their platforms are predicted by the levels' fit: not without it.
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **{HELDOUT_KEY: HELDOUT})
    assert err.value.field == field and "needs paper.syscall_levels_campaign set too" in err.value.message
    for listed in ("../x", f"{HELDOUT},../x"):
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **with_levels, **{HELDOUT_KEY: listed})
        assert err.value.field == field, listed


def test_the_held_out_campaigns_are_the_paper_stage_s_dependencies_one_line_each():
    """Set, the paper stage depends on each listed campaign's samples (or DVC would not rebuild its
    subsection when they change), as on each study campaign's, each of the memory level's later
    tests', each campaign priced in the machine's CPU, each campaign of a further replication of it and
    each campaign of a test against pooled ratios or of a test of the rest priced: the stage's literal
    campaign lines are those seven lists, no more (a campaign taken out of any is no dependency left
    behind)."""
    paper = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["paper"]
    deps = [d if isinstance(d, str) else next(iter(d)) for d in stage["deps"]]
    names = campaign_list(paper.get(HELDOUT_KEY))
    assert f"-p {HELDOUT_KEY} ${{paper.{HELDOUT_KEY}}}" in stage["cmd"]
    # The list is no one path: a dependency on the key itself would be data/raw/<a>,<b>/samples.jsonl.
    assert not any(HELDOUT_KEY in d for d in deps)
    literal = {d for d in deps if d.startswith("data/raw/") and "$" not in d}
    studies = campaign_list(paper["study_campaigns"])
    tests = campaign_list(paper.get("memory_levels_tests"))
    priced = campaign_list(paper.get("cpu_tests"))
    replicated = [
        n for r in cpu_replications_of(paper.get("cpu_replications")) for n in (r.fit, r.fit_costs, *r.tests) if n
    ]
    # A pooled test's campaigns may be another list's already (its calibration a later test, its
    # measured campaign a replication's test): one line then, the other list's.
    pooled = [
        n
        for t in pooled_tests_of(paper.get("pooled_tests"))
        for n in (t.fit, t.fit_costs, t.calibration, *t.measured)
        if n
    ]
    # A rest test's campaigns likewise (its fit a pooled test's).
    rests = [n for t in rest_tests_of(paper.get("rest_tests")) for n in (t.fit, t.calibration, t.measured)]
    listed = (*studies, *names, *tests, *priced, *replicated, *pooled, *rests)
    assert literal == {f"data/raw/{n}/samples.jsonl" for n in listed}
    assert not set(replicated) & {*studies, *names, *tests, *priced}  # no path twice
    assert len(set(names)) == len(names) and not set(names) & set(studies)
    assert not set(tests) & {*studies, *names}  # no path twice
    assert not set(priced) & {*studies, *names, *tests}
    if names:
        assert paper[LEVELS_KEY] and paper[LEVELS_KEY] not in names
    for name in names:
        assert (ROOT / "data" / "raw" / name / "samples.jsonl").is_file(), name
        assert (ROOT / "params" / "experiments" / f"{name}.yaml").is_file(), f"no design named {name}"


def test_the_build_writes_the_held_out_subsection_and_its_table(main_campaign, raw, tmp_path):
    from vbench.paper.build import generate

    given = {
        "n_resamples": 200,
        "sandbox_dir": raw / SANDBOX,
        "cost_fit_dir": raw / FIT,
        "syscall_fit_dir": raw / SYSCALL_FIT,
        "syscall_calibration_dir": raw / CALIBRATION,
        "syscall_levels_dir": raw / LEVELS_APART,
    }
    heldout_dirs = [raw / HELDOUT, raw / TIMED_CALIBRATION]
    res = generate(main_campaign, tmp_path / "with", **given, syscall_levels_heldout_dirs=heldout_dirs)
    gen = tmp_path / "with" / "generated"
    section = (gen / "costs.tex").read_text()
    first, second = f"costs-heldout-{HELDOUT}", f"costs-heldout-{TIMED_CALIBRATION}"
    assert section.index(rf"\label{{sec:{first}}}") < section.index(rf"\label{{sec:{second}}}")
    assert rf"\label{{tab:{first}}}" in (gen / "tables" / f"{first}.tex").read_text()
    assert rf"\label{{tab:{second}}}" in (gen / "tables" / f"{second}.tex").read_text()
    rows = pd.read_csv(gen / f"{first}.csv")
    assert set(rows["platform"]) == {C.OWN_STACK, C.HOST_STACK} and len(rows) == 4
    assert set(zip(rows["fit_campaign"], rows["calibration_campaign"], rows["measured_campaign"])) == {
        (LEVELS_APART, HELDOUT, HELDOUT)
    }
    assert set(pd.read_csv(gen / f"{first}_attribution.csv")["platform"]) == {C.HOST_STACK}
    rows = pd.read_csv(gen / f"{second}.csv")
    assert set(rows["platform"]) == {"gvisor", "slowvm"} and set(rows["calibration_campaign"]) == {TIMED_CALIBRATION}
    assert set(pd.read_csv(gen / f"{second}_attribution.csv")["platform"]) == {"gvisor"}
    assert {first, second} <= set(res.tables_with_data)
    assert sum(n.startswith(f"cost model: fitted on {LEVELS_APART} (syscall, spawn)") for n in res.notes) == 3
    # Each is a campaign the paper read: a row of the campaigns' table.
    campaigns = (gen / "tables" / "campaigns.tex").read_text()
    assert HELDOUT in campaigns and TIMED_CALIBRATION in campaigns
    # Where the levels' fit is not read, neither is any held-out campaign: no subsection, no table.
    res = generate(
        main_campaign,
        tmp_path / "unread",
        **{**given, "syscall_levels_dir": raw / LEVELS},
        syscall_levels_heldout_dirs=heldout_dirs,
    )
    gen = tmp_path / "unread" / "generated"
    assert C.HELDOUT_PREFIX not in (gen / "costs.tex").read_text()
    assert not list((gen / "tables").glob(f"{C.HELDOUT_PREFIX}*"))
    assert not any(n.startswith(C.HELDOUT_PREFIX) for n in res.tables_with_data + res.tables_absent)


def test_the_command_refuses_a_held_out_campaign_without_samples_or_levels(tmp_path, capsys):
    _needs_figures()
    raw = _measured(tmp_path / "raw", "main", SANDBOX, FIT, SYSCALL_FIT, CALIBRATION, LEVELS_APART)
    run = cli_runner(capsys)
    argv = ("paper", "build", "--campaign", str(raw / "main"), "--out", str(tmp_path / "paper"), "--no-pdf")
    argv += ("--sandbox", str(raw / SANDBOX), "--cost-fit", str(raw / FIT), "--syscall-fit", str(raw / SYSCALL_FIT))
    argv += ("--syscall-calibration", str(raw / CALIBRATION))
    rc, err = run(*argv, "--syscall-levels", str(raw / LEVELS_APART), "--syscall-levels-heldout", str(raw / "gone"))
    assert rc == 2 and "--syscall-levels-heldout" in err and str(raw / "gone" / "samples.jsonl") in err
    rc, err = run(*argv, "--syscall-levels-heldout", str(raw / LEVELS_APART))
    assert rc == 2 and "--syscall-levels-heldout" in err and "needs --syscall-levels set too" in err
    # Repeatable: the second is checked as the first, before anything is read.
    levels = ("--syscall-levels", str(raw / LEVELS_APART), "--syscall-levels-heldout", str(raw / LEVELS_APART))
    rc, err = run(*argv, *levels, "--syscall-levels-heldout", str(raw / "gone"))
    assert rc == 2 and "--syscall-levels-heldout" in err and str(raw / "gone" / "samples.jsonl") in err
    assert not (tmp_path / "paper" / "generated").exists()


def test_a_held_out_campaign_of_one_gvisor_names_its_platforms_and_no_stacks(raw):
    levels = levels_of(raw, LEVELS_APART, calibrated=True)
    heldout = C.held_out(load_campaign(raw / TIMED_CALIBRATION), load_campaign(raw / LEVELS_APART), levels)
    assert heldout.stacks == () and {a.platform for a in heldout.study.attributions} == {"gvisor"}
    sentence = C.heldout_sentence(heldout)
    # One list, native first: not "native and gVisor and slowvm".
    assert "timed the same jobs on native, gVisor and slowvm, in runs of its own (5 blocks)" in sentence
    assert "host stack" not in sentence and "Per job" not in sentence
