"""Small builders the unit tests share: tidy sample rows and frames, the statistics table's column
names, campaign designs and directories, the quiet gate's readings, and the tests every
micro-benchmark's config and parser get."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from vbench.benchmarks.micro.latency import LatencyConfig
from vbench.errors import JobFailed, ParamsError

#: What says which comparison a row of the statistics table belongs to.
STATS_KEY_COLUMNS = ["experiment", "platform", "benchmark", "metric", "unit"]
#: What every row of the statistics table says about it.
ESTIMATE_COLUMNS = ["statistic", "method", "estimate", "ci_low", "ci_high", "n"]

#: Six job times of a baseline and of a platform about 9 % slower.
NATIVE = [100.2, 98.7, 101.5, 99.9, 100.8, 99.1]
KVM = [108.9, 110.4, 107.6, 109.8, 111.2, 108.1]


def sample_row(
    platform: str,
    value: float,
    repetition: int,
    *,
    experiment: str = "platforms",
    benchmark: str = "terasort",
    metric: str = "terasort_time",
    unit: str = "s",
    **extra,
) -> dict:
    """One row of tidy samples; `extra` columns (block, round, size, ...) come after the others."""
    return dict(
        experiment=experiment,
        platform=platform,
        benchmark=benchmark,
        metric=metric,
        unit=unit,
        value=value,
        repetition=repetition,
        **extra,
    )


def samples_frame(
    groups: dict,
    *,
    experiment: str = "e",
    metric: str = "job_time",
    benchmark: str = "terasort",
    unit: str = "s",
    blocks: bool = False,
    **extra,
) -> pd.DataFrame:
    """Tidy samples: platform -> values, each value its own repetition (and block, if `blocks`)."""
    return pd.DataFrame(
        [
            sample_row(
                platform,
                v,
                rep,
                experiment=experiment,
                benchmark=benchmark,
                metric=metric,
                unit=unit,
                **({"block": rep} if blocks else {}),
                **extra,
            )
            for platform, values in groups.items()
            for rep, v in enumerate(values)
        ]
    )


def block_campaign_dir(root: Path, name: str, times: dict, run_meta, benchmark="terasort", metrics=None) -> Path:
    """A campaign directory `root/name` holding samples.jsonl alone: a run per block of each key of
    `times` (key -> one time per block), `run_meta(key)` the metadata that tells its runs apart
    (experiment, platform or a factor's level, size); `metrics`: metric -> its share of the time
    (default: terasort_time)."""
    d = root / name
    d.mkdir()
    recs = []
    for key, values in times.items():
        for block, v in enumerate(values):
            meta = {
                "campaign": name,
                **run_meta(key),
                "block": block,
                "round": 0,
                "repetition": block,
                "run_id": f"{name}-{key}-{block}",
            }
            for metric, share in (metrics or {"terasort_time": 1}).items():
                recs.append(time_record(benchmark, metric, v * share, block, meta))
    write_samples(d, recs)
    return d


def time_record(benchmark: str, metric: str, value: float, stamp: int, meta: dict) -> dict:
    """A time sample (s) as samples.jsonl holds it, timestamped `stamp` s after 1e9 (its block, or
    its place in the file)."""
    return {
        "kind": "sample",
        "benchmark": benchmark,
        "metric": metric,
        "value": value,
        "unit": "s",
        "timestamp": 1.0e9 + stamp,
        "metadata": meta,
    }


def write_samples(d: Path, recs) -> None:
    """`recs` as the campaign directory `d`'s samples.jsonl, one JSON record a line."""
    (d / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


def planted_campaign_dir(raw: Path, metric: str, runs) -> None:
    """A campaign directory `raw` comparing planted CPU fractions with the unplanted 1.0 (the
    design's comparison and a ledger): a TeraSort sample of `metric` per (level, value, metadata)
    of `runs`, on native hosts of experiment "planted"."""
    from vbench.samples import Sample, append_records

    raw.mkdir(parents=True)
    (raw / "campaign.json").write_text(
        json.dumps({"experiment": {"compare": ["slowdown.cpu_fraction"], "baseline": "1.0"}})
    )
    recs = [
        Sample(
            "terasort",
            metric,
            value,
            "s",
            metadata={"experiment": "planted", "platform": "native", "factor.slowdown.cpu_fraction": level, **meta},
        )
        for level, value, meta in runs
    ]
    append_records(raw / "samples.jsonl", recs)


def two_platform_design(**fields):
    """Experiment "t" on native and lxc with seed 7; `fields` add to or replace its settings."""
    from vbench.campaign.design import Experiment

    return Experiment.model_validate({"name": "t", "platforms": ["native", "lxc"], "seed": 7, **fields})


def quiet_readings(**fields):
    """The quiet gate's readings of a quiet 2-CPU machine over a 2 s window (load 0.1, 5 % busy,
    no swap, 4000 MiB available, performance governor, THP madvise, nothing outside the run);
    `fields` replace any of them."""
    from dataclasses import replace

    from vbench.campaign.quiet import Readings

    return replace(Readings(0.1, 2, 0.0, 5.0, 0, 0, 4000, "performance", "madvise", 0.0, (), 2.0), **fields)


def config_refusal_test(config, cases):
    """A test that `config(**kwargs)` raises ParamsError naming `field`, for each (kwargs, field) of `cases`."""

    @pytest.mark.parametrize("kwargs, field", cases)
    def test(kwargs, field):
        with pytest.raises(ParamsError, match=field):
            config(**kwargs)

    return test


def garbage_refusal_test(parse, cfg, texts):
    """A test that `parse(text, cfg)` raises JobFailed for each of `texts`."""

    @pytest.mark.parametrize("text", texts)
    def test(text):
        with pytest.raises(JobFailed):
            parse(text, cfg)

    return test


def by_metric(samples) -> dict:
    """Samples by their metric (one each)."""
    return {s.metric: s for s in samples}


def runs_here(program: str, reason: str | None = None):
    """Marks a test that runs `program` on this machine: an integration test, skipped without it."""

    def mark(test):
        missing = pytest.mark.skipif(shutil.which(program) is None, reason=reason or f"{program} not installed")
        return pytest.mark.integration(missing(test))

    return mark


def run_here(module, cfg, workdir: str = "/unused"):
    """A micro-benchmark module's `run` on this machine: its samples by metric, and its raw output."""
    import invoke

    samples, raw = module.run(invoke.Context(), cfg, workdir)
    return by_metric(samples), raw


def cli_runner(capsys):
    """`vbench` in this process: run(*argv) -> (exit code, what it wrote to stderr)."""
    from vbench import cli

    def run(*argv: str) -> tuple[int, str]:
        rc = cli.main(list(argv))
        return rc, capsys.readouterr().err

    return run


def programs(log: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(host, program) of every (host, command line) of a fake connection's log, in order."""
    return [(host, command.split()[0]) for host, command in log]


def paired_blocks(n_blocks: int, seed: int):
    """The cells of a simulated paired campaign, native and lxc (5 % slower) in every block, in the
    order their noise is drawn: (generator to draw it from, block, platform, the platform's log
    effect, the block's shared log effect)."""
    import math

    import numpy as np

    rng = np.random.default_rng(seed)
    for b in range(n_blocks):
        shared = rng.normal(0, 0.1)
        for platform, mu in (("native", 0.0), ("lxc", math.log(1.05))):
            yield rng, b, platform, mu, shared


def latency_capture(name: str) -> tuple[str, dict]:
    """A fio ping-pong output captured here (tests/data/micro/latency_<name>.json): its text, and
    its JSON document (after whatever fio printed before it)."""
    text = (Path(__file__).resolve().parents[1] / "data" / "micro" / f"latency_{name}.json").read_text()
    return text, json.loads(text[text.index("{") :])


def latency_capture_config(doc: dict) -> LatencyConfig:
    """The config a latency capture was made with (from fio's own record of its options)."""
    opts = doc["jobs"][0]["job options"]
    return LatencyConfig(
        server=opts["hostname"],
        port=int(opts["port"]),
        message_bytes=int(opts["bs"]),
        duration_s=int(opts["runtime"]),
        warmup_s=int(opts["ramp_time"]),
    )


def measured_log_ratio(rng, truth: float, sd: float, blocks: int):
    """A ratio measured over `blocks` blocks around `truth` (the cost model's `LogRatio`): each block's
    log ratio the truth's plus a normal of `sd`, their mean with its standard error on blocks - 1
    degrees of freedom."""
    import math

    from vbench.stats.cost_model import LogRatio

    logs = math.log(truth) + sd * rng.standard_normal(blocks)
    return LogRatio(float(logs.mean()), float(logs.std(ddof=1) / math.sqrt(blocks)), blocks - 1)
