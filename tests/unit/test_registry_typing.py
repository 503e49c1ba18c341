"""`--set KEY=VALUE` is typed by the field's declared type, not by its default (issue #24, item 1)."""

from __future__ import annotations

import types
import typing
from typing import Literal, Optional

import pytest

from vbench.benchmarks import registry
from vbench.benchmarks.hadoop import HADOOP_BENCHMARKS
from vbench.benchmarks.micro import MICRO_BENCHMARKS
from vbench.errors import ParamsError

ALL_BENCHMARKS = {**MICRO_BENCHMARKS, **HADOOP_BENCHMARKS}

#: A valid value for every Optional field of every benchmark, as the command line gives it and
#: as the config must hold it. A new Optional field fails the coverage test until it is added.
OPTIONAL_EXAMPLES = {
    ("cpu", "events"): ("1000", 1000),
    ("hdparm", "device"): ("/dev/vda", "/dev/vda"),
    ("bonnie", "size_mb"): ("256", 256),
    ("bonnie", "ram_mb"): ("16", 16),
    ("iperf3", "server_bind"): ("10.0.0.2", "10.0.0.2"),
}


def _is_optional(hint) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in typing.get_args(hint)


def optional_fields() -> list[tuple[str, str]]:
    return [
        (name, f)
        for name, module in ALL_BENCHMARKS.items()
        for f in module.Config.model_fields
        if _is_optional(typing.get_type_hints(module.Config)[f])
    ]


def test_cpu_events_is_set_from_the_command_line():
    cfg = registry.make_config(MICRO_BENCHMARKS["cpu"], {"events": "1000"})
    assert cfg.events == 1000


def test_every_optional_field_has_an_example_here():
    assert sorted(optional_fields()) == sorted(OPTIONAL_EXAMPLES)


@pytest.mark.parametrize("benchmark,field", sorted(OPTIONAL_EXAMPLES))
def test_every_optional_field_is_set_from_a_string(benchmark, field):
    text, value = OPTIONAL_EXAMPLES[benchmark, field]
    cfg = registry.make_config(ALL_BENCHMARKS[benchmark], {field: text})
    assert getattr(cfg, field) == value
    assert type(getattr(cfg, field)) is type(value)


@pytest.mark.parametrize("benchmark", sorted({b for b, _ in OPTIONAL_EXAMPLES}))
@pytest.mark.parametrize("none", ["none", "None", "null", ""])
def test_optional_fields_are_unset_by_none(benchmark, none):
    # All of a benchmark's Optional fields at once: bonnie needs ram_mb unset with size_mb.
    fields = [f for b, f in OPTIONAL_EXAMPLES if b == benchmark]
    cfg = registry.make_config(ALL_BENCHMARKS[benchmark], {f: none for f in fields})
    assert all(getattr(cfg, f) is None for f in fields)


def test_a_bad_optional_integer_says_what_it_takes():
    with pytest.raises(ParamsError, match=r"cpu.events: expected an integer or none, got 'lots'"):
        registry.make_config(MICRO_BENCHMARKS["cpu"], {"events": "lots"})


def test_defaults_keep_their_types():
    cfg = registry.make_config(MICRO_BENCHMARKS["pi_digits"], {"digits": "100,2000"})
    assert cfg.digits == (100, 2000)
    cfg = registry.make_config(HADOOP_BENCHMARKS["dfsio"], {"operations": "write"})
    assert cfg.operations == ("write",)
    cfg = registry.make_config(HADOOP_BENCHMARKS["pi"], {"max_abs_error": "0.5"})
    assert cfg.max_abs_error == 0.5
    cfg = registry.make_config(MICRO_BENCHMARKS["fio"], {"direct": "no"})
    assert cfg.direct is False


@pytest.mark.parametrize(
    "hint,text,value",
    [
        (int | None, "7", 7),
        (Optional[float], "2.5", 2.5),
        (Optional[float], "NULL", None),
        (tuple[int, ...], "1,2,3", (1, 2, 3)),
        (tuple[str, ...], "", ()),
        (tuple[int, str], "1,a", (1, "a")),
        (list[float], "1,2.5", [1.0, 2.5]),
        (bool, "Yes", True),
        (Optional[bool], "0", False),
        (Literal["seq", "rand"], "rand", "rand"),
        (Literal[1, 2], "2", 2),
        (str, "none", "none"),  # only an Optional field reads "none" as None
        (typing.Any, "x", "x"),
    ],
)
def test_text_is_parsed_by_the_declared_type(hint, text, value):
    parsed = registry.parse_value(hint, text, "f")
    assert parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize(
    "hint,text,expected",
    [
        (int, "1.5", "an integer"),
        (bool, "maybe", "true or false"),
        (tuple[int, ...], "1,x", "a comma-separated list of integers"),
        (tuple[int, str], "1", "a comma-separated list of an integer, a string"),
        (Literal["seq", "rand"], "random", "one of 'seq', 'rand'"),
        (Optional[float], "fast", "a number or none"),
    ],
)
def test_a_bad_value_names_the_type_in_english(hint, text, expected):
    with pytest.raises(ParamsError) as err:
        registry.parse_value(hint, text, "f")
    assert str(err.value) == f"f: expected {expected}, got {text!r}"


FLOAT_FIELDS = sorted(
    (name, field)
    for name, module in ALL_BENCHMARKS.items()
    for field, info in module.Config.model_fields.items()
    if info.annotation is float
)


@pytest.mark.parametrize("name, field", FLOAT_FIELDS)
@pytest.mark.parametrize("text", ["1e400", "-1e400", "nan"])
def test_no_float_field_takes_an_infinity_or_nan(name, field, text):
    # pi's max_abs_error, bounded below only, took "1e400" as inf (the fuzzed --set test found it).
    with pytest.raises(ParamsError) as info:
        registry.make_config(ALL_BENCHMARKS[name], {field: text})
    assert info.value.field == f"{name}.{field}"


def test_the_float_fields_are_found():
    assert ("pi", "max_abs_error") in FLOAT_FIELDS and ("jvmcpu", "seconds") in FLOAT_FIELDS
