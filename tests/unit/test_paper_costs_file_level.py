"""The cost-model section's last part, "The calls that name a file" (vbench.paper.costs.FILE_LEVELS,
issue #53), on synthetic campaigns with a known answer, and its three keys of params/paper.yaml.

Three campaigns, as params/experiments/costs-fit-file.yaml and costs-calibration-file.yaml read them:
a fit shaped like costs-fit-file (native with no call stopped, "False"; only the process and thread
calls, "process"; only the calls that name a file, "file"; every call, True; 5 blocks) whose process
level moves a process creation alone, whose file level moves a file open (and a process creation:
exec names a file) and whose every call moves all three; a calibration shaped like
costs-calibration-file (native, gVisor and LXC, those three costs alone, no job); and the jobs of a
campaign shaped like costs-oneday-confirm (the same platforms). The builders are test_predict_cmd's,
with the three costs among its micro-benchmarks and each job's true ratio 1 + sum over them of its
share times (cost ratio - 1), so the fitted shares are known. The section's first part is
test_paper_costs': a fit shaped like costs-fit-nodelay and `sandbox` as its calibration.
"""

from __future__ import annotations

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
from vbench.stats.records import Interval

FILE_FIT, FILE_CALIBRATION, FILE_MEASURED = "costs-fit-file", "costs-calibration-file", "costs-oneday-confirm"
FILE_FIT_SEED = 53015
#: A run of the same design whose file level left a file open's cost where it was: its rule 1 fails.
UNMOVED = "costs-fit-file-unmoved"
#: A fit with the process level and every call but no file level: not the design the part reads.
NO_FILE_LEVEL = "costs-fit-two-levels"
KEYS = ("file_levels_campaign", "file_levels_calibration_campaign", "file_levels_measured_campaign")
FLAGS = ("file-levels", "file-levels-calibration", "file-levels-measured")
#: The three costs the fit names, as the micro-benchmarks record them (test_predict_cmd's MICRO form).
FILE_MICRO = {
    "syscall": SYSCALL_MICRO["syscall"],
    "spawn": SYSCALL_MICRO["spawn"],
    "fileopen": ("fileopen", "fileopen_us", "us", 30.0, False),
}
#: Each planted level's costs on native (native's, 1, where not said).
AT_LEVELS = {
    "process": {"spawn": 3.2},
    "file": {"fileopen": 37.0, "spawn": 2.0},
    True: {"syscall": 400.0, "spawn": 6.5, "fileopen": 40.0},
}
#: Each job's true share of native time per cost (test_predict_cmd's jobs).
SHARES = {
    "terasort": {"syscall": 0.0005, "spawn": 0.05, "fileopen": 0.002},
    "nnbench_create_write": {"syscall": 0.001, "spawn": 0.02, "fileopen": 0.02},
}
#: The platforms calibrated and timed: their true costs over native's.
FILE_PLATFORMS = {
    "gvisor": {"syscall": 300.0, "spawn": 10.0, "fileopen": 50.0},
    "lxc": {"syscall": 1.05, "spawn": 1.1, "fileopen": 1.2},
}


def _true_ratio(job: str, costs: dict[str, float], _ratio=P.true_ratio) -> float:
    """test_predict_cmd's true ratio plus the job's share of each of the three costs times its extra cost."""
    return _ratio(job, costs) + sum(s * (costs.get(r, 1.0) - 1) for r, s in SHARES[job].items())


def _file_levels_campaign(d: Path, at_levels: dict) -> Path:
    """Native hosts with no system call stopped and at each of `at_levels` (its costs there), BLOCKS
    blocks, little noise (test_paper_costs_syscalls' `_levels_campaign` at more levels), seeded as
    costs-fit-file's design."""
    return planted_levels_campaign(d, at_levels, seed=FILE_FIT_SEED, prefix="file-levels")


