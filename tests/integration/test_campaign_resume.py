"""A campaign killed with SIGKILL mid-run resumes with no finished sample lost or repeated."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter

import pytest
import yaml

from selfbench.soak import campaign_argv
from tests.integration.conftest import REPO, leftovers
from vbench.ledger import read_ledger
from vbench.samples import Sample, read_records

pytestmark = pytest.mark.integration


def _design(tmp_path, **extra):
    path = tmp_path / "resume.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "experiment": {
                    "name": "resume",
                    "platforms": ["native"],
                    "repetitions": 4,
                    "workers": 1,
                    "calibrate": [{"benchmark": "cpu", "config": {"time_s": 1}}],
                    **extra,
                }
            }
        )
    )
    return path


def _campaign(params_dir, design, data, wait=True):
    cmd = campaign_argv(params_dir, data, design)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if wait:
        return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=env, timeout=600)
    return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def _lines(path):
    return path.read_text().splitlines() if path.exists() else []


def _whole_lines(path):
    """The ledger's lines through its last closing record: what a resume keeps (a kill -9
    mid-write leaves a torn tail, which the resume cuts off and runs again)."""
    return path.read_bytes()[: read_ledger(path).end].decode().splitlines() if path.exists() else []


def _done(path):
    return read_ledger(path).done_cells if path.exists() else set()


def test_kill_9_then_resume_loses_and_repeats_nothing(tmp_path, it_testbed, it_params_dir):
    design, data = _design(tmp_path), tmp_path / "data"
    samples = data / "raw" / "resume" / "samples.jsonl"
    proc = _campaign(it_params_dir, design, data, wait=False)
    try:
        deadline = time.monotonic() + 300
        while len(_done(samples)) < 2:
            assert proc.poll() is None, "the campaign ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.2)
    finally:
        # Killed here also when the wait above fails: a campaign left running would hold the
        # testbed name that the next test's campaign clears under it (its SSH calls then hang).
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    before = _whole_lines(samples)
    assert 0 < len(before)

    done = _campaign(it_params_dir, design, data)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "already done" in done.stdout

    after = _lines(samples)
    # Nothing finished before the kill was lost or rewritten...
    assert after[: len(before)] == before
    records = [r for r in read_records(samples) if isinstance(r, Sample)]
    cells = Counter(r.metadata["cell_id"] for r in records)
    assert set(cells) == {f"b{b}/native/cpu" for b in range(4)}
    # ...and nothing was measured twice: one value per (cell, host, metric).
    keys = Counter((r.metadata["cell_id"], r.metadata["host"], r.metric) for r in records)
    assert max(keys.values()) == 1
    assert len(set(cells.values())) == 1  # every cell has the same number of samples
    assert leftovers(it_testbed) == []


def test_a_time_budget_skips_and_records_what_was_left(tmp_path, it_testbed, it_params_dir):
    design, data = _design(tmp_path, budget_minutes=0.1), tmp_path / "data"
    done = _campaign(it_params_dir, design, data)
    assert done.returncode == 0, done.stdout + done.stderr
    skipped = json.loads((data / "raw" / "resume" / "skipped.json").read_text())
    samples = data / "raw" / "resume" / "samples.jsonl"
    ran = {r.metadata["cell_id"] for r in read_records(samples)} if samples.exists() else set()
    assert skipped["cells"] and not set(skipped["cells"]) & ran
    assert len(ran) + len(skipped["cells"]) == 4
    assert leftovers(it_testbed) == []
