"""Issue #52 item 4: params files fuzzed, not listed (test_hostile_params.py holds the list).

Every kind of params file (testbed, hadoop, pipeline, paper, published, the experiment designs,
the inventories, a study's isolation section) and `bench run --set` get documents Hypothesis
makes from the repository's own files: a value anywhere replaced by any YAML (nested mappings,
lists, scalars of every type, strings with shell metacharacters and line breaks, paths with
'..', huge numbers, NaN), a key added or removed. Whatever comes out is either accepted or
refused with vbench's one error (`ParamsError`, which the CLI prints as one line) naming the
file and the field; never another exception, never several lines. And what is accepted holds
nothing a shell or a config file would read as something else in the fields that reach them
(names, paths, JVM flags, the extra Hadoop properties; vbench.validate says which).

Budget: the Hypothesis profile of tests/conftest.py ("vbench-fuzz": derandomized, no deadline),
with per-test example counts below; docs/testing.md has the counts and times.
"""

from __future__ import annotations

import copy
import math
import re
import shutil
from pathlib import Path
from typing import Any, Callable, Iterator
from xml.etree import ElementTree

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vbench.benchmarks import registry
from vbench.benchmarks.base import fields_of
from vbench.campaign.design import variants
from vbench.campaign.runner import params_for
from vbench.campaign.study import load_study
from vbench.errors import ParamsError
from vbench.hadoop.config import site_xml
from vbench.inventory.model import load_inventory
from vbench.isolation.params import load_isolation
from vbench.paper.delta import load_published
from vbench.paper.inputs import committed_inputs
from vbench.params import load_hadoop, load_testbed
from vbench.report.campaign import pipeline_campaign
from vbench.explore.data import stage_settings
from vbench.validate import check_plain_name

REPO = Path(__file__).resolve().parents[2]
PARAMS = REPO / "params"

#: Characters a shell, an `ip`/ssh argument or an LXC/QEMU/sshd config line reads as syntax.
SHELL_CHARS = frozenset(";&|$`()<>*?[]{}!#~'\"\\ \t\n\r\v\f")
#: Strings made to break something: shell, config lines, options, paths, encodings.
HOSTILE = [
    "x;touch /tmp/vbench-pwned",
    "$(touch /tmp/vbench-pwned)",
    "`id`",
    "a\nlxc.hook.pre-start = /tmp/x",
    "a\u2028b",
    "a\x85b",
    "-oProxyCommand=touch /tmp/x",
    "/var/tmp/../../etc",
    "..",
    "../x",
    "a b",
    "a,b",
    "a:b",
    "%h",
    "\x00",
    "",
    "é",
    "-Xmx1g $(id)",
    "-Xmx1g;id",
    "-XX:+UseG1GC",
    "/tmp/x",
    "/var/lib/vbench",
    "native",
    "lxc",
    "10.0.0.5",
    "10.213.0.0/24",
    "bridge",
    "nat",
    "64MB",
    "1e400",
    ".nan",
    "a" * 300,
    "w" * 1100,
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 70),
    st.integers(),
    st.sampled_from([2**63, -(2**63) - 1, 10**30, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(HOSTILE),
    st.text(max_size=12),
)
KEYS = st.one_of(st.text(max_size=10), st.sampled_from(["name", "hosts", "extra", "a\nb", "x.y", "0"]), st.integers())
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=6,
)


def paths(doc: Any, prefix: tuple = ()) -> Iterator[tuple]:
    """Every place in a document: the root, each mapping value, each list item, recursively."""
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from paths(v, (*prefix, i))


def at(doc: Any, where: tuple) -> Any:
    for k in where:
        doc = doc[k]
    return doc


