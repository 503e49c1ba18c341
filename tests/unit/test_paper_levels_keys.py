"""params/paper.yaml's keys of the cost model's subsections that read a levels' fit, a calibration
and a measured campaign (vbench.paper.inputs.LevelsPart: the file levels', the one priced by a JVM's
call and the memory level's): the committed rebuild
passes them on, refuses them given in part, unmeasured or without the cost model's fit, naming the
file and the key, and the paper stage in dvc.yaml passes and depends on them. One set of tests over
the three: the subsections are refused alike (`inputs._check_set_together`), so their keys' tests
are too. Last, the memory level's later tests (`memory_levels_tests`, a list as
`syscall_levels_heldout` is: `inputs.check_memory_tests`), on test_paper_costs_memory_level's
synthetic campaigns where the build reads them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest
import yaml

from tests.unit.builders import cli_runner
from tests.unit.test_paper_costs import _needs_figures
from tests.unit.test_paper_costs_file_level import (
    FILE_CALIBRATION,
    FILE_FIT,
    FILE_MEASURED,
)
from tests.unit.test_paper_costs_file_level import FLAGS as FILE_FLAGS
from tests.unit.test_paper_costs_file_level import KEYS as FILE_KEYS
from tests.unit.test_paper_costs_memory_level import (
    LATER,
    LATER_ELSEWHERE,
    MEMORY_CALIBRATION,
    MEMORY_FIT,
    MEMORY_MEASURED,
    UNMOVED,
)
from tests.unit.test_paper_costs_memory_level import FLAGS as MEMORY_FLAGS
from tests.unit.test_paper_costs_memory_level import KEYS as MEMORY_KEYS
from tests.unit.test_paper_costs_memory_level import raw as memory_raw  # noqa: F401 - a fixture here too
from tests.unit.test_paper_costs_rpc_level import (
    RPC_CALIBRATION,
    RPC_FIT,
    RPC_MEASURED,
)
from tests.unit.test_paper_costs_rpc_level import FLAGS as RPC_FLAGS
from tests.unit.test_paper_costs_rpc_level import KEYS as RPC_KEYS
from tests.unit.test_paper_costs_syscalls import CALIBRATION, FIT, SANDBOX, SYSCALL_FIT, _committed, _measured
from vbench.errors import ParamsError
from vbench.paper import costs as C
from vbench.paper.inputs import FILE_LEVELS_INPUTS, MEMORY_LEVELS_INPUTS, RPC_LEVELS_INPUTS, campaign_list

ROOT = Path(__file__).resolve().parents[2]
#: The campaigns test_paper_costs_syscalls' `_committed` names beside the three keys (the cost model's
#: fit and `sandbox`, the system-call level's fit and calibration).
BESIDE = (SANDBOX, FIT, SYSCALL_FIT, CALIBRATION)


@dataclass(frozen=True)
class Subsection:
    """One subsection's three keys, the campaigns they name, `vbench paper build`'s options for them
    (without "--") and the build's check, whose arguments are named `<prefix>_dir`,
    `<prefix>_calibration_dir` and `<prefix>_measured_dir`."""

    keys: tuple[str, str, str]
    names: tuple[str, str, str]
    flags: tuple[str, str, str]
    check: Callable[..., None]
    prefix: str

    def given(self, **given: str) -> dict[str, str]:
        """The three keys naming the three campaigns, with `given`'s instead."""
        return {**dict(zip(self.keys, self.names)), **given}


FILE_LEVELS = Subsection(
    FILE_KEYS, (FILE_FIT, FILE_CALIBRATION, FILE_MEASURED), FILE_FLAGS, FILE_LEVELS_INPUTS.check, "file_levels"
)
RPC_LEVELS = Subsection(
    RPC_KEYS, (RPC_FIT, RPC_CALIBRATION, RPC_MEASURED), RPC_FLAGS, RPC_LEVELS_INPUTS.check, "rpc_levels"
)
MEMORY_LEVELS = Subsection(
    MEMORY_KEYS,
    (MEMORY_FIT, MEMORY_CALIBRATION, MEMORY_MEASURED),
    MEMORY_FLAGS,
    MEMORY_LEVELS_INPUTS.check,
    "memory_levels",
)
SUBSECTIONS = pytest.mark.parametrize(
    "sub", [FILE_LEVELS, RPC_LEVELS, MEMORY_LEVELS], ids=["file_levels", "rpc_levels", "memory_levels"]
)


