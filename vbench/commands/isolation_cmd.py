"""`vbench isolation run | table`: Xavier et al.'s performance isolation experiment (Table III),
a design the campaign runner runs (vbench.isolation.experiment)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from vbench.campaign.progress import ProgressReport
from vbench.commands.common import add_params_options, hadoop_from_args, testbed_from_args
from vbench.isolation import params as P
from vbench.isolation.experiment import isolation_experiment, run_isolation
from vbench.isolation.stress import STRESSES
from vbench.samples import Sample, read_records
from vbench.stats.slowdown import slowdown_rows, slowdown_stats
from vbench.stats.tidy import read_campaign
from vbench.store import CampaignStore
from vbench.validate import campaign_name

console = Console()
DEFAULT_PRESET = Path("params/experiments/xavier2014.yaml")


def register(sub) -> None:
    p = sub.add_parser("isolation", help="performance isolation: TeraSort beside a stressed neighbour (Xavier et al.)")
    p.add_argument("action", choices=("run", "table"))
    p.add_argument("--preset", type=Path, default=DEFAULT_PRESET, help="YAML with an `isolation:` section")
    p.add_argument("--repetitions", type=int, help="override isolation.repetitions")
    p.add_argument("--size", help="override isolation.size_mb (e.g. 32MB)")
    p.add_argument("--stresses", help="override isolation.stresses, comma-separated (must include none)")
    p.add_argument("--campaign", default="isolation", help="samples go to DATA/raw/<campaign>/; run again to resume")
    p.add_argument("--data", type=Path, default=Path("data"))
    p.add_argument(
        "--append",
        action="store_true",
        help="run: add to a committed campaign (the default, data/raw/isolation, is one)",
    )
    add_params_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    store = CampaignStore(args.data / "raw" / campaign_name(args.campaign), append=args.append)
    if args.action == "table":
        return _table(store)
    iso = P.load_isolation(
        args.preset,
        repetitions=args.repetitions,
        size_mb=args.size,
        platform=args.platform,
        workers=args.workers,
        stresses=args.stresses.split(",") if args.stresses else None,
    )
    base = testbed_from_args(args)
    hp = hadoop_from_args(args)
    isolation_experiment(iso, hp)  # the design, checked whole before anything starts
    store.check_appendable()  # before anything starts, not when the first condition is stored
    tb_b = P.tenant_b_testbed(base, iso)
    report = ProgressReport(title="isolation")
    report.note(
        f"isolation: tenant A = testbed {base.name} ({iso.workers} worker(s), {iso.platform}, "
        f"{iso.tenant_a.limits.as_dict()}); tenant B = testbed {tb_b.name} ({iso.tenant_b.limits.as_dict()}); "
        f"{iso.repetitions} block(s), each a TeraSort beside {', '.join(iso.stresses)}"
    )
    run_isolation(iso, base, hp, store.root, log=report.note, progress=report, append=args.append)
    return _table(store)


def _table(store: CampaignStore) -> int:
    if not store.samples_path.exists():
        rows, samples = [], []
    else:
        # The paper's computation (vbench.stats.slowdown), so the terminal and Table III agree.
        rows = slowdown_rows(slowdown_stats(read_campaign(store.root).samples), STRESSES)
        samples = [r for r in read_records(store.samples_path) if isinstance(r, Sample)]
    t = Table(title=f"TeraSort beside a stressed neighbour ({store.root})")
    for col in ("platform", "stress", "n", "mean TeraSort s", "slowdown, 95 % Fieller CI", "95 % BCa bootstrap CI"):
        t.add_column(col)
    for r in rows:
        t.add_row(r.experiment.split("/", 1)[-1], r.stress, str(r.n), f"{r.mean_s:.1f}", r.text(), r.text(r.bootstrap))
    console.print(t)
    watch = _watch_summary(samples)
    if watch:
        console.print("neighbour watch: " + "; ".join(watch))
    return 0 if rows else 1


def _watch_summary(samples: list[Sample]) -> list[str]:
    """Per stress: peak tasks in tenant B vs pids.max, refused forks, slowest SSH probe to A."""
    by: dict[str, dict[str, list[float]]] = {}
    for s in samples:
        if s.benchmark == "isolation_watch":
            by.setdefault(str(s.metadata.get("stress")), {}).setdefault(s.metric, []).append(s.value)
    out = []
    for stress, m in sorted(by.items()):
        out.append(
            f"{stress}: tasks peak {max(m.get('pids_peak', [0])):.0f}/{max(m.get('pids_max', [0])):.0f}, "
            f"refused forks {max(m.get('refused_forks', [0])):.0f}, probe max {max(m.get('probe_max_time', [0])):.2f}s, "
            f"responsive {sum(m.get('responsive', [])):.0f}/{len(m.get('responsive', []))}"
        )
    return out