@st.composite
def mutated(draw, doc: Any) -> Any:
    """`doc` with one to three changes: a value replaced by any YAML, a key added, a key removed."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 3))):
        everywhere = list(paths(doc))
        # Half the time a string's place: names, paths, flags and properties are where a stray
        # character is a command, so hostile strings go there first.
        texts = [p for p in everywhere if isinstance(at(doc, p), str)]
        where = draw(st.sampled_from(texts if texts and draw(st.booleans()) else everywhere))
        action = draw(st.sampled_from(["replace", "replace", "add", "remove"]))
        node = at(doc, where)
        value = draw(st.one_of(st.sampled_from(HOSTILE), VALUES) if texts else VALUES)
        if action == "add" and isinstance(node, dict):
            node[draw(KEYS)] = value
        elif action == "remove" and where:
            parent = at(doc, where[:-1])
            del parent[where[-1]]
        elif where:
            at(doc, where[:-1])[where[-1]] = value
        else:
            doc = value
    return doc


def write(path: Path, doc: Any) -> None:
    # Unsorted: keys of several types (1, "a") do not sort.
    path.write_text(yaml.safe_dump(doc, allow_unicode=False, sort_keys=False))


def refused_properly(exc: ParamsError, path: Path) -> None:
    """One line, naming the file (and the field inside, when it is not the whole file)."""
    text = str(exc)
    assert len(text.splitlines()) == 1 and "\n" not in text, text
    assert exc.field == str(path) or exc.field.startswith(f"{path}: "), text


def loaded_or_refused(path: Path, doc: Any, load: Callable[[Path], Any]) -> Any:
    """`load(path)` of `doc` written at `path`, or None where it is refused as a ParamsError must
    be (`refused_properly`)."""
    write(path, doc)
    try:
        return load(path)
    except ParamsError as exc:
        refused_properly(exc, path)
        return None


def strings(value: Any, skip: frozenset[str] = frozenset(), where: str = "") -> Iterator[tuple[str, str]]:
    """(where, text) of every string in a dumped model, leaving out the keys in `skip`."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in skip:
                yield from strings(v, skip, f"{where}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from strings(v, skip, f"{where}[{i}]")


def numbers(value: Any, where: str = "") -> Iterator[tuple[str, float]]:
    if isinstance(value, float):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from numbers(v, f"{where}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from numbers(v, f"{where}[{i}]")


def no_shell_syntax(model, skip: frozenset[str] = frozenset()) -> None:
    for where, text in strings(model.model_dump(mode="json"), skip):
        bad = {c for c in text if c in SHELL_CHARS or not c.isprintable()}
        assert not bad, f"{where} = {text!r} was accepted with {sorted(bad)}"
    for where, x in numbers(model.model_dump()):
        assert not math.isnan(x), f"{where} = NaN was accepted"


#: mapred/yarn properties whose value YARN writes into a container's launch script (JVM options
#: unquoted; environment as `export K="V"`, where $(...) still runs).
LAUNCH_SCRIPT_PROPERTY = re.compile(r".*(java\.opts|command-opts|admin-opts|\.env|admin-env|user\.env)$")


def clean_hadoop_sinks(hp) -> None:
    no_shell_syntax(hp, skip=frozenset({"extra"}))
    for file, props in hp.extra.items():
        ElementTree.fromstring(site_xml(props))  # a well-formed *-site.xml (no control characters)
        for key, value in props.items():
            assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", key), f"{file}: property name {key!r} accepted"
            assert all(c.isprintable() for c in value), f"{file}: {key} = {value!r} accepted"
            if LAUNCH_SCRIPT_PROPERTY.fullmatch(key):
                bad = {c for c in value if c in SHELL_CHARS - {" "}}
                assert not bad, f"{file}: {key} = {value!r} reaches a launch script with {sorted(bad)}"


def clean_testbed_sinks(tb) -> None:
    no_shell_syntax(tb)


FUZZ = settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture
def params(tmp_path) -> Path:
    return Path(shutil.copytree(PARAMS, tmp_path / "params"))


def _doc(rel: str) -> Any:
    return yaml.safe_load((PARAMS / rel).read_text())


# --- testbed.yaml, hadoop.yaml ---------------------------------------------------------------


@FUZZ
@given(doc=mutated(_doc("testbed.yaml")))
def test_fuzzed_testbed_yaml_loads_or_is_refused_naming_file_and_field(params, doc):
    tb = loaded_or_refused(params / "testbed.yaml", doc, load_testbed)
    if tb is not None:
        clean_testbed_sinks(tb)


_HADOOP_DOC = {**_doc("hadoop.yaml")}
# The launch-script properties and JVM flags are where a stray character is a command: start the
# fuzzing from a document that has them, as the vmware2015 study's does.
_HADOOP_DOC["hadoop"] = {
    **_HADOOP_DOC["hadoop"],
    "job_jvm_flags": ["-XX:TieredStopAtLevel=1"],
    "extra": {
        "mapred-site": {"mapreduce.map.java.opts": "-Xmx400m -Xms400m", "mapreduce.task.io.sort.mb": "200"},
        "yarn-site": {"yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled": "false"},
    },
}


@FUZZ
@given(doc=mutated(_HADOOP_DOC))
def test_fuzzed_hadoop_yaml_loads_or_is_refused_naming_file_and_field(params, doc):
    hp = loaded_or_refused(params / "hadoop.yaml", doc, load_hadoop)
    if hp is not None:
        clean_hadoop_sinks(hp)


# --- experiment designs (a study: the design with the testbed and Hadoop params it runs on) ---

DESIGNS = sorted(p.name for p in (PARAMS / "experiments").glob("*.yaml"))


@settings(FUZZ, max_examples=120)
@given(name=st.sampled_from(DESIGNS), data=st.data())
def test_fuzzed_designs_load_or_are_refused_naming_file_and_field(params, name, data):
    doc = data.draw(mutated(_doc(f"experiments/{name}")))
    study = loaded_or_refused(params / "experiments" / name, doc, lambda path: load_study(params, path))
    if study is None:
        return
    exp = study.experiment
    check_plain_name(exp.name)
    for config in exp.configurations():
        tb, hp = params_for(exp, config, study.testbed, study.hadoop)
        clean_testbed_sinks(tb)
        clean_hadoop_sinks(hp)
    for v in variants((*exp.calibrate, *exp.suite)):
        for field, value in fields_of(v.config).items():
            for where, text in strings(value, where=f"{v.benchmark}.{field}"):
                assert not {c for c in text if c in SHELL_CHARS or not c.isprintable()}, (where, text)
            if isinstance(value, float):
                assert not math.isnan(value), f"{v.benchmark}.{field} = NaN accepted"


# --- inventories, the isolation section, published.yaml ---------------------------------------

INVENTORIES = ["examples/inventory.yaml", *sorted(f"inventories/{p.name}" for p in (PARAMS / "inventories").glob("*"))]


@FUZZ
@given(rel=st.sampled_from(INVENTORIES), data=st.data())
def test_fuzzed_inventories_load_or_are_refused_naming_file_and_field(params, rel, data):
    inv = loaded_or_refused(params / rel, data.draw(mutated(_doc(rel))), load_inventory)
    if inv is None:
        return
    # proxy_command is a command by design (one line: test_hostile_params.py); the thresholds are
    # compared with what hosts report, never run.
    no_shell_syntax(inv, skip=frozenset({"proxy_command", "checks"}))


@FUZZ
@given(doc=mutated(_doc("experiments/xavier2014.yaml")))
def test_fuzzed_isolation_sections_load_or_are_refused_naming_file_and_field(params, doc):
    iso = loaded_or_refused(params / "experiments" / "xavier2014.yaml", doc, load_isolation)
    if iso is not None:
        no_shell_syntax(iso)


@settings(FUZZ, max_examples=40)
@given(doc=mutated(_doc("published.yaml")))
def test_fuzzed_published_yaml_loads_or_is_refused_naming_file_and_field(params, doc):
    loaded_or_refused(params / "published.yaml", doc, lambda path: load_published(path, check=False))


# --- pipeline.yaml and paper.yaml: campaign names become data/raw/<name> ----------------------


@FUZZ
@given(doc=mutated(_doc("pipeline.yaml")))
def test_fuzzed_pipeline_yaml_gives_plain_campaign_names_and_finite_settings(params, doc):
    path = params / "pipeline.yaml"
    write(path, doc)
    try:
        check_plain_name(pipeline_campaign(params))
    except ParamsError as exc:
        refused_properly(exc, path)
    except ValueError as exc:  # check_plain_name's: a name that is a path went through
        pytest.fail(f"pipeline.analysis_campaign accepted a name that is not plain: {exc}")
    try:
        cfg = stage_settings(params.parent / "data")
    except ParamsError as exc:
        refused_properly(exc, path)
        return
    for name in ("equivalence_pct", "n_resamples", "seed"):
        value = getattr(cfg, name)
        assert isinstance(value, (int, float)) and math.isfinite(value), f"{name} = {value!r} accepted"


@FUZZ
@given(doc=mutated(_doc("paper.yaml")))
def test_fuzzed_paper_yaml_gives_plain_campaign_names(params, tmp_path, doc):
    path = params / "paper.yaml"
    write(path, doc)
    raw = tmp_path / "data" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    try:
        inputs = committed_inputs(params, raw)
    except ParamsError as exc:
        refused_properly(exc, path)
        return
    for _flag, name in inputs:
        check_plain_name(name)


# --- `bench run --set KEY=VALUE` ---------------------------------------------------------------

BENCHMARKS = sorted(n for t in registry.KINDS.values() for n in t)


@settings(FUZZ, max_examples=150)
@given(
    name=st.sampled_from(BENCHMARKS),
    data=st.data(),
    text=st.one_of(
        st.sampled_from(HOSTILE),
        st.sampled_from(["nan", "inf", "-inf", "1e400", "-1", "0", "1_000", " 7 ", "true", "none", "1,2", "2.5"]),
        st.text(max_size=12),
    ),
)
def test_fuzzed_set_overrides_build_a_config_or_are_refused_naming_the_parameter(name, data, text):
    _kind, module = registry.find(name)
    key = data.draw(st.one_of(st.sampled_from(list(module.Config.model_fields)), st.text(max_size=8)))
    try:
        cfg = registry.make_config(module, {key: text})
    except ParamsError as exc:
        assert len(str(exc).splitlines()) == 1, str(exc)
        assert exc.field.startswith(f"{name}."), str(exc)
        return
    for field, value in fields_of(cfg).items():
        for where, s in strings(value, where=f"{name}.{field}"):
            assert not {c for c in s if c in SHELL_CHARS or not c.isprintable()}, (where, s)
        if isinstance(value, float):
            assert math.isfinite(value), f"{name}.{field} = {value!r} accepted from {text!r}"
