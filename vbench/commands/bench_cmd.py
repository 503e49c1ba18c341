"""`vbench bench list | run NAME | calibrate | suite`: each run is a design built in code
(vbench.campaign.adhoc) that the campaign runner executes."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from vbench.benchmarks import registry
from vbench.campaign.adhoc import CALIBRATION, SUITE, adhoc_campaign, adhoc_experiment
from vbench.campaign.design import BenchmarkSpec
from vbench.campaign.progress import ProgressReport
from vbench.campaign.runner import run_campaign
from vbench.commands.campaign_cmd import closing_summary
from vbench.commands.common import add_params_options, hadoop_from_args, testbed_from_args
from vbench.errors import ParamsError
from vbench.samples import Failure, Sample, read_records
from vbench.store import CampaignStore
from vbench.validate import campaign_name

# No markup: cell ids such as b0/native[network.mode=nat]/pi are text, not style tags.
console = Console(markup=False)


def register(sub) -> None:
    p = sub.add_parser("bench", help="the benchmarks: list them, run one, calibrate hosts, run the Hadoop suite")
    p.add_argument("action", choices=("list", "run", "calibrate", "suite"))
    p.add_argument("name", nargs="?", help="run: the benchmark")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="run: a benchmark parameter")
    p.add_argument("--preset", help="run: a study preset of the benchmark (see `bench list`)")
    p.add_argument("--repetitions", type=int, default=1, help="blocks: each a fresh testbed (and cluster)")
    p.add_argument(
        "--campaign",
        help="samples go to DATA/raw/<campaign>/ (default: a new adhoc-<what>-<time>); "
        "the same command with the same --campaign resumes it",
    )
    p.add_argument("--data", type=Path, default=Path("data"))
    p.add_argument("--drop-caches", action="store_true", help="drop the page cache before each Hadoop run")
    p.add_argument(
        "--append",
        action="store_true",
        help="add to a committed campaign (tracked by git, or carrying a `frozen` mark file)",
    )
    p.add_argument(
        "--monitor",
        type=float,
        metavar="SECONDS",
        default=None,
        help="sample CPU, disk and network on every host at this interval during each run "
        "(time series under DATA/raw/<campaign>/timeseries/)",
    )
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
        overrides = dict(setting(s) for s in args.set)
        registry.make_config(module, overrides, args.preset)  # refused here, naming --set or --preset
        spec = (BenchmarkSpec(benchmark=args.name, config=overrides, preset=args.preset),)
        micro, hadoop = (spec, ()) if kind == "micro" else ((), spec)
        what = args.name
    elif args.action == "calibrate":
        micro, hadoop, what = CALIBRATION, (), "calibrate"
    else:
        micro, hadoop, what = (), SUITE, "suite"
    return _measure(args, micro, hadoop, what)


def setting(text: str) -> tuple[str, str]:
    """A --set KEY=VALUE as (key, value), stripped (ParamsError naming --set)."""
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
            d["name"],
            d["kind"],
            ", ".join(f"{f['name']}={f['default']}" for f in d["fields"]),
            ", ".join(f"{m['metric']} [{m['unit']}]" for m in d["metrics"]),
            ", ".join(d["presets"]) or "-",
        )
    console.print(table)
    return 0


def _measure(args, micro: tuple[BenchmarkSpec, ...], hadoop: tuple[BenchmarkSpec, ...], what: str) -> int:
    name = campaign_name(args.campaign) if args.campaign else adhoc_campaign(what)
    if args.monitor is not None and args.monitor <= 0:
        raise ParamsError("--monitor", f"must be a positive number of seconds, got {args.monitor:g}")
    tbp = testbed_from_args(args)
    hp = hadoop_from_args(args)
    exp = adhoc_experiment(
        name,
        tbp,
        calibrate=micro,
        suite=hadoop,
        repetitions=args.repetitions,
        drop_caches=args.drop_caches,
        monitor_interval_s=args.monitor,
    )
    store = CampaignStore(args.data / "raw" / name, append=args.append)
    report = ProgressReport(title=f"bench {what}")
    result = run_campaign(exp, tbp, hp, store.root, log=report.note, progress=report, append=args.append)
    ran = set(result.ran)
    _print_records(
        [r for r in read_records(store.samples_path) if r.metadata.get("cell_id") in ran]
        if store.samples_path.exists()
        else []
    )
    console.print(f"samples appended to {store.samples_path}; raw outputs under {store.root / 'raw'}")
    closing_summary(store.root, result.seconds, console)
    return 1 if result.failures else 0


def _print_records(records: list[Sample | Failure]) -> None:
    table = Table(title="samples")
    for col in ("run", "benchmark", "host", "metric", "value", "unit"):
        table.add_column(col)
    for r in records:
        m = r.metadata
        if isinstance(r, Failure):
            table.add_row(str(m.get("run_id", "")), r.benchmark, str(m.get("host", "")), "FAILED", r.reason[:60], "")
            continue
        # Headline metrics only: per-attempt and counter samples stay in the JSONL.
        if "attempt_id" in m or r.metric.startswith("counter.") or "interval" in m:
            continue
        table.add_row(str(m.get("run_id", "")), r.benchmark, str(m.get("host", "")), r.metric, f"{r.value:.4g}", r.unit)
    console.print(table)
