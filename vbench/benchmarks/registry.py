"""Every benchmark vbench knows, micro and Hadoop, with what it takes and what it measures.

Each module is checked against the contract (vbench.benchmarks.base) when this is imported, and a
name may be taken once across both kinds: `find` must never have two answers.
"""

from __future__ import annotations

import types
import typing
from types import ModuleType
from typing import Any

from vbench.benchmarks import netmatrix
from vbench.benchmarks.base import BenchConfig, ContractError, replace, require_contract
from vbench.benchmarks.hadoop import HADOOP_BENCHMARKS
from vbench.benchmarks.micro import MICRO_BENCHMARKS
from vbench.errors import ParamsError
from vbench.params import prefixed
from vbench.validate import key_text


def _kinds(**tables: dict[str, ModuleType]) -> dict[str, dict[str, ModuleType]]:
    """The tables, each module checked against the contract, no name in two of them."""
    seen: dict[str, str] = {}
    for kind, table in tables.items():
        require_contract(list(table.values()))
        for name in table:
            if name in seen:
                raise ContractError(f"benchmark name {name!r} is both a {seen[name]} and a {kind} benchmark")
            seen[name] = kind
    return tables


#: The iperf3 matrix is a calibration benchmark (kind micro) whose pairs come from the testbed's
#: network layout rather than its host list (vbench.campaign.measure).
KINDS = _kinds(micro={**MICRO_BENCHMARKS, netmatrix.NAME: netmatrix}, hadoop=HADOOP_BENCHMARKS)


def find(name: str) -> tuple[str, ModuleType]:
    for kind, table in KINDS.items():
        if name in table:
            return kind, table[name]
    known = ", ".join(sorted(n for t in KINDS.values() for n in t))
    raise ParamsError("benchmark", f"unknown benchmark {name!r}; known: {known}")


def describe(name: str, module: ModuleType, kind: str) -> dict[str, Any]:
    config: type[BenchConfig] = module.Config
    defaults = config()  # the contract: every field has a default
    return {
        "name": name,
        "kind": kind,
        "summary": (module.__doc__ or "").strip().splitlines()[0],
        "config": config.__name__,
        "fields": [
            {"name": f, "type": _type_name(info.annotation), "default": getattr(defaults, f)}
            for f, info in config.model_fields.items()
        ],
        "metrics": [{"metric": m, "unit": u} for m, u in module.METRICS.items()],
        "presets": sorted(module.PRESETS),
    }


def _type_name(hint: Any) -> str:
    return hint.__name__ if isinstance(hint, type) else str(hint).replace("typing.", "")


def describe_all() -> list[dict[str, Any]]:
    return [describe(n, m, kind) for kind, table in KINDS.items() for n, m in table.items()]


def make_config(module: ModuleType, overrides: dict[str, str], preset: str | None = None) -> BenchConfig:
    """A module's Config from `key=value` strings (typed by the field's declared type), on top of
    the named preset or the defaults. Errors name `<benchmark>.<field>`."""
    config = module.Config
    if preset and preset not in module.PRESETS:
        raise ParamsError(
            "--preset",
            f"{module.NAME} has no preset {preset!r}; presets: {', '.join(sorted(module.PRESETS)) or 'none'}",
        )
    base = module.PRESETS[preset] if preset else config()
    values = {}
    # The declared type, not the default's: a field defaulting to None must still take a value.
    hints = typing.get_type_hints(config)
    fields = tuple(config.model_fields)
    for key, text in overrides.items():
        if key not in fields:
            raise ParamsError(f"{module.NAME}.{key_text(key)}", f"no such parameter; parameters: {', '.join(fields)}")
        values[key] = parse_value(hints[key], text, f"{module.NAME}.{key}")
    try:
        return replace(base, **values)
    except ParamsError as exc:
        raise prefixed(exc, module.NAME, ".") from None


#: What an Optional field reads as None: Python's and YAML's spellings, or nothing at all.
NONE_WORDS = frozenset({"", "none", "null"})
TRUE_WORDS = frozenset({"true", "1", "yes"})
FALSE_WORDS = frozenset({"false", "0", "no"})


def parse_value(hint: Any, text: str, field: str) -> Any:
    """`text` (from `--set` or an experiment file) as a value of the declared type `hint`."""
    try:
        return _parse(hint, text)
    except ValueError:
        raise ParamsError(field, f"expected {type_in_english(hint)}, got {text!r}") from None


def _parse(hint: Any, text: str) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return _parse_union(args, text)
    if origin is typing.Literal:
        return _parse_literal(args, text)
    if origin in (tuple, list):
        return _parse_sequence(origin, args, text)
    if hint is bool:
        return _parse_bool(text)
    if hint in (int, float):
        return hint(text)
    return text  # str, Any, and whatever a command line cannot say better than a string


def _parse_union(options: tuple[Any, ...], text: str) -> Any:
    values = [o for o in options if o is not types.NoneType]
    if len(values) < len(options) and text.strip().lower() in NONE_WORDS:
        return None
    for option in values:
        try:
            return _parse(option, text)
        except ValueError:
            continue
    raise ValueError(text)


def _parse_literal(choices: tuple[Any, ...], text: str) -> Any:
    for choice in choices:
        if str(choice) == text or (isinstance(choice, bool) and _is_bool_word(text) and _parse_bool(text) is choice):
            return choice
    raise ValueError(text)


def _parse_sequence(origin: type, args: tuple[Any, ...], text: str) -> Any:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if origin is tuple and args and args[-1] is not Ellipsis:  # fixed length: tuple[int, str]
        if len(items) != len(args):
            raise ValueError(text)
        return tuple(_parse(a, t) for a, t in zip(args, items))
    item = args[0] if args else str
    return origin(_parse(item, t) for t in items)


def _is_bool_word(text: str) -> bool:
    return text.lower() in TRUE_WORDS | FALSE_WORDS


def _parse_bool(text: str) -> bool:
    if not _is_bool_word(text):
        raise ValueError(text)
    return text.lower() in TRUE_WORDS


def type_in_english(hint: Any) -> str:
    """What a parameter declared as `hint` takes, as its author would say it."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        values = [type_in_english(a) for a in args if a is not types.NoneType]
        return " or ".join(values + (["none"] if types.NoneType in args else []))
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin in (tuple, list):
        if origin is tuple and args and args[-1] is not Ellipsis:
            return "a comma-separated list of " + ", ".join(type_in_english(a) for a in args)
        return f"a comma-separated list of {_plural(args[0] if args else str)}"
    return _SINGULAR.get(hint, f"a {getattr(hint, '__name__', hint)}")


_SINGULAR = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
_PLURAL = {bool: "trues or falses", int: "integers", float: "numbers", str: "strings"}


def _plural(hint: Any) -> str:
    return _PLURAL.get(hint) or f"values, each {type_in_english(hint)}"
