"""Fixtures shared by the unit tests' modules (the suite's own configuration is tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def main_campaign(tmp_path_factory) -> Path:
    """A small synthetic main campaign (native and LXC, 2 repetitions, no isolation runs) for a paper
    build whose test is about another part: one per module that asks for it. Skipped without the
    figures' libraries, which every build needs."""
    pytest.importorskip("matplotlib")
    pytest.importorskip("seaborn")
    from vbench.paper.synthetic import write_synthetic_campaign

    return write_synthetic_campaign(
        tmp_path_factory.mktemp("main") / "synthetic", platforms=("native", "lxc"), repetitions=2, with_isolation=False
    )