@pytest.fixture(scope="module")
def raw(tmp_path_factory) -> Path:
    """DATA/raw with the section's first fit and `sandbox`, and the file levels' fits, calibration and
    measured jobs."""
    raw = tmp_path_factory.mktemp("data") / "raw"
    # The first part's, as test_paper_costs': gVisor with test_predict_cmd's sandboxed costs.
    section_base(raw)
    with pytest.MonkeyPatch.context() as mp:
        for resource, spec in FILE_MICRO.items():
            mp.setitem(MICRO, resource, spec)
        for platform, costs in FILE_PLATFORMS.items():
            mp.setitem(PLATFORMS, platform, costs)
        mp.setattr(P, "true_ratio", _true_ratio)
        _file_levels_campaign(raw / FILE_FIT, AT_LEVELS)
        _file_levels_campaign(raw / UNMOVED, {**AT_LEVELS, "file": {"spawn": 2.0}})
        _file_levels_campaign(raw / NO_FILE_LEVEL, {k: v for k, v in AT_LEVELS.items() if k != "file"})
        others = tuple(r for r in MICRO if r not in FILE_MICRO)
        platforms = ("native", *FILE_PLATFORMS)
        calibration_campaign(raw / FILE_CALIBRATION, platforms, drop=others)
        calibration_campaign(raw / FILE_MEASURED, platforms, jobs=True, seed=3, drop=(*others, "fileopen"))
    return raw


def _file_levels(raw: Path, fit: str = FILE_FIT) -> C.LevelsFit:
    return C.file_levels(
        load_campaign(raw / fit), load_campaign(raw / FILE_CALIBRATION), load_campaign(raw / FILE_MEASURED), DRAWS
    )


@pytest.fixture(scope="module")
def levels(raw) -> C.LevelsFit:
    return _file_levels(raw)


@pytest.fixture(scope="module")
def study(raw) -> C.CostStudy:
    return C.cost_study(load_campaign(raw / FIT), load_campaign(raw / SANDBOX), n_draws=DRAWS)


def _subsection(tex: str) -> str:
    """The file levels' subsection of a section: from its heading to the end."""
    return tex[tex.index(rf"\subsection{{{C.FILE_LEVELS.title}}}\label{{{C.FILE_LEVELS.label}}}") :]


# --- the fit -------------------------------------------------------------------------------------------


def test_the_three_levels_move_the_three_costs_apart_and_the_fit_recovers_each_job_s_shares(levels):
    assert (levels.name, levels.calibration_name, levels.measured_name) == (FILE_FIT, FILE_CALIBRATION, FILE_MEASURED)
    assert levels.resources == ("syscall", "spawn", "fileopen")
    assert levels.apart.passes and levels.apart.order == (
        ("spawn", "process"),
        ("fileopen", "file"),
        ("syscall", "True"),
    )
    study = levels.study
    assert study.resources == levels.resources and study.seed == FILE_FIT_SEED  # the fit's design seed
    assert (study.fit_name, study.calibration_name, study.measured_name) == (FILE_FIT, FILE_CALIBRATION, FILE_MEASURED)
    assert study.unfitted == () and study.left_out == () and study.blocks == BLOCKS
    assert sorted((r.job, r.platform) for r in study.rows) == [
        (job, platform) for job in sorted(SHARES) for platform in sorted(FILE_PLATFORMS)
    ]
    for r in study.rows:
        fitted = {c.resource: c.estimate for c in r.fit.coefficients}
        assert list(fitted) == list(levels.resources), r
        for resource, share in SHARES[r.job].items():
            # Three levels, three shares: each within 10 % of its truth (the noise is about 1 %).
            assert fitted[resource] == pytest.approx(share, rel=0.1), (r.job, resource)
        truth = _true_ratio(r.job, FILE_PLATFORMS[r.platform])
        assert r.predicted.estimate == pytest.approx(truth, rel=0.05), r
        assert r.measured.estimate == pytest.approx(truth, rel=0.1), r


def test_the_fit_is_vbench_predict_s_with_the_three_resources_and_its_design_seed(raw, levels):
    told = C.cost_study(
        load_campaign(raw / FILE_FIT),
        load_campaign(raw / FILE_CALIBRATION),
        measured=load_campaign(raw / FILE_MEASURED),
        n_draws=DRAWS,
        seed=FILE_FIT_SEED,
        resources=("syscall", "spawn", "fileopen"),
    )
    assert [(r.job, r.platform, r.predicted, r.measured) for r in told.rows] == [
        (r.job, r.platform, r.predicted, r.measured) for r in levels.study.rows
    ]


