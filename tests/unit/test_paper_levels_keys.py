"""params/paper.yaml's keys of the cost model's subsections that read a levels' fit, a calibration
and a measured campaign (vbench.paper.inputs.LevelsPart: the file levels', the one priced by a JVM's
call and the memory level's): the committed rebuild
passes them on, refuses them given in part, unmeasured or without the cost model's fit, naming the
file and the key, and the paper stage in dvc.yaml passes and depends on them. One set of tests over
the three: the subsections are refused alike (`inputs._check_set_together`), so their keys' tests
are too."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest
import yaml

from tests.unit.test_paper_costs_file_level import (
    FILE_CALIBRATION,
    FILE_FIT,
    FILE_MEASURED,
)
from tests.unit.test_paper_costs_file_level import FLAGS as FILE_FLAGS
from tests.unit.test_paper_costs_file_level import KEYS as FILE_KEYS
from tests.unit.test_paper_costs_memory_level import (
    MEMORY_CALIBRATION,
    MEMORY_FIT,
    MEMORY_MEASURED,
)
from tests.unit.test_paper_costs_memory_level import FLAGS as MEMORY_FLAGS
from tests.unit.test_paper_costs_memory_level import KEYS as MEMORY_KEYS
from tests.unit.test_paper_costs_rpc_level import (
    RPC_CALIBRATION,
    RPC_FIT,
    RPC_MEASURED,
)
from tests.unit.test_paper_costs_rpc_level import FLAGS as RPC_FLAGS
from tests.unit.test_paper_costs_rpc_level import KEYS as RPC_KEYS
from tests.unit.test_paper_costs_syscalls import CALIBRATION, FIT, SANDBOX, SYSCALL_FIT, _committed, _measured
from vbench.errors import ParamsError
from vbench.paper.inputs import FILE_LEVELS_INPUTS, MEMORY_LEVELS_INPUTS, RPC_LEVELS_INPUTS

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
