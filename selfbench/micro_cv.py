"""A registered micro-benchmark's CV over its repeats on this idle machine, natively or in a gVisor
sandbox (issue #53: every new micro-benchmark's CV on an idle machine, target <= 3 %).

In a campaign a micro-benchmark runs on a testbed's host through sshd, beside the platform's
waiting cluster; its CV over a host's repeats there mixes the benchmark's own noise with the
cluster's. This runs the benchmark's own command here (its module's `command`, in `sh -c`), parses
it with its own parser and gives each metric's CV over the repeats, for each run: the benchmark's
noise on an idle machine. `--gvisor` runs it in `runsc --network=none --platform=ptrace do`;
`--pin` holds the run to CPU 0 (refused for rpc with `other_cpus_busy`: its busy loop would share
CPU 0 with the JVM).

`--against KEY=VALUE` (repeatable) names a second design of the same benchmark (its settings over
`--set`'s), run alternately with the first, so the machine's drift meets both alike; the last lines
give each design's median CV over its runs.

`--repeats 1` is a design with one value a process, as jvmcpu's cold mode (no warm-up, one operation:
a fresh JVM's first): no CV over repeats exists, so each metric's mean and CV are over the runs, each a
fresh process, one line per run with its value and, last, each design's mean and CV over its runs;
`--runs` must then be 2 or more. The repeats are `--repeats`'s: a `--set repeats=N` that differs is
refused, not silently overridden.

    cd <repository> && python -m selfbench.micro_cv rpc [--set seconds=3] [--repeats 5] [--runs 2]
    cd <repository> && sudo .venv/bin/python -m selfbench.micro_cv rpc --gvisor
    cd <repository> && python -m selfbench.micro_cv jvmstart --runs 8 --against count=10 --against windows=1
    cd <repository> && python -m selfbench.micro_cv jvmcpu --repeats 1 --runs 8 --set warmup_s=0 \\
        --set ops_per_repeat=1 --set records=80000
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from typing import Any, Iterable, Mapping, Sequence

from selfbench.runsc_do import ON_CPU0, RUNSC_DO
from vbench.benchmarks import registry
from vbench.benchmarks.base import fields_of
from vbench.commands.bench_cmd import setting
from vbench.errors import VbenchError
from vbench.samples import Sample


def argv_of(command: str, gvisor: bool = False, pin: bool = False) -> list[str]:
    """A benchmark's shell command, in a sandbox and held to CPU 0 where asked. Pure."""
    cmd = [*RUNSC_DO, "sh", "-c", command] if gvisor else ["sh", "-c", command]
    return [*ON_CPU0, *cmd] if pin else cmd


def cv_of(values: Sequence[float]) -> tuple[float, float, int] | None:
    """(mean, CV in %, count) of the values; None for fewer than two or a mean of 0 (no CV). Pure."""
    if len(values) < 2 or statistics.mean(values) == 0:
        return None
    return statistics.mean(values), statistics.stdev(values) / statistics.mean(values) * 100, len(values)


def grouped(pairs: Iterable[tuple[str, float]]) -> dict[str, list[float]]:
    """Metric -> its values, in the pairs' order. Pure."""
    by: dict[str, list[float]] = {}
    for metric, value in pairs:
        by.setdefault(metric, []).append(float(value))
    return by


def cvs_of(by: Mapping[str, Sequence[float]]) -> dict[str, tuple[float, float, int]]:
    """Metric -> (mean, CV in %, count), where a metric's values have one (`cv_of`). Pure."""
    return {m: cv for m, v in by.items() if (cv := cv_of(v)) is not None}


def values_by_metric(samples: Sequence[Sample]) -> dict[str, list[float]]:
    """Metric -> its values, in the samples' order. Pure."""
    return grouped((s.metric, s.value) for s in samples)


def cv_by_metric(samples: Sequence[Sample]) -> dict[str, tuple[float, float, int]]:
    """Metric -> (mean, CV in %, repeats) over the samples, where a metric has two or more. Pure."""
    return cvs_of(values_by_metric(samples))


def run_values(samples: Sequence[Sample]) -> dict[str, float]:
    """Metric -> its value in one run of one repeat (the mean, should a metric have several). Pure."""
    return {m: statistics.mean(v) for m, v in values_by_metric(samples).items()}


def cv_over_runs(runs: Sequence[Mapping[str, float]]) -> dict[str, tuple[float, float, int]]:
    """Metric -> (mean, CV in %, runs) over the runs' values (`run_values`), where a metric has two or
    more. Pure."""
    return cvs_of(grouped(item for values in runs for item in values.items()))


def refuse_one_value(repeats: int, runs: int) -> None:
    """VbenchError where one repeat a run leaves one value in all: its CV is over the runs, and a CV
    needs two."""
    if repeats == 1 and runs < 2:
        raise VbenchError(
            f"--repeats 1 gives one value a run, so the CV is over the runs: give --runs 2 or more, not {runs}"
        )


