"""Capture a WordCount job's JobHistory answers from a real cluster of one Hadoop version, as test
data for the profile extraction (issue #53: its tests read captured JobHistory output of two Hadoop
versions; tests/data/hadoop/suite holds 3.4.2's, tests/unit/test_history_versions.py reads each).

Brings a 1 master + 2 worker native testbed and Hadoop VERSION up, runs WordCount once (`--size-mb`,
2 reduces), then writes to OUT, for the WordCount job: its REST answers as JobHistory gives them
(jh_job.json, jh_counters.json, jh_tasks.json, the first map's and first reduce's attempts as
jh_attempts_map.json and jh_attempts_reduce.json), the one-trip stream
`vbench.hadoop.history_fetch` reads (jh_stream.txt), and the job client's output
(wordcount.stdout, wordcount.stderr). Root; a few minutes; tears everything down.

    python3 -m selfbench.capture_history --version 3.3.6 --out tests/data/hadoop/history-3.3.6
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import time
from pathlib import Path

from vbench.benchmarks.hadoop import wordcount
from vbench.benchmarks.hadoop.execute import execute
from vbench.hadoop import history, history_fetch, jobs
from vbench.hadoop.cluster import HadoopCluster
from selfbench.scratch_cluster import scratch_cluster
from vbench.params import hadoop_params


def rest(cluster: HadoopCluster, job_id: str, suffix: str = "") -> str:
    url = history.job_url(cluster.master.name, job_id, suffix)
    r = cluster.sh(cluster.master, f"curl -sf --max-time 10 {shlex.quote(url)}")
    if not r.ok:
        raise SystemExit(f"JobHistory gave no answer for {url}")
    return r.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--version", required=True, help="hadoop.version (one vbench.params knows)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--size-mb", type=int, default=2)
    ap.add_argument("--job-jvm-flag", action="append", default=[], help="hadoop.job_jvm_flags, repeatable")
    args = ap.parse_args()
    print(f"load average before {os.getloadavg()[0]:.2f}")
    hp = hadoop_params(
        {"version": args.version, "replication": 2, "job_jvm_flags": args.job_jvm_flag}
    )  # refused before anything is made
    args.out.mkdir(parents=True, exist_ok=True)
    with scratch_cluster("vbcap", "10.213.9.0/24", hp) as cluster:
        run = execute(cluster, wordcount, wordcount.Config(size_mb=args.size_mb, reduces=2), job_details=False)
        if not run.ok:
            raise SystemExit(f"WordCount failed: {run.failure}")
        # The job's client output only: the counts step prints every word's count.
        client = run.outputs["wordcount"]
        (args.out / "wordcount.stdout").write_text(client.stdout)
        (args.out / "wordcount.stderr").write_text(client.stderr)
        job_ids = jobs.job_ids(client.stderr)
        if len(job_ids) != 1:
            raise SystemExit(f"expected one WordCount job in its client's output, found {job_ids}")
        (job_id,) = job_ids
        answers = {"jh_job.json": rest(cluster, job_id), "jh_counters.json": rest(cluster, job_id, "/counters")}
        answers["jh_tasks.json"] = rest(cluster, job_id, "/tasks")
        tasks = history.parse_task_ids(answers["jh_tasks.json"])
        for kind, tag in (("map", "_m_"), ("reduce", "_r_")):
            first = next(t for t in tasks if tag in t)
            answers[f"jh_attempts_{kind}.json"] = rest(cluster, job_id, history_fetch.attempts_suffix(first))
        stream = cluster.sh(cluster.master, history_fetch.fetch_command(cluster.master.name, job_id))
        if not stream.ok:
            raise SystemExit("the one-trip fetch failed")
        answers["jh_stream.txt"] = stream.stdout
        answers["README.md"] = (
            f"# One WordCount job's JobHistory answers, Hadoop {args.version}\n\n"
            f"Captured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `python3 -m selfbench.capture_history "
            f"--version {args.version} --out {args.out}`: a 1 master + 2 worker native testbed of this project, "
            f"Hadoop {args.version} from Maven Central, WordCount over {args.size_mb} MB with 2 reduces, job "
            f"{job_id}. jh_*.json: the JobHistory REST answers (the job, its counters, its tasks, the first "
            "map's and the first reduce's attempts); jh_stream.txt: the one-trip stream "
            "(vbench.hadoop.history_fetch); wordcount.stdout/.stderr: the job client's output. Read by "
            "tests/unit/test_history_versions.py.\n"
        )
        for name, text in answers.items():
            if name.endswith(".json"):
                json.loads(text)  # as JobHistory gave it, checked to be JSON
            (args.out / name).write_text(text)
    print(f"{job_id} of Hadoop {args.version}: {len(answers)} answers and the client's output in {args.out}")
    print(f"load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
