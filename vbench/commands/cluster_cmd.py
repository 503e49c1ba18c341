"""`vbench cluster up|down|status|smoke`."""

from __future__ import annotations

import json
from pathlib import Path

from vbench.campaign.progress import ProgressReport
from vbench.commands.common import add_params_options, hadoop_from_args, testbed_from_args
from vbench.errors import VbenchError
from vbench.hadoop.artifacts import fetch
from vbench.hadoop.cluster import HadoopCluster
from vbench.lifecycle import interrupts_unwind
from vbench.machine_fit import MachineFacts, check_cluster_fits
from vbench.smoke import result_dict, run_smoke, smoke_size_mb
from vbench.testbed import Testbed
from vbench.testbed.local import platform_mismatch, testbed_status
from vbench.testbed.native_jdk import native_jdk
from vbench.units import parse_size


def register(sub) -> None:
    p = sub.add_parser("cluster", help="a Hadoop cluster (HDFS, YARN, JobHistory) on the testbed's hosts")
    p.add_argument("action", choices=("up", "down", "status", "smoke"))
    add_params_options(p)
    p.add_argument("--size", default="64MB", help="smoke: TeraGen data size (default 64MB)")
    p.add_argument("--replication", type=int, help="override hadoop.replication")
    p.add_argument("--version", help="override hadoop.version")
    p.add_argument("--topology", choices=("flat", "rack", "nodegroup"), help="override hadoop.topology")
    p.add_argument(
        "--out",
        type=Path,
        default=Path("data/raw/smoke"),
        help="smoke: each smoke is a new campaign under this directory",
    )
    p.add_argument("--testbed", action="store_true", help="down: also remove the testbed")
    p.set_defaults(func=run)


def run(args) -> int:
    tbp = testbed_from_args(args)
    hp = hadoop_from_args(args, replication=args.replication, version=args.version, topology=args.topology)
    if args.action == "smoke":
        size_mb = smoke_size_mb(_size(args.size))
        report = ProgressReport(title="smoke")
        result, camp = run_smoke(tbp, hp, size_mb, args.out, log=report.note, progress=report)
        print(json.dumps(result_dict(result), sort_keys=True))
        print(f"timings appended to {camp / 'samples.jsonl'}")
        print(result.summary())
        return 0 if result.ok else 1

    # The local testbed's native hosts may run the guest image's JDK (hadoop.jdk: image); the smoke
    # run above is a campaign, whose configurations' params resolve it themselves.
    hp = native_jdk(hp, tbp)
    tb = Testbed(tbp)
    if args.action == "up":
        check_cluster_fits(tbp, hp, MachineFacts.local())
        dist = fetch(hp.version, hp.examples_version)
        with interrupts_unwind():
            created = not testbed_status(tbp).exists
            # Hosts of another platform are another machine's layout: pushing Hadoop to them fails
            # deep in an SFTP call, so refuse before anything is touched.
            why = None if created else platform_mismatch(tb.recorded_platforms(), tbp.resolved_hosts())
            if why:
                raise VbenchError(
                    f"testbed '{tbp.name}' is up, but {why}: `vbench cluster down --testbed` removes it, "
                    "then `vbench cluster up` makes it anew"
                )
            hosts = tb.up() if created else tb.attach()
            cluster = HadoopCluster(hosts, hp, dist)
            try:
                cluster.up()
            except BaseException:
                cluster.down()
                if created:
                    tb.down()
                raise
            cluster.close()
        print(
            f"NameNode http://{cluster.master.name}:9870  ResourceManager http://{cluster.master.name}:8088 "
            f"(inside the testbed network); `vbench cluster down --testbed` removes everything"
        )
        return 0

    if not testbed_status(tbp).exists:
        print(f"testbed '{tbp.name}' is down; no cluster")
        return 0 if args.action != "status" else 1
    dist = fetch(hp.version, hp.examples_version)
    cluster = HadoopCluster(tb.attach(), hp, dist)
    if args.action == "down":
        cluster.down()
        if args.testbed:
            tb.down()
        print("cluster stopped" + (" and testbed removed" if args.testbed else ""))
        return 0
    states = cluster.daemon_states()
    hdfs, nms, jhs = cluster.health()
    cluster.close()
    for (host, daemon), up in sorted(states.items()):
        print(f"{host:10s} {daemon:16s} {'up' if up else 'down'}")
    print(
        f"live DataNodes: {', '.join(hdfs.live_datanodes) or '-'}; safe mode: {'on' if hdfs.safemode else 'off'}; "
        f"NodeManagers: {', '.join(nms) or '-'}; history server: {'up' if jhs else 'down'}"
    )
    return 0 if all(states.values()) else 1


def _size(text: str) -> int:
    from vbench.errors import ParamsError

    try:
        return parse_size(text)
    except ValueError as exc:
        raise ParamsError("--size", str(exc)) from None
