"""`vbench hadoop fetch`: assemble Hadoop's jars from Maven Central into the cache."""

from __future__ import annotations

from vbench.commands.common import add_params_options, hadoop_from_args
from vbench.hadoop.artifacts import fetch


def register(sub) -> None:
    p = sub.add_parser("hadoop", help="Apache Hadoop artifacts")
    p.add_argument("action", choices=("fetch",))
    p.add_argument("--version", help="override hadoop.version")
    add_params_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    hp = hadoop_from_args(args, version=args.version)
    dist = fetch(hp.version, hp.examples_version)
    print(f"Hadoop {hp.version}: {len(dist.jars())} jars in {dist.lib}")
    return 0
