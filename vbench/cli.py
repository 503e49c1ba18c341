"""The `vbench` command line: thin wrappers over library functions.

Each command group lives in its own module and exposes `register(subparsers)`,
which adds its sub-parser and sets `func` on it; `main` only dispatches.
"""

from __future__ import annotations

import argparse
import sys

from vbench.errors import VbenchError


def build_parser() -> argparse.ArgumentParser:
    from vbench.commands import (
        bench_cmd,
        campaign_cmd,
        cluster_cmd,
        hadoop_cmd,
        image_cmd,
        inventory_cmd,
        isolation_cmd,
        monitor_cmd,
        paper_cmd,
        predict_cmd,
        stage_cmd,
        stats_cmd,
        testbed_cmd,
    )

    parser = argparse.ArgumentParser(prog="vbench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for module in (
        testbed_cmd,
        cluster_cmd,
        hadoop_cmd,
        image_cmd,
        bench_cmd,
        campaign_cmd,
        inventory_cmd,
        isolation_cmd,
        monitor_cmd,
        stats_cmd,
        predict_cmd,
        paper_cmd,
        stage_cmd,
    ):
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
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
