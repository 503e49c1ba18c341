"""`vbench paper build --campaign data/raw/<name> [--out paper]`: tables, figures, macros and the PDF."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from vbench.errors import ParamsError
from vbench.paper.inputs import (
    FIXED_PRICINGS,
    NONNEGATIVE_SHARES,
    POOLED_PRICINGS,
    POOLED_SHARES,
    CpuReplicationDirs,
    PooledFields,
    PooledTestDirs,
    ReplicationFields,
    RestFields,
    RestTestDirs,
    cpu_replication_fields,
    pooled_test_fields,
    rest_test_fields,
)
from vbench.stats.__main__ import add_bootstrap_options, bootstrap_settings


def register(sub) -> None:
    p = sub.add_parser(
        "paper",
        help="generate the paper's tables, figures and numbers from a campaign and build the PDF",
        description="Reads DATA/raw/<campaign>/samples.jsonl and the statistics stage's table "
        "DATA/processed/<campaign>/stats.parquet (computed here for a campaign that has none), writes OUT/generated/ "
        "(tables, figures, macros, reproduction delta) and runs latexmk on OUT/main.tex into OUT/build/paper.pdf.",
    )
    p.add_argument("action", choices=("build",))
    p.add_argument(
        "--campaign",
        type=Path,
        required=True,
        metavar="DIR",
        help="campaign directory holding samples.jsonl (e.g. data/raw/dev)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("paper"),
        metavar="DIR",
        help="paper directory: main.tex and references.bib (copied in when absent), generated/, build/ "
        "(default: paper)",
    )
    _add_campaign_option(p, "--isolation", "campaign of `vbench isolation run` for Table III (e.g. data/raw/isolation)")
    p.add_argument("--baseline", default="native", help="platform the others are compared with (default: native)")
    p.add_argument(
        "--published",
        type=Path,
        default=None,
        metavar="YAML",
        help="published findings (default: params/published.yaml)",
    )
    add_bootstrap_options(p)
    p.add_argument(
        "--equivalence-pct",
        type=float,
        default=None,
        help="equivalence bound of TOST in %% (default: 5); resamples, seed, baseline and this must be "
        "the statistics stage's where the paper reads its table",
    )
    p.add_argument(
        "--extra-campaign",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="another campaign whose experiments the paper adds (e.g. network modes); repeatable",
    )
    _add_campaign_option(
        p, "--monitoring", "campaign with a monitored TeraSort run for the time-series figure (default: --campaign)"
    )
    _add_campaign_option(
        p, "--pernode", "campaign of a heterogeneous cluster for the per-node table (e.g. data/raw/liu2012-terasort)"
    )
    _add_campaign_option(
        p, "--sandbox", "campaign of the sandbox study for the sandboxed-kernel section (e.g. data/raw/sandbox)"
    )
    _add_campaign_option(
        p,
        "--cost-fit",
        "the cost model's fit campaign (native under planted slowdowns, e.g. data/raw/costs-fit-nodelay): "
        "the section predicting --sandbox's platforms from their micro-benchmarks; omitted without it",
    )
    _add_campaign_option(
        p,
        "--syscall-fit",
        "the cost model's system-call level: its fit campaign (native under system-call stops, e.g. "
        "data/raw/costs-fit-syscalls), with --syscall-calibration and --cost-fit; omitted without it",
    )
    _add_campaign_option(
        p,
        "--syscall-calibration",
        "the system-call level's calibration campaign (the platforms' costs, e.g. data/raw/costs), whose "
        "predictions are compared with --sandbox's jobs",
    )
    _add_campaign_option(
        p,
        "--syscall-fit-superseded",
        "a first run of --syscall-fit's design that failed its rule 1 (e.g. data/raw/costs-fit-syscalls): one "
        "sentence in the system-call level on that rule, nothing else of it read; with --syscall-fit",
    )
    _add_campaign_option(
        p,
        "--syscall-levels",
        "a campaign that stopped only the process and thread calls beside every call (e.g. "
        "data/raw/costs-fit-process-confirm): the part of each job's cost that level gives, and its fit on a "
        "system call and a process creation in a subsection of its own where that fit's rule 1 holds (else one "
        "sentence in the system-call level); with --syscall-fit",
    )
    p.add_argument(
        "--syscall-levels-heldout",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a campaign that calibrated and timed platforms in runs of its own (e.g. "
        "data/raw/costs-gvisor-network): each predicted by --syscall-levels' fit from its own costs, against its "
        "own jobs, in a subsection after that fit's, where that fit is read; with --syscall-levels; repeatable, "
        "a subsection each in the order given",
    )
    _add_campaign_option(
        p,
        "--file-levels",
        "a fit campaign that stopped only the calls that name a file beside only the process calls and every call "
        "(e.g. data/raw/costs-fit-file): its fit on a system call, a process creation and a file open, in the cost "
        "model's last subsection where its rule 1 holds (else one sentence); with --file-levels-calibration, "
        "--file-levels-measured and --cost-fit",
    )
    _add_campaign_option(
        p,
        "--file-levels-calibration",
        "the calibration whose platforms --file-levels' fit predicts (e.g. data/raw/costs-calibration-file)",
    )
    _add_campaign_option(
        p,
        "--file-levels-measured",
        "the campaign whose timed jobs --file-levels' predictions are compared with (e.g. "
        "data/raw/costs-oneday-confirm)",
    )
    _add_campaign_option(
        p,
        "--rpc-levels",
        "a fit campaign of the two system-call levels with the process level fixed for threads (e.g. "
        "data/raw/costs-fit-threads): its fit on a JVM's loopback RPC alone, in the cost model's subsection after "
        "the file levels' where its rule 1 holds (else one sentence); with --rpc-levels-calibration, "
        "--rpc-levels-measured and --cost-fit",
    )
    _add_campaign_option(
        p,
        "--rpc-levels-calibration",
        "the calibration whose platforms --rpc-levels' fit predicts (e.g. data/raw/costs-rpc-platforms)",
    )
    _add_campaign_option(
        p,
        "--rpc-levels-measured",
        "the campaign whose timed jobs --rpc-levels' predictions are compared with (e.g. "
        "data/raw/costs-oneday-confirm)",
    )
    _add_campaign_option(
        p,
        "--memory-levels",
        "a fit campaign of three system-call levels with the calls that map memory stopped (e.g. "
        "data/raw/costs-fit-memory): its fit on a JVM's call and its start, in the cost model's subsection after "
        "the one priced by a JVM's call where its rule 1 holds (else one sentence); with "
        "--memory-levels-calibration, --memory-levels-measured and --cost-fit",
    )
    _add_campaign_option(
        p,
        "--memory-levels-calibration",
        "the calibration whose platforms --memory-levels' fit predicts (e.g. data/raw/costs-jvm-sameday)",
    )
    _add_campaign_option(
        p,
        "--memory-levels-measured",
        "the campaign whose timed jobs --memory-levels' predictions are compared with (e.g. "
        "data/raw/costs-jvm-sameday)",
    )
    p.add_argument(
        "--memory-levels-test",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a campaign that calibrated and timed the platforms in the same blocks after --memory-levels' fit "
        "was read (e.g. data/raw/costs-jvm-sameday-confirm): predicted by that fit from its own costs, against "
        "its own jobs, a later test of it said in its subsection, where that fit is read; with --memory-levels; "
        "repeatable, said in the order given",
    )
    _add_campaign_option(
        p,
        "--cpu-fit",
        "a fit campaign whose jobs give each job's share of a JVM's loopback RPC (e.g. data/raw/costs-fit-memory-amd): "
        "the cost model's subsection priced in the machine's CPU, after the memory level's; with --cpu-fit-costs, "
        "--cpu-test and --cost-fit",
    )
    _add_campaign_option(
        p,
        "--cpu-fit-costs",
        "the campaign --cpu-fit's configurations' costs are read from, each micro-benchmark run with the machine's "
        "CPU read (e.g. data/raw/costs-cpu-levels-amd)",
    )
    p.add_argument(
        "--cpu-test",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a campaign that calibrated the platforms with the machine's CPU read and timed the jobs in the same "
        "blocks (e.g. data/raw/costs-cpu-sameday-amd): predicted by --cpu-fit from its own costs against its own "
        "jobs, priced in the machine's CPU and in wall time; repeatable, in the order given",
    )
    p.set_defaults(cpu_replications=[])
    p.add_argument(
        "--cpu-replication-fit",
        type=Path,
        action=_replication_action("fit"),
        metavar="DIR",
        help="starts a further replication of --cpu-fit's subsection: a fit campaign of its own (e.g. "
        "data/raw/costs-nospec-fit-amd), its configurations' costs read from its own calibration unless "
        "--cpu-replication-fit-costs follows; a paragraph and a group of rows after the first's; with --cpu-fit; "
        "repeatable, each starting another",
    )
    p.add_argument(
        "--cpu-replication-fit-costs",
        type=Path,
        action=_replication_action("fit_costs"),
        metavar="DIR",
        help="the campaign the last --cpu-replication-fit's configurations' costs are read from, each run with the "
        "machine's CPU read (default: that fit's own calibration)",
    )
    p.add_argument(
        "--cpu-replication-test",
        type=Path,
        action=_replication_action("tests"),
        metavar="DIR",
        help="a campaign the last --cpu-replication-fit predicts (e.g. data/raw/costs-nospec-sameday-amd), priced "
        "in the machine's CPU and in wall time; repeatable, in the order given",
    )
    p.set_defaults(pooled_tests=[])
    p.add_argument(
        "--pooled-fit",
        type=Path,
        action=_pooled_action("fit"),
        metavar="DIR",
        help="starts a test against pooled ratios: the fit campaign whose shares predict (e.g. "
        "data/raw/costs-fit-memory-nospec), its configurations' costs read from its own calibration unless "
        "--pooled-fit-costs follows; with --pooled-calibration, two --pooled-measured or more, --pooled-resource "
        "and --pooled-seed, and --cost-fit; a paragraph and a table each, after the subsection priced in the "
        "machine's CPU; repeatable, each starting another",
    )
    p.add_argument(
        "--pooled-fit-costs",
        type=Path,
        action=_pooled_action("fit_costs"),
        metavar="DIR",
        help="the campaign the last --pooled-fit's configurations' costs are read from (`vbench predict --fit-costs`)",
    )
    p.add_argument(
        "--pooled-calibration",
        type=Path,
        action=_pooled_action("calibration"),
        metavar="DIR",
        help="the calibration whose platforms the last --pooled-fit predicts (e.g. data/raw/costs-gvisor-sixblocks)",
    )
    p.add_argument(
        "--pooled-measured",
        type=Path,
        action=_pooled_action("measured"),
        metavar="DIR",
        help="a campaign whose timed jobs are pooled into the ratios the last --pooled-fit's predictions are judged "
        "against (`vbench predict --measured A,B,...`); repeatable, two or more",
    )
    p.add_argument(
        "--pooled-resource",
        action=_pooled_action("resources"),
        metavar="RESOURCE",
        help="a resource the last --pooled-fit fits (`vbench predict --resources`, e.g. rpc); repeatable",
    )
    p.add_argument(
        "--pooled-seed",
        type=int,
        action=_pooled_action("seed"),
        metavar="N",
        help="the bootstrap seed of the last --pooled-fit's test (`vbench predict --seed`)",
    )
    p.add_argument(
        "--pooled-fixed-pricing",
        choices=FIXED_PRICINGS,
        action=_pooled_action("fixed_pricing"),
        help="the pricing the last --pooled-fit's design fixed before it ran ('both': a rule for each); the other "
        "is said to be read after its rule (default: none fixed, both read after)",
    )
    p.add_argument(
        "--pooled-shares",
        choices=POOLED_SHARES,
        action=_pooled_action("shares"),
        help="how the last --pooled-fit's shares are fitted (`vbench predict --shares`): free (default) or "
        "nonnegative, bounded at 0",
    )
    p.set_defaults(rest_tests=[])
    p.add_argument(
        "--rest-fit",
        type=Path,
        action=_rest_action("fit"),
        metavar="DIR",
        help="starts a test of the rest of native time priced: the fit campaign whose shares predict (e.g. "
        "data/raw/costs-fit-sixblocks-amd); with --rest-calibration, --rest-measured, --rest-resource, --rest-seed, "
        "--rest-at and --rest-pricing, and --cost-fit; a paragraph and a table each, after the tests against pooled "
        "ratios; repeatable, each starting another",
    )
    p.add_argument(
        "--rest-calibration",
        type=Path,
        action=_rest_action("calibration"),
        metavar="DIR",
        help="the calibration whose platforms the last --rest-fit predicts (e.g. data/raw/costs-qemu-cpu-amd)",
    )
    p.add_argument(
        "--rest-measured",
        type=Path,
        action=_rest_action("measured"),
        metavar="DIR",
        help="the one campaign whose timed jobs the last --rest-fit's predictions are judged against, over its "
        "blocks (`vbench predict --measured`, e.g. data/raw/costs-qemu-terasort-amd)",
    )
    p.add_argument(
        "--rest-resource",
        action=_rest_action("resources"),
        metavar="RESOURCE",
        help="a resource the last --rest-fit fits (`vbench predict --resources`, e.g. rpc); repeatable",
    )
    p.add_argument(
        "--rest-seed",
        type=int,
        action=_rest_action("seed"),
        metavar="N",
        help="the bootstrap seed of the last --rest-fit's test (`vbench predict --seed`)",
    )
    p.add_argument(
        "--rest-at",
        action=_rest_action("rests"),
        metavar="RESOURCE",
        help="a resource whose cost prices the rest of native time in a column group of its own, beside the "
        "prediction with the rest at native's (`vbench predict --rest`, e.g. cpu); repeatable, one at least",
    )
    p.add_argument(
        "--rest-pricing",
        choices=POOLED_PRICINGS,
        action=_rest_action("pricing"),
        help="how the last --rest-fit's test prices the fitted resources' costs, the one reading shown "
        "(`vbench predict --costs`)",
    )
    p.add_argument(
        "--records-from",
        type=Path,
        default=None,
        metavar="FILE",
        help="the params file the --cpu-replication-*, --pooled-* and --rest-* options' records were read from, "
        "in its order (`invoke paper` gives params/paper.yaml): a refusal of a record names its field there, "
        "not the option",
    )
    _add_campaign_option(
        p,
        "--barrier",
        "a campaign that timed NNBench at two barriers on native and gVisor (e.g. data/raw/costs-nnbench-barrier): "
        "its ratio at the longer beside the levels' fit's and --barrier-fit's predictions, in the cost model's "
        "last subsection; with --barrier-fit, --barrier-calibration and --syscall-levels",
    )
    _add_campaign_option(
        p,
        "--barrier-fit",
        "the levels' fit again at a barrier every level's maps reach (e.g. data/raw/costs-fit-barrier)",
    )
    _add_campaign_option(
        p,
        "--barrier-calibration",
        "the calibration both fits predict --barrier's platform from (e.g. data/raw/costs-oneday-confirm)",
    )
    _add_campaign_option(
        p,
        "--jvm",
        "native hosts under the machine's JDK and the guest image's, whose ratios the threats' JVM sentence "
        "quotes (e.g. data/raw/costs-jvm-native-amd)",
    )
    p.add_argument("--no-pdf", action="store_true", help="only generate tables, figures and macros (no LaTeX run)")
    p.set_defaults(func=run)


#: What a refusal of a further replication names: its options, with the replication's number.
REPLICATION_OPTIONS = ReplicationFields(
    "--cpu-replication-fit",
    "--cpu-replication-fit (replication {n})",
    "--cpu-replication-fit-costs (replication {n})",
    "--cpu-replication-test (replication {n})",
)


def _replication_action(part: str) -> type[argparse.Action]:
    """The action of one option of a further replication: "fit" starts one (`CpuReplicationDirs` in
    `cpu_replications`), "fit_costs" and "tests" add to the last one started, refused before any."""
    return _record_action(
        "cpu_replications",
        part,
        lambda fit: CpuReplicationDirs(fit, ()),
        ("tests",),
        "--cpu-replication-fit",
        "replication",
    )


#: What a refusal of a test against pooled ratios names: its options, with the test's number.
POOLED_OPTIONS = PooledFields(
    "--pooled-fit",
    "--pooled-fit (pooled test {n})",
    "--pooled-fit-costs (pooled test {n})",
    "--pooled-calibration (pooled test {n})",
    "--pooled-measured (pooled test {n})",
    "--pooled-resource (pooled test {n})",
    "--pooled-seed (pooled test {n})",
    "--pooled-fixed-pricing (pooled test {n})",
    "--pooled-shares (pooled test {n})",
    "--cost-fit",
)


def _pooled_action(part: str) -> type[argparse.Action]:
    """The action of one option of a test against pooled ratios: "fit" starts one (`PooledTestDirs` in
    `pooled_tests`); the others fill the last one started, refused before any; "measured" and
    "resources" add to it, the others are given once a test."""
    return _record_action(
        "pooled_tests", part, PooledTestDirs, ("measured", "resources"), "--pooled-fit", "test", POOLED_STORED_AS
    )


#: The --pooled-* options whose value a test keeps as another field: --pooled-shares as whether its
#: shares are bounded at 0 (`PooledTestDirs.nonnegative`).
POOLED_STORED_AS = {"shares": ("nonnegative", lambda value: value == NONNEGATIVE_SHARES)}


#: What a refusal of a test of the rest priced names: its options, with the test's number.
REST_OPTIONS = RestFields(
    "--rest-fit",
    "{part} (rest test {n})",
    "--cost-fit",
    (
        ("fit", "--rest-fit"),
        ("calibration", "--rest-calibration"),
        ("measured", "--rest-measured"),
        ("resources", "--rest-resource"),
        ("seed", "--rest-seed"),
        ("rests", "--rest-at"),
        ("pricing", "--rest-pricing"),
    ),
)


def record_fields(records_from: Path | None) -> tuple[ReplicationFields, PooledFields, RestFields]:
    """What a refusal of a further replication, a test against pooled ratios and a test of the rest
    priced names: each record's field in `records_from`, the params file its options were read from
    (`--records-from`, as `invoke paper` passes params/paper.yaml's records), else the options. Pure."""
    if records_from is None:
        return REPLICATION_OPTIONS, POOLED_OPTIONS, REST_OPTIONS
    return cpu_replication_fields(records_from), pooled_test_fields(records_from), rest_test_fields(records_from)


def _rest_action(part: str) -> type[argparse.Action]:
    """The action of one option of a test of the rest priced: "fit" starts one (`RestTestDirs` in
    `rest_tests`); the others fill the last one started, refused before any; "resources" and "rests"
    add to it, the others are given once a test."""
    return _record_action("rest_tests", part, RestTestDirs, ("resources", "rests"), "--rest-fit", "test")


def _record_action(
    dest: str, part: str, start, repeated: tuple[str, ...], first: str, what: str, stored_as=None
) -> type[argparse.Action]:
    """The action of one option of a record given on the command line as several options (a further
    replication, a pooled test), kept in the namespace's list `dest`: "fit" starts one (`start(fit)`);
    the others fill the last one started, refused before any; a part of `repeated` adds to it, the
    others are given once a record (`first`: the option that starts one; `what`: what a record is).
    `stored_as`: the parts kept as another field, {part: (field, value -> field's value)}. Which parts
    a record was given is kept beside the list, so a value equal to a field's default counts as given."""
    field, convert = (stored_as or {}).get(part, (part, lambda value: value))
    given_key = f"_{dest}_given"

    class Record(argparse.Action):
        def __call__(self, parser, namespace, value, option_string=None):
            records = list(getattr(namespace, dest, None) or [])
            given = list(getattr(namespace, given_key, None) or [])
            given += [frozenset()] * (len(records) - len(given))
            if part == "fit":
                records.append(start(value))
                given.append(frozenset({part}))
            elif not records:
                raise argparse.ArgumentError(self, f"give {first} first: it starts the {what}")
            elif part in repeated:
                records[-1] = replace(records[-1], **{field: (*getattr(records[-1], field), convert(value))})
            elif part in given[-1]:
                raise argparse.ArgumentError(self, f"given twice for one {what}")
            else:
                records[-1] = replace(records[-1], **{field: convert(value)})
                given[-1] |= {part}
            setattr(namespace, dest, records)
            setattr(namespace, given_key, given)

    return Record


def _add_campaign_option(p, flag: str, help_text: str) -> None:
    """An optional campaign directory the paper reads one section from."""
    p.add_argument(flag, type=Path, default=None, metavar="DIR", help=help_text)


def run(args) -> int:
    try:
        from vbench.paper.build import build_paper
    except ModuleNotFoundError as exc:  # matplotlib/seaborn are the `pipeline` extra
        raise ParamsError("vbench paper", f"{exc.name} is not installed: pip install -e '.[pipeline]'") from None
    from vbench.stats.campaign_stats import StatsConfig

    bootstrap = bootstrap_settings(args)
    if args.equivalence_pct is not None and not args.equivalence_pct > 0:
        raise ParamsError("--equivalence-pct", f"must be greater than 0, got {args.equivalence_pct:g}")
    _require_samples("--campaign", args.campaign)
    for extra in args.extra_campaign:
        _require_samples("--extra-campaign", extra)
    # A refusal naming a file that is not there would send its reader to look for it.
    if args.records_from is not None and not args.records_from.is_file():
        raise ParamsError(
            "--records-from",
            f"{args.records_from} does not exist: name the params file the records "
            "were read from, or leave it out to have a refusal name the options",
        )
    replication_fields, pooled_fields, rest_fields = record_fields(args.records_from)
    # The build checks --cost-fit and --sandbox, then --syscall-fit and --syscall-calibration, then
    # --syscall-fit-superseded, --syscall-levels and --syscall-levels-heldout, then the three
    # --file-levels options, then the three --rpc-levels options, then the three --memory-levels
    # options, then --memory-levels-test, then --cpu-fit, --cpu-fit-costs and --cpu-test, then the
    # --cpu-replication-* options, then the --pooled-* options, then the --rest-* options, then the three
    # --barrier options, itself before it reads anything (vbench.paper.inputs.check_cost_fit,
    # check_syscall_fit, check_superseded_fit, check_levels, check_heldout, each LevelsPart.check,
    # check_memory_tests, check_cpu_priced, check_cpu_replications, check_pooled_tests, check_rest_tests,
    # check_barrier), and each calibration's cost of each --rest-at as it reads the rest tests
    # (vbench.paper.costs_rest.rest_tests): told their names, its refusal names the options, or, with
    # --records-from, the records' fields in that file.
    result = build_paper(
        args.campaign,
        args.out,
        baseline=args.baseline,
        pdf=not args.no_pdf,
        **bootstrap,
        equivalence_pct=StatsConfig.equivalence_pct if args.equivalence_pct is None else args.equivalence_pct,
        published_path=args.published,
        isolation_dir=args.isolation,
        extra_campaigns=args.extra_campaign,
        monitoring_dir=args.monitoring,
        pernode_dir=args.pernode,
        sandbox_dir=args.sandbox,
        cost_fit_dir=args.cost_fit,
        cost_fit_fields=("--cost-fit", "--sandbox"),
        syscall_fit_dir=args.syscall_fit,
        syscall_calibration_dir=args.syscall_calibration,
        syscall_fit_fields=("--syscall-fit", "--syscall-calibration", "--cost-fit"),
        syscall_fit_superseded_dir=args.syscall_fit_superseded,
        syscall_fit_superseded_fields=("--syscall-fit-superseded", "--syscall-fit"),
        syscall_levels_dir=args.syscall_levels,
        syscall_levels_fields=("--syscall-levels", "--syscall-fit"),
        syscall_levels_heldout_dirs=args.syscall_levels_heldout,
        syscall_levels_heldout_fields=("--syscall-levels-heldout", "--syscall-levels"),
        file_levels_dir=args.file_levels,
        file_levels_calibration_dir=args.file_levels_calibration,
        file_levels_measured_dir=args.file_levels_measured,
        file_levels_fields=("--file-levels", "--file-levels-calibration", "--file-levels-measured", "--cost-fit"),
        rpc_levels_dir=args.rpc_levels,
        rpc_levels_calibration_dir=args.rpc_levels_calibration,
        rpc_levels_measured_dir=args.rpc_levels_measured,
        rpc_levels_fields=("--rpc-levels", "--rpc-levels-calibration", "--rpc-levels-measured", "--cost-fit"),
        memory_levels_dir=args.memory_levels,
        memory_levels_calibration_dir=args.memory_levels_calibration,
        memory_levels_measured_dir=args.memory_levels_measured,
        memory_levels_fields=(
            "--memory-levels",
            "--memory-levels-calibration",
            "--memory-levels-measured",
            "--cost-fit",
        ),
        memory_levels_test_dirs=args.memory_levels_test,
        memory_levels_tests_fields=("--memory-levels-test", "--memory-levels"),
        cpu_fit_dir=args.cpu_fit,
        cpu_fit_costs_dir=args.cpu_fit_costs,
        cpu_test_dirs=args.cpu_test,
        cpu_fields=("--cpu-fit", "--cpu-fit-costs", "--cpu-test", "--cost-fit"),
        cpu_replications=args.cpu_replications,
        cpu_replications_fields=replication_fields,
        pooled_tests=args.pooled_tests,
        pooled_tests_fields=pooled_fields,
        rest_tests=args.rest_tests,
        rest_tests_fields=rest_fields,
        barrier_dir=args.barrier,
        barrier_fit_dir=args.barrier_fit,
        barrier_calibration_dir=args.barrier_calibration,
        barrier_fields=("--barrier", "--barrier-fit", "--barrier-calibration", "--syscall-levels"),
        jvm_dir=args.jvm,
    )
    for note in result.notes:
        print(f"vbench paper: note: {note}", file=sys.stderr)
    if result.tables_absent or result.figures_absent:
        print(
            "vbench paper: not measured in this campaign: "
            + ", ".join([f"table {t}" for t in result.tables_absent] + [f"figure {f}" for f in result.figures_absent]),
            file=sys.stderr,
        )
    print(result.summary())
    return 0


def _require_samples(flag: str, campaign: Path) -> None:
    """Refuse a campaign directory `flag` names that holds no samples.jsonl."""
    if not (campaign / "samples.jsonl").is_file():
        raise ParamsError(flag, f"{campaign}/samples.jsonl does not exist")
