"""The command line registers every command, and imports only the one a command line names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vbench.cli import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_module_is_a_command():
    modules = sorted(p.stem.removesuffix("_cmd") for p in (ROOT / "vbench" / "commands").glob("*_cmd.py"))
    assert modules == sorted(COMMANDS)


def test_help_lists_every_command():
    text = build_parser().format_help()
    assert all(name in text for name in COMMANDS)


def test_a_named_command_parses_as_with_every_command():
    argv = ["paper", "build", "--campaign", "data/raw/reference", "--no-pdf"]
    one, every = build_parser("paper").parse_args(argv), build_parser().parse_args(argv)
    assert vars(one).keys() == vars(every).keys()
    assert {k: v for k, v in vars(one).items() if k != "func"} == {k: v for k, v in vars(every).items() if k != "func"}


def test_an_unknown_command_is_refused_naming_every_command(capsys):
    with pytest.raises(SystemExit):
        build_parser("nosuch").parse_args(["nosuch"])
    assert "campaign" in capsys.readouterr().err


def test_the_paper_command_does_not_import_what_drives_hosts():
    # A fresh interpreter: this one has imported everything the other tests use.
    code = (
        "import sys; from vbench.cli import build_parser; build_parser('paper'); "
        "print(sorted(m for m in ('fabric', 'vbench.campaign.runner', 'vbench.benchmarks.registry') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
