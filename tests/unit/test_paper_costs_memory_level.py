"""The cost-model section's subsection "A JVM's start apart from its calls" (vbench.paper.costs.
MEMORY_LEVELS, issue #53), on synthetic campaigns with a known answer.

As params/experiments/costs-fit-memory.yaml reads them: a fit shaped like costs-fit-memory (native with
no call stopped, "False"; the process and thread calls alone, with the plant fixed for threads,
"process"; the calls that map memory alone, "memory"; every call, True; 5 blocks) whose memory level
moves a JVM's start and leaves its call, and whose every call moves the call too, so that the levels
move the two apart (its rule 1 on `rpc` and `jvmstart` holds) while a process creation moves with a
JVM's start at every level; and one campaign shaped like costs-jvm-sameday (native, gVisor and LXC,
the four costs and the jobs in the same blocks) that is both the calibration and the measured jobs.
Each job's true ratio is 1 + its share of each of the two costs times that cost's ratio - 1, so the
fitted shares are known. The builders are test_paper_costs_rpc_level's and test_predict_cmd's; the
section's first part is test_paper_costs'. params/paper.yaml's three keys: test_paper_levels_keys.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import json

import pandas as pd
import pytest

import tests.unit.test_predict_cmd as P
from tests.unit.builders import cli_runner
from tests.unit.test_paper_costs_rpc_level import RPC_MICRO, _rpc_levels_campaign
from tests.unit.test_paper_costs_syscalls import FIT, SANDBOX, section_base
from tests.unit.test_predict_cmd import DRAWS, MICRO, PLATFORMS, calibration_campaign
from vbench.errors import ParamsError
from vbench.paper import costs as C
from vbench.stats.campaign import load_campaign

MEMORY_FIT, MEMORY_CALIBRATION, MEMORY_MEASURED = "costs-fit-memory", "costs-jvm-platforms", "costs-jvm-sameday"
MEMORY_FIT_SEED = 53031
#: The fit's machine, as its hosts stamp it on every sample.
MACHINE = "Intel(R) Xeon(R) Processor"
#: A run whose memory level left a JVM's start where it was: only every call moves it, with the call.
UNMOVED = "costs-fit-memory-unmoved"
#: The fixed process level and every call alone, no memory level: not the design the part reads.
NO_MEMORY_LEVEL = "costs-fit-threads"
#: Campaigns run after the fit was read (params/paper.yaml's `memory_levels_tests`), each calibrating
#: and timing the platforms in the same blocks: on the fit's machine, on another, and one whose gVisor
#: jobs are DEARER than the two costs price (as gVisor's TeraSort was on the Intel days).
LATER, LATER_ELSEWHERE, LATER_DEARER = "costs-jvm-sameday-confirm", "costs-sameday-amd", "costs-dearer"
OTHER_MACHINE = "AMD EPYC"
DEARER = 1.3
KEYS = ("memory_levels_campaign", "memory_levels_calibration_campaign", "memory_levels_measured_campaign")
FLAGS = ("memory-levels", "memory-levels-calibration", "memory-levels-measured")
#: The four costs the fit's hosts calibrate (test_predict_cmd's MICRO form).
MEMORY_MICRO = {**RPC_MICRO, "jvmstart": ("jvmstart", "jvm_start_ms", "ms", 30.0, False)}
#: Each planted level's costs on native (native's, 1, where not said), as costs-fit-memory measured them.
EVERY_CALL = {"rpc": 7.0, "jvmstart": 2.9, "syscall": 700.0, "spawn": 6.0}
AT_LEVELS = {"process": {"spawn": 1.4, "jvmstart": 1.2}, "memory": {"spawn": 2.8, "jvmstart": 2.2}, True: EVERY_CALL}
#: Each job's true shares of native time per cost (test_predict_cmd's jobs).
SHARES = {"terasort": {"rpc": 0.1, "jvmstart": 0.3}, "nnbench_create_write": {"rpc": 0.2, "jvmstart": 0.1}}
#: The platforms calibrated and timed: their true costs over native's.
MEMORY_PLATFORMS = {
    "gvisor": {"rpc": 8.0, "jvmstart": 4.5, "syscall": 129.0, "spawn": 13.0},
    "lxc": {"rpc": 1.05, "jvmstart": 1.06, "syscall": 1.05, "spawn": 1.04},
}


def _true_ratio(job: str, costs: dict[str, float], _ratio=P.true_ratio) -> float:
    """test_predict_cmd's true ratio plus the job's shares of the call and the start times their extra costs."""
    return _ratio(job, costs) + sum(share * (costs.get(r, 1.0) - 1) for r, share in SHARES[job].items())


def _dearer_on_gvisor(job: str, costs: dict[str, float]) -> float:
    """`_true_ratio`, times DEARER on gVisor (the only platform whose call costs x8)."""
    return _true_ratio(job, costs) * (DEARER if costs.get("rpc", 1.0) > 2 else 1.0)


def _stamped(d: Path, machine: str) -> Path:
    """Every sample of `d` stamped with its hosts' CPU model, as vbench.provenance records it."""
    path = d / "samples.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for r in records:
        r["metadata"]["cpu_model"] = machine
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    return d