@SUBSECTIONS
def test_the_committed_rebuild_passes_the_three_campaigns_on(tmp_path, sub):
    raw = _measured(tmp_path / "raw", *BESIDE, *sub.names)
    assert _committed(tmp_path, raw, **sub.given())[-3:] == list(zip(sub.flags, sub.names))
    # None set: the part is omitted, nothing refused.
    assert not any(flag in sub.flags for flag, _ in _committed(tmp_path, raw))


@SUBSECTIONS
def test_a_key_set_alone_or_without_the_cost_model_s_fit_is_refused_naming_the_file_and_the_key(tmp_path, sub):
    raw = _measured(tmp_path / "raw", *BESIDE, *sub.names)
    keys = sub.keys
    fields = {key: f"{tmp_path / 'params' / 'paper.yaml'}: paper.{key}" for key in keys}
    for unset in keys:
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **sub.given(**{unset: ""}))
        first_set = next(k for k in keys if k != unset)
        assert err.value.field == fields[first_set], unset
        assert f"needs {fields[unset]} set too" in err.value.message and "set all three, or none" in err.value.message
    # Two unset: both named.
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **{keys[2]: sub.names[2]})
    assert err.value.field == fields[keys[2]]
    assert f"needs {fields[keys[0]]} and {fields[keys[1]]} set too" in err.value.message
    # A subsection of the cost model's section: not without its fit (nor the system-call level, which needs it too).
    without_fit = {"cost_fit_campaign": "", "syscall_fit_campaign": "", "syscall_calibration_campaign": ""}
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **without_fit, **sub.given())
    assert err.value.field == fields[keys[0]] and "needs paper.cost_fit_campaign set too" in err.value.message


@SUBSECTIONS
@pytest.mark.parametrize("which", range(3))
def test_a_key_naming_a_campaign_with_no_samples_is_refused_naming_the_file_and_the_key(tmp_path, sub, which):
    key = sub.keys[which]
    raw = _measured(tmp_path / "raw", *BESIDE, *sub.names)
    (raw / "unmeasured").mkdir()  # a directory, but no samples in it
    field = f"{tmp_path / 'params' / 'paper.yaml'}: paper.{key}"
    for name in ("unmeasured", "gone"):
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **sub.given(**{key: name}))
        assert err.value.field == field and str(raw / name / "samples.jsonl") in err.value.message, name
        assert f"(`vbench campaign run {name}`)" in err.value.message
    # Not a plain name: refused before any directory is looked at.
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **sub.given(**{key: "../x"}))
    assert err.value.field == field


@SUBSECTIONS
def test_the_build_s_check_names_its_arguments_or_the_options_it_is_told(tmp_path, sub):
    fit, calibration, measured = sub.names
    raw = _measured(tmp_path / "raw", FIT, *sub.names)
    sub.check(None, None, None, None)  # omitted
    sub.check(raw / fit, raw / calibration, raw / measured, raw / FIT)
    with pytest.raises(ParamsError) as err:
        sub.check(raw / fit, None, None, raw / FIT)
    assert err.value.field == f"{sub.prefix}_dir"
    assert f"needs {sub.prefix}_calibration_dir and {sub.prefix}_measured_dir set too" in err.value.message
    flags = (*(f"--{f}" for f in sub.flags), "--cost-fit")
    with pytest.raises(ParamsError) as err:
        sub.check(raw / fit, raw / calibration, raw / "gone", raw / FIT, *flags)
    assert err.value.field == flags[2]
    with pytest.raises(ParamsError) as err:
        sub.check(raw / fit, raw / calibration, raw / measured, None, *flags)
    assert err.value.field == flags[0] and "needs --cost-fit set too" in err.value.message


def _resolved(dep: str, params: dict[str, dict]) -> str:
    """A dvc.yaml dependency with its ${section.key} templates filled in from `params`."""
    return re.sub(r"\$\{(\w+)\.(\w+)\}", lambda m: str(params[m[1]].get(m[2])), dep)


