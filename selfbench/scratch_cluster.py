"""A throwaway 1 master + 2 worker native testbed with Hadoop up, for the selfbench scripts that
need a real cluster for a few minutes (history_fetch, capture_history). Root."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from vbench.hadoop.artifacts import fetch
from vbench.hadoop.cluster import HadoopCluster
from vbench.params import HadoopParams, testbed_params
from vbench.testbed import Testbed


@contextmanager
def scratch_cluster(name: str, subnet: str, hp: HadoopParams) -> Iterator[HadoopCluster]:
    """Hadoop `hp` on a native testbed `name` (its bridge `<name>br` on `subnet`) under a temporary
    work root; everything it started is stopped and removed after, the work root too."""
    work = Path(tempfile.mkdtemp(prefix=f"vbench-{name}-"))
    tb = testbed_params(
        {"name": name, "workers": 2, "work_root": str(work), "network": {"bridge": f"{name}br", "subnet": subnet}}
    )
    try:
        with Testbed(tb) as bed, HadoopCluster(bed.hosts, hp, fetch(hp.version, hp.examples_version)) as cluster:
            yield cluster
    finally:
        # The testbed removed its own directory inside; its lock file stays, as every testbed's does.
        (work / f"{name}.lock").unlink(missing_ok=True)
        work.rmdir()
