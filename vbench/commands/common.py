"""Options shared by the command groups: where params live and per-run overrides."""

from __future__ import annotations

import argparse
from pathlib import Path

from vbench.params import HadoopParams, TestbedParams, load_hadoop, load_testbed, params_file


def add_params_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--params-dir", type=Path, default=Path("params"), help="directory of testbed.yaml and hadoop.yaml")
    p.add_argument("--platform", help="override testbed.platform")
    p.add_argument("--workers", type=int, help="override testbed.workers")


def _file(args: argparse.Namespace, name: str) -> Path:
    """The params file, or /dev/null (built-in defaults, said aloud) when the directory lacks it."""
    return params_file(args.params_dir, name)


def testbed_from_args(args: argparse.Namespace) -> TestbedParams:
    return load_testbed(_file(args, "testbed.yaml"), platform=args.platform, workers=args.workers)


def hadoop_from_args(args: argparse.Namespace, **overrides) -> HadoopParams:
    return load_hadoop(_file(args, "hadoop.yaml"), **overrides)
