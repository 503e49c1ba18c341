"""`vbench monitor check | nodes CAMPAIGN_DIR`: data-volume checks and the per-node task table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from vbench.errors import ParamsError
from vbench.stats import pernode, volume


def register(sub) -> None:
    p = sub.add_parser("monitor", help="monitored runs: data-volume checks, per-node task times and stragglers")
    p.add_argument("action", choices=("check", "nodes"))
    p.add_argument("campaign", type=Path, help="a campaign directory, e.g. data/raw/monitoring")
    p.add_argument("--step", default=None, help="nodes: only this step (e.g. terasort)")
    p.add_argument(
        "--platform",
        action="append",
        default=[],
        metavar="NODE=PLATFORM",
        help="nodes: a node's platform, for runs recorded without the host_platforms stamp",
    )
    p.add_argument("--out", type=Path, help="also write the table as CSV here")
    p.set_defaults(func=run)


def run(args) -> int:
    if not (args.campaign / "samples.jsonl").is_file():
        raise ParamsError(str(args.campaign), "no samples.jsonl in this campaign directory")
    pd.set_option("display.width", 200)
    if args.action == "check":
        table = volume.campaign_checks(args.campaign)
        if table.empty:
            print("no TeraSort runs in this campaign")
        for _, c in table.iterrows():
            verdict = {True: "PASS", False: "FAIL"}.get(c["ok"], "n/a ")
            print(f"{verdict} {c['run_id']} {c['check']}: {c['reason']}")
        failed = table[table["ok"] == False]  # noqa: E712 (None means "could not check", not a failure)
        code = 1 if len(failed) else 0
    else:
        plats = dict(p.split("=", 1) for p in args.platform)
        s = volume.samples_frame(args.campaign)
        rows = pernode.node_table(s, plats)
        if args.step:
            rows = [r for r in rows if r.step == args.step]
        table = pernode.table_frame(rows)
        print(table.to_string(index=False, float_format=lambda x: f"{x:.2f}") if rows else "no task attempts recorded")
        for v in pernode.stragglers(rows):
            print(f"{v.cluster} cluster, {v.step} {v.task_type}: {v.verdict}")
        code = 0
    if args.out:
        table.to_csv(args.out, index=False)
    return code
