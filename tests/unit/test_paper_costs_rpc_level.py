"""The cost-model section's subsection "Priced by a JVM's call" (vbench.paper.costs.RPC_LEVELS, issue
#53), on synthetic campaigns with a known answer, and its three keys of params/paper.yaml.

Three campaigns, as params/experiments/costs-fit-threads.yaml and costs-rpc-platforms read them: a fit
shaped like costs-fit-threads (native with no call stopped, "False"; only the process and thread calls,
with the plant fixed for threads, "process"; every call, True; 5 blocks) whose process level moves
nothing beyond its noise (a process creation x1.2) and whose every call moves a JVM's loopback RPC, a
call and a process creation together, so that a level moves the RPC (its rule 1 on `rpc` holds) but
none moves a process creation apart from it; a calibration shaped like costs-rpc-platforms (native,
gVisor and LXC, those three costs alone, no job); and the jobs of a campaign shaped like
costs-oneday-confirm (the same platforms). Each host records what it planted (`slowdown_applied`, as
vbench.testbed.syscall_stops.applied words it). The builders are test_predict_cmd's, with the three
costs among its micro-benchmarks and each job's true ratio 1 + its share of the RPC times (the RPC's
cost ratio - 1), so the fitted share is known. The section's first part is test_paper_costs': a fit
shaped like costs-fit-nodelay and `sandbox` as its calibration.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import tests.unit.test_predict_cmd as P
from tests.unit.builders import cli_runner
from tests.unit.test_paper_costs import _needs_figures
from tests.unit.test_paper_costs_syscalls import (
    planted_levels_campaign,
    FIT,
    SANDBOX,
    SYSCALL_MICRO,
    section_base,
)
from tests.unit.test_predict_cmd import (
    BLOCKS,
    DRAWS,
    MICRO,
    PLATFORMS,
    calibration_campaign,
)
from vbench.errors import ParamsError
from vbench.paper import costs as C
from vbench.stats.campaign import load_campaign
from vbench.stats.cost_prediction import ApartCheck
from vbench.testbed.syscall_stops import FIRST_CALL, applied

RPC_FIT, RPC_CALIBRATION, RPC_MEASURED = "costs-fit-threads", "costs-rpc-platforms", "costs-oneday-confirm"
RPC_FIT_SEED = 53022
#: A run of the same levels whose process level moved a process creation x3.2 and left the RPC: its levels
#: move the two apart (what costs-fit-threads' design asked, and did not find).
APART = "costs-fit-threads-apart"
#: A run whose every call left the RPC where it was: no level moves it, its rule 1 fails.
UNMOVED = "costs-fit-threads-unmoved"
#: The same levels planted before the fix for threads (`slowdown_applied` without FIRST_CALL).
UNFIXED = "costs-fit-threads-unfixed"
#: Every call stopped alone, no process level: not the design the part reads.
NO_PROCESS_LEVEL = "costs-fit-every-call"
KEYS = ("rpc_levels_campaign", "rpc_levels_calibration_campaign", "rpc_levels_measured_campaign")
FLAGS = ("rpc-levels", "rpc-levels-calibration", "rpc-levels-measured")
#: The three costs the fit's hosts calibrate, as the micro-benchmarks record them (test_predict_cmd's
#: MICRO form; `rpc` as cost_model.RESOURCES names it).
RPC_MICRO = {
    "syscall": SYSCALL_MICRO["syscall"],
    "spawn": SYSCALL_MICRO["spawn"],
    "rpc": ("rpc", "rpc_us", "us", 40.0, False),
}
#: Each planted level's costs on native (native's, 1, where not said).
EVERY_CALL = {"rpc": 8.0, "syscall": 700.0, "spawn": 9.0}
AT_LEVELS = {"process": {"spawn": 1.2}, True: EVERY_CALL}
#: Each job's true share of native time per RPC's cost (test_predict_cmd's jobs).
RPC_SHARES = {"terasort": 0.1, "nnbench_create_write": 0.2}
#: The platforms calibrated and timed: their true costs over native's.
RPC_PLATFORMS = {
    "gvisor": {"rpc": 8.16, "syscall": 129.0, "spawn": 10.0},
    "lxc": {"rpc": 1.09, "syscall": 1.05, "spawn": 1.1},
}


def _true_ratio(job: str, costs: dict[str, float], _ratio=P.true_ratio) -> float:
    """test_predict_cmd's true ratio plus the job's share of the RPC times its extra cost."""
    return _ratio(job, costs) + RPC_SHARES[job] * (costs.get("rpc", 1.0) - 1)


def _rpc_levels_campaign(d: Path, at_levels: dict, fixed: bool = True, seed: int = RPC_FIT_SEED) -> Path:
    """Native hosts with no system call stopped and at each of `at_levels` (its costs there), BLOCKS
    blocks, little noise (test_paper_costs_syscalls' `planted_levels_campaign`), its design seeded
    `seed` (costs-fit-threads'); each planted sample records its level's plant as the testbed words it,
    the process level's without FIRST_CALL where not `fixed`."""
    planted_levels_campaign(d, at_levels, seed=seed, prefix="rpc-levels")
    samples = d / "samples.jsonl"
    records = [json.loads(line) for line in samples.read_text().splitlines()]
    for r in records:
        level = r.get("metadata", {}).get("factor.slowdown.syscall_stops")
        if level in ("process", True):
            plant = applied(level) if fixed or level is True else applied(level).replace(f",{FIRST_CALL}", "")
            r["metadata"]["slowdown_applied"] = f"syscall_stops={plant}"
    samples.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    return d


@pytest.fixture(scope="module")
def raw(tmp_path_factory) -> Path:
    """DATA/raw with the section's first fit and `sandbox`, and the fits priced by a JVM's call, their
    calibration and measured jobs."""
    raw = tmp_path_factory.mktemp("data") / "raw"
    # The first part's, as test_paper_costs': gVisor with test_predict_cmd's sandboxed costs.
    section_base(raw)
    with pytest.MonkeyPatch.context() as mp:
        for resource, spec in RPC_MICRO.items():
            mp.setitem(MICRO, resource, spec)
        for platform, costs in RPC_PLATFORMS.items():
            mp.setitem(PLATFORMS, platform, costs)
        mp.setattr(P, "true_ratio", _true_ratio)
        _rpc_levels_campaign(raw / RPC_FIT, AT_LEVELS)
        _rpc_levels_campaign(raw / APART, {"process": {"spawn": 3.2}, True: EVERY_CALL})
        _rpc_levels_campaign(raw / UNMOVED, {**AT_LEVELS, True: {**EVERY_CALL, "rpc": 1.0}})
        _rpc_levels_campaign(raw / UNFIXED, AT_LEVELS, fixed=False)
        _rpc_levels_campaign(raw / NO_PROCESS_LEVEL, {True: EVERY_CALL})
        others = tuple(r for r in MICRO if r not in RPC_MICRO)
        platforms = ("native", *RPC_PLATFORMS)
        calibration_campaign(raw / RPC_CALIBRATION, platforms, drop=others)
        calibration_campaign(raw / RPC_MEASURED, platforms, jobs=True, seed=3, drop=(*others, "rpc"))
    return raw


def _rpc_levels(raw: Path, fit: str = RPC_FIT) -> C.LevelsFit:
    return C.rpc_levels(
        load_campaign(raw / fit), load_campaign(raw / RPC_CALIBRATION), load_campaign(raw / RPC_MEASURED), DRAWS
    )


@pytest.fixture(scope="module")
def levels(raw) -> C.LevelsFit:
    return _rpc_levels(raw)


@pytest.fixture(scope="module")
def study(raw) -> C.CostStudy:
    return C.cost_study(load_campaign(raw / FIT), load_campaign(raw / SANDBOX), n_draws=DRAWS)


def _subsection(tex: str) -> str:
    """The subsection priced by a JVM's call: from its heading to the end."""
    return tex[tex.index(rf"\subsection{{{C.RPC_LEVELS.title}}}\label{{{C.RPC_LEVELS.label}}}") :]


# --- the fit -------------------------------------------------------------------------------------------


def test_a_level_moves_the_rpc_and_the_one_share_fit_recovers_each_job_s_share(levels):
    assert (levels.name, levels.calibration_name, levels.measured_name) == (RPC_FIT, RPC_CALIBRATION, RPC_MEASURED)
    assert levels.resources == C.RPC_LEVELS_RESOURCES == ("rpc",)
    assert levels.apart.passes and levels.apart.order == (("rpc", "True"),)
    study = levels.study
    assert study.resources == ("rpc",) and study.seed == RPC_FIT_SEED  # the fit's design seed
    assert (study.fit_name, study.calibration_name, study.measured_name) == (RPC_FIT, RPC_CALIBRATION, RPC_MEASURED)
    # The call and the process creation were calibrated too, and are not fitted.
    assert study.unfitted == ("syscall", "spawn") and study.left_out == () and study.blocks == BLOCKS
    assert sorted((r.job, r.platform) for r in study.rows) == [
        (job, platform) for job in sorted(RPC_SHARES) for platform in sorted(RPC_PLATFORMS)
    ]
    for r in study.rows:
        [share] = r.fit.coefficients
        assert share.resource == "rpc" and share.estimate == pytest.approx(RPC_SHARES[r.job], rel=0.1), r
        truth = _true_ratio(r.job, RPC_PLATFORMS[r.platform])
        assert r.predicted.estimate == pytest.approx(truth, rel=0.05), r
        assert r.measured.estimate == pytest.approx(truth, rel=0.1), r


def test_its_levels_do_not_move_a_process_creation_apart_from_the_rpc(raw, levels):
    # Neither is moved above x1.5 by a level that leaves the other under it: both are left.
    assert C.RPC_LEVELS_BESIDE == ("spawn",)
    assert not levels.beside.passes and levels.beside.order == () and levels.beside.unresolved == ("rpc", "spawn")
    # Where the process level moves a process creation alone, they are apart, and still one share is fitted.
    apart = _rpc_levels(raw, APART)
    assert apart.beside.passes and apart.beside.order == (("spawn", "process"), ("rpc", "True"))
    assert apart.study.resources == ("rpc",)


def test_the_fit_is_vbench_predict_s_with_the_rpc_and_its_design_seed(raw, levels, capsys):
    """`vbench predict CALIBRATION --fit FIT --measured MEASURED --resources rpc --seed 53022 --json`
    gives the rows' predictions and measured ratios."""
    from vbench import cli

    argv = ["predict", RPC_CALIBRATION, "--fit", RPC_FIT, "--measured", RPC_MEASURED, "--resources", "rpc"]
    argv += ["--seed", str(RPC_FIT_SEED), "--draws", str(DRAWS), "--data", str(raw.parent), "--json"]
    assert cli.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["resources"] == ["rpc"] and doc["seed"] == RPC_FIT_SEED and doc["apart"]["passes"]
    command = {(p["job"], p["platform"]): p for p in doc["predictions"]}
    assert len(command) == len(levels.study.rows)
    for r in levels.study.rows:
        said = command[r.job, r.platform]
        for iv, theirs in ((r.predicted, said["predicted"]), (r.measured, said["measured"])):
            assert (iv.estimate, iv.low, iv.high) == pytest.approx((theirs["estimate"], theirs["low"], theirs["high"]))
    told = C.cost_study(
        load_campaign(raw / RPC_FIT),
        load_campaign(raw / RPC_CALIBRATION),
        measured=load_campaign(raw / RPC_MEASURED),
        n_draws=DRAWS,
        seed=RPC_FIT_SEED,
        resources=("rpc",),
    )
    assert [(r.job, r.platform, r.predicted, r.measured) for r in told.rows] == [
        (r.job, r.platform, r.predicted, r.measured) for r in levels.study.rows
    ]


def test_levels_that_leave_the_rpc_fail_rule_1_and_nothing_is_fitted(raw):
    unread = _rpc_levels(raw, UNMOVED)
    assert not unread.apart.passes and unread.study is None and unread.apart.unresolved == ("rpc",)


@pytest.mark.parametrize(
    ("fit", "said"), [(NO_PROCESS_LEVEL, "'process'"), (UNFIXED, "not the plant fixed for threads")]
)
def test_a_fit_without_the_fixed_process_level_is_refused_naming_its_samples(raw, fit, said):
    with pytest.raises(ParamsError) as err:
        _rpc_levels(raw, fit)
    assert err.value.field == str(raw / fit / "samples.jsonl") and said in err.value.message


def test_the_fixed_plant_is_the_one_the_testbed_records():
    assert applied("process").endswith(C.FIXED_PROCESS_PLANT) and FIRST_CALL in C.FIXED_PROCESS_PLANT


# --- the LaTeX -------------------------------------------------------------------------------------


def test_the_subsection_comes_right_after_the_file_levels_with_its_sentences_and_table(study, levels):
    # The file levels' part, with this fit standing in for it: only its place is read.
    file_levels = C.LevelsFit("costs-fit-file", RPC_CALIBRATION, RPC_MEASURED, ("rpc",), levels.apart, levels.study)
    barrier = [r"\subsection{NNBench}\label{sec:costs-barrier}", "After."]
    before = C.section_tex(study, file_levels=file_levels, after=barrier)
    tex = C.section_tex(study, file_levels=file_levels, rpc_levels=levels, after=barrier)
    assert tex.count(r"\subsection{") == before.count(r"\subsection{") + 1
    part = _subsection(tex)
    assert tex.index(rf"\label{{{C.FILE_LEVELS.label}}}") < tex.index(part) < tex.index(r"\label{sec:costs-barrier}")
    assert tex.replace(part[: part.index(barrier[0])], "") == before
    part = part[: part.index(barrier[0])]
    opening, prose = part.splitlines()[1], part.split(r"\input{")[0]
    assert opening.startswith(
        rf"Campaign \texttt{{{RPC_FIT}}} timed the jobs on native hosts with no call stopped, with only the "
        r"process and thread calls stopped under ptrace, the plant fixed for threads (\texttt{strace -f "
        r"-{}-seccomp-bpf -e trace=\%process,set\_robust\_list}: each new task's first call is stopped too, so a "
        "JVM's threads run their ordinary calls unstopped), and with every call stopped, so that each job gets one "
        rf"share, of a loopback RPC of a JVM, and the platforms campaign \texttt{{{RPC_CALIBRATION}}} calibrated "
        rf"are predicted against the jobs campaign \texttt{{{RPC_MEASURED}}} timed; its rule 1 on that share, that "
        r"a level moves its cost above \num{1.5} at its 95\,\% lower bound, holds. Its levels do not move a process "
        r"creation apart from a loopback RPC of a JVM (no level moved the cost of one of a loopback RPC of a JVM "
        r"and a process creation above \num{1.5} at its 95\,\% lower bound while leaving the other under it at its "
        "upper bound), so the share of a process creation is not fitted. "
    )
    assert opening.endswith(C.fitted_sentence(levels.study, "each platform"))
    assert "The shares of loopback RPCs were fitted per job" in opening
    assert C.PARTIAL_LEVELS_THREADS not in part  # its level is the fixed one
    # The sentences every part has, on its own table.
    fit = levels.study
    assert C.accuracy_sentence(fit, C.RPC_LEVELS) in prose and C.attribution_sentence(fit, C.RPC_LEVELS) in prose
    assert rf"Table~\ref{{{C.RPC_LEVELS.table_label}}}" in prose and r"\ref{fig:" not in part
    assert part.strip().endswith(r"\input{generated/tables/costs-rpc-levels.tex}")
    assert "\n\n" not in prose.strip()  # one paragraph
    # The every-call level moved the call and the process creation with the RPC: its share stands for them.
    assert "the part it gives loopback RPCs stands for them all" in prose
    with pytest.raises(ValueError):
        C.section_tex(None, rpc_levels=levels)


def test_levels_that_move_a_process_creation_apart_say_so_and_still_fit_one_share(raw):
    apart = _rpc_levels(raw, APART)
    assert C.levels_beside_sentence(apart) == (
        "Its levels move a process creation apart from a loopback RPC of a JVM too; the share of a process "
        "creation is not fitted here."
    )


def test_a_process_creation_left_alone_is_said_unmoved():
    """The RPC taken, a process creation left alone needs only a level that moves it."""
    moved = ApartCheck((("rpc", "True"),), ())
    left = C.LevelsFit(
        RPC_FIT, RPC_CALIBRATION, RPC_MEASURED, ("rpc",), moved, beside=ApartCheck(moved.order, ("spawn",))
    )
    assert C.levels_beside_sentence(left) == (
        r"Its levels do not move a process creation apart from a loopback RPC of a JVM (no level moved the cost of a "
        r"process creation above \num{1.5} at its 95\,\% lower bound), so the share of a process creation is not "
        "fitted."
    )


def test_the_table_has_its_label_its_two_levels_and_its_three_campaigns(levels):
    table = C.table_costs(levels.study, C.RPC_LEVELS)
    assert r"\label{tab:costs-rpc-levels}" in table and "under system-call stops at two levels" in table
    assert rf"(campaign \texttt{{{RPC_FIT}}}): the shares of native time that scale with loopback RPCs." in table
    assert rf"Calibrated: campaign \texttt{{{RPC_CALIBRATION}}}; measured: campaign \texttt{{{RPC_MEASURED}}}" in table
    assert "Calibrated, moved by the planted level together with loopback RPCs" in table
    assert C.summary_text(levels.study) in table
    assert "_" not in table and "gvisor" not in table and "gVisor" in table  # names as a reader knows them


def test_a_fit_whose_rule_1_fails_is_one_sentence_and_no_table(raw, study):
    unread = _rpc_levels(raw, UNMOVED)
    part = _subsection(C.section_tex(study, rpc_levels=unread))
    sentence = C.rpc_levels_unread_sentence(unread)
    assert part.splitlines()[1:] == [sentence]  # the heading, then the one sentence: no table, no number
    assert sentence.endswith(
        r"; its fit, on loopback RPCs, failed its rule 1 (no level moved the cost of a loopback RPC of a JVM above "
        r"\num{1.5} at its 95\,\% lower bound) and is not read."
    )
    assert "so that each job would get one share" in sentence and ". " not in sentence
    assert rf"campaign \texttt{{{RPC_CALIBRATION}}} calibrated would be predicted" in sentence


# params/paper.yaml's keys: tests/unit/test_paper_levels_keys.py, over this subsection and the other
# levels' fit's alike.


# --- the build ---------------------------------------------------------------------------------------


def _build_argv(raw: Path, main: Path, out: Path, fit: str = RPC_FIT) -> tuple[str, ...]:
    argv = ("paper", "build", "--campaign", str(main), "--out", str(out), "--no-pdf", "--resamples", "200")
    argv += ("--sandbox", str(raw / SANDBOX), "--cost-fit", str(raw / FIT))
    return argv + tuple(
        a for flag, name in zip(FLAGS, (fit, RPC_CALIBRATION, RPC_MEASURED)) for a in (f"--{flag}", str(raw / name))
    )


def test_vbench_paper_build_with_the_three_options_writes_the_subsection_and_its_table(
    main_campaign, raw, tmp_path, capsys
):
    run = cli_runner(capsys)
    rc, err = run(*_build_argv(raw, main_campaign, tmp_path / "paper"))
    assert rc == 0, err
    gen = tmp_path / "paper" / "generated"
    section = (gen / "costs.tex").read_text()
    part = _subsection(section)
    assert part.strip().endswith(r"\input{generated/tables/costs-rpc-levels.tex}")
    assert C.levels_beside_sentence(_rpc_levels(raw)) in part
    assert section.index(r"\label{sec:costs}") < section.index(rf"\label{{{C.RPC_LEVELS.label}}}")
    assert r"\label{tab:costs-rpc-levels}" in (gen / "tables" / "costs-rpc-levels.tex").read_text()
    rows = pd.read_csv(gen / "costs-rpc-levels.csv")
    assert len(rows) == 4 and set(rows["platform"]) == set(RPC_PLATFORMS)
    assert set(zip(rows["fit_campaign"], rows["calibration_campaign"], rows["measured_campaign"])) == {
        (RPC_FIT, RPC_CALIBRATION, RPC_MEASURED)
    }
    assert set(pd.read_csv(gen / "costs-rpc-levels_attribution.csv")["platform"]) == {"gvisor"}
    assert f"note: cost model: fitted on {RPC_FIT} (rpc), predicted for {RPC_CALIBRATION}'s platforms" in err
    assert f"seed {RPC_FIT_SEED})" in err
    # Its rule 1 failed: the one sentence, no table written or counted.
    rc, err = run(*_build_argv(raw, main_campaign, tmp_path / "unread", UNMOVED))
    assert rc == 0, err
    gen = tmp_path / "unread" / "generated"
    assert C.rpc_levels_unread_sentence(_rpc_levels(raw, UNMOVED)) in (gen / "costs.tex").read_text()
    assert not list(gen.rglob("costs-rpc-levels*"))
    assert f"note: cost model: {UNMOVED}'s levels did not move rpc apart" in err


def test_the_command_refuses_the_rpc_levels_it_cannot_read_naming_the_option(raw, tmp_path, capsys):
    _needs_figures()
    run = cli_runner(capsys)
    out = tmp_path / "paper"
    argv = _build_argv(raw, raw / SANDBOX, out)
    rc, err = run(*argv[: argv.index("--rpc-levels-measured")])  # two of three
    assert rc == 2 and "--rpc-levels" in err and "needs --rpc-levels-measured set too" in err
    gone = [a if a != str(raw / RPC_CALIBRATION) else str(raw / "gone") for a in argv]
    rc, err = run(*gone)
    assert rc == 2 and "--rpc-levels-calibration" in err and str(raw / "gone" / "samples.jsonl") in err
    assert not (out / "generated").exists()
