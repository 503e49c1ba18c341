"""A small synthetic campaign with the real metric names, for tests and for trying the paper stage.

Every sample it writes carries `synthetic: true` in its metadata and the paper built from it
says "synthetic data" on its title page and in every figure's caption: it is not a measurement
and must never be committed under data/raw as if it were one. Values come from a seeded
generator, so the same call writes the same records (timestamps included).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vbench.samples import Failure, Sample, append_records

#: Relative cost of each platform in the synthetic world (times multiply, rates divide).
_SLOWDOWN = {"native": 1.0, "lxc": 1.03, "oci": 1.04, "qemu": 1.6}
_T0 = 1_790_000_000.0


class _Writer:
    def __init__(self, platforms, repetitions: int, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.platforms = platforms
        self.repetitions = repetitions
        self.t = _T0
        self.records: list[Sample | Failure] = []
        self.run = 0

    def base(self, platform: str, experiment: str, rep: int, benchmark: str, **params) -> dict:
        self.run += 1
        return {
            "campaign": "synthetic",
            "synthetic": True,
            "platform": platform,
            "experiment": experiment,
            "repetition": rep,
            "run_id": f"{benchmark}-{self.run:05d}",
            "hadoop_version": "3.4.2",
            "java_version": 'openjdk version "17.0.15"',
            "kernel": "6.1.0-synthetic",
            "hadoop_config_hash": "0000synthetic",
            "hosts": "master,worker1,worker2",
            "workers": 2,
            "vbench_version": "0.1.0",
            **params,
        }

    def add(self, benchmark: str, metric: str, value: float, unit: str, meta: dict) -> None:
        self.t += 1.0
        self.records.append(Sample(benchmark, metric, float(value), unit, meta, timestamp=self.t))

    def noisy(self, mean: float, cv: float = 0.04) -> float:
        return float(mean * (1.0 + cv * self.rng.standard_normal()))


def write_synthetic_campaign(
    path: Path, *, platforms=("native", "lxc", "qemu"), repetitions: int = 3, seed: int = 7, with_isolation: bool = True
) -> Path:
    """Write `<path>/samples.jsonl` (and `facts.json`); returns the campaign directory."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    w = _Writer(list(platforms), repetitions, seed)
    for rep in range(1, repetitions + 1):
        for p in platforms:
            k = _SLOWDOWN.get(p, 1.2)
            _micro(w, p, rep, k)
            _hadoop(w, p, rep, k)
    if with_isolation and "lxc" in platforms:
        for rep in range(1, repetitions + 1):
            for stress, extra in (("none", 1.0), ("cpu", 1.0), ("memory", 1.08), ("io", 1.05), ("forkbomb", 1.0)):
                meta = w.base("lxc", "isolation", rep, "terasort", size_mb=64, replication=2, stress=stress)
                w.add("terasort", "terasort_time", w.noisy(40.0 * 1.03 * extra), "s", meta)
    w.records.append(
        Failure(
            "wordcount",
            "synthetic failure record",
            {"size_mb": 64},
            metadata={"campaign": "synthetic", "synthetic": True, "platform": platforms[-1]},
            timestamp=w.t + 1,
        )
    )
    out = path / "samples.jsonl"
    if out.exists():
        out.unlink()
    append_records(out, w.records)
    facts = [
        {
            "host": f"{p}-worker1",
            "platform": p,
            "virt": {"native": "none", "qemu": "qemu"}.get(p, p),
            "kernel": "6.1.0-synthetic",
            "cpu_model": "Synthetic CPU @ 2.0GHz",
            "vcpus": "2",
            "mem_total_mb": "4096",
            "accelerator": "tcg" if p == "qemu" else "",
        }
        for p in platforms
    ]
    (path / "facts.json").write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def _micro(w: _Writer, p: str, rep: int, k: float) -> None:
    meta = w.base(p, "micro", rep, "bonnie", host="worker1", size_mb=64)
    for metric, v in (
        ("seq_write_bw", 150000),
        ("rewrite_bw", 90000),
        ("seq_read_bw", 400000),
        ("seq_write_chr_bw", 1000),
        ("seq_read_chr_bw", 2000),
    ):
        w.add("bonnie", metric, w.noisy(v / k), "KiB/s", meta)
    w.add("bonnie", "random_seeks", w.noisy(900 / k), "ops/s", meta)
    for metric, v in (
        ("seq_create", 30000),
        ("seq_stat", 90000),
        ("seq_delete", 40000),
        ("random_create", 28000),
        ("random_stat", 85000),
        ("random_delete", 35000),
    ):
        w.add("bonnie", metric, w.noisy(v / k), "files/s", meta)
    for metric, v in (("seq_write_cpu", 30), ("rewrite_cpu", 20), ("seq_read_cpu", 25), ("random_seeks_cpu", 10)):
        w.add("bonnie", metric, w.noisy(v * k, 0.1), "%", meta)
    meta = w.base(p, "micro", rep, "iperf3", host="worker1", duration_s=10)
    for i in range(1, 11):
        w.add("iperf3", "throughput", w.noisy(9000 / k, 0.02), "Mbit/s", {**meta, "interval": i})
    w.add("iperf3", "throughput_mean", w.noisy(9000 / k, 0.01), "Mbit/s", meta)
    for digits, sec in ((100000, 0.08), (1000000, 1.2)):
        meta = w.base(p, "micro", rep, "pi_digits", host="worker1", digits=digits)
        w.add("pi_digits", "time", w.noisy(sec * k), "s", meta)
    meta = w.base(p, "micro", rep, "dd", host="worker1", bs_mb=4, count=8)
    w.add("dd", "write_bw", w.noisy(300 / k), "MB/s", meta)
    meta = w.base(p, "micro", rep, "hdparm", host="worker1")
    w.add("hdparm", "buffered_read_bw", w.noisy(1500 / k), "MiB/s", meta)


