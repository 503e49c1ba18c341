"""`vbench predict CALIBRATION --fit FIT`: what each suite job would cost on a platform measured by
its calibration micro-benchmarks alone, from the shares of native time fitted on a campaign of
planted slowdowns (vbench.stats.cost_prediction, vbench.stats.cost_model), and where CALIBRATION
timed the jobs, their JobHistory phases' measured ratios beside it (vbench.stats.job_phases).
Runs nothing."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

from vbench.commands.campaign_cmd import named_dir
from vbench.errors import ParamsError


def register(sub) -> None:
    p = sub.add_parser(
        "predict",
        help="each suite job's time ratio to native on a calibrated platform, from a fitted cost model",
        description="Fit each Hadoop job's shares of native time per resource on FIT (native under planted "
        "slowdowns, params/experiments/costs-fit.yaml, or costs-fit-nodelay.yaml on a kernel without netem) "
        "and predict, for each platform of CALIBRATION (its micro-benchmarks beside native, e.g. `vbench "
        "campaign run <design> --only calibrate`), each job's time ratio to native with its interval and "
        "each resource's part of it; where CALIBRATION timed the jobs, the measured ratio, what the model leaves "
        "unexplained and each JobHistory phase's measured ratio to native. Each campaign read is named with the "
        "CPU model its samples recorded, with a warning where the fit's is not CALIBRATION's or MEASURED's: a fit "
        "made on one machine has not been shown to carry to another.",
    )
    p.add_argument("calibration", help="the calibration campaign: a name under DATA/raw/ or its directory")
    p.add_argument(
        "--fit",
        required=True,
        help="the fitting campaign (shaped like costs-fit): a name under DATA/raw/ or its directory",
    )
    p.add_argument(
        "--measured",
        default=None,
        help="the campaign whose timed jobs (and JobHistory phases) the predictions are compared with, when "
        "CALIBRATION timed none: a name under DATA/raw/ or its directory, with CALIBRATION's baseline, its "
        "platforms matched by name (e.g. `vbench predict costs --fit FIT --measured sandbox`). Several, "
        "comma-separated: each job's ratio on a platform pooled over the campaigns that measured it (the mean "
        "of their log ratios, each campaign weighted alike, a t on their number less one), the machine's "
        "long-run ratio rather than one hour's, and each prediction interval for such a pooled ratio; the "
        "phases, attempts and task CPU are then not read",
    )
    p.add_argument(
        "--fit-costs",
        default=None,
        help="the campaign the fit's configurations' costs are read from instead of FIT's own calibration: one "
        "that calibrated FIT's planted configurations (the same factor levels, so the same names) without Hadoop, "
        "to fit a resource FIT did not measure (e.g. `--fit costs-fit-barrier --fit-costs costs-rpc-levels "
        "--resources rpc,spawn`); a name under DATA/raw/ or its directory, with FIT's baseline. A fitted resource "
        "both campaigns measured at a configuration with intervals that do not overlap is noted: the shares then "
        "depend on which campaign's plant is read",
    )
    p.add_argument(
        "--costs",
        choices=("wall", "cpu"),
        default="wall",
        help="how the micro-benchmarks price a resource: 'wall', the time per operation as measured (default), "
        "or 'cpu', the machine's CPU per operation (the time times the CPUs the run kept busy, read on the "
        "machine around each run: a wait and a core's work told apart); 'cpu' needs --resources, and every "
        "calibration read (CALIBRATION's and the fit's) measured on the local testbed since the runner reads it",
    )
    p.add_argument(
        "--compare",
        default=None,
        help="what CALIBRATION and MEASURED are read as comparing, as `vbench campaign summary --compare` (e.g. "
        "platform, for a campaign whose design compared cpu_group): the model predicts platforms, so a campaign "
        "whose design compared a factor alone is refused without it",
    )
    p.add_argument(
        "--where",
        default=None,
        help="factor=level[,factor=level]: read CALIBRATION and MEASURED in the configurations at these levels "
        "of the factors they varied beside the platform (e.g. cpu_group=false for a campaign that ran each "
        "platform with and without testbed.cpu_group), as if they had run those alone; the model reads one "
        "cell of each job and refuses several. A campaign that did not vary a factor is read whole, noted",
    )
    p.add_argument(
        "--shares",
        choices=("free", "nonnegative"),
        default="free",
        help="how each job's shares of native time are fitted: 'free', weighted least squares (default, as "
        "every committed reading was made), or 'nonnegative', bounded at 0 in the estimate and every bootstrap "
        "draw (a share of native time cannot be negative; a free share below 0 times a large cost drags a "
        "prediction down)",
    )
    p.add_argument(
        "--rest",
        default=None,
        metavar="RESOURCE",
        help="price the native time no fitted resource explains (1 less each job's shares, at least 0) at this "
        "resource's cost, as CALIBRATION measured it (in either --costs), instead of at native's: e.g. 'jvmcpu' "
        "(warm Java's computing) or 'cpu' (sysbench's) for a platform that slows every instruction, as QEMU under "
        "TCG; not a fitted resource, and "
        "every platform of CALIBRATION must have calibrated it. It assumes FIT's configurations ran it at "
        "native's cost (no planted level slows it)",
    )
    p.add_argument("--data", type=Path, default=Path("data"))
    p.add_argument(
        "--resources",
        default=None,
        help="comma-separated resources to fit (default: those FIT's planted slowdowns move: cpu for "
        "cpu_fraction, round_trip for delay_ms, net_throughput for rate_mbit, disk_seq_write for disk_write_bps, "
        "jvmstart for syscall_stops; "
        "less any whose planted level did not move its cost, the design's rule 1, named in the notes)",
    )
    p.add_argument(
        "--blocks",
        type=int,
        default=None,
        help="the blocks of the campaign whose measured ratio each prediction interval is for (a campaign one "
        "plans: more blocks, a narrower interval); default: as many as CALIBRATION's measured ratio of the job, "
        "or as the fit's configurations where it timed none",
    )
    p.add_argument("--draws", type=int, default=None, help="bootstrap draws (default 2000)")
    p.add_argument("--seed", type=int, default=None, help="bootstrap seed (default: the fit campaign's design seed)")
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.set_defaults(func=run)


def campaign_dir(name: str, data: Path, what: str) -> Path:
    """A campaign as `vbench campaign summary` resolves it (NAME under DATA/raw/, or a directory),
    refused naming its samples file when it holds none."""
    d = named_dir(name, data)
    if not (d / "samples.jsonl").is_file():
        raise ParamsError(str(d / "samples.jsonl"), f"no samples file: the {what} has not been measured here")
    return d


def measured_names(text: str | None) -> tuple[str, ...]:
    """`--measured`'s campaigns, comma-separated; refused, naming the option, when one is empty or
    named twice (a campaign pooled with itself would count its hour twice)."""
    if text is None:
        return ()
    names = tuple(n.strip() for n in text.split(","))
    if any(not n for n in names):
        raise ParamsError("--measured", f"an empty campaign name in {text!r}")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ParamsError("--measured", f"{', '.join(twice)} named twice: each campaign is one reading")
    return names


def read_as(d: Path, compare: str | None):
    """The comparison a calibration or measured campaign is read with: `--compare`'s where given
    (checked against its design), else its design's; a design that compared factors without the
    platform is refused naming `--compare` (the model's costs and ratios are each a platform's)."""
    from vbench.commands.campaign_cmd import asked_comparison
    from vbench.stats.compare import PLATFORM, comparison_of

    if compare is not None:
        return asked_comparison(d, compare, None)
    own = comparison_of(d)
    if PLATFORM not in own.compare:
        raise ParamsError(
            "--compare",
            f"{d.name} compared {', '.join(own.compare)}, not the platform: read it with --compare platform "
            f"(and one level of the rest with --where, e.g. --where {own.compare[0]}={own.baseline or '...'})",
        )
    return None


def run(args) -> int:
    from vbench.stats import cell_select, cost_model, cost_prediction, job_phases
    from vbench.stats.campaign import load_campaign
    from vbench.stats.campaign_stats import StatsConfig

    started = time.perf_counter()
    resources = cost_prediction.checked_resources(args.resources.split(",")) if args.resources is not None else None
    draws = cost_model.DEFAULT_DRAWS if args.draws is None else args.draws
    if draws < 2:
        raise ParamsError("--draws", f"at least 2 bootstrap draws, not {draws}")
    if args.blocks is not None and args.blocks < 2:
        raise ParamsError("--blocks", f"a measured ratio needs two blocks or more, not {args.blocks}")
    fit_dir = campaign_dir(
        args.fit,
        args.data,
        "fit campaign (`vbench campaign run costs-fit` measures params/experiments/costs-fit.yaml)",
    )
    cal_dir = campaign_dir(args.calibration, args.data, "calibration campaign")
    levels = cell_select.parse_levels(args.where)
    measured_dirs = [
        campaign_dir(name, args.data, "campaign of measured jobs") for name in measured_names(args.measured)
    ]
    read_with = {d: read_as(d, args.compare) for d in (cal_dir, *measured_dirs)}
    fit, calibration = load_campaign(fit_dir), load_campaign(cal_dir, read_with[cal_dir])
    measured_in = tuple(load_campaign(d, read_with[d]) for d in measured_dirs)
    # The fit's configurations are its planted levels, never a cell a user picks.
    (calibration, *measured), where_notes = cell_select.campaigns_at((calibration, *measured_in), levels)
    measured_in = tuple(measured)
    fit_costs_in = (
        load_campaign(campaign_dir(args.fit_costs, args.data, "campaign of the fit's configurations' costs"))
        if args.fit_costs is not None
        else None
    )
    busy = []  # (campaign, its runs' busy CPUs) of each campaign whose costs are priced in CPU
    if args.costs == "cpu":
        if resources is None:
            raise ParamsError("--costs", "cpu prices only the resources named: give --resources")
        busy = [
            (c, cost_model.busy_cpus_of(c.samples, resources))
            for c in (calibration, fit_costs_in if fit_costs_in is not None else fit)
        ]
        # The fit's configurations' costs are read from --fit-costs where given, not from FIT.
        fit, calibration, fit_costs_in = cost_prediction.priced_campaigns(
            args.costs, fit, calibration, resources, fit_costs_in
        )
    inputs = cost_prediction.prediction_inputs(
        fit, calibration, resources, measured_in=measured_in, fit_costs_in=fit_costs_in, rest=args.rest
    )
    inputs = replace(inputs, notes=(*inputs.notes, *where_notes))
    read = time.perf_counter()
    # The statistics stage's default settings, but against the baseline the costs are ratios to and
    # at the predictions' level: a phase's interval then reads like the job's measured one beside it.
    cfg = StatsConfig(baseline=inputs.calibration_baseline, conf=cost_model.DEFAULT_CONF)
    # A run's phases, attempts and task CPU are one campaign's: not pooled over several.
    timed = (measured_in or (calibration,)) if len(measured_in) < 2 else ()
    phases = [p for c in timed for p in job_phases.phase_ratios(c, cfg)]
    attempts = [a for c in timed for a in job_phases.unsuccessful_attempts(c)]
    task_cpu = [r for c in timed for r in job_phases.task_cpu(c, inputs.calibration_baseline)]
    compared = time.perf_counter()
    seed = args.seed if args.seed is not None else cost_prediction.fit_seed(fit_dir)
    table = cost_prediction.prediction_table(
        inputs,
        phases=phases,
        attempts=attempts,
        task_cpu=task_cpu,
        n_draws=draws,
        seed=seed,
        blocks=args.blocks,
        nonnegative=args.shares == "nonnegative",
    )
    timings = (
        ("reading and checking", read - started),
        ("the phases' statistics", compared - read),
        ("fitting and predicting", time.perf_counter() - compared),
    )
    if args.json:
        doc = cost_prediction.prediction_json(table, timings)
        doc["costs"] = args.costs
        doc["busy_cpus"] = {c.name: cost_prediction.busy_json(rows) for c, rows in busy}
        print(json.dumps(doc, indent=1))
    else:
        if args.costs == "cpu":
            print(
                "Costs in the machine's CPU per operation (--costs cpu): each run's time per operation "
                "times the CPUs it kept busy."
            )
        print(cost_prediction.format_prediction(table, timings), end="")
        for c, rows in busy:
            print(cost_prediction.format_busy(c, rows), end="")
    return 0
