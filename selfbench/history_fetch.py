"""What reading a job's JobHistory costs: one SSH round trip per job (vbench.hadoop.history_fetch)
against one per REST resource (the path it replaced: job, counters, tasks, then each task's
attempts), on the same finished jobs of a real TeraSort on a native test cluster.

Brings a 1 master + 2 worker native testbed and Hadoop up, runs TeraGen -> TeraSort ->
TeraValidate once, then reads the history of each of its jobs `--rounds` times by each path,
alternating, and prints SSH calls and seconds per job for both, with the load average before
and after. Root; a few minutes; tears everything down.

    python3 -m selfbench.history_fetch [--size-mb 32] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from vbench.benchmarks.hadoop import terasort
from vbench.benchmarks.hadoop.execute import execute, fetch_job_history
from vbench.hadoop import history, jobs
from vbench.hadoop.cluster import HadoopCluster
from selfbench.scratch_cluster import scratch_cluster
from vbench.params import hadoop_params


class CountingCluster:
    """The cluster, with its SSH calls counted."""

    def __init__(self, cluster: HadoopCluster):
        self.cluster, self.calls = cluster, 0
        self.master = cluster.master

    def sh(self, host, line: str, **kw):
        self.calls += 1
        return self.cluster.sh(host, line, **kw)


def per_resource(cluster, job_id: str) -> None:
    """The replaced path: one curl per SSH call for each resource."""

    def get(suffix: str) -> str:
        r = cluster.sh(
            cluster.master, f"curl -sf --max-time 10 '{history.job_url(cluster.master.name, job_id, suffix)}'"
        )
        assert r.ok, f"no {suffix or 'record'} for {job_id}"
        return r.stdout

    history.parse_job(get(""))
    history.parse_counters(get("/counters"))
    for task in history.parse_task_ids(get("/tasks")):
        history.parse_attempts(get(f"/tasks/{task}/attempts"))


def one_trip(cluster, job_id: str) -> None:
    fetch_job_history(cluster, job_id)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    load_before = os.getloadavg()
    hp = hadoop_params({"replication": 2})
    with scratch_cluster("vbhist", "10.213.7.0/24", hp) as cluster:
        run = execute(cluster, terasort, terasort.Config(size_mb=args.size_mb), job_details=False)
        assert run.ok, run.failure
        job_ids = [j for out in run.outputs.values() for j in jobs.job_ids(out.stderr)]
        results: dict[str, list[tuple[int, float]]] = {"per resource": [], "one trip": []}
        for _ in range(args.rounds):
            for name, path in (("per resource", per_resource), ("one trip", one_trip)):
                for job_id in job_ids:
                    counting = CountingCluster(cluster)
                    t0 = time.monotonic()
                    path(counting, job_id)
                    results[name].append((counting.calls, time.monotonic() - t0))
    print(f"TeraSort {args.size_mb} MB: {len(job_ids)} jobs (TeraGen, TeraSort, TeraValidate), {args.rounds} rounds")
    for name, rows in results.items():
        calls = statistics.mean(c for c, _ in rows)
        secs = [s for _, s in rows]
        print(
            f"  {name:13s} {calls:5.1f} SSH calls/job  {statistics.mean(secs):6.3f} s/job "
            f"(median {statistics.median(secs):.3f}, max {max(secs):.3f})"
        )
    print(f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
