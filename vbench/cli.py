"""The `vbench` command line: thin wrappers over library functions.

Each command group lives in its own module and exposes `register(subparsers)`,
which adds its sub-parser and sets `func` on it; `main` only dispatches.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from vbench.errors import VbenchError


#: The commands, each registered by its module `vbench.commands.<name>_cmd`, in --help's order.
COMMANDS = (
    "testbed",
    "cluster",
    "hadoop",
    "image",
    "bench",
    "campaign",
    "inventory",
    "isolation",
    "monitor",
    "stats",
    "predict",
    "paper",
    "stage",
)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every command's parser; or, given one of `COMMANDS`, that command's alone: the modules of
    the others import what they drive (fabric, the campaign runner, the benchmarks: ~2 s), which
    e.g. `vbench paper build` never uses."""
    parser = argparse.ArgumentParser(prog="vbench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in (command,) if command in COMMANDS else COMMANDS:
        importlib.import_module(f"vbench.commands.{name}_cmd").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except VbenchError as exc:
        print(f"vbench: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("vbench: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
