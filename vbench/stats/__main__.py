"""`vbench stats` and `python3 -m vbench.stats INPUT ...`: statistics over tidy samples.

The command's parser lives here, in the statistics layer, so that the module entry point needs
nothing from the interface layer (vbench.commands); `vbench stats` registers it from here.
See vbench.stats and docs/statistics.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vbench.errors import ParamsError, VbenchError
from vbench.wording import count


def register(sub) -> None:
    p = sub.add_parser(
        "stats",
        help="confidence intervals, overhead ratios and tests over tidy samples",
        description="Statistics over tidy samples (CSV, JSON lines or Parquet with columns experiment, platform, "
        "benchmark, metric, unit, value, repetition; optional size, warmup). Writes one tidy CSV table.",
    )
    p.add_argument("input", metavar="INPUT", help="samples file (.csv, .jsonl/.ndjson, .parquet)")
    p.add_argument("--baseline", default="native", help="platform the others are compared with (default: native)")
    p.add_argument("--out", metavar="PATH", help="where to write the table (CSV); default: standard output")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals (default: 0.95)")
    p.add_argument(
        "--equivalence-pct",
        type=float,
        default=5.0,
        metavar="X",
        help="TOST equivalence bound: within +/- X %% of the baseline (default: 5)",
    )
    add_bootstrap_options(p)
    p.add_argument(
        "--drop-first",
        type=int,
        default=0,
        metavar="N",
        help="exclude the first N repetitions of every group as warm-up (recorded in the table)",
    )
    p.add_argument(
        "--higher-is-better",
        action="append",
        default=[],
        metavar="METRIC",
        help="treat METRIC as higher-is-better (repeatable; overrides the unit)",
    )
    p.add_argument(
        "--lower-is-better",
        action="append",
        default=[],
        metavar="METRIC",
        help="treat METRIC as lower-is-better (repeatable; overrides the unit)",
    )
    p.add_argument(
        "--outlier-threshold",
        type=float,
        default=None,
        metavar="Z",
        help="flag runs with |modified z| above Z (default: 3.5); runs are never removed",
    )
    p.add_argument(
        "--precision-target",
        type=float,
        default=None,
        metavar="PCT",
        help="add rows saying whether the CI half-width is within +/- PCT %% and how many more runs are likely needed",
    )
    p.add_argument("--max-runs", type=int, default=None, help="run budget per platform for --precision-target")
    p.add_argument(
        "--samples-out", metavar="PATH", help="also write the samples with exclusion and outlier flags (CSV)"
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="fail instead of writing notes for bad input (n < 2, missing or zero baseline, unknown direction)",
    )
    p.set_defaults(func=run)


def add_bootstrap_options(p) -> None:
    """--resamples and --seed, which `vbench paper` takes as this command does."""
    p.add_argument("--resamples", type=int, default=None, help="bootstrap resamples (default: 9999)")
    p.add_argument("--seed", type=int, default=None, help="bootstrap seed (default: 20141)")


def bootstrap_settings(args) -> dict[str, int]:
    """`n_resamples` and `seed`, the keywords of the statistics' functions, from
    `add_bootstrap_options`' options, the defaults where none was given. Fewer than 100 resamples
    are refused: the percentile intervals would be noise."""
    from vbench.stats.bootstrap import DEFAULT_RESAMPLES
    from vbench.stats.table.rows import DEFAULT_SEED

    if args.resamples is not None and args.resamples < 100:
        raise ParamsError("--resamples", f"must be at least 100, got {args.resamples}")
    return {
        "n_resamples": args.resamples or DEFAULT_RESAMPLES,
        "seed": DEFAULT_SEED if args.seed is None else args.seed,
    }


def _directions(args) -> dict[str, bool]:
    both = sorted(set(args.higher_is_better) & set(args.lower_is_better))
    if both:
        raise ParamsError("--higher-is-better/--lower-is-better", f"metric(s) given both ways: {', '.join(both)}")
    return {**{m: True for m in args.higher_is_better}, **{m: False for m in args.lower_is_better}}


def _write(path: str, option: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ParamsError(option, f"cannot write {path}: {exc.strerror or exc}") from None


def _methods_summary(table) -> str:
    """How many comparisons each method answered (the preferred ratio row of each), for the terminal."""
    ratios = table[(table["statistic"] == "ratio_to_baseline") & table["estimate"].notna()]
    chosen = ratios[ratios["preferred"].fillna(False).astype(bool)]
    if chosen.empty:
        return ""
    counts = chosen["method"].value_counts()
    return "; ratios by " + ", ".join(f"{m}: {int(k)}" for m, k in sorted(counts.items()))


def run(args) -> int:
    from vbench.stats import annotate_samples, compute_stats, format_table, read_samples
    from vbench.stats.outliers import DEFAULT_THRESHOLD
    from vbench.stats.quiet import quiet_counts

    if not 0 < args.confidence < 1:
        raise ParamsError("--confidence", f"must be between 0 and 1, got {args.confidence}")
    if args.equivalence_pct <= 0:
        raise ParamsError("--equivalence-pct", f"must be positive, got {args.equivalence_pct}")
    bootstrap = bootstrap_settings(args)
    if args.drop_first < 0:
        raise ParamsError("--drop-first", f"must be >= 0, got {args.drop_first}")
    if args.precision_target is not None and args.precision_target <= 0:
        raise ParamsError("--precision-target", f"must be positive, got {args.precision_target}")
    threshold = DEFAULT_THRESHOLD if args.outlier_threshold is None else args.outlier_threshold

    samples = read_samples(args.input)
    table = compute_stats(
        samples,
        baseline=args.baseline,
        conf=args.confidence,
        equivalence_pct=args.equivalence_pct,
        **bootstrap,
        drop_first_n=args.drop_first,
        higher_is_better=_directions(args),
        outlier_threshold=threshold,
        precision_target_pct=args.precision_target,
        max_runs=args.max_runs,
        strict=args.strict,
        mixed=True,
    )
    text = format_table(table)
    if args.out:
        _write(args.out, "--out", text)
    else:
        sys.stdout.write(text)
    if args.samples_out:
        annotated = annotate_samples(samples, args.drop_first, threshold)
        _write(
            args.samples_out, "--samples-out", annotated.to_csv(index=False, float_format="%.10g", lineterminator="\n")
        )
    problems = table.attrs.get("problems", [])
    skipped = samples.attrs.get("failures_skipped", 0)
    summary = f"vbench stats: {len(table)} rows" + (f" written to {args.out}" if args.out else "")
    if problems:
        summary += (
            f"; {count(len(problems), 'group')} with notes instead of numbers (see the note column; --strict to fail)"
        )
    if skipped:
        summary += f"; skipped {count(skipped, 'failure record')}"
    summary += _methods_summary(table)
    quiet = quiet_counts(samples)
    if quiet is not None:
        summary += f"; {quiet.flagged} of {quiet.runs} runs measured on a machine the quiet gate flagged"
        if quiet.probe_vs_machine is not None:
            summary += f" (CPU probe x{quiet.probe_vs_machine:.2f} this machine's reference)"
    print(summary, file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m vbench.stats")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(["stats", *(sys.argv[1:] if argv is None else argv)])
    try:
        return int(args.func(args) or 0)
    except VbenchError as exc:
        print(f"vbench: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
