"""A campaign directory's summary: gathered, written beside the campaign, printed.

The numbers come from the statistics stage's table of the campaign when it is cached
(`data/processed/<campaign>/stats.parquet`, read with the settings it records and refused when the
samples changed since), otherwise from the same function the stage runs
(`vbench.stats.campaign_stats.campaign_stats`, with params/pipeline.yaml's settings), kept in
memory: data/processed/<campaign>/ is a DVC output, written by its stage only.

The files go to `<campaign>/summary/` (summary.md, forest.png, forest.svg): beside the samples,
in no DVC output or dependency (.dvcignore leaves them out of the one directory a stage depends on
whole, data/raw/monitoring) and not in git (.gitignore), so summarising a committed campaign
changes nothing that is tracked.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from rich.console import Console
from rich.text import Text

from vbench.campaign.machine_ref import reference_beside, samples_probe_ms
from vbench.errors import ParamsError
from vbench.explore.data import stage_settings
from vbench.params import load_yaml_section
from vbench.pipeline import processed_of
from vbench.report import rows
from vbench.report import summary as S
from vbench.report.forest import forest_figure, save_forest
from vbench.report.text import FOREST_PNG, FOREST_SVG, markdown, terminal_lines
from vbench.samples import QUIET_CPU_PROBE, split_values
from vbench.stats.campaign import Campaign, load_campaign
from vbench.stats.campaign_stats import STATS_FILE, STATS_META, StatsConfig, campaign_stats, read_campaign_stats
from vbench.validate import campaign_name
from vbench.stats.compare import Comparison, comparison_of
from vbench.stats.duet import duet_jobs, duet_summary
from vbench.stats.headlines import quoted_headlines
from vbench.stats.quiet import quiet_counts
from vbench.wording import count

SUMMARY_DIR = "summary"
SUMMARY_FILE = "summary.md"
#: The pipeline's measuring stages: notebook, the record it writes beside the samples, the runner's kind.
MEASURING_STAGES = (("02-calibrate", "calibrate.json", "micro"), ("03-hadoop-suite", "suite.json", "hadoop"))


@dataclass(frozen=True)
class SummaryFiles:
    markdown: Path
    png: Path
    svg: Path


def summary_dir(raw: Path) -> Path:
    return Path(raw) / SUMMARY_DIR


def _shown(path: Path) -> str:
    """A path relative to the working directory when it lies below it (what a reader can paste)."""
    try:
        return os.path.relpath(path) if Path(path).resolve().is_relative_to(Path.cwd()) else str(path)
    except ValueError:
        return str(path)


def pipeline_campaign(params_dir: Path) -> str:
    """The campaign `dvc repro` analyses (params/pipeline.yaml's pipeline.analysis_campaign)."""
    path = Path(params_dir) / "pipeline.yaml"
    name = load_yaml_section(path, "pipeline", required=True).get("analysis_campaign")
    if not isinstance(name, str) or not name:
        raise ParamsError(f"{path}: pipeline.analysis_campaign", f"must be a campaign's name, got {name!r}")
    return campaign_name(name, f"{path}: pipeline.analysis_campaign")  # data/raw/<name>: never a path


def cached_settings(processed: Path | None) -> StatsConfig | None:
    """The settings the statistics stage recorded beside its table (None: no table there)."""
    if processed is None or not (processed / STATS_FILE).is_file() or not (processed / STATS_META).is_file():
        return None
    try:
        settings = json.loads((processed / STATS_META).read_text(encoding="utf-8"))["settings"]
        return StatsConfig(**settings)
    except (ValueError, KeyError, TypeError):
        return None


def pipeline_settings(raw: Path) -> StatsConfig:
    """params/pipeline.yaml's statistics settings for a campaign under data/raw/ (what dvc.yaml
    passes the stage); the defaults for a campaign directory elsewhere."""
    raw = Path(raw)
    return stage_settings(raw.parent.parent) if raw.parent.name == "raw" else StatsConfig()


def statistics_of(
    raw: Path, campaign: Campaign, cfg: StatsConfig | None = None, *, cache: bool = True
) -> tuple[pd.DataFrame, StatsConfig, str, list[str]]:
    """(table, its settings, where it came from, notes): the stage's cached table if there is a
    current one (with `cfg`'s settings, when given) and `cache`, else the one statistics pass
    computed now."""
    processed = processed_of(raw)
    notes = []
    cached = cached_settings(processed) if cache else None
    if cached is not None and (cfg is None or cfg == cached):
        try:
            table = read_campaign_stats(processed, cached, raw)
        except ParamsError as exc:
            table = None
            notes.append(f"the cached statistics were not used: {exc}")
        if table is not None:
            return table, cached, _shown(processed / STATS_FILE), notes
    cfg = cfg or pipeline_settings(raw)
    return campaign_stats(campaign, cfg), cfg, "computed now (vbench.stats.campaign_stats)", notes


def notebook_times(executed_dir: Path | None, campaign: str) -> dict[str, S.StageTime]:
    """Stage -> its time, from the executed notebooks papermill ran for this campaign."""
    out: dict[str, S.StageTime] = {}
    if executed_dir is None or not Path(executed_dir).is_dir():
        return out
    for nb in sorted(Path(executed_dir).glob("0*.ipynb")):
        try:
            meta = json.loads(nb.read_text(encoding="utf-8")).get("metadata", {}).get("papermill", {})
        except (OSError, ValueError):
            continue
        seconds = meta.get("duration")
        if (meta.get("parameters") or {}).get("campaign") == campaign and isinstance(seconds, (int, float)):
            out[nb.stem] = S.StageTime(nb.stem, float(seconds), _shown(nb))
    return out


def stage_times(raw: Path, samples: pd.DataFrame, executed_dir: Path | None) -> tuple[S.StageTime, ...]:
    """Each stage's time from the best record there is: the executed notebook, else the measuring
    stage's own record (calibrate.json, suite.json), else the samples' timestamps."""
    found = notebook_times(executed_dir, Path(raw).name)
    spans = {t.stage: t for t in rows.times_from_samples(samples)}
    for stage, record, kind in MEASURING_STAGES:
        span = spans.pop(S.KIND_STAGE[kind], None)
        if stage in found:
            continue
        try:
            seconds = json.loads((Path(raw) / record).read_text(encoding="utf-8")).get("seconds")
        except (OSError, ValueError, AttributeError):
            seconds = None
        if isinstance(seconds, (int, float)):
            found[stage] = S.StageTime(stage, float(seconds), record)
        elif span is not None:
            found[stage] = span
    # Kinds no pipeline stage measures (an ad hoc run's), by their samples.
    return tuple(sorted(found.values(), key=lambda t: t.stage)) + tuple(spans.values())


def probe_line(raw: Path, samples: pd.DataFrame, quiet) -> S.Probe | None:
    """The day's CPU probe against this machine's reference: the samples' own stamp (the gate
    read the reference before each round), else the campaign's median probe against the reference
    from the campaigns beside it (it was measured before the gate knew one)."""
    if quiet is not None and quiet.probe_vs_machine is not None:
        return S.Probe(
            quiet.probe_vs_machine,
            f"x{quiet.probe_vs_machine:.2f} this machine's reference (median over the {quiet.probe_runs} runs "
            "measured with one)",
        )
    probe = samples_probe_ms(samples)
    if probe is None:
        return None
    models = sorted({m for v in samples.get("cpu_model", pd.Series(dtype=object)).dropna() for m in split_values(v)})
    ref = reference_beside(raw, models[0]) if len(models) == 1 else None
    if ref is None:
        return S.Probe(None, f"median {probe:.1f} ms; no other campaign on this CPU to compare it with")
    return S.Probe(
        probe / ref.median_ms, f"median {probe:.1f} ms, x{probe / ref.median_ms:.2f} this machine's reference "
        f"({ref.describe()})"
    )  # fmt: skip


def next_steps(
    raw: Path, repo: Path | None, pdf: Path | None, executed_dir: Path | None
) -> tuple[tuple[str, str], ...]:
    steps = []
    if pdf is not None:
        steps.append(("the paper", _shown(pdf) + ("" if pdf.is_file() else " (not built yet: `dvc repro`)")))
    if executed_dir is not None:
        pages = sorted(Path(executed_dir).glob("*.html"))
        where = (
            f"{_shown(Path(executed_dir))}/*.html" if pages else f"{_shown(Path(executed_dir))}/ (after `dvc repro`)"
        )
        steps.append(("each stage's notebook, executed", where))
    if repo is not None and (repo / "dvc.yaml").is_file():
        steps.append(("every run of the headline metrics", "`dvc plots show` (dvc_plots/index.html)"))
        steps.append(("the headline numbers across commits", "`dvc metrics show`, `dvc metrics diff`"))
        steps.append(("one experiment, interactively", "`invoke lab` (notebooks/explore.ipynb)"))
    d = summary_dir(raw)
    steps.append(("this summary", f"{_shown(d / SUMMARY_FILE)}, {FOREST_PNG}, {FOREST_SVG}"))
    return tuple(steps)


def repo_of(raw: Path) -> Path | None:
    """The checkout holding data/raw/<campaign>, when the campaign lies in one."""
    raw = Path(raw).resolve()
    return raw.parents[2] if raw.parent.name == "raw" and raw.parent.parent.name == "data" else None


def summarise(
    raw: Path,
    *,
    table: pd.DataFrame | None = None,
    cfg: StatsConfig | None = None,
    pdf: Path | None = None,
    executed_dir: Path | None = None,
    extra_times: tuple[S.StageTime, ...] = (),
    comparison: Comparison | None = None,
) -> S.CampaignSummary:
    """The summary of the campaign in `raw`. `table` (with `cfg`, its settings) is the statistics
    stage's own, when the caller has just computed it; otherwise see `statistics_of`. `pdf` and
    `executed_dir` default to the pipeline's, in the checkout that holds the campaign.
    `comparison`, when given, is read instead of the design's (the statistics computed now: the
    stage's table holds the design's)."""
    raw = Path(raw)
    repo = repo_of(raw)
    if repo is not None:
        pdf = pdf if pdf is not None else repo / "paper" / "build" / "paper.pdf"
        executed_dir = executed_dir if executed_dir is not None else repo / "notebooks" / "executed"
    campaign = load_campaign(raw, comparison)
    if comparison is not None:
        # The stage's cached table holds the design's comparison, not this one.
        levels = sorted(set(campaign.samples.get("platform", ())), key=str)
        asked = next(iter(campaign.baselines.values()), (cfg or pipeline_settings(raw)).baseline)
        if asked not in levels:
            raise ParamsError("--baseline", f"{asked!r} is not a compared level of this campaign; its levels: {levels}")
        table, cfg, source, notes = statistics_of(raw, campaign, cfg, cache=False)
    elif table is not None:
        cfg = cfg or StatsConfig()
        processed = processed_of(raw)
        written = processed is not None and (processed / STATS_FILE).is_file()
        source, notes = (_shown(processed / STATS_FILE) if written else "the caller's table"), []
    else:
        table, cfg, source, notes = statistics_of(raw, campaign, cfg)
    compare = (comparison or comparison_of(raw)).compare
    baseline = next(iter(campaign.baselines.values()), cfg.baseline)
    headlines = quoted_headlines()
    headline_only = rows.headlines_in(table, headlines)
    chosen = headlines if headline_only else None
    ratios = rows.ratios(table, chosen, cfg.equivalence_pct, compare) if not table.empty else ()
    samples = campaign.samples
    quiet = quiet_counts(samples) if QUIET_CPU_PROBE in samples.columns or "quiet.verdict" in samples.columns else None
    runs = int(samples["run_id"].replace("", pd.NA).nunique()) if "run_id" in samples.columns else 0
    return S.CampaignSummary(
        campaign=campaign.name,
        path=_shown(raw),
        compare=compare,
        settings=S.Settings(baseline, cfg.equivalence_pct, cfg.n_resamples, cfg.seed, source),
        ratios=ratios,
        aa=rows.aa_checks(table, chosen) if not table.empty else (),
        means=rows.means(table, chosen) if not S.split_aa(ratios) and not table.empty else (),
        headline_only=headline_only,
        runs=runs,
        failures=len(campaign.failures),
        measured=rows.measured_on(samples),
        quiet=quiet,
        probe=probe_line(raw, samples, quiet),
        duet=duet_summary(duet_jobs(samples)),
        times=stage_times(raw, samples, executed_dir) + tuple(extra_times),
        next_steps=next_steps(raw, repo, pdf, executed_dir),
        notes=tuple(notes + list(campaign.notes) + problems_note(table)),
    )


def problems_note(table: pd.DataFrame) -> list[str]:
    """How many numbers the statistics could not compute (each row's note says why)."""
    n = len(table.attrs.get("problems", []))
    if not n:
        return []
    lacks = "lacks" if n == 1 else "lack"
    return [f"{count(n, 'group')} of the statistics table {lacks} a number; its rows' notes say why"]


def write_summary(s: S.CampaignSummary, raw: Path, out_dir: Path | None = None) -> SummaryFiles:
    """summary.md, forest.png and forest.svg into `out_dir` (default `<campaign>/summary/`)."""
    out = Path(out_dir) if out_dir is not None else summary_dir(raw)
    out.mkdir(parents=True, exist_ok=True)
    png, svg = save_forest(forest_figure(s), out / FOREST_PNG, out / FOREST_SVG)
    md = out / SUMMARY_FILE
    md.write_text(markdown(s), encoding="utf-8")
    return SummaryFiles(md, png, svg)


def stage_summary(
    raw: Path, table: pd.DataFrame, *, baseline: str, equivalence_pct: float, n_resamples: int, seed: int
):
    """The statistics notebook's first output: the summary of the table it has just computed
    (with `vbench.pipeline.statistics`'s settings), written beside the campaign and shown as the
    forest plot, then the text."""
    from IPython.display import Image, Markdown

    cfg = StatsConfig(baseline=baseline, n_resamples=n_resamples, seed=seed, equivalence_pct=equivalence_pct)
    s = summarise(raw, table=table, cfg=cfg)
    files = write_summary(s, raw)
    return Image(filename=str(files.png)), Markdown(markdown(s, figure=False))


def print_summary(s: S.CampaignSummary, console: Console | None = None) -> None:
    console = console or Console()
    for text, style in terminal_lines(s):
        console.print(Text(text, style=style), soft_wrap=True)


def report(
    raw: Path, console: Console | None = None, *, comparison: Comparison | None = None, **kw
) -> tuple[S.CampaignSummary, SummaryFiles]:
    """The closing summary of a run: gathered, written beside the campaign, printed."""
    s = summarise(raw, comparison=comparison, **kw)
    # Another comparison's summary beside the design's, never over it.
    out = summary_dir(raw) / ("by-" + "-".join(comparison.compare)) if comparison is not None else None
    files = write_summary(s, raw, out)
    print_summary(s, console)
    return s, files
