"""`vbench stats` command: argparse wiring, output file, strict mode, one-line errors."""

import argparse
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from vbench.commands import stats_cmd
from vbench.errors import ParamsError, VbenchError

from tests.unit.builders import ESTIMATE_COLUMNS, STATS_KEY_COLUMNS

DATA = Path(__file__).resolve().parents[1] / "data" / "stats"
ROOT = Path(__file__).resolve().parents[2]


def _args(*argv):
    parser = argparse.ArgumentParser(prog="vbench")
    sub = parser.add_subparsers(dest="command", required=True)
    stats_cmd.register(sub)
    return parser.parse_args(["stats", *argv])


def test_run_writes_table_and_is_deterministic(tmp_path):
    out1, out2 = tmp_path / "a.csv", tmp_path / "b.csv"
    assert stats_cmd.run(_args(str(DATA / "samples.csv"), "--baseline", "native", "--out", str(out1))) == 0
    assert stats_cmd.run(_args(str(DATA / "samples.csv"), "--out", str(out2))) == 0
    assert out1.read_bytes() == out2.read_bytes()
    t = pd.read_csv(out1)
    assert set(STATS_KEY_COLUMNS + ESTIMATE_COLUMNS) <= set(t.columns)
    lxc = t[(t.platform == "lxc") & (t.statistic == "equivalence")].iloc[0]
    assert lxc.verdict == "near-native (TOST, 5 % bound)"
    warm = t[t.statistic == "excluded_runs"]
    assert len(warm) == 5 and (warm.note.str.contains("warmup=true")).all()


def test_directions_and_drop_first(tmp_path, capsys):
    out = tmp_path / "o.csv"
    stats_cmd.run(
        _args(
            str(DATA / "samples.csv"),
            "--out",
            str(out),
            "--drop-first",
            "2",
            "--lower-is-better",
            "write_throughput",
            "--equivalence-pct",
            "2",
        )
    )
    t = pd.read_csv(out)
    dfsio = t[(t.benchmark == "dfsio") & (t.statistic == "mean") & (t.method == "t")]
    assert (dfsio.n == 3).all()
    over = t[(t.platform == "kvm") & (t.benchmark == "dfsio") & (t.statistic == "overhead_pct")]
    assert (over.estimate < 0).all()  # told "lower is better", lower throughput reads as a gain
    assert "rows written to" in capsys.readouterr().err


def test_strict_raises_vbench_error(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("experiment,platform,benchmark,metric,unit,value,repetition\ne,kvm,b,t,s,1.0,0\ne,kvm,b,t,s,1.1,1\n")
    assert stats_cmd.run(_args(str(p), "--out", str(tmp_path / "o.csv"))) == 0
    with pytest.raises(VbenchError, match="no baseline 'native' for this group"):
        stats_cmd.run(_args(str(p), "--strict", "--out", str(tmp_path / "o.csv")))


def test_conflicting_directions_rejected():
    with pytest.raises(ParamsError, match="given both ways: m"):
        stats_cmd.run(_args(str(DATA / "samples.csv"), "--higher-is-better", "m", "--lower-is-better", "m"))


def test_module_entry_point_prints_one_line_error():
    proc = subprocess.run(
        [sys.executable, "-m", "vbench.stats", str(DATA / "missing_unit.csv")], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "missing required column(s) 'unit'" in proc.stderr


def test_module_entry_point_writes_stdout():
    proc = subprocess.run(
        [sys.executable, "-m", "vbench.stats", str(DATA / "records.jsonl"), "--resamples", "500"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("experiment,platform,benchmark,metric,unit,size,statistic,method,estimate")
    assert "skipped 1 failure record" in proc.stderr


def test_samples_out_and_unwritable_out(tmp_path):
    flagged = tmp_path / "flagged.csv"
    stats_cmd.run(_args(str(DATA / "samples.csv"), "--out", str(tmp_path / "o.csv"), "--samples-out", str(flagged)))
    f = pd.read_csv(flagged, keep_default_na=False)
    assert len(f) == 28 and {"excluded_by", "outlier", "modified_z"} <= set(f.columns)
    assert (f.excluded_by == "warmup=true").sum() == 3
    with pytest.raises(ParamsError, match="--out: cannot write"):
        stats_cmd.run(_args(str(DATA / "samples.csv"), "--out", str(tmp_path / "no" / "dir" / "o.csv")))
