"""A fresh clone rebuilds the paper's artifacts from the committed reference campaign without
starting any host."""
from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

REFERENCE = Path(__file__).resolve().parents[2] / "data" / "raw" / "reference"


@pytest.mark.skipif(not (REFERENCE / "samples.jsonl").exists(), reason="no committed reference campaign")
def test_reference_rebuilds_without_hosts(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from vbench.hadoop.cluster import HadoopCluster
    from vbench.paper.build import build_paper
    from vbench.testbed import Testbed

    def refuse(*_a, **_k):
        raise AssertionError("rebuilding the paper must not start a host")

    monkeypatch.setattr(Testbed, "up", refuse)
    monkeypatch.setattr(HadoopCluster, "up", refuse)
    first = build_paper(REFERENCE, tmp_path / "a", pdf=False, n_resamples=999)
    second = build_paper(REFERENCE, tmp_path / "b", pdf=False, n_resamples=999)
    a, b = tmp_path / "a" / "generated", tmp_path / "b" / "generated"
    tex = sorted(p.relative_to(a) for p in a.rglob("*.tex"))
    assert tex and all(filecmp.cmp(a / p, b / p, shallow=False) for p in tex)
    # Two platforms were measured: the overhead of lxc appears in the statistics.
    stats = (a / "stats.csv").read_text()
    assert ",lxc," in stats and "ratio_to_baseline" in stats
    assert first is not None and second is not None
