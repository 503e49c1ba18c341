"""The scripts under selfbench/ as modules, for the unit tests of their pure parts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SELFBENCH = Path(__file__).resolve().parents[2] / "selfbench"


def load(name: str) -> ModuleType:
    """selfbench/<name>.py, imported once under the name `selfbench_<name>`."""
    key = f"selfbench_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, SELFBENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[key] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod
