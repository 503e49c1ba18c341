"""`vbench campaign run|status|show|check NAME`: experiment designs from params/experiments/;
`vbench campaign summary [NAME]`: a measured campaign's summary (data/raw/NAME/), running nothing;
`vbench campaign profile [NAME]`: its Hadoop jobs' resource profiles per platform (vbench.stats.profile)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from vbench.campaign.design import expand, sessions
from vbench.campaign.progress import ProgressReport
from vbench.campaign.runner import CampaignStore, done_cells, run_campaign
from vbench.campaign.study import load_study
from vbench.commands.common import add_params_options
from vbench.errors import ParamsError
from vbench.validate import campaign_name

# No markup: cell ids such as b0/native[network.mode=nat]/pi are text, not style tags.
console = Console(markup=False)


def register(sub) -> None:
    p = sub.add_parser("campaign", help="run or resume an experiment design (params/experiments/NAME.yaml)")
    p.add_argument(
        "action",
        choices=("run", "status", "show", "check", "summary", "profile"),
        help="check: is this machine quiet and at its usual speed to measure the design now (exit 0 if so); "
        "summary: a measured campaign's comparisons, verdicts, A/A, quiet gate, times, where to look next; "
        "profile: each platform's median resource profile of its Hadoop jobs (times, counters, tasks) and "
        "its ratio to the baseline's",
    )
    p.add_argument(
        "name",
        nargs="?",
        help="preset name in params/experiments/, or a path to a YAML file; summary, profile: a campaign under "
        "DATA/raw/ or its directory (default: the pipeline's, params/pipeline.yaml's analysis_campaign)",
    )
    p.add_argument("--campaign", help="campaign directory name under DATA/raw/ (default: the preset name)")
    p.add_argument("--data", type=Path, default=Path("data"))
    p.add_argument(
        "--only", choices=("calibrate", "suite"), help="run: only the micro-benchmarks or only the Hadoop suite"
    )
    p.add_argument(
        "--inventory",
        type=Path,
        help="run on the hosts of this SSH inventory instead of the local testbed (docs/inventory.md)",
    )
    p.add_argument(
        "--block-unfit",
        action="store_true",
        help="with --inventory: a host not fit to measure (checks before measuring) fails its configuration",
    )
    p.add_argument("--waive", metavar="WHY", help="with --block-unfit: measure anyway; the reason is recorded")
    p.add_argument(
        "--pdf", type=Path, help="summary: the paper to point to (default: paper/build/paper.pdf of the checkout)"
    )
    p.add_argument(
        "--compare",
        help="summary, profile: read the campaign comparing these (comma-separated: platform and/or its design's factors, "
        "e.g. platform for a design that compared cpu_group) instead of what its design compares",
    )
    p.add_argument(
        "--baseline",
        help="profile: the level the others are compared with (default: the design's baseline, else native); "
        "summary with --compare: the compared level the others are normalised to (default: native at each "
        "compared factor's first level)",
    )
    p.add_argument("--out", type=Path, help="profile: also write the table (a row per platform and resource) as CSV")
    p.add_argument(
        "--append",
        action="store_true",
        help="run: add to a committed campaign (tracked by git, or carrying a `frozen` mark file), "
        "or adopt a directory of samples that has no campaign.json into this design",
    )
    p.add_argument("--readings", type=int, default=10, help="check: how many times to read the machine (~2.5 s each)")
    p.add_argument(
        "--max-slowdown",
        type=float,
        help="check: how much slower than this machine's reference is still its usual speed "
        "(default: the design's quiet.max_machine_slowdown, else 0.25)",
    )
    add_params_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    if args.campaign is not None:
        campaign_name(args.campaign)  # a directory under DATA/raw/, never a path out of it
    if args.action == "summary":
        return _summary(args)
    if args.action == "profile":
        return _profile(args)
    if not args.name:
        raise ParamsError("name", f"`campaign {args.action}` needs a design: a preset name in params/experiments/")
    inv = None
    if getattr(args, "inventory", None):
        from vbench.inventory.model import load_inventory

        inv = load_inventory(args.inventory)
    # Every params file the design reads, and every configuration, is checked before anything starts.
    study = load_study(
        args.params_dir,
        args.name,
        inv.platforms() if inv else (),
        local=inv is None,
        testbed_overrides={"platform": args.platform, "workers": args.workers},
    )
    exp = study.experiment
    campaign_dir = args.data / "raw" / (args.campaign or exp.name)
    cells = expand(exp)
    if args.action == "show":
        plan = sessions(exp, cells)
        for s in plan:
            if exp.rounds > 1:
                console.print(
                    f"-- block {s.block}: {', '.join(c.key for c in s.configs)} up "
                    + ("together" if len(s.configs) > 1 else "alone")
                    + (
                        f"; each round's Hadoop jobs run at the same moment (duet, CPUs {exp.duet.cpus})"
                        if exp.duet is not None and len(s.configs) > 1
                        else ""
                    )
                )
            for c in s.runs:
                console.print(f"{c.cell_id}{'  (warm-up)' if c.warmup else ''}")
        warm = sum(c.warms_up for s in plan for c in s.runs)
        console.print(f"{len(cells)} cells" + (f" and {warm} warm-up runs" if warm else ""))
        return 0
    if args.action == "check":
        return _check(args, exp, campaign_dir, local=inv is None)
    if args.action == "status":
        done = done_cells(CampaignStore(campaign_dir))
        finished = sum(c.cell_id in done for c in cells)
        console.print(f"{campaign_dir}: {finished}/{len(cells)} cells done")
        return 0
    tb, hp = study.testbed, study.hadoop
    report = ProgressReport()
    source = None
    if inv is not None:
        from vbench.inventory.source import InventorySource

        source = InventorySource(
            inv, facts_dir=campaign_dir / "inventory", block_unfit=args.block_unfit, waiver=args.waive, log=report.note
        )
    kinds = {"calibrate": {"micro"}, "suite": {"hadoop"}}.get(args.only or "", {"micro", "hadoop"})
    from vbench.pipeline import PRECISION_RECORD, precision_hook, stopped_by_precision  # the statistics: seconds

    stopped = stopped_by_precision(campaign_dir)
    if stopped is not None:
        console.print(
            f"campaign {campaign_dir} was stopped by its precision rule: {stopped} "
            f"(its decisions: {campaign_dir / PRECISION_RECORD})"
        )
        return 0
    result = run_campaign(
        exp,
        tb,
        hp,
        campaign_dir,
        log=report.note,
        progress=report,
        kinds=frozenset(kinds),
        hosts_source=source,
        append=args.append,
        round_hooks=precision_hook(exp, campaign_dir, report.note),
    )
    if result.stopped:
        console.print(f"campaign stopped: {result.stopped}")
    warm = f" and {result.warmups} warm-up runs" if result.warmups else ""
    console.print(
        f"campaign {campaign_dir}: ran {len(result.ran)} cells{warm} ({result.failures} failed runs), "
        f"{result.already_done} were already done, {len(result.skipped)} skipped, {result.seconds:.0f} s"
    )
    closing_summary(campaign_dir, result.seconds, console)
    return 1 if result.failures else 0


def closing_summary(campaign_dir: Path, seconds: float, out: Console) -> None:
    """The run's last lines: its campaign's summary (vbench.report), or why there is none; a
    summary that cannot be made never turns a run's outcome into an error."""
    from vbench.errors import VbenchError
    from vbench.report.campaign import report
    from vbench.report.summary import StageTime

    if not (campaign_dir / "samples.jsonl").is_file():
        return
    try:
        report(campaign_dir, out, extra_times=(StageTime("this run", seconds, "the runner"),))
    except VbenchError as exc:
        out.print(f"summary: none for {campaign_dir}: {exc}")


def measured_dir(args) -> Path:
    """The measured campaign `summary` and `profile` read: --campaign or NAME under DATA/raw/, NAME
    as a directory elsewhere, else the pipeline's analysis campaign."""
    from vbench.report.campaign import pipeline_campaign

    if args.campaign is not None:
        return args.data / "raw" / args.campaign
    if args.name:
        return named_dir(args.name, args.data)
    return named_dir(pipeline_campaign(args.params_dir), args.data, elsewhere=False)


def named_dir(name: str, data: Path, *, elsewhere: bool = True) -> Path:
    """A campaign by name: NAME under DATA/raw/, or (`elsewhere`, a name a user gave) NAME as a
    directory elsewhere."""
    if Path(name).name == name and (data / "raw" / name).is_dir():
        return data / "raw" / name
    if elsewhere and Path(name).is_dir():
        return Path(name)  # a campaign directory elsewhere (e.g. selfbench's --out)
    return data / "raw" / campaign_name(name, "name")


def _summary(args) -> int:
    """`vbench campaign summary [NAME]`: reads the campaign and its statistics, runs nothing."""
    from vbench.report.campaign import report

    raw = measured_dir(args)
    if args.compare is None:
        if args.baseline is not None:
            raise ParamsError("--baseline", "summary: a baseline goes with --compare (the design names its own)")
        report(raw, console, pdf=args.pdf)
    else:
        report(raw, console, pdf=args.pdf, comparison=asked_comparison(raw, args.compare, args.baseline))
    return 0