@SUBSECTIONS
def test_the_committed_keys_are_set_all_three_or_none_and_the_paper_stage_passes_and_depends_on_them(sub):
    """Unset (absent from params/paper.yaml), the stage names them nowhere: DVC refuses a
    ${paper.<key>} it cannot find. Set, the stage passes each to the notebook and depends on each one's
    samples (or DVC would not rebuild the subsection when they change), no path twice (the measured
    campaign's may already be a held-out campaign's line)."""
    paper = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]
    pipeline = yaml.safe_load((ROOT / "params" / "pipeline.yaml").read_text())["pipeline"]
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["paper"]
    deps = [d if isinstance(d, str) else next(iter(d)) for d in stage["deps"]]
    assert len({bool(paper.get(key)) for key in sub.keys}) == 1, "set all three or none"
    for key in sub.keys:
        assert (f"-p {key} ${{paper.{key}}}" in stage["cmd"]) == (key in paper), key
        assert (f"${{paper.{key}}}" in stage["cmd"]) == (key in paper), key
        if not paper.get(key):
            assert not any(key in d for d in deps), key
    resolved = [_resolved(d, {"paper": paper, "pipeline": pipeline}) for d in deps]
    assert len(resolved) == len(set(resolved)), "a path twice"
    for key in sub.keys:
        if paper.get(key):
            assert f"data/raw/{paper[key]}/samples.jsonl" in resolved, key
            assert (ROOT / "data" / "raw" / str(paper[key]) / "samples.jsonl").is_file(), key
            assert paper["cost_fit_campaign"]


# --- paper.memory_levels_tests: the memory level's later tests ------------------------------------------

TESTS_KEY = "memory_levels_tests"


def test_the_committed_rebuild_passes_the_later_tests_on_after_the_memory_level_s_campaigns(tmp_path):
    raw = _measured(tmp_path / "raw", *BESIDE, *MEMORY_LEVELS.names, LATER, LATER_ELSEWHERE)
    listed = {TESTS_KEY: f"{LATER}, {LATER_ELSEWHERE}"}
    assert _committed(tmp_path, raw, **MEMORY_LEVELS.given(), **listed)[-3:] == [
        ("memory-levels-measured", MEMORY_MEASURED),
        ("memory-levels-test", LATER),
        ("memory-levels-test", LATER_ELSEWHERE),
    ]
    # Empty: no later test, nothing refused.
    assert not any(f == "memory-levels-test" for f, _ in _committed(tmp_path, raw, **MEMORY_LEVELS.given()))


def test_a_later_test_unmeasured_twice_or_without_the_memory_level_s_fit_is_refused_naming_the_file_and_the_key(
    tmp_path,
):
    raw = _measured(tmp_path / "raw", *BESIDE, *MEMORY_LEVELS.names, LATER, LATER_ELSEWHERE)
    (raw / "unmeasured").mkdir()  # a directory, but no samples in it
    field = f"{tmp_path / 'params' / 'paper.yaml'}: paper.{TESTS_KEY}"
    # Each campaign listed is checked: the second as the first.
    for listed, name in (("gone", "gone"), (f"{LATER},unmeasured", "unmeasured")):
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **MEMORY_LEVELS.given(), **{TESTS_KEY: listed})
        assert err.value.field == field and str(raw / name / "samples.jsonl") in err.value.message, listed
        assert f"(`vbench campaign run {name}`)" in err.value.message
    # Twice, the subsection would count one test as two.
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **MEMORY_LEVELS.given(), **{TESTS_KEY: f"{LATER},{LATER_ELSEWHERE},{LATER}"})
    assert err.value.field == field and f"lists {LATER!r} twice" in err.value.message
    # Predicted by the memory level's fit: not without it, nor with no other key of the cost model's
    # section set (the one key alone is still checked).
    alone = {
        "sandbox_campaign": "",
        "cost_fit_campaign": "",
        "syscall_fit_campaign": "",
        "syscall_calibration_campaign": "",
    }
    for others in ({}, alone):
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **others, **{TESTS_KEY: LATER})
        assert err.value.field == field and "needs paper.memory_levels_campaign set too" in err.value.message, others
    for listed in ("../x", f"{LATER},../x"):
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **MEMORY_LEVELS.given(), **{TESTS_KEY: listed})
        assert err.value.field == field, listed


def test_the_later_tests_are_the_paper_stage_s_dependencies_one_line_each():
    """Set, the paper stage passes the key and depends on each listed campaign's samples (or DVC would
    not rebuild the subsection when they change), as on each held-out campaign's: a line each, none
    on the key itself (a dependency on it would be data/raw/<a>,<b>/samples.jsonl)."""
    paper = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["paper"]
    deps = [d if isinstance(d, str) else next(iter(d)) for d in stage["deps"]]
    names = campaign_list(paper.get(TESTS_KEY))
    assert (f"-p {TESTS_KEY} ${{paper.{TESTS_KEY}}}" in stage["cmd"]) == (TESTS_KEY in paper)
    assert not any(TESTS_KEY in d for d in deps)
    assert len(set(names)) == len(names)
    if names:
        assert paper["memory_levels_campaign"] and paper["memory_levels_campaign"] not in names
    for name in names:
        assert f"data/raw/{name}/samples.jsonl" in deps, f"dvc.yaml's paper stage lacks data/raw/{name}"
        assert (ROOT / "data" / "raw" / name / "samples.jsonl").is_file(), name
        assert (ROOT / "params" / "experiments" / f"{name}.yaml").is_file(), f"no design named {name}"


