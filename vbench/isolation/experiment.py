"""The isolation experiment (Xavier et al., Table III) as a design built in code that the campaign
runner runs: tenant A's cluster (every Hadoop host, under tenant A's limits) runs the registry's
TeraSort once per stress level per block, in a seeded random order within each block, with the
`Neighbour` hook setting the stress up in tenant B around each run. One block is a fresh tenant A
(testbed and cluster); the samples carry `stress` and `factor.stress`, the block, the cell and the
runner's provenance, and `vbench.stats.slowdown` turns them into the slowdown table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from vbench.campaign.design import Experiment, make_experiment
from vbench.campaign.hosts_source import TestbedSource
from vbench.campaign.progress import CampaignProgress
from vbench.campaign.runner import CampaignResult, run_campaign
from vbench.isolation.neighbour import CONDITION, Neighbour
from vbench.isolation.params import IsolationParams, tenant_a_hadoop, tenant_a_testbed, tenant_b_testbed
from vbench.params import HadoopParams, TestbedParams

Log = Callable[[str], None]
EXPERIMENT = "isolation"
#: What the neighbour needs besides the stress level: part of the design's hash.
NEIGHBOUR_SETTINGS = {"tenant_b", "warmup_s", "stress_timeout_s", "responsive_within_s"}


def isolation_experiment(iso: IsolationParams, hadoop: HadoopParams) -> Experiment:
    """The design: `iso.repetitions` blocks of every stress once, TeraSort at the experiment's scale."""
    replication = tenant_a_hadoop(hadoop, iso).replication
    return make_experiment(
        {
            "name": EXPERIMENT,
            "experiment": EXPERIMENT,
            "platforms": [iso.platform],
            "repetitions": iso.repetitions,
            "seed": iso.seed,
            "workers": iso.workers,
            "testbed": {"limits": iso.tenant_a.limits.as_dict()},
            "hadoop": {"replication": replication},
            "suite": [
                {
                    "benchmark": "terasort",
                    "config": {
                        "size_mb": iso.size_mb,
                        "maps": iso.maps,
                        "reduces": iso.reduces,
                        "replication": replication,
                    },
                }
            ],
            "condition": {
                "name": CONDITION,
                "levels": list(iso.stresses),
                "settings": iso.model_dump(mode="json", include=NEIGHBOUR_SETTINGS),
            },
        },
        "isolation",
    )


def run_isolation(
    iso: IsolationParams,
    testbed: TestbedParams,
    hadoop: HadoopParams,
    campaign_dir: Path,
    *,
    log: Log = print,
    progress: CampaignProgress | None = None,
    append: bool = False,
) -> CampaignResult:
    """Run (or resume) the experiment into `campaign_dir`; `testbed` is the params' (tenant A and
    B are derived from it, B in the upper half of A's subnet)."""
    tb_a, tb_b = tenant_a_testbed(testbed, iso), tenant_b_testbed(testbed, iso)
    # Tenant A's daemons share one CPU (and a busy machine): they get longer than the default to come up.
    source = TestbedSource(log, ready_timeout_s=iso.ready_timeout_s)
    return run_campaign(
        isolation_experiment(iso, hadoop),
        tb_a,
        tenant_a_hadoop(hadoop, iso),
        campaign_dir,
        log=log,
        progress=progress,
        hosts_source=source,
        append=append,
        hook=Neighbour(iso, tb_b),
    )
