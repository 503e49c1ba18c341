"""`vbench inventory preflight|check|prepare --inventory params/inventory.yaml`: a real cluster's
hosts, reached over SSH (see docs/inventory.md)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from vbench.commands.common import hadoop_from_args
from vbench.inventory import checks
from vbench.inventory.model import load_inventory, to_hosts
from vbench.inventory.preflight import require_usable

console = Console()


def register(sub) -> None:
    p = sub.add_parser("inventory", help="hosts of your own cluster: preflight, checks before measuring, prepare")
    p.add_argument("action", choices=("preflight", "check", "prepare"))
    p.add_argument("--inventory", type=Path, default=Path("params/inventory.yaml"))
    p.add_argument("--params-dir", type=Path, default=Path("params"), help="directory of hadoop.yaml")
    p.add_argument("--facts", type=Path, help="check: write hosts/<name>/facts.json and checks.json here")
    p.add_argument("--no-hadoop", action="store_true", help="prepare: packages only, do not push Hadoop's jars")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds a host may take to answer")
    p.set_defaults(func=run)


def run(args) -> int:
    inv = load_inventory(args.inventory)
    require_usable(inv, args.timeout)  # every action starts with it; nothing is touched if it fails
    console.print(
        f"preflight: {len(inv.hosts)} hosts reachable, host keys pinned, keys accepted"
        + (", sudo works" if any(h.sudo for h in inv.hosts) else "")
    )
    if args.action == "preflight":
        return 0
    if args.action == "check":
        reports = checks.check_hosts(to_hosts(inv), inv.java_home, checks.checked_dirs, inv.checks)
        for line in checks.summary_lines(reports):
            console.print(line)
        if args.facts:
            console.print(f"facts: {checks.write_facts(reports, args.facts)}")
        return 0 if all(r.verdict.fit for r in reports) else 1
    from vbench.hadoop.artifacts import fetch
    from vbench.inventory.prepare import prepare

    hp = hadoop_from_args(args, java_home=inv.java_home)
    dist = None if args.no_hadoop else fetch(hp.version, hp.examples_version, log=console.log)
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("preparing", total=len(inv.hosts))

        def step(host: str, what: str) -> None:
            if what == "done":
                progress.advance(task)
            progress.update(task, description=f"{host}: {what}")

        done = prepare(inv, hp, dist, step)
    for p in done:
        console.print(
            f"{p.host}: installed {', '.join(p.installed) or 'nothing (all present)'}; "
            f"Hadoop jars {'pushed' if p.jars_pushed else 'already there' if dist else 'skipped'}"
        )
    return 0