@pytest.fixture(scope="module")
def raw(tmp_path_factory) -> Path:
    """DATA/raw with the section's first fit and `sandbox`, the memory level's fits and the campaigns
    they predict."""
    raw = tmp_path_factory.mktemp("data") / "raw"
    section_base(raw)
    with pytest.MonkeyPatch.context() as mp:
        for resource, spec in MEMORY_MICRO.items():
            mp.setitem(MICRO, resource, spec)
        for platform, costs in MEMORY_PLATFORMS.items():
            mp.setitem(PLATFORMS, platform, costs)
        mp.setattr(P, "true_ratio", _true_ratio)
        _stamped(_rpc_levels_campaign(raw / MEMORY_FIT, AT_LEVELS, seed=MEMORY_FIT_SEED), MACHINE)
        unmoved = {**AT_LEVELS, "memory": {"spawn": 1.1}, True: {"rpc": 7.0}}
        _rpc_levels_campaign(raw / UNMOVED, unmoved, seed=MEMORY_FIT_SEED)
        _rpc_levels_campaign(raw / NO_MEMORY_LEVEL, {"process": AT_LEVELS["process"], True: EVERY_CALL})
        others = tuple(r for r in MICRO if r not in MEMORY_MICRO)
        platforms = ("native", *MEMORY_PLATFORMS)
        calibration_campaign(raw / MEMORY_CALIBRATION, platforms, drop=others)
        calibration_campaign(raw / MEMORY_MEASURED, platforms, jobs=True, seed=3, drop=others)
        calibration_campaign(raw / LATER, platforms, jobs=True, seed=5, drop=others, cpu_model=MACHINE)
        elsewhere = raw / LATER_ELSEWHERE
        calibration_campaign(elsewhere, platforms, jobs=True, seed=6, drop=others, cpu_model=OTHER_MACHINE)
        mp.setattr(P, "true_ratio", _dearer_on_gvisor)
        calibration_campaign(raw / LATER_DEARER, platforms, jobs=True, seed=8, drop=others, cpu_model=MACHINE)
    return raw


def _memory_levels(
    raw: Path, fit: str = MEMORY_FIT, calibration: str = MEMORY_MEASURED, tests: tuple[str, ...] = ()
) -> C.LevelsFit:
    return C.memory_levels(
        load_campaign(raw / fit),
        load_campaign(raw / calibration),
        load_campaign(raw / MEMORY_MEASURED),
        DRAWS,
        tests=tuple(load_campaign(raw / t) for t in tests),
    )


@pytest.fixture(scope="module")
def levels(raw) -> C.LevelsFit:
    return _memory_levels(raw)


@pytest.fixture(scope="module")
def study(raw) -> C.CostStudy:
    return C.cost_study(load_campaign(raw / FIT), load_campaign(raw / SANDBOX), n_draws=DRAWS)


