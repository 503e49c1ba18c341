"""The `quick` preset end to end through the notebooks, as DVC runs them: papermill executes
every stage notebook against a test testbed and a temporary data directory."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.integration.conftest import REPO, leftovers
from vbench.samples import Sample, read_records

pytestmark = pytest.mark.integration


def _papermill(nb: str, out_dir: Path, **params) -> None:
    args = [sys.executable, "-m", "papermill", "--log-level", "WARNING", str(REPO / "notebooks" / nb), str(out_dir / nb)]
    for k, v in params.items():
        args += ["-p", k, str(v)]
    r = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def test_quick_campaign_runs_every_notebook(tmp_path, it_testbed, it_params_dir):
    shutil.copytree(REPO / "params" / "experiments", it_params_dir / "experiments")
    data, executed = tmp_path / "data", tmp_path / "executed"
    executed.mkdir()
    common = {"params_dir": it_params_dir, "data_dir": data, "experiment": "quick", "campaign": "quick"}

    _papermill("01-provision.ipynb", executed, **common)
    _papermill("02-calibrate.ipynb", executed, **common)
    _papermill("03-hadoop-suite.ipynb", executed, **common)
    _papermill("04-statistics.ipynb", executed, data_dir=data, campaign="quick")

    raw = data / "raw" / "quick"
    facts = json.loads((raw / "facts.json").read_text())
    assert sorted(f["host"] for f in facts) == ["master", "worker1", "worker2"]
    records = list(read_records(raw / "samples.jsonl"))
    assert all(isinstance(r, Sample) for r in records), [r for r in records if not isinstance(r, Sample)]
    cells = {r.metadata["cell_id"] for r in records}
    assert cells == {"b0/native/cpu", "b1/native/cpu", "b0/native/pi", "b1/native/pi"}
    assert json.loads((raw / "suite.json").read_text())["failures"] == 0

    stats = pd.read_csv(data / "processed" / "quick" / "stats.csv")
    means = stats[(stats.statistic == "mean") & (stats.benchmark == "pi") & (stats.metric == "job_wall_time")]
    assert len(means) >= 1 and (means.n == 2).all()
    assert (means.ci_low < means.estimate).all() and (means.estimate < means.ci_high).all()

    if (REPO / "vbench" / "paper" / "build.py").exists() and shutil.which("latexmk"):
        _papermill("05-paper.ipynb", executed, data_dir=data, campaign="quick", paper_dir=tmp_path / "paper",
                   resamples=999)
        assert (tmp_path / "paper" / "build" / "paper.pdf").stat().st_size > 10_000
    assert leftovers(it_testbed) == []