def test_a_file_level_that_leaves_a_file_open_fails_rule_1_and_nothing_is_fitted(raw):
    unread = _file_levels(raw, UNMOVED)
    assert not unread.apart.passes and unread.study is None
    # A process creation is still moved alone (by both lesser levels); nothing moves a call and a file open apart.
    assert [r for r, _ in unread.apart.order] == ["spawn"] and unread.apart.unresolved == ("syscall", "fileopen")


def test_a_fit_without_the_file_level_is_refused_naming_its_samples(raw):
    with pytest.raises(ParamsError) as err:
        _file_levels(raw, NO_FILE_LEVEL)
    assert err.value.field == str(raw / NO_FILE_LEVEL / "samples.jsonl") and "'file'" in err.value.message


# --- the LaTeX -------------------------------------------------------------------------------------


def test_the_subsection_comes_last_after_the_held_out_ones_with_its_sentences_and_table(study, levels):
    # The parts before it, with the file levels' study standing in for each: only their places are read.
    fit = levels.study
    two_levels = C.LevelParts(
        "costs-fit-levels", (("terasort", Interval(0.4, 0.3, 0.5)),), 0.95, ApartCheck((("spawn", "process"),), ()), fit
    )
    heldout = C.HeldOut("costs-oneday", BLOCKS, fit)
    before = C.section_tex(study, fit, None, two_levels, [heldout])
    tex = C.section_tex(study, fit, None, two_levels, [heldout], levels)
    assert tex.startswith(before) and tex.count(r"\subsection{") == before.count(r"\subsection{") + 1
    part = _subsection(tex)
    assert tex.index(rf"\label{{{C.heldout_part(heldout).label}}}") < tex.index(part)
    opening, prose = part.splitlines()[1], part.split(r"\input{")[0]
    assert opening.startswith(
        rf"Campaign \texttt{{{FILE_FIT}}} stopped under ptrace only the calls that name a file "
        r"(\texttt{strace -f -{}-seccomp-bpf -e trace=\%file}), beside only the process and thread calls and every "
        "call, so that each job gets three shares, of a one-byte system call, a process creation and a file opened "
        rf"by name, as its design named them before it ran, and the platforms campaign \texttt{{{FILE_CALIBRATION}}} "
        rf"calibrated are predicted against the jobs campaign \texttt{{{FILE_MEASURED}}} timed; its rule 1, that the "
        "levels move the three apart, holds."
    )
    assert C.fitted_sentence(fit, "each platform") in opening
    assert "The shares of system calls, process creation and file opens were fitted per job" in opening
    # The sentences every part has, on its own table.
    assert C.accuracy_sentence(fit, C.FILE_LEVELS) in prose and C.attribution_sentence(fit, C.FILE_LEVELS) in prose
    assert rf"Table~\ref{{{C.FILE_LEVELS.table_label}}}" in prose and r"\ref{fig:" not in part
    assert part.strip().endswith(r"\input{generated/tables/costs-file-levels.tex}")
    assert "\n\n" not in prose.strip()  # one paragraph
    # Without it, the section is as it was.
    assert C.FILE_LEVELS.label not in before
    with pytest.raises(ValueError):
        C.section_tex(None, file_levels=levels)


def test_the_table_has_its_label_its_three_levels_and_its_three_campaigns(levels):
    table = C.table_costs(levels.study, C.FILE_LEVELS)
    assert r"\label{tab:costs-file-levels}" in table and "under system-call stops at three levels" in table
    assert rf"(campaign \texttt{{{FILE_FIT}}}): the shares of native time that scale with system calls, " in table
    assert (
        rf"Calibrated: campaign \texttt{{{FILE_CALIBRATION}}}; measured: campaign \texttt{{{FILE_MEASURED}}}" in table
    )
    assert C.summary_text(levels.study) in table
    assert "_" not in table and "gvisor" not in table and "gVisor" in table  # names as a reader knows them


