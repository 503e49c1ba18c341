"""A fresh clone rebuilds the paper's artifacts from the committed reference campaign without
starting any host, and the paper reading the statistics stage's table gives the same bytes as
the table computed by the paper build itself."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

REFERENCE = Path(__file__).resolve().parents[2] / "data" / "raw" / "reference"


@pytest.mark.skipif(not (REFERENCE / "samples.jsonl").exists(), reason="no committed reference campaign")
def test_reference_rebuilds_without_hosts_from_the_statistics_stages_table(tmp_path, monkeypatch, fresh_clone_campaign):
    pytest.importorskip("matplotlib")
    from vbench import pipeline
    from vbench.hadoop.cluster import HadoopCluster
    from vbench.paper.build import build_paper
    from vbench.testbed import Testbed

    def refuse(*_a, **_k):
        raise AssertionError("rebuilding the paper must not start a host")

    monkeypatch.setattr(Testbed, "up", refuse)
    monkeypatch.setattr(HadoopCluster, "up", refuse)
    campaign = fresh_clone_campaign("reference")
    first = build_paper(campaign, tmp_path / "a", pdf=False, n_resamples=999)
    assert "reference: statistics computed here (no " in " ".join(first.notes)
    # The statistics stage writes the table; the paper then reads it instead of computing one.
    pipeline.statistics(campaign, tmp_path / "data" / "processed" / "reference", n_resamples=999)
    second = build_paper(campaign, tmp_path / "b", pdf=False, n_resamples=999)
    assert "reference: statistics read from " in " ".join(second.notes)
    a, b = tmp_path / "a" / "generated", tmp_path / "b" / "generated"
    generated = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert [p for p in generated if p.suffix == ".tex"] and (a / "stats.csv").is_file()
    assert sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file()) == generated
    assert [p for p in generated if not filecmp.cmp(a / p, b / p, shallow=False)] == []
    # Two platforms were measured: the overhead of lxc appears in the statistics.
    stats = (a / "stats.csv").read_text()
    assert ",lxc," in stats and "ratio_to_baseline" in stats
