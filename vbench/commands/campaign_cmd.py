"""`vbench campaign run|status|show NAME`: experiment designs from params/experiments/."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from vbench.campaign.design import expand, load_experiment
from vbench.campaign.runner import CampaignStore, done_cells, run_campaign
from vbench.commands.common import add_params_options, hadoop_from_args, testbed_from_args

# No markup: cell ids such as b0/native[network.mode=nat]/pi are text, not style tags.
console = Console(markup=False)


def register(sub) -> None:
    p = sub.add_parser("campaign", help="run or resume an experiment design (params/experiments/NAME.yaml)")
    p.add_argument("action", choices=("run", "status", "show"))
    p.add_argument("name", help="preset name in params/experiments/, or a path to a YAML file")
    p.add_argument("--campaign", help="campaign directory name under DATA/raw/ (default: the preset name)")
    p.add_argument("--data", type=Path, default=Path("data"))
    p.add_argument("--only", choices=("calibrate", "suite"), help="run: only the micro-benchmarks or only the Hadoop suite")
    p.add_argument("--inventory", type=Path,
                   help="run on the hosts of this SSH inventory instead of the local testbed (README: your own cluster)")
    p.add_argument("--block-unfit", action="store_true",
                   help="with --inventory: a host not fit to measure (checks before measuring) fails its configuration")
    p.add_argument("--waive", metavar="WHY", help="with --block-unfit: measure anyway; the reason is recorded")
    add_params_options(p)
    p.set_defaults(func=run)


def experiment_path(params_dir: Path, name: str) -> Path:
    path = Path(name)
    return path if path.suffix in (".yaml", ".yml") else params_dir / "experiments" / f"{name}.yaml"


def run(args) -> int:
    inv = None
    if getattr(args, "inventory", None):
        from vbench.inventory.model import load_inventory

        inv = load_inventory(args.inventory)
    exp = load_experiment(experiment_path(args.params_dir, args.name), inv.platforms() if inv else ())
    campaign_dir = args.data / "raw" / (args.campaign or exp.name)
    cells = expand(exp)
    if args.action == "show":
        for c in cells:
            console.print(f"{c.cell_id}{'  (warm-up)' if c.warmup else ''}")
        console.print(f"{len(cells)} cells")
        return 0
    if args.action == "status":
        done = done_cells(CampaignStore(campaign_dir))
        finished = sum(c.cell_id in done for c in cells)
        console.print(f"{campaign_dir}: {finished}/{len(cells)} cells done")
        return 0
    tb, hp = testbed_from_args(args), hadoop_from_args(args)
    source = None
    if inv is not None:
        from vbench.inventory.source import InventorySource

        source = InventorySource(inv, facts_dir=campaign_dir / "inventory", block_unfit=args.block_unfit,
                                 waiver=args.waive, log=console.log)
    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("ETA"), TimeRemainingColumn(), console=console) as progress:
        task = progress.add_task("cells", total=None)

        def advance(total: int, label: str) -> None:
            t = progress.tasks[0]
            if t.total is None:
                progress.update(task, total=total)
            elif t.description != "cells":
                progress.advance(task)
            progress.update(task, description=label)

        kinds = {"calibrate": {"micro"}, "suite": {"hadoop"}}.get(args.only or "", {"micro", "hadoop"})
        result = run_campaign(exp, tb, hp, campaign_dir, log=console.log, progress=advance, kinds=frozenset(kinds),
                              hosts_source=source)
        if result.ran:
            progress.advance(task)
    if result.stopped:
        console.print(f"campaign stopped (on_failure: stop): {result.stopped}")
    console.print(f"campaign {campaign_dir}: ran {len(result.ran)} cells ({result.failures} failed runs), "
                  f"{result.already_done} were already done, {len(result.skipped)} skipped, {result.seconds:.0f} s")
    return 1 if result.failures else 0
