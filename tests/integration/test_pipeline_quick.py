"""The `quick` preset end to end through the notebooks, as DVC runs them (`vbench stage`, which
executes each notebook with papermill) against a test testbed and a temporary data directory;
the campaign's progress lines reach the terminal (stderr) while the notebook keeps its record.

The design is `quick` with the method's self-checks (issue #18 items 1, 3 and 5): the A/A copy
and two interleaved rounds in one block, so native and `native~aa` are up together, every sample
carries its block, round and the quiet-machine gate's verdict and readings, and the statistics
mark the A/A row. The rounds' Hadoop jobs run as duets (issue #51): both sides' at once. (One test for both: each brings up clusters for about three minutes.)"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.integration.conftest import _RUN, REPO, leftovers
from vbench.campaign.design import load_experiment
from vbench.testbed.facts import this_cpu_model
from vbench.campaign.runner import slot_testbed
from vbench.params import TestbedParams
from vbench.samples import Sample, append_records, read_records

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


def _quick_with_aa_and_rounds(experiments: Path) -> None:
    """quick.yaml with `aa: true`, two rounds and one block (the rounds are what is tested), run
    as duets (native's and native~aa's Pi jobs of a round at the same moment: issue #51), its
    CPU micro-benchmark for 1 s instead of 2 on each host (nothing checked depends on how long),
    one worker (so one replica) instead of two, and no warm-up runs. What this test checks holds
    for one worker; the warm-up runs (two Pi jobs and two CPU cells, a quarter of the test, 50-90 s
    of CI) are held by the unit tests of the plan and the runner (test_campaign_design.py,
    test_campaign_runner.py), the statistics' rule (test_stats_paired.py) and, for real, the
    slow-marked tests/integration/test_interleaved_rounds.py."""
    path = experiments / "quick.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["experiment"].update(
        {
            "aa": True,
            "rounds": 2,
            "repetitions": 1,
            "workers": 1,
            "warmup_runs": "none",
            "hadoop": {"replication": 1},
            "duet": {"cpus": "shared"},
        }
    )
    (cpu,) = [b for b in doc["experiment"]["calibrate"] if b["benchmark"] == "cpu"]
    cpu["config"]["time_s"] = 1
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def _slot_named_testbed(params_dir: Path) -> TestbedParams:
    """The test testbed under a 5-character name: with rounds, each configuration of a block gets
    its own slot testbed, named after it with the slot's digit appended (6 characters at most)."""
    path = params_dir / "testbed.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["testbed"]["name"] = f"q{_RUN:04d}"
    doc["testbed"]["network"]["bridge"] = f"q{_RUN:04d}br"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return TestbedParams.model_validate(doc["testbed"])


def test_quick_campaign_with_aa_and_rounds_runs_every_notebook(tmp_path, it_params_dir):
    shutil.copytree(REPO / "params" / "experiments", it_params_dir / "experiments")
    _quick_with_aa_and_rounds(it_params_dir / "experiments")
    tb = _slot_named_testbed(it_params_dir)
    exp = load_experiment(it_params_dir / "experiments" / "quick.yaml")
    data, executed = tmp_path / "data", tmp_path / "executed"
    executed.mkdir()
    common = {"params_dir": it_params_dir, "data_dir": data, "experiment": "quick", "campaign": "quick"}

    # An earlier campaign beside this one, on this machine's CPU: the gate's reference for the probe.
    model = this_cpu_model()
    earlier = Sample("cpu", "t", 1.0, "s", {"cpu_model": model, "quiet.verdict": "ok", "quiet.cpu_probe_ms": 40.0})
    append_records(data / "raw" / "earlier" / "samples.jsonl", [earlier])

    provision = _stage("01-provision.ipynb", executed, **common)
    calibrate = _stage("02-calibrate.ipynb", executed, **common)
    suite = _stage("03-hadoop-suite.ipynb", executed, **common)
    # The paper reads the statistics stage's table, so both get the same settings, as dvc.yaml passes them.
    _stage("04-statistics.ipynb", executed, data_dir=data, campaign="quick", resamples=999)
    print(provision, calibrate, suite)
    assert "provision: " in provision and ": ok" in provision
    for said in (calibrate, suite):
        assert f"quiet gate: this machine's CPU probe reference: 40.0 ms, the median of 1 campaign on {model}" in said
        assert "this machine's reference)" in said  # the ratio on every gate line
    # The suite's progress on the terminal: done/total, the running cell, elapsed, ETA, verdicts.
    assert "campaign: 4 cells to run" in suite, suite
    assert "[0/4 cells, " in suite and "ETA ?] running b0/r0/" in suite
    # Duets: both sides of round 0 start before either ends; round 1's start once both are done.
    assert suite.count("[0/4 cells, ") == 2, suite
    assert re.search(r"\[2/4 cells, \S+ elapsed, ETA \S+s\] running b0/r1/", suite), suite
    assert "[4/4] b0/r1/" in suite and "/pi: ok (" in suite
    # The gate ran before every round of each kind, and the notebook keeps what it said: 1 block x 2 rounds.
    for nb in ("02-calibrate.ipynb", "03-hadoop-suite.ipynb"):
        said = (executed / nb).read_text()
        assert said.count("b0/r0: quiet gate: ") == 1 and said.count("b0/r1: quiet gate: ") == 1, nb

    raw = data / "raw" / "quick"
    facts = json.loads((raw / "facts.json").read_text())
    assert {"master", "worker1"} <= {f["host"] for f in facts}
    records = list(read_records(raw / "samples.jsonl"))
    assert all(isinstance(r, Sample) for r in records), [r for r in records if not isinstance(r, Sample)]
    assert {r.metadata["platform"] for r in records} == {"native", "native~aa"}
    for r in records:
        md = r.metadata
        assert {"block", "round", "quiet.verdict"} <= md.keys(), md
        assert md["quiet.verdict"] in ("ok", "waited", "flagged")
        assert md["quiet.window_s"] == exp.quiet.window_s and md["quiet.mem_available_mb"] > 0
        assert md["quiet.cpu_probe_machine_ms"] == 40.0
    assert not any(r.metadata.get("warmup") for r in records)
    measured = {r.metadata["cell_id"] for r in records}
    assert measured == {f"b0/r{r}/{p}/{b}" for r in (0, 1) for p in ("native", "native~aa") for b in ("cpu", "pi")}, (
        measured
    )
    assert json.loads((raw / "suite.json").read_text())["failures"] == 0
    # The duets: each Pi run names its partner, how the CPUs were shared and the sides' start skew.
    pi = [r for r in records if r.benchmark == "pi"]
    assert pi and not any("duet_group" in r.metadata for r in records if r.benchmark == "cpu")
    for r in pi:
        md = r.metadata
        other = "native~aa" if md["platform"] == "native" else "native"
        assert md["duet_group"] == f"b0/r{md['round']}/pi" and md["duet_cpus"] == "shared", md
        assert md["duet_partners"] == [f"b0/r{md['round']}/{other}/pi"], md
        assert 0 <= md["duet_release_skew_s"] < 0.5, md  # the barrier releases both sides together
    starts = {
        (r.metadata["round"], r.metadata["platform"]): r.metadata["job_start_ms"]
        for r in pi
        if "job_start_ms" in r.metadata
    }
    for rnd in (0, 1):
        skew_s = abs(starts[(rnd, "native")] - starts[(rnd, "native~aa")]) / 1000
        print(f"round {rnd}: the two Pi jobs started {skew_s:.2f} s apart (JobHistory)")
        assert skew_s < 10, starts  # each side's job client is a JVM of its own: seconds, not a job's length

    assert (data / "processed" / "quick" / "stats.parquet").is_file()
    stats = pd.read_csv(data / "processed" / "quick" / "stats.csv")
    means = stats[(stats.statistic == "mean") & (stats.benchmark == "pi") & (stats.metric == "job_wall_time")]
    assert len(means) >= 1 and (means.n == 2).all()  # two rounds
    assert (means.ci_low < means.estimate).all() and (means.estimate < means.ci_high).all()
    aa = stats[stats.statistic == "aa_check"]
    assert len(aa) >= 1 and set(aa.platform) == {"native~aa"}
    assert (stats.statistic == "flagged_runs").any()
    assert stats[stats.statistic == "flagged_runs"].note.str.contains("this machine's reference").all()

    if (REPO / "vbench" / "paper" / "build.py").exists() and shutil.which("latexmk"):
        _stage("05-paper.ipynb", executed, data_dir=data, campaign="quick", paper_dir=tmp_path / "paper", resamples=999)
        assert (tmp_path / "paper" / "build" / "paper.pdf").stat().st_size > 10_000
    # The end of the main job (scripts/setup.sh run): the campaign's summary from the statistics the
    # stage cached, ending with where to look next, the PDF first.
    pdf = tmp_path / "paper" / "build" / "paper.pdf"
    said = subprocess.run(
        [sys.executable, "-m", "vbench.cli", "campaign", "summary", "quick", "--data", str(data), "--pdf", str(pdf)],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert said.returncode == 0, said.stdout[-3000:] + said.stderr[-3000:]
    lines = said.stdout.splitlines()
    assert lines[0].startswith("vbench summary: campaign quick (")
    assert f"statistics: {data / 'processed' / 'quick' / 'stats.parquet'}" in said.stdout  # the stage's, not recomputed
    assert any(" pi job_wall_time: " in line for line in lines), said.stdout  # one level: its means
    assert any(line.startswith("  pi job_wall_time native~aa/native  ") for line in lines), said.stdout  # the A/A
    assert "A/A: native against its own copy" in said.stdout and "Quiet gate: " in said.stdout
    where = lines.index("Where to look next:")
    assert lines[where + 1].startswith(f"  the paper: {pdf}"), lines[where:]
    assert (data / "raw" / "quick" / "summary" / "summary.md").is_file()
    assert leftovers(tb) == []
    for slot in range(2):
        assert leftovers(slot_testbed(tb, slot)) == []