def _attempts(w: _Writer, benchmark: str, step: str, meta: dict, k: float, scale: float) -> None:
    for i, node in enumerate(("worker1", "worker2")):
        am = {**meta, "step": step, "node": node, "task_type": "REDUCE", "attempt_id": f"attempt_{w.run}_r_{i:06d}_0"}
        sh, me, re_ = w.noisy(5 * scale * k), w.noisy(0.8 * scale * k), w.noisy(3 * scale * k)
        w.add(benchmark, "reduce_shuffle_time", sh, "s", am)
        w.add(benchmark, "reduce_merge_time", me, "s", am)
        w.add(benchmark, "reduce_reduce_time", re_, "s", am)
        w.add(benchmark, "reduce_attempt_time", sh + me + re_, "s", am)


def _hadoop(w: _Writer, p: str, rep: int, k: float) -> None:
    for size in (64, 128, 256):
        meta = w.base(p, "platforms", rep, "terasort", size_mb=size, replication=2, output_replication=1)
        s = size / 64
        gen, sort, val = w.noisy(20 * s**0.8 * k), w.noisy(40 * s**0.8 * k), w.noisy(25 * s**0.7 * k)
        w.add("terasort", "teragen_time", gen, "s", meta)
        w.add("terasort", "terasort_time", sort, "s", meta)
        w.add("terasort", "teravalidate_time", val, "s", meta)
        w.add("terasort", "teragen_throughput", size / gen, "MiB/s", meta)
        w.add("terasort", "terasort_throughput", size / sort, "MiB/s", meta)
        for step, total in (("teragen", gen * 0.6), ("terasort", sort * 0.7), ("teravalidate", val * 0.5)):
            sm = {**meta, "step": step, "job_id": f"job_{w.run}_{step}"}
            w.add("terasort", "job_time", total, "s", sm)
            w.add("terasort", "map_shuffle_time", total * 0.8, "s", sm)
            w.add("terasort", "reduce_merge_time", total * 0.15, "s", sm)
        _attempts(w, "terasort", "terasort", meta, k, s)
        meta = w.base(p, "platforms", rep, "wordcount", size_mb=size)
        wc = w.noisy(35 * s**0.9 * k)
        w.add("wordcount", "job_wall_time", wc, "s", meta)
        w.add("wordcount", "throughput", size / wc, "MiB/s", meta)
    for replication in (1, 3):
        meta = w.base(
            p, "replication", rep, "terasort", size_mb=128, replication=replication, output_replication=replication
        )
        f = 1.0 if replication == 1 else 1.25
        w.add("terasort", "teragen_time", w.noisy(30 * f * k), "s", meta)
        w.add("terasort", "terasort_time", w.noisy(60 * f * k), "s", meta)
        w.add("terasort", "teravalidate_time", w.noisy(35 * k), "s", meta)
    for fsize in (16, 64):
        for replication in (2, 3):
            meta = w.base(p, "platforms", rep, "dfsio", files=2, file_size_mb=fsize, replication=replication)
            w.add("dfsio", "write_throughput", w.noisy(25 * (fsize / 16) ** 0.3 / k / (replication / 2)), "MiB/s", meta)
            w.add("dfsio", "read_throughput", w.noisy(60 * (fsize / 16) ** 0.3 / k), "MiB/s", meta)
    meta = w.base(p, "platforms", rep, "nnbench", files=100, maps=2)
    w.add("nnbench", "create_write_avg_latency", w.noisy(11 * k), "ms", meta)
    w.add("nnbench", "open_avg_latency", w.noisy(2.8 * k), "ms", meta)
    w.add("nnbench", "create_write_tps", w.noisy(150 / k), "tps", meta)
    meta = w.base(p, "platforms", rep, "mrbench", runs=3)
    w.add("mrbench", "avg_job_time", w.noisy(22 * k), "s", meta)
    meta = w.base(p, "platforms", rep, "pi", maps=2)
    w.add("pi", "job_wall_time", w.noisy(30 * k), "s", meta)
    meta = w.base(p, "platforms", rep, "sort", size_mb=64)
    w.add("sort", "sort_time", w.noisy(45 * k), "s", meta)
    _attempts(w, "sort", "sort", meta, k * (1.5 if p == "qemu" else 1.0), 1.0)