def _subsection(tex: str) -> str:
    """The memory level's subsection: from its heading to the end."""
    return tex[tex.index(rf"\subsection{{{C.MEMORY_LEVELS.title}}}\label{{{C.MEMORY_LEVELS.label}}}") :]


# --- the fit -------------------------------------------------------------------------------------------


def test_the_levels_move_a_jvm_s_start_and_its_call_apart_and_the_fit_recovers_both_shares(levels):
    assert levels.resources == C.MEMORY_LEVELS_RESOURCES == ("rpc", "jvmstart")
    assert levels.apart.passes and levels.apart.order == (("jvmstart", "memory"), ("rpc", "True"))
    assert levels.machine == MACHINE
    study = levels.study
    assert study.resources == ("rpc", "jvmstart") and study.seed == MEMORY_FIT_SEED  # the fit's design seed
    assert study.unfitted == ("syscall", "spawn") and study.left_out == ()
    assert sorted((r.job, r.platform) for r in study.rows) == [
        (job, platform) for job in sorted(SHARES) for platform in sorted(MEMORY_PLATFORMS)
    ]
    for r in study.rows:
        shares = {c.resource: c.estimate for c in r.fit.coefficients}
        assert shares == pytest.approx(SHARES[r.job], abs=0.03), r
        truth = _true_ratio(r.job, MEMORY_PLATFORMS[r.platform])
        assert r.predicted.estimate == pytest.approx(truth, rel=0.05), r
        assert r.measured.estimate == pytest.approx(truth, rel=0.1), r


def test_a_process_creation_moves_with_a_jvm_s_start_and_is_said_not_fitted(levels):
    assert C.MEMORY_LEVELS_BESIDE == ("spawn",) and not levels.beside.passes
    assert "spawn" in levels.beside.unresolved
    assert C.levels_beside_sentence(levels).startswith(
        "Its levels do not move a process creation apart from a loopback RPC of a JVM and a JVM's start ("
    )


def test_a_memory_level_that_leaves_the_start_fails_rule_1_and_nothing_is_fitted(raw):
    unread = _memory_levels(raw, UNMOVED)
    assert not unread.apart.passes and unread.study is None


def test_a_fit_without_the_memory_level_is_refused_naming_its_samples(raw):
    with pytest.raises(ParamsError) as err:
        _memory_levels(raw, NO_MEMORY_LEVEL)
    assert err.value.field == str(raw / NO_MEMORY_LEVEL / "samples.jsonl") and "'memory'" in err.value.message


# --- its later tests ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tested(raw) -> C.LevelsFit:
    return _memory_levels(raw, tests=(LATER, LATER_ELSEWHERE, LATER_DEARER))


def test_each_later_campaign_is_predicted_from_its_own_costs_against_its_own_jobs(levels, tested):
    assert levels.tests == ()  # none asked, none read
    assert [t.name for t in tested.tests] == [LATER, LATER_ELSEWHERE, LATER_DEARER]
    assert [t.other_machine for t in tested.tests] == ["", OTHER_MACHINE, ""]
    for test in tested.tests:
        assert test.blocks == P.BLOCKS and test.study.measured_name == test.study.calibration_name == test.name
        assert test.study.fit_name == MEMORY_FIT and test.study.resources == C.MEMORY_LEVELS_RESOURCES
        assert {r.platform for r in test.gvisor_rows} == {"gvisor"} and {r.platform for r in test.other_rows} == {"lxc"}
    errors = {t.name: [r.error.estimate for r in t.gvisor_rows] for t in tested.tests}
    assert all(abs(e) < 0.1 for e in errors[LATER] + errors[LATER_ELSEWHERE]), errors
    assert errors[LATER_DEARER] == pytest.approx([DEARER - 1] * 2, abs=0.1), errors
    assert [t.gvisor_within_target for t in tested.tests] == [True, True, False]


def test_a_fit_whose_rule_1_fails_reads_no_later_test(raw):
    assert _memory_levels(raw, UNMOVED, tests=(LATER,)).tests == ()


