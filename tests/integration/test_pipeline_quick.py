"""The `quick` preset end to end through the notebooks, as DVC runs them (`vbench stage`, which
executes each notebook with papermill) against a test testbed and a temporary data directory;
the campaign's progress lines reach the terminal (stderr) while the notebook keeps its record."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.integration.conftest import REPO, leftovers
from vbench.samples import Sample, read_records

pytestmark = pytest.mark.integration


def _stage(nb: str, out_dir: Path, **params) -> str:
    """Runs one stage as dvc.yaml does; returns what it printed on stderr (the terminal)."""
    args = [
        sys.executable,
        "-m",
        "vbench.cli",
        "stage",
        str(REPO / "notebooks" / nb),
        "--executed-dir",
        str(out_dir),
        "--no-html",
    ]
    for k, v in params.items():
        args += ["-p", k, str(v)]
    r = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "without encryption" not in r.stderr
    return r.stderr


def test_quick_campaign_runs_every_notebook(tmp_path, it_testbed, it_params_dir):
    shutil.copytree(REPO / "params" / "experiments", it_params_dir / "experiments")
    data, executed = tmp_path / "data", tmp_path / "executed"
    executed.mkdir()
    common = {"params_dir": it_params_dir, "data_dir": data, "experiment": "quick", "campaign": "quick"}

    provision = _stage("01-provision.ipynb", executed, **common)
    _stage("02-calibrate.ipynb", executed, **common)
    suite = _stage("03-hadoop-suite.ipynb", executed, **common)
    # The paper reads the statistics stage's table, so both get the same settings, as dvc.yaml passes them.
    _stage("04-statistics.ipynb", executed, data_dir=data, campaign="quick", resamples=999)
    print(provision, suite)
    assert "provision: 1 testbeds to run" in provision and "[1/1] native: ok" in provision
    # The suite's progress on the terminal: done/total, the running cell, elapsed, ETA, verdicts.
    assert "campaign: 2 cells to run" in suite
    assert "[0/2 cells, " in suite and "ETA ?] running b0/native/pi" in suite
    assert "[1/2] b0/native/pi: ok (" in suite
    assert re.search(r"\[1/2 cells, \S+ elapsed, ETA \S+s\] running b1/native/pi", suite), suite
    assert "[2/2] b1/native/pi: ok (" in suite

    raw = data / "raw" / "quick"
    facts = json.loads((raw / "facts.json").read_text())
    assert sorted(f["host"] for f in facts) == ["master", "worker1", "worker2"]
    records = list(read_records(raw / "samples.jsonl"))
    assert all(isinstance(r, Sample) for r in records), [r for r in records if not isinstance(r, Sample)]
    cells = {r.metadata["cell_id"] for r in records}
    assert cells == {"b0/native/cpu", "b1/native/cpu", "b0/native/pi", "b1/native/pi"}
    assert json.loads((raw / "suite.json").read_text())["failures"] == 0

    assert (data / "processed" / "quick" / "stats.parquet").is_file()
    stats = pd.read_csv(data / "processed" / "quick" / "stats.csv")
    means = stats[(stats.statistic == "mean") & (stats.benchmark == "pi") & (stats.metric == "job_wall_time")]
    assert len(means) >= 1 and (means.n == 2).all()
    assert (means.ci_low < means.estimate).all() and (means.estimate < means.ci_high).all()

    if (REPO / "vbench" / "paper" / "build.py").exists() and shutil.which("latexmk"):
        _stage("05-paper.ipynb", executed, data_dir=data, campaign="quick", paper_dir=tmp_path / "paper", resamples=999)
        assert (tmp_path / "paper" / "build" / "paper.pdf").stat().st_size > 10_000
    assert leftovers(it_testbed) == []