def asked_comparison(raw: Path, compare: str, baseline: str | None):
    """The comparison `--compare` (and `--baseline`) ask of a measured campaign, checked against
    its design (campaign.json) before anything is read."""
    from vbench.campaign.design import compared_baseline, factor_label
    from vbench.stats.compare import Comparison, design_of

    design = design_of(raw)
    asked = tuple(c.strip() for c in compare.split(",") if c.strip())
    known = ["platform", *(factor_label(p) for p in design.get("factors") or {})]
    unknown = [c for c in asked if c not in known]
    if unknown or not asked:
        raise ParamsError("--compare", f"{unknown or 'nothing'} is not among the campaign's factors {known}")
    return Comparison(
        asked, compared_baseline(design.get("platforms") or (), design.get("factors") or {}, asked, baseline)
    )


def _profile(args) -> int:
    """`vbench campaign profile [NAME]`: each compared level's median job profile (the platform's,
    or what the design or --compare compares), runs nothing."""
    from vbench.stats import profile
    from vbench.stats.campaign import load_campaign
    from vbench.stats.compare import comparison_of

    raw = measured_dir(args)
    comparison = asked_comparison(raw, args.compare, args.baseline) if args.compare else comparison_of(raw)
    profiles = profile.job_profiles(load_campaign(raw, comparison))
    platforms = sorted({p.run.platform for p in profiles if not p.run.warmup})
    baseline = args.baseline or comparison.baseline or "native"
    if profiles and baseline not in platforms:
        raise ParamsError("--baseline", f"{baseline!r} ran no compared job here; the platforms: {platforms}")
    table = profile.platform_frame(profiles, baseline=baseline)
    print(profile.format_platform_table(table), end="")
    if args.out:
        table.to_csv(args.out, index=False)
    return 0


def _check(args, exp, campaign_dir: Path, *, local: bool) -> int:
    """`vbench campaign check`: the machine read as the design's gate reads it, its CPU probe
    against the reference from the campaigns beside `campaign_dir`; 0 when ready to measure."""
    import os

    from vbench.campaign.machine_check import check
    from vbench.campaign.machine_ref import reference_said
    from vbench.testbed.facts import this_cpu_model
    from vbench.errors import VbenchError

    if not local:
        raise VbenchError(
            "campaign check: reads this machine only; an inventory's hosts are checked by `vbench inventory`"
        )
    if args.readings < 1:
        raise VbenchError(f"--readings: at least 1, not {args.readings}")
    if args.max_slowdown is not None and not 0 < args.max_slowdown <= 10:
        raise VbenchError(f"--max-slowdown: a share above 0 (0.25: 25 % slower), not {args.max_slowdown}")

    def say(line: str) -> None:
        console.print(line, soft_wrap=True)  # one reading, one line

    ref, said = reference_said(campaign_dir, this_cpu_model())
    say(said)
    result = check(exp.quiet, ref, {os.getpid()}, readings=args.readings, max_slowdown=args.max_slowdown, log=say)
    for line in result.summary():
        say(line)
    return 0 if result.ready else 1
