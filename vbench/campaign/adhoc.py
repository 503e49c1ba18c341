"""Designs built in code for `vbench bench run|calibrate|suite`: measurements made ad hoc, which
the campaign runner executes like any design (provenance, failure records, resume, page cache,
monitoring). One configuration: the testbed params' platform, workers and hosts as given.
"""

from __future__ import annotations

import time
from typing import Any

from vbench.campaign.design import BenchmarkSpec, Experiment, make_experiment
from vbench.params import TestbedParams

#: The `experiment` its samples carry.
EXPERIMENT = "adhoc"

#: `bench calibrate`: every micro-benchmark at sizes this 2-core machine runs in about a minute per host.
CALIBRATION: tuple[BenchmarkSpec, ...] = (
    *(BenchmarkSpec(benchmark=n) for n in ("cpu", "membw", "pi_digits", "dd", "fio", "bonnie")),
    BenchmarkSpec(benchmark="iperf3", config={"duration_s": 5}),
    BenchmarkSpec(benchmark="latency"),
)
#: `bench suite`: the Hadoop suite at sizes this machine runs in about ten minutes.
SUITE: tuple[BenchmarkSpec, ...] = tuple(
    BenchmarkSpec(benchmark=n) for n in ("terasort", "dfsio", "nnbench", "mrbench", "wordcount", "pi", "sort")
)


def adhoc_campaign(what: str, now: float | None = None) -> str:
    """`adhoc-<what>-<date>-<time>`: the campaign of an ad hoc run not given one, new each time
    (the runner resumes a campaign of the same design, never adds a second run of it)."""
    return f"adhoc-{what}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}"


def hosts_override(testbed: TestbedParams) -> dict[str, Any]:
    """The testbed params' explicit hosts (a mixed cluster), as a design's testbed override."""
    if testbed.hosts is None:
        return {}
    return {"hosts": [h.model_dump(mode="json", exclude_none=True) for h in testbed.hosts]}


def adhoc_experiment(
    name: str,
    testbed: TestbedParams,
    *,
    calibrate: tuple[BenchmarkSpec, ...] = (),
    suite: tuple[BenchmarkSpec, ...] = (),
    repetitions: int = 1,
    drop_caches: bool = False,
    monitor_interval_s: float | None = None,
) -> Experiment:
    """One configuration (the testbed's platform), `repetitions` blocks, each a fresh testbed
    and cluster."""
    return make_experiment(
        {
            "name": name,
            "experiment": EXPERIMENT,
            "platforms": (testbed.platform,),
            "repetitions": repetitions,
            "workers": testbed.workers,
            "testbed": hosts_override(testbed),
            "calibrate": calibrate,
            "suite": suite,
            "drop_caches": drop_caches,
            "monitor_interval_s": monitor_interval_s,
        },
        "bench",
    )
