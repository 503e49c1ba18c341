"""selfbench.host_cv: a micro-benchmark's CV over a host's repeats, per platform, from samples."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from selfbench import host_cv as hc


def _rows(platform: str, host: str, block: int, values: list[float], metric: str = "jvm_start_ms", **extra) -> list:
    return [
        {
            "benchmark": "jvmstart",
            "metric": metric,
            "platform": platform,
            "host": host,
            "block": block,
            "value": v,
            **extra,
        }
        for v in values
    ]


def test_the_cv_is_a_hosts_over_its_repeats_and_the_median_over_host_blocks():
    df = pd.DataFrame(
        _rows("native", "master", 0, [90.0, 110.0])  # CV 14.14 %
        + _rows("native", "worker1", 0, [100.0, 100.0])  # 0 %
        + _rows("native", "master", 1, [99.0, 101.0])  # 1.41 %
        + _rows("native", "master", 1, [5.0, 9.0], metric="elapsed")  # never read
        + _rows("gvisor", "master", 0, [130.0])  # one repeat: no CV
    )
    [row] = hc.host_cvs(df)
    assert (row.benchmark, row.metric, row.platform, row.host_blocks, row.repeats) == (
        "jvmstart",
        "jvm_start_ms",
        "native",
        3,
        2,
    )
    assert row.median == pytest.approx(1.4142, abs=1e-3)
    assert (row.least, row.most) == (0.0, pytest.approx(14.142, abs=1e-3))


def test_warm_up_cells_are_left_out():
    df = pd.DataFrame(
        _rows("native", "m", 0, [1.0, 3.0], warmup=True) + _rows("native", "m", 1, [2.0, 2.0], warmup=False)
    )
    [row] = hc.host_cvs(df)
    assert row.host_blocks == 1 and row.median == 0.0


def test_the_table_puts_native_first_and_marks_a_platform_without_the_benchmark():
    rows = [hc.PlatformCV("rpc", "rpc_us", p, 2.0, 1.0, 3.0, 4, 5) for p in ("gvisor", "native")]
    text = hc.table(rows, ["native", "gvisor", "lxc"])
    assert text.splitlines()[0] == "| benchmark (metric) | native | gvisor | lxc |"
    assert text.splitlines()[2] == "| rpc (`rpc_us`) | 2.0 % (1.0-3.0; 4) | 2.0 % (1.0-3.0; 4) | - |"


def test_a_campaign_directory_is_read_through_vbench_and_printed(tmp_path, capsys):
    meta = {"benchmark_kind": "micro", "block": 0, "host": "master", "platform": "native", "warmup": False}
    meta |= {"experiment": "platforms", "repetition": 0}
    lines = [
        {
            "kind": "sample",
            "benchmark": "spawn",
            "metric": "spawn_us",
            "value": v,
            "unit": "us",
            "timestamp": 1.0,
            "metadata": meta,
        }
        for v in (600.0, 660.0)
    ]
    (tmp_path / "samples.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert hc.main([str(tmp_path)]) == 0
    assert "| spawn (`spawn_us`) | 6.7 % (6.7-6.7; 1) |" in capsys.readouterr().out
    assert hc.main([str(tmp_path / "nowhere")]) == 2


def test_variants_of_a_setting_are_read_apart():
    df = pd.DataFrame(
        _rows("native", "m", 0, [16.0, 17.0], other_cpus_busy=True)
        + _rows("native", "m", 0, [20.0, 90.0], other_cpus_busy=False)
        + _rows("lxc", "m", 0, [1.0, 1.0])  # without the setting: its own name
    )
    rows = {r.platform: r for r in hc.host_cvs(hc.split_by(df, "other_cpus_busy"))}
    assert sorted(rows) == ["lxc", "native other_cpus_busy=False", "native other_cpus_busy=True"]
    assert rows["native other_cpus_busy=True"].median == pytest.approx(4.29, abs=0.01)
    assert rows["native other_cpus_busy=False"].median > 60
    with pytest.raises(hc.VbenchError, match="no sample carries 'payload'"):
        hc.split_by(df, "payload")
