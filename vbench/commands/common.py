"""Options shared by the command groups: where params live and per-run overrides."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vbench.params import HadoopParams, TestbedParams, load_hadoop, load_testbed


def add_params_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--params-dir", type=Path, default=Path("params"), help="directory of testbed.yaml and hadoop.yaml")
    p.add_argument("--platform", help="override testbed.platform")
    p.add_argument("--workers", type=int, help="override testbed.workers")


def _file(args: argparse.Namespace, name: str) -> Path:
    """The params file, or /dev/null (built-in defaults) when the directory lacks it, said aloud
    so that a mistyped --params-dir is not silently a default run."""
    path = args.params_dir / name
    if path.exists():
        return path
    print(f"vbench: note: {path} not found; using built-in defaults", file=sys.stderr)
    return Path("/dev/null")


def testbed_from_args(args: argparse.Namespace) -> TestbedParams:
    return load_testbed(_file(args, "testbed.yaml"), platform=args.platform, workers=args.workers)


def hadoop_from_args(args: argparse.Namespace, **overrides) -> HadoopParams:
    return load_hadoop(_file(args, "hadoop.yaml"), **overrides)
