"""The studies' tables that had no renderer: Liu et al.'s disk speed per node, Vasconcelos & Freitas'
Hadoop Pi."""

from __future__ import annotations

import json
import re

import pandas as pd

from vbench.paper import tables as T

MIXED = json.dumps({"master": "native", "worker1": "native", "worker2": "native", "worker3": "qemu"})


def _disk_samples(values_by_node: dict[str, list[float]], bench="dd", metric="write_bw", unit="MB/s"):
    rows = []
    for node, values in values_by_node.items():
        for v in values:
            rows.append(
                {
                    "experiment": "liu",
                    "platform": "native",  # a mixed cluster labels every sample with the campaign's platform
                    "benchmark": bench,
                    "metric": metric,
                    "unit": unit,
                    "value": v,
                    "host": node,
                    "host_platforms": MIXED,
                }
            )
    return pd.DataFrame(rows)


def _cells(tex: str, first: str) -> list[str]:
    line = next(ln for ln in tex.splitlines() if ln.startswith(first))
    return [c.strip() for c in line.rstrip("\\ ").split("&")]


def test_a_mixed_clusters_nodes_get_their_own_platform_and_a_ratio_to_the_others():
    dd = _disk_samples({"worker1": [100, 110, 90], "worker2": [200, 210, 190], "worker3": [30, 33, 27]})
    hd = _disk_samples({"worker1": [400, 400], "worker3": [100, 100]}, "hdparm", "buffered_read_bw", "MiB/s")
    tex = T.table_node_disks(None, pd.concat([dd, hd], ignore_index=True), "native")
    assert T.has_data(tex) and r"\label{tab:node-disks}" in tex
    # worker3 is the QEMU node: its row says so, and its dd mean is 30 / mean(100, 200) = 0.20 of the others'.
    w3 = _cells(tex, "qemu & worker3")
    assert w3[4] == r"\num{0.20}" and w3[5] == r"\num{0.25}"
    # A baseline node is set against the other baseline nodes only: worker1 100 / 200.
    assert _cells(tex, "native & worker1")[4] == r"\num{0.50}"
    # worker2 ran no hdparm: a dash, said in the notes; n is every repeat on a node.
    assert _cells(tex, "native & worker2")[3] == r"\textemdash" and "not measured" in tex
    assert "$n=2$--$3$" in tex
    assert re.search(r"dd write \(\\unit\{[^}]*\}\)", tex)


def test_no_dd_or_hdparm_sample_is_an_empty_table():
    other = _disk_samples({"worker1": [1.0]}, "terasort", "terasort_time", "s")
    assert not T.has_data(T.table_node_disks(None, other, "native"))
    assert not T.has_data(T.table_node_disks(None, other.iloc[0:0], "native"))


def _mean(experiment, platform, benchmark, metric, estimate=10.0, **fields):
    """A statistics-table row: a platform's mean with a t interval of +/- 1."""
    row = {
        "experiment": experiment,
        "platform": platform,
        "baseline": "native",
        "benchmark": benchmark,
        "metric": metric,
        "unit": "s",
        "statistic": "mean",
        "method": "t",
        "estimate": estimate,
        "ci_low": estimate - 1,
        "ci_high": estimate + 1,
        "n": 3,
    }
    return row | fields


def test_the_hadoop_pi_table_reads_the_pi_jobs():
    stats = pd.DataFrame(
        [
            _mean("platforms", p, "pi", "job_wall_time", est, size="maps=6", size_label="6 maps")
            for p, est in (("native", 40.0), ("lxc", 41.0))
        ]
    )
    samples = pd.DataFrame({"platform": ["native", "lxc"], "benchmark": ["pi"] * 2, "metric": ["job_wall_time"] * 2})
    tex = T.table_hadoop_pi(stats, samples, "native")
    assert T.has_data(tex) and r"\label{tab:hadoop-pi}" in tex
    assert r"\num{40.0 \pm 1.0}" in tex and r"\num{41.0 \pm 1.0}" in tex


def test_each_testdfsio_panel_comes_from_the_experiment_that_measured_it(monkeypatch, tmp_path):
    # Xavier et al. wrote only; Vasconcelos & Freitas wrote and read: the read panel must not be lost
    # to the design that ranks first for writes (more pairs), and a study campaign's panel names it.
    from vbench.paper import figures as F

    def mean(experiment, platform, metric, n_pairs):
        return _mean(experiment, platform, "dfsio", metric, size="5MB", size_label="5MB", n_pairs=n_pairs)

    rows = [mean("platforms@xavier2014", p, "write_throughput", 10) for p in ("native", "lxc")]
    rows += [
        mean("platforms@vasconcelos2015-hadoop", p, m, 8)
        for p in ("native", "lxc")
        for m in ("write_throughput", "read_throughput")
    ]
    # Pairs behind a comparison rank the designs (the paper's one ranking): xavier2014's 10 beat 8.
    rows += [
        {
            **mean(r["experiment"], "lxc", r["metric"], r["n_pairs"]),
            "statistic": "ratio_to_baseline",
            "method": "paired-t",
        }
        for r in list(rows)
        if r["platform"] == "lxc"
    ]
    drawn = []
    monkeypatch.setattr(F, "_replication_panels", lambda data, *a, **k: drawn.extend(t for _, t in data) or [])
    F.fig_dfsio(pd.DataFrame(rows), pd.DataFrame(), tmp_path)
    assert drawn == ["TestDFSIO write\n(xavier2014)", "TestDFSIO read\n(vasconcelos2015-hadoop)"]