def test_a_fit_whose_rule_1_fails_is_one_sentence_and_no_table(raw, study):
    unread = _file_levels(raw, UNMOVED)
    part = _subsection(C.section_tex(study, file_levels=unread))
    sentence = C.file_levels_unread_sentence(unread)
    assert part.splitlines()[1:] == [sentence]  # the heading, then the one sentence: no table, no number
    assert sentence.endswith(
        "; its fit, on system calls, process creation and file opens, failed its rule 1 (its levels did not move "
        "them apart) and is not read."
    )
    assert "so that each job would get three shares" in sentence and ". " not in sentence
    assert rf"campaign \texttt{{{FILE_CALIBRATION}}} calibrated would be predicted" in sentence


# params/paper.yaml's keys: tests/unit/test_paper_levels_keys.py, over this subsection and the other
# levels' fit's alike.


# --- the build ---------------------------------------------------------------------------------------


def _build_argv(raw: Path, main: Path, out: Path, fit: str = FILE_FIT) -> tuple[str, ...]:
    argv = ("paper", "build", "--campaign", str(main), "--out", str(out), "--no-pdf", "--resamples", "200")
    argv += ("--sandbox", str(raw / SANDBOX), "--cost-fit", str(raw / FIT))
    return argv + tuple(
        a for flag, name in zip(FLAGS, (fit, FILE_CALIBRATION, FILE_MEASURED)) for a in (f"--{flag}", str(raw / name))
    )


def test_vbench_paper_build_with_the_three_options_writes_the_subsection_last_and_its_table(
    main_campaign, raw, tmp_path, capsys
):
    run = cli_runner(capsys)
    rc, err = run(*_build_argv(raw, main_campaign, tmp_path / "paper"))
    assert rc == 0, err
    gen = tmp_path / "paper" / "generated"
    section = (gen / "costs.tex").read_text()
    assert _subsection(section).strip().endswith(r"\input{generated/tables/costs-file-levels.tex}")
    assert section.index(r"\label{sec:costs}") < section.index(rf"\label{{{C.FILE_LEVELS.label}}}")
    assert r"\label{tab:costs-file-levels}" in (gen / "tables" / "costs-file-levels.tex").read_text()
    rows = pd.read_csv(gen / "costs-file-levels.csv")
    assert len(rows) == 4 and set(rows["platform"]) == set(FILE_PLATFORMS)
    assert set(zip(rows["fit_campaign"], rows["calibration_campaign"], rows["measured_campaign"])) == {
        (FILE_FIT, FILE_CALIBRATION, FILE_MEASURED)
    }
    assert set(pd.read_csv(gen / "costs-file-levels_attribution.csv")["platform"]) == {"gvisor"}
    assert f"note: cost model: fitted on {FILE_FIT} (syscall, spawn, fileopen), predicted for " in err
    assert f"seed {FILE_FIT_SEED})" in err
    # Its rule 1 failed: the one sentence, no table written or counted.
    rc, err = run(*_build_argv(raw, main_campaign, tmp_path / "unread", UNMOVED))
    assert rc == 0, err
    gen = tmp_path / "unread" / "generated"
    assert C.file_levels_unread_sentence(_file_levels(raw, UNMOVED)) in (gen / "costs.tex").read_text()
    assert not list(gen.rglob("costs-file-levels*"))
    assert f"note: cost model: {UNMOVED}'s levels did not move syscall, spawn, fileopen apart" in err


def test_the_command_refuses_the_file_levels_it_cannot_read_naming_the_option(raw, tmp_path, capsys):
    _needs_figures()
    run = cli_runner(capsys)
    out = tmp_path / "paper"
    argv = _build_argv(raw, raw / SANDBOX, out)
    rc, err = run(*argv[: argv.index("--file-levels-measured")])  # two of three
    assert rc == 2 and "--file-levels" in err and "needs --file-levels-measured set too" in err
    gone = [a if a != str(raw / FILE_CALIBRATION) else str(raw / "gone") for a in argv]
    rc, err = run(*gone)
    assert rc == 2 and "--file-levels-calibration" in err and str(raw / "gone" / "samples.jsonl") in err
    assert not (out / "generated").exists()