def test_the_command_refuses_a_later_test_without_samples_or_the_memory_level(tmp_path, capsys):
    _needs_figures()
    raw = _measured(tmp_path / "raw", "main", SANDBOX, FIT, *MEMORY_LEVELS.names, LATER)
    run = cli_runner(capsys)
    argv = ("paper", "build", "--campaign", str(raw / "main"), "--out", str(tmp_path / "paper"), "--no-pdf")
    argv += ("--sandbox", str(raw / SANDBOX), "--cost-fit", str(raw / FIT))
    memory = tuple(
        a for flag, name in zip(MEMORY_LEVELS.flags, MEMORY_LEVELS.names) for a in (f"--{flag}", str(raw / name))
    )
    rc, err = run(*argv, *memory, "--memory-levels-test", str(raw / "gone"))
    assert rc == 2 and "--memory-levels-test" in err and str(raw / "gone" / "samples.jsonl") in err
    rc, err = run(*argv, "--memory-levels-test", str(raw / LATER))
    assert rc == 2 and "--memory-levels-test" in err and "needs --memory-levels set too" in err
    # Repeatable: the second is checked as the first, and a campaign given twice is refused, before
    # anything is read.
    rc, err = run(*argv, *memory, "--memory-levels-test", str(raw / LATER), "--memory-levels-test", str(raw / "gone"))
    assert rc == 2 and "--memory-levels-test" in err and str(raw / "gone" / "samples.jsonl") in err
    rc, err = run(*argv, *memory, *(("--memory-levels-test", str(raw / LATER)) * 2))
    assert rc == 2 and "--memory-levels-test" in err and f"lists {LATER!r} twice" in err
    assert not (tmp_path / "paper" / "generated").exists()


def test_the_build_says_each_later_test_in_the_memory_level_s_subsection_and_reads_its_campaign(
    main_campaign, request, tmp_path
):
    from vbench.paper.build import generate

    # test_paper_costs_memory_level's campaigns (its `raw`, imported as `memory_raw`): asked for by
    # name, as a parameter of that name would shadow the import.
    raw = request.getfixturevalue("memory_raw")
    given = {
        "n_resamples": 200,
        "sandbox_dir": raw / SANDBOX,
        "cost_fit_dir": raw / FIT,
        "memory_levels_dir": raw / MEMORY_FIT,
        "memory_levels_calibration_dir": raw / MEMORY_MEASURED,
        "memory_levels_measured_dir": raw / MEMORY_MEASURED,
    }
    test_dirs = [raw / LATER, raw / LATER_ELSEWHERE]
    res = generate(main_campaign, tmp_path / "with", **given, memory_levels_test_dirs=test_dirs)
    gen = tmp_path / "with" / "generated"
    part = _memory_subsection((gen / "costs.tex").read_text())
    later, elsewhere = (rf"on \texttt{{{n}}} (" for n in (LATER, LATER_ELSEWHERE))
    assert later in part and elsewhere in part and part.index(later) < part.index(elsewhere)
    # After the subsection's table: the paragraph of later tests ends it.
    assert part.index(r"\input{generated/tables/costs-memory-levels.tex}") < part.index(later)
    for name in (LATER, LATER_ELSEWHERE):
        # Each is a campaign the paper read: a row of the campaigns' table, and a line of the build log.
        assert rf"\texttt{{{name}}}" in (gen / "tables" / "campaigns.tex").read_text(), name
        assert any(
            n.startswith(f"cost model: fitted on {MEMORY_FIT} (rpc, jvmstart), predicted for {name}'s")
            for n in res.notes
        )
    # Where the memory level's fit is not read (its rule 1 fails), no later test is said.
    res = generate(
        main_campaign,
        tmp_path / "unread",
        **{**given, "memory_levels_dir": raw / UNMOVED},
        memory_levels_test_dirs=test_dirs,
    )
    part = _memory_subsection((tmp_path / "unread" / "generated" / "costs.tex").read_text())
    assert later not in part and elsewhere not in part
    assert not any(f"predicted for {LATER}'s" in n for n in res.notes)


def _memory_subsection(tex: str) -> str:
    """The memory level's subsection of the cost model's section: from its heading to the next one."""
    start = tex.index(rf"\label{{{C.MEMORY_LEVELS.label}}}")
    end = tex.find(r"\subsection", start)
    return tex[start : end if end >= 0 else len(tex)]