def config_of(module, sets: Sequence[str], repeats: int):
    """The benchmark's config from KEY=VALUE settings and the repeats, typed as `vbench bench run
    --set` types them (VbenchError naming a bad one)."""
    overrides = dict(setting(kv) for kv in sets)
    if "repeats" not in module.Config.model_fields:
        raise VbenchError(f"{module.NAME} has no repeats: its CV over repeats is not read here")
    # `--repeats` sets them: a different --set would be overridden unseen (a cold design run warm).
    if overrides.get("repeats", str(repeats)) != str(repeats):
        raise VbenchError(
            f"--set repeats={overrides['repeats']} is not used: the repeats are --repeats's ({repeats}); "
            f"give --repeats {overrides['repeats']}"
        )
    return registry.make_config(module, {**overrides, "repeats": str(repeats)})


def designs_of(module, sets: Sequence[str], against: Sequence[str], repeats: int) -> list[tuple[str, Any]]:
    """(label, config): the design `sets` makes, and the one `against` makes over it where given."""
    cfg = config_of(module, sets, repeats)
    if not against:
        return [("", cfg)]
    return [("design", cfg), ("against", config_of(module, [*sets, *against], repeats))]


def refuse_loops_on_one_cpu(designs: Sequence[tuple[str, Any]]) -> None:
    """VbenchError where a design keeps the other CPUs busy (rpc's `other_cpus_busy`): held to CPU 0,
    its loop would share the one CPU with the benchmark, not keep another busy."""
    for label, cfg in designs:
        if getattr(cfg, "other_cpus_busy", False):
            raise VbenchError(
                f"--pin holds rpc's busy loop on CPU 0 with its JVM{f' ({label})' if label else ''}: "
                "add --set other_cpus_busy=false"
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("benchmark", help="a registered micro-benchmark (vbench bench list)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a parameter of it")
    ap.add_argument("--against", action="append", default=[], metavar="KEY=VALUE", help="a second design's")
    ap.add_argument("--repeats", type=int, default=5, help="repeats a run; 1: the CV is over the runs")
    ap.add_argument("--runs", type=int, default=2, help="runs, each its repeats, each a fresh process")
    ap.add_argument("--gvisor", action="store_true", help="in a gVisor (ptrace) sandbox (root, runsc)")
    ap.add_argument("--pin", action="store_true", help="held to CPU 0")
    args = ap.parse_args(argv)
    # One repeat a run is what asks for the CV over runs, not a flag of its own: with one value a process
    # no CV over repeats exists, and a flag beside --repeats N > 1 would have to say how a run's repeats
    # make its one value, mixing the two noises this tells apart.
    across_runs = args.repeats == 1
    try:
        refuse_one_value(args.repeats, args.runs)
        kind, module = registry.find(args.benchmark)
        if kind != "micro" or not hasattr(module, "parse_stdout"):
            raise VbenchError(f"{args.benchmark} is not a micro-benchmark run on one host")
        designs = designs_of(module, args.set, args.against, args.repeats)
        if args.pin:
            refuse_loops_on_one_cpu(designs)
    except VbenchError as exc:
        print(f"micro_cv: {exc}", file=sys.stderr)
        return 2
    where = ("gVisor" if args.gvisor else "native") + (", held to CPU 0" if args.pin else "")
    cvs: dict[tuple[str, str], list[float]] = {}
    runs_of: dict[str, list[dict[str, float]]] = {}  # design -> each run's values, with --repeats 1
    for run in range(1, args.runs + 1):
        for label, cfg in designs:
            with tempfile.TemporaryDirectory(prefix="vbench-micro-cv-") as workdir:
                done = subprocess.run(
                    argv_of(module.command(cfg, workdir), args.gvisor, args.pin), capture_output=True, text=True
                )
            if done.returncode != 0:
                print(
                    f"micro_cv: run {run}: exit {done.returncode}: {(done.stderr or done.stdout)[-300:]}",
                    file=sys.stderr,
                )
                return 1
            name = f"{args.benchmark} {label}".rstrip()
            if across_runs:
                values = run_values(module.parse_stdout(done.stdout, cfg))
                for metric, value in sorted(values.items()):
                    print(f"{name} ({where}) run {run}: {metric} {value:.4g}")
                runs_of.setdefault(name, []).append(values)
                continue
            for metric, (mean, cv, n) in sorted(cv_by_metric(module.parse_stdout(done.stdout, cfg)).items()):
                print(f"{name} ({where}) run {run}: {metric} mean {mean:.4g}, CV {cv:.1f} % over {n} repeats")
                cvs.setdefault((name, metric), []).append(cv)
    if args.against:
        for label, cfg in designs:
            print(f"{args.benchmark} {label}: {dict(sorted(fields_of(cfg).items()))}")
    # Each design's CV over its runs: with --repeats 1, of its runs' values; with --against, the median
    # of its runs' CVs over repeats.
    for name, runs in runs_of.items():
        for metric, (mean, cv, n) in sorted(cv_over_runs(runs).items()):
            print(f"{name} ({where}): {metric} mean {mean:.4g}, CV {cv:.1f} % over {n} runs")
    if args.against:
        for (name, metric), values in sorted(cvs.items()):
            print(f"{name} ({where}): {metric} median CV {statistics.median(values):.1f} % over {len(values)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
