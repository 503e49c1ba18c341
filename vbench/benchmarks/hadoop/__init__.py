"""The Hadoop suite: one module per benchmark, each with `NAME`, `METRICS`, `Config`, and the
pure `steps(cfg, run_dir)` and `parse(outputs, cfg)`; `execute.execute` runs them on a cluster."""

from __future__ import annotations

from types import ModuleType

from vbench.benchmarks.hadoop import clientjvm, dfsio, mrbench, nnbench, pi, sort, terasort, wordcount

HADOOP_BENCHMARKS: dict[str, ModuleType] = {
    m.NAME: m for m in (terasort, dfsio, nnbench, mrbench, wordcount, pi, sort, clientjvm)
}