def test_the_later_tests_sentence_gives_gvisor_s_errors_the_others_held_and_the_machine(tested):
    sentence = C.levels_tests_sentence(tested)
    later, elsewhere, dearer = tested.tests
    assert sentence.startswith(
        "The same fit predicted 3 later campaigns, each run after it was read, that calibrated the costs and timed "
        rf"the jobs in the same blocks: on \texttt{{{LATER}}} ({P.BLOCKS} blocks), gVisor's "
    )
    assert (
        rf"on \texttt{{{LATER_ELSEWHERE}}} ({P.BLOCKS} blocks, on {OTHER_MACHINE}, another machine than the fit's)"
        in (sentence)
    )
    row = dearer.gvisor_rows[0]
    assert (
        rf"{C.tex_escape(C.job_name(row.job))} measured {C.interval_cell(row.measured)} against a predicted "
        rf"\num{{{C.sig_digits(row.predicted.estimate, 3)}}} ({C.pct_text(row.error.estimate, signed=True)})"
    ) in sentence
    held = [sum(r.measured.low <= r.predicted.estimate <= r.measured.high for r in t.other_rows) for t in tested.tests]
    assert sum(held) >= 4  # the cost LXC adds is priced right: its 95 % intervals hold nearly all
    clauses = sentence.split("; ")
    assert [f"held {h} of the 2 LXC predictions" in c for h, c in zip(held, clauses)] == [True] * 3
    assert sentence.endswith(r"Every gVisor job came within \num{15}\,\% of its measured ratio in 2 of 3 tests.")
    assert C.levels_tests_sentence(_without_tests(tested)) == ""


def _without_tests(levels: C.LevelsFit) -> C.LevelsFit:
    return replace(levels, tests=())


def test_the_later_tests_are_a_paragraph_after_the_subsection_s_table(study, tested):
    part = _subsection(C.section_tex(study, memory_levels=tested))
    table = r"\input{generated/tables/costs-memory-levels.tex}"
    assert part.rstrip().endswith(table + "\n\n" + C.levels_tests_sentence(tested))
    assert _subsection(C.section_tex(study, memory_levels=_without_tests(tested))).rstrip().endswith(table)


# --- the LaTeX -------------------------------------------------------------------------------------


def test_the_subsection_comes_after_the_one_priced_by_a_call_with_its_machine_sentences_and_table(study, levels):
    # The subsection priced by a JVM's call, with this fit standing in for it: only its place is read.
    rpc_levels = C.LevelsFit(
        NO_MEMORY_LEVEL, MEMORY_CALIBRATION, MEMORY_MEASURED, ("rpc",), levels.apart, levels.study, levels.beside
    )
    barrier = [r"\subsection{NNBench}\label{sec:costs-barrier}", "After."]
    before = C.section_tex(study, rpc_levels=rpc_levels, after=barrier)
    tex = C.section_tex(study, rpc_levels=rpc_levels, memory_levels=levels, after=barrier)
    part = _subsection(tex)
    assert tex.index(rf"\label{{{C.RPC_LEVELS.label}}}") < tex.index(part) < tex.index(r"\label{sec:costs-barrier}")
    assert tex.replace(part[: part.index(barrier[0])], "") == before
    part = part[: part.index(barrier[0])]
    opening, prose = part.splitlines()[1], part.split(r"\input{")[0]
    assert opening.startswith(
        rf"Campaign \texttt{{{MEMORY_FIT}}} on {C.tex_escape(MACHINE)} (Table~\ref{{tab:campaigns}} names each "
        "campaign's machine) timed the jobs on native hosts with no call stopped, with only the process and thread "
        r"calls stopped (\texttt{strace -f -{}-seccomp-bpf -e trace=\%process,set\_robust\_list}), with only the calls "
        r"that map, unmap, protect and advise memory stopped (\texttt{strace -f -{}-seccomp-bpf -e "
        r"trace=\%memory,set\_robust\_list}: a JVM's start pays them in quantity, its calls not at all) and with "
        "every call stopped, so that each job gets two shares, of a loopback RPC of a JVM and a JVM's start, as its "
        rf"design named them before it ran, and the platforms campaign \texttt{{{MEMORY_MEASURED}}} calibrated are "
        "predicted against the jobs it timed in the same blocks; its rule 1, that the levels move the two apart, "
        "holds. Its levels do not move a process creation apart"
    )
    assert opening.endswith(C.fitted_sentence(levels.study, "each platform"))
    assert C.PARTIAL_LEVELS_THREADS not in part  # its partial levels are the fixed ones
    fit = levels.study
    assert C.accuracy_sentence(fit, C.MEMORY_LEVELS) in prose
    assert C.attribution_sentence(fit, C.MEMORY_LEVELS) in prose
    assert part.strip().endswith(r"\input{generated/tables/costs-memory-levels.tex}")
    assert "\n\n" not in prose.strip()  # one paragraph
    with pytest.raises(ValueError):
        C.section_tex(None, memory_levels=levels)


