"""selfbench/nnbench_barrier.py: runs joined to their configurations, and the per-configuration
reading (its parser is nnbench's own, tested in test_hadoop_suite_parsers)."""

from __future__ import annotations

import pytest

from tests.unit import selfbench_scripts
from vbench.samples import Failure, Sample


@pytest.fixture(scope="module")
def nb():
    return selfbench_scripts.load("nnbench_barrier")


def sample(run, platform, metric, value, benchmark="nnbench", **levels):
    meta = {"run_id": run, "platform": platform, **{f"factor.{k}": v for k, v in levels.items()}}
    return Sample(benchmark, metric, value, "s", meta)


def test_configurations_name_only_the_levels_that_differ(nb):
    # As costs-fit-process-confirm stamps them: cpu_fraction 1.0 everywhere names nothing.
    records = [
        sample("r1", "native", "create_write_job_time", 15.1, **{"slowdown.cpu_fraction": 1.0, "slowdown.x": False}),
        sample("r2", "native", "create_write_job_time", 28.4, **{"slowdown.cpu_fraction": 1.0, "slowdown.x": True}),
        sample("r0", "lxc", "wordcount_job_time", 9.0, benchmark="wordcount"),  # not NNBench's: left out
        Failure(
            "nnbench", "timeout", metadata=dict(run_id="r3", platform="gvisor", **{"factor.slowdown.cpu_fraction": 1.0})
        ),
    ]
    facts = nb.run_facts(records)
    assert sorted(facts) == ["r1", "r2", "r3"] and facts["r3"].values == {}
    assert nb.distinguishing(facts) == ["platform", "slowdown.x"]
    assert nb.configuration(facts["r2"], ["slowdown.x"]) == "native[slowdown.x=True]"
    assert nb.configuration(facts["r3"], ["slowdown.x"]) == "gvisor"


def test_rows_join_runs_to_their_samples_and_summary_skips_missing_readings(nb):
    facts = nb.run_facts(
        [
            sample("a", "native", "create_write_job_time", 16.4),
            sample("a", "native", "create_write_avg_exec_time", 14.3),
            sample("b", "native", "open_read.job_time", 14.0),
        ]
    )
    starts = {
        "a": {"create_write": 0.5, "open_read": None},
        "b": {"create_write": 0.3, "open_read": 0.4},
        "z": {"create_write": 9.0, "open_read": 9.0},  # output captured, no samples
    }
    table = nb.rows("c", starts, facts)
    by = {(r.run_id, r.op): r for r in table}
    assert (by["a", "create_write"].job_time_s, by["a", "create_write"].avg_exec_ms) == (16.4, 14.3)
    assert by["b", "open_read"].job_time_s == 14.0 and by["a", "open_read"].job_time_s is None
    assert by["z", "open_read"].configuration == "(no samples)"
    summary = {(cfg, op): rest for _, cfg, op, *rest in nb.summary(table)}
    assert summary["native", "create_write"] == [2, 0.3, 0.4, 0.5]
    assert summary["native", "open_read"] == [1, 0.4, 0.4, 0.4]  # run a's log lacked a line
    assert "-" in nb.format_rows(table).splitlines()[2]
