"""`vbench bench list | run NAME | calibrate | suite`."""
from __future__ import annotations

import contextlib
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from vbench.benchmarks import registry
from vbench.benchmarks.suite import Planned, calibrate, default_calibration, default_suite, suite
from vbench.commands.common import add_params_options, hadoop_from_args, testbed_from_args
from vbench.errors import ParamsError
from vbench.hadoop.artifacts import fetch
from vbench.hadoop.cluster import HadoopCluster
from vbench.lifecycle import interrupts_unwind
from vbench.monitor.monitor import MonitorSpec
from vbench.machine_fit import MachineFacts, check_cluster_fits
from vbench.provenance import cluster_provenance, vbench_commit
from vbench.store import CampaignStore
from vbench.testbed import Testbed
from vbench.validate import campaign_name

# No markup: cell ids such as b0/native[network.mode=nat]/pi are text, not style tags.
console = Console(markup=False)


def register(sub) -> None:
    p = sub.add_parser("bench", help="the benchmarks: list them, run one, calibrate hosts, run the Hadoop suite")
    p.add_argument("action", choices=("list", "run", "calibrate", "suite"))
    p.add_argument("name", nargs="?", help="run: the benchmark")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="run: a benchmark parameter")
    p.add_argument("--preset", help="run: a study preset of the benchmark (see `bench list`)")
    p.add_argument("--repetitions", type=int, default=1)
    p.add_argument("--campaign", default="adhoc", help="samples go to DATA/raw/<campaign>/")
    p.add_argument("--data", type=Path, default=Path("data"))
    p.add_argument("--drop-caches", action="store_true", help="drop the page cache before each Hadoop run")
    p.add_argument("--append", action="store_true",
                   help="add to a committed campaign (tracked by git, or carrying a `frozen` mark file)")
    p.add_argument("--monitor", type=float, metavar="SECONDS", default=None,
                   help="sample CPU, disk and network on every host at this interval during each Hadoop run "
                        "(time series under DATA/raw/<campaign>/timeseries/)")
    add_params_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    if args.action == "list":
        return _list()
    if args.repetitions < 1:
        raise ParamsError("--repetitions", "must be at least 1")
    if args.action == "run":
        if not args.name:
            raise ParamsError("name", "`bench run` needs a benchmark name (see `vbench bench list`)")
        kind, module = registry.find(args.name)
        overrides = dict(_kv(s) for s in args.set)
        cfg = registry.make_config(module, overrides, args.preset)
        plan = [Planned(args.name, cfg, module)] * args.repetitions
        micro, hadoop = (plan, []) if kind == "micro" else ([], plan)
    elif args.action == "calibrate":
        micro, hadoop = default_calibration() * args.repetitions, []
    else:
        micro, hadoop = [], default_suite() * args.repetitions
    return _measure(args, micro, hadoop)


def _kv(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ParamsError("--set", f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def _list() -> int:
    table = Table(title="vbench benchmarks")
    for col in ("name", "kind", "parameters (defaults)", "metrics (units)", "presets"):
        table.add_column(col, overflow="fold")
    for d in registry.describe_all():
        table.add_row(
            d["name"], d["kind"],
            ", ".join(f"{f['name']}={f['default']}" for f in d["fields"]),
            ", ".join(f"{m['metric']} [{m['unit']}]" for m in d["metrics"]),
            ", ".join(d["presets"]) or "-",
        )
    console.print(table)
    return 0


def _measure(args, micro: list[Planned], hadoop: list[Planned]) -> int:
    campaign_name(args.campaign)  # a directory under DATA/raw/, never a path out of it
    tbp = testbed_from_args(args)
    hp = hadoop_from_args(args)
    if hadoop:
        check_cluster_fits(tbp, hp, MachineFacts.local())
    store = CampaignStore(args.data / "raw" / args.campaign, append=args.append)
    store.check_appendable()  # before anything starts, not when the first run is stored
    dist = fetch(hp.version, hp.examples_version, log=console.log) if hadoop else None
    runs = []
    with interrupts_unwind(), _progress(len(micro) + len(hadoop)) as advance:
        log = console.log
        with Testbed(tbp, log=log) as tb:
            stamp = {"campaign": args.campaign, "platform": tbp.platform, "vbench_commit": vbench_commit()}
            if micro:
                runs += calibrate(tb.hosts, micro, store, stamp, log=log, progress=advance)
            if hadoop:
                with HadoopCluster(tb.hosts, hp, dist, log=log) as cluster:
                    stamp = {**stamp, **cluster_provenance(cluster), "bringup_s": round(cluster.bringup_seconds, 2)}
                    runs += suite(cluster, hadoop, store, stamp, log=log, progress=advance,
                                  drop_caches=args.drop_caches,
                                  monitor=MonitorSpec(tbp.name, args.monitor) if args.monitor else None)
    _print_runs(runs)
    console.print(f"samples appended to {store.samples_path}; raw outputs under {store.root / 'raw'}")
    failed = [r for r in runs if not r.ok]
    return 1 if failed else 0


@contextlib.contextmanager
def _progress(total: int):
    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("ETA"), TimeRemainingColumn(), console=console, transient=False) as progress:
        task = progress.add_task("runs", total=max(total, 1))
        yield lambda label: progress.update(task, advance=1, description=label)


def _print_runs(runs) -> None:
    table = Table(title="samples")
    for col in ("run", "benchmark", "host", "metric", "value", "unit"):
        table.add_column(col)
    for r in runs:
        if not r.ok:
            table.add_row(r.run_id, r.benchmark, str(r.failure.metadata.get("host", "")), "FAILED", r.failure.reason[:60], "")
            continue
        # Headline metrics only: per-attempt and counter samples stay in the JSONL.
        for s in r.samples:
            if "attempt_id" in s.metadata or s.metric.startswith("counter.") or "interval" in s.metadata:
                continue
            table.add_row(r.run_id, s.benchmark, str(s.metadata.get("host", "")), s.metric, f"{s.value:.4g}", s.unit)
    console.print(table)
