"""`python3 -m vbench.stats INPUT ...`: the `vbench stats` command without the full CLI."""
from __future__ import annotations

import argparse
import sys

from vbench.commands import stats_cmd
from vbench.errors import VbenchError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m vbench.stats")
    sub = parser.add_subparsers(dest="command", required=True)
    stats_cmd.register(sub)
    args = parser.parse_args(["stats", *(sys.argv[1:] if argv is None else argv)])
    try:
        return int(args.func(args) or 0)
    except VbenchError as exc:
        print(f"vbench: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
