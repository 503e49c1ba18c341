"""Every benchmark vbench knows, micro and Hadoop, with what it takes and what it measures."""
from __future__ import annotations

import dataclasses
from types import ModuleType
from typing import Any

from vbench.benchmarks.hadoop import HADOOP_BENCHMARKS
from vbench.benchmarks.micro import MICRO_BENCHMARKS
from vbench.errors import ParamsError

KINDS = {"micro": MICRO_BENCHMARKS, "hadoop": HADOOP_BENCHMARKS}


def find(name: str) -> tuple[str, ModuleType]:
    for kind, table in KINDS.items():
        if name in table:
            return kind, table[name]
    known = ", ".join(sorted(n for t in KINDS.values() for n in t))
    raise ParamsError("benchmark", f"unknown benchmark {name!r}; known: {known}")


def describe(name: str, module: ModuleType, kind: str) -> dict[str, Any]:
    config = module.Config
    defaults = config() if not any(f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
                                   for f in dataclasses.fields(config)) else None
    return {
        "name": name,
        "kind": kind,
        "summary": (module.__doc__ or "").strip().splitlines()[0],
        "fields": [{"name": f.name, "default": getattr(defaults, f.name, None)} for f in dataclasses.fields(config)],
        "metrics": [{"metric": m, "unit": u} for m, u in module.METRICS.items()],
        "presets": sorted(k for k, v in vars(config).items() if isinstance(v, classmethod)),
    }


def describe_all() -> list[dict[str, Any]]:
    return [describe(n, m, kind) for kind, table in KINDS.items() for n, m in table.items()]


def make_config(module: ModuleType, overrides: dict[str, str], preset: str | None = None) -> Any:
    """A module's Config from `key=value` strings (typed by the field's default), or a preset."""
    config = module.Config
    base = getattr(config, preset)() if preset else config()
    if preset and not isinstance(vars(config).get(preset), classmethod):
        raise ParamsError("--preset", f"{module.NAME} has no preset {preset!r}")
    values = {}
    fields = {f.name: f for f in dataclasses.fields(config)}
    for key, text in overrides.items():
        if key not in fields:
            raise ParamsError(f"{module.NAME}.{key}", f"no such parameter; parameters: {', '.join(fields)}")
        values[key] = _typed(getattr(base, key), text, f"{module.NAME}.{key}")
    try:
        return dataclasses.replace(base, **values)
    except (TypeError, ValueError) as exc:
        raise ParamsError(module.NAME, str(exc)) from None


def _typed(default: Any, text: str, field: str) -> Any:
    try:
        if isinstance(default, bool):
            if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(text)
            return text.lower() in ("true", "1", "yes")
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
        if isinstance(default, tuple):
            item = type(default[0]) if default else str
            return tuple(item(t) for t in text.split(",") if t)
    except ValueError:
        raise ParamsError(field, f"expected {_type_in_english(default)}, got {text!r}") from None
    return text


def _type_in_english(default: Any) -> str:
    """What a parameter typed like `default` takes, as its author would say it."""
    if isinstance(default, bool):
        return "true or false"
    if isinstance(default, int):
        return "an integer"
    if isinstance(default, float):
        return "a number"
    if isinstance(default, tuple):
        return f"a comma-separated list of {_type_in_english(default[0]) if default else 'strings'}"
    return f"a {type(default).__name__}"