def test_a_calibration_apart_from_the_jobs_is_named_beside_them(raw):
    apart = _memory_levels(raw, calibration=MEMORY_CALIBRATION)
    assert (
        rf"the platforms campaign \texttt{{{MEMORY_CALIBRATION}}} calibrated are predicted against the jobs campaign "
        rf"\texttt{{{MEMORY_MEASURED}}} timed; its rule 1" in C.memory_levels_sentence(apart)
    )


def test_a_fit_whose_rule_1_fails_is_one_sentence_and_no_table(raw, study):
    unread = _memory_levels(raw, UNMOVED)
    part = _subsection(C.section_tex(study, memory_levels=unread))
    sentence = C.memory_levels_unread_sentence(unread)
    assert part.splitlines()[1:] == [sentence]  # the heading, then the one sentence: no table, no number
    assert "so that each job would get two shares" in sentence and "failed its rule 1 (no level moved" in sentence
    assert sentence.startswith(rf"Campaign \texttt{{{UNMOVED}}} timed")  # no machine recorded: none said


def test_the_table_has_its_label_its_three_levels_and_its_campaigns(levels):
    table = C.table_costs(levels.study, C.MEMORY_LEVELS)
    assert r"\label{tab:costs-memory-levels}" in table and "under system-call stops at three levels" in table
    assert "the shares of native time that scale with loopback RPCs and JVM start" in table
    assert C.summary_text(levels.study) in table
    assert "_" not in table and "gvisor" not in table and "gVisor" in table


# --- the build ---------------------------------------------------------------------------------------


def _build_argv(raw: Path, main: Path, out: Path) -> tuple[str, ...]:
    argv = ("paper", "build", "--campaign", str(main), "--out", str(out), "--no-pdf", "--resamples", "200")
    argv += ("--sandbox", str(raw / SANDBOX), "--cost-fit", str(raw / FIT))
    names = (MEMORY_FIT, MEMORY_MEASURED, MEMORY_MEASURED)
    return argv + tuple(a for flag, name in zip(FLAGS, names) for a in (f"--{flag}", str(raw / name)))


def test_vbench_paper_build_with_the_three_options_writes_the_subsection_and_its_table(
    main_campaign, raw, tmp_path, capsys
):
    run = cli_runner(capsys)
    argv = _build_argv(raw, main_campaign, tmp_path / "paper")
    rc, err = run(*argv[: argv.index("--memory-levels-measured")])  # two of three: refused before anything
    assert rc == 2 and "needs --memory-levels-measured set too" in err
    assert not (tmp_path / "paper" / "generated").exists()
    rc, err = run(*argv)
    assert rc == 0, err
    gen = tmp_path / "paper" / "generated"
    part = _subsection((gen / "costs.tex").read_text())
    assert part.strip().endswith(r"\input{generated/tables/costs-memory-levels.tex}")
    assert r"\label{tab:costs-memory-levels}" in (gen / "tables" / "costs-memory-levels.tex").read_text()
    rows = pd.read_csv(gen / "costs-memory-levels.csv")
    assert len(rows) == 4 and set(rows["platform"]) == set(MEMORY_PLATFORMS)
    assert f"note: cost model: fitted on {MEMORY_FIT} (rpc, jvmstart), predicted for {MEMORY_MEASURED}'s" in err
