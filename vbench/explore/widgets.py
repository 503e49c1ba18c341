"""The explore notebook's controls and views (ipywidgets): pick a campaign, the compared factor
and its baseline, a benchmark, a metric and a run; every view redraws from vbench.explore's frames.

`Explorer` holds the widgets and the loaded campaign. Its views are Output widgets, so a headless
run (papermill, nbclient) keeps what they showed in the notebook's widget state, and JupyterLab
redraws them when a control changes. Errors inside a view show in that view, as a cell's would.
"""

from __future__ import annotations

import html
from pathlib import Path

import ipywidgets as w
import pandas as pd
from IPython.display import HTML, Image, Markdown, display

from vbench.explore import compare, cost_split, design, figures, order, paths, run, timeline
from vbench.explore.data import CampaignData, compare_choices, label, load, parse_label, read, stage_settings
from vbench.stats import cost_model as cm
from vbench.stats.campaign_stats import StatsConfig
from vbench.stats.keys import natural_key

WIDE = w.Layout(width="420px")
DESCRIPTION = {"description_width": "90px"}
#: Rows of the counters table shown (a TeraSort run has 48: three jobs x 16 counters).
COUNTER_ROWS = 60


def _number(x: float) -> str:
    """Counts and bytes whole, with thousands separated; other values to 4 significant digits."""
    return f"{int(x):,}" if float(x).is_integer() and abs(x) < 1e18 else f"{x:.4g}"


def _table(frame: pd.DataFrame, css: str, index: bool = True) -> HTML:
    return HTML(frame.to_html(classes=css, index=index, na_rep="", float_format=_number))


def _pre(text: str, css: str) -> HTML:
    return HTML(f'<pre class="{css}" style="max-height:24em;overflow:auto">{html.escape(text)}</pre>')


class Explorer:
    """Controls and views over the campaigns of `data_dir`; the arguments are the notebook's
    parameters, each falling back (with a note in the design view) when the campaign lacks it."""

    def __init__(
        self,
        data_dir: Path,
        campaign: str,
        benchmark: str,
        metric: str,
        compare_by: str | None = None,
        baseline: str | None = None,
        run_id: str | None = None,
        settings: StatsConfig | None = None,
    ):
        self.data_dir = Path(data_dir)
        #: The statistics stage's settings (params/pipeline.yaml), so its numbers are the stage's.
        self.settings = stage_settings(self.data_dir) if settings is None else settings
        names = paths.campaigns(self.data_dir)
        paths.campaign_dir(self.data_dir, campaign)  # refuses an unknown campaign, listing those there
        self.notes: list[str] = []
        self._wanted = {
            "benchmark": benchmark,
            "metric": metric,
            "compare": compare_by,
            "baseline": baseline,
            "run": run_id,
        }
        self._busy = False
        self._stats: dict[tuple, compare.CampaignStatistics] = {}
        self.data: CampaignData | None = None
        #: What the comparison view shows now (read by tests and by whoever drives the notebook).
        self.ratios: list[compare.Ratio] = []
        self.redraws = 0

        self.campaign = w.Dropdown(
            options=names, value=campaign, description="campaign", layout=WIDE, style=DESCRIPTION
        )
        self.compare = w.Dropdown(description="compare", layout=WIDE, style=DESCRIPTION)
        self.baseline = w.Dropdown(description="baseline", layout=WIDE, style=DESCRIPTION)
        self.benchmark = w.Dropdown(description="benchmark", layout=WIDE, style=DESCRIPTION)
        self.metric = w.Dropdown(description="metric", layout=WIDE, style=DESCRIPTION)
        self.run = w.Dropdown(description="run", layout=w.Layout(width="760px"), style=DESCRIPTION)
        self.design_view, self.comparison_view, self.order_view, self.run_view = (w.Output() for _ in range(4))
        for view, css in (
            (self.design_view, "vbench-design"),
            (self.comparison_view, "vbench-comparison"),
            (self.order_view, "vbench-order"),
            (self.run_view, "vbench-run"),
        ):
            view.add_class(css)

        self._load_campaign()
        self.campaign.observe(lambda _: self._guarded(self._load_campaign), names="value")
        self.compare.observe(lambda _: self._guarded(self._load_comparison), names="value")
        self.baseline.observe(lambda _: self._guarded(self._load_comparison), names="value")
        self.benchmark.observe(lambda _: self._guarded(self._pick_benchmark), names="value")
        self.metric.observe(lambda _: self._guarded(self._draw_metric), names="value")
        self.run.observe(lambda _: self._guarded(self._draw_run), names="value")

    # -- layout -----------------------------------------------------------------------------------

    @property
    def controls(self) -> w.Widget:
        box = w.VBox(
            [w.HBox([self.campaign, self.benchmark]), w.HBox([self.compare, self.metric]), w.HBox([self.baseline])]
        )
        box.add_class("vbench-controls")
        return box

    @property
    def run_section(self) -> w.Widget:
        box = w.VBox([self.run, self.run_view])
        box.add_class("vbench-run-section")
        return box

    # -- state changes ------------------------------------------------------------------------------

    def _guarded(self, step) -> None:
        """A change made while options are being refilled is part of that refill, not the user's."""
        if self._busy:
            return
        self._busy = True
        try:
            step()
        finally:
            self._busy = False

    def _take(self, key: str, options: list[str], default: str | None) -> str | None:
        """The notebook's parameter for `key` the first time when it is an option, else `default`."""
        wanted = self._wanted.pop(key, None)
        if wanted is not None and wanted not in options:
            self.notes.append(
                f"{key} {wanted!r} is not in campaign {self.campaign.value}: showing "
                f"{default!r} (choices: {', '.join(options) or 'none'})"
            )
            return default
        return wanted if wanted is not None else default

    def _load_campaign(self) -> None:
        self.notes = []
        raw = paths.campaign_dir(self.data_dir, self.campaign.value)
        choices = [label(c) for c in compare_choices(raw)]
        self.compare.options = choices
        self.compare.value = self._take("compare", choices, choices[0])
        self._load_comparison(fresh=True)

    def _load_comparison(self, fresh: bool = False) -> None:
        raw = paths.campaign_dir(self.data_dir, self.campaign.value)
        if "baseline" in self._wanted:  # the notebook's parameter, the first time
            wanted = self._wanted.pop("baseline")
        elif not fresh and self.compare.value == self._compared:  # the reader picked another baseline
            wanted = self.baseline.value
        else:  # another campaign or factor: its own default
            wanted = None
        self.data = load(raw, parse_label(self.compare.value), wanted, self.settings)
        levels = self.data.levels()
        self.baseline.options = levels if self.data.baseline in levels else [*levels, self.data.baseline]
        self.baseline.value = self.data.baseline
        if wanted is not None and wanted != self.data.baseline:
            self.notes.append(
                f"baseline {wanted!r} is not a level of {self.compare.value}: using {self.data.baseline!r}"
            )
        benchmarks = self.data.benchmarks()
        keep = self.benchmark.value if self.benchmark.value in benchmarks else (benchmarks[0] if benchmarks else None)
        self.benchmark.options = benchmarks
        self.benchmark.value = self._take("benchmark", benchmarks, keep)
        self._pick_benchmark()
        self._draw_design()  # last: it lists the notes of every parameter that fell back

    @property
    def _compared(self) -> str | None:
        return label(self.data.comparison.compare) if self.data is not None else None

    def _pick_benchmark(self) -> None:
        metrics = self.data.metrics(self.benchmark.value) if self.benchmark.value else []
        keep = self.metric.value if self.metric.value in metrics else _headline_metric(self.benchmark.value, metrics)
        self.metric.options = metrics
        self.metric.value = self._take("metric", metrics, keep)
        choices = run.run_choices(self.data, self.benchmark.value) if self.benchmark.value else []
        ids = [r for _, r in choices]
        self.run.options = choices
        timed = timeline.timed_runs(self.data.samples)
        first_timed = next((r for r in ids if r in timed), ids[0] if ids else None)
        self.run.value = self._take("run", ids, first_timed)
        self._draw_metric()
        self._draw_run()

    # -- views ------------------------------------------------------------------------------------

    def statistics(self) -> compare.CampaignStatistics:
        """The statistics table of the campaign as now compared, computed once per comparison."""
        key = (self.data.name, self.data.comparison.compare, self.data.baseline)
        if key not in self._stats:
            self._stats[key] = compare.campaign_statistics(self.data)
        return self._stats[key]

    def _draw_design(self) -> None:
        summary = design.design_summary(self.data)
        self.design_view.clear_output(wait=True)
        with self.design_view:
            display(Markdown("\n".join(summary.lines() + [f"- note: {n}" for n in self.notes])))
            display(Markdown("Runs per cell and level:"))
            display(_table(summary.runs_per_cell(), "vbench-cells"))
            if len(self.data.failures):
                cols = [
                    c
                    for c in ("benchmark", "platform", "cell_id", "run_id", "reason")
                    if c in self.data.failures.columns
                ]
                display(Markdown(f"Failed runs ({len(self.data.failures)}); see one in depth below:"))
                display(_table(self.data.failures[cols], "vbench-failures", index=False))
            if not summary.quiet.empty:
                display(
                    _table(
                        summary.quiet.pivot_table(index="verdict", columns="level", values="runs", fill_value=0),
                        "vbench-quiet",
                    )
                )

    def _draw_metric(self) -> None:
        self.redraws += 1
        bench, metric, baseline = self.benchmark.value, self.metric.value, self.data.baseline
        stats = self.statistics()
        self.ratios = compare.ratios(stats.table, bench, metric) if stats.table is not None and metric else []
        values = compare.level_values(self.data, bench, metric) if metric else pd.DataFrame()
        self.comparison_view.clear_output(wait=True)
        with self.comparison_view:
            if not metric:
                display(Markdown(f"{bench} has no metric the statistics compare."))
                return
            display(
                Markdown(
                    f"**{metric}** of **{bench}**: each {' / '.join(self.data.comparison.compare)} level "
                    f"against **{baseline}**, from `vbench.stats.campaign_stats`, the statistics "
                    "stage's own call (its preferred method per row; docs/statistics.md says which and why)."
                )
            )
            if not self.data.is_stage_comparison:
                display(
                    Markdown(
                        f"*Not the statistics stage's comparison (the design compares "
                        f"{' / '.join(self.data.declared.compare)} against {self.data.stage_baseline}): the "
                        "stage does not write these numbers; the same function computes them over the "
                        "samples seen this way.*"
                    )
                )
            if stats.problem:
                display(Markdown(f"No statistics: {stats.problem}"))
            elif self.ratios:
                display(_table(compare.ratio_frame(self.ratios), "vbench-ratios", index=False))
            else:
                display(Markdown(f"Nothing to compare: {', '.join(self.data.levels()) or 'no level'} only."))
            display(Image(figures.png(figures.comparison_figure(values, self.ratios, metric, baseline))))
        frame = order.run_order(self.data, bench, metric) if metric else pd.DataFrame()
        self.order_view.clear_output(wait=True)
        with self.order_view:
            if frame.empty:
                display(Markdown("No values to order."))
                return
            display(Image(figures.png(figures.order_figure(frame, metric))))
            display(
                Markdown(
                    "Mean per block" + (" and round" if frame["round"].astype(str).ne("").any() else "") + " and level:"
                )
            )
            display(_table(order.per_block(frame), "vbench-blocks"))

    def _draw_run(self) -> None:
        run_id = self.run.value
        self.run_view.clear_output(wait=True)
        with self.run_view:
            if run_id is None:
                display(Markdown("No run of this benchmark."))
                return
            d = run.run_detail(self.data, run_id)
            where = ", ".join(
                x
                for x in (d.level, d.cell, f"block {d.block}" if d.block else "", f"round {d.round}" if d.round else "")
                if x
            )
            display(
                Markdown(
                    f"**{run_id}** ({where}; run #{d.order} of the campaign). Files kept: "
                    + (", ".join(f"`{n}` ({s} B)" for n, s in d.files.items()) or "none")
                )
            )
            if d.failure is not None:
                display(
                    Markdown(
                        f"**Failed**: {d.failure.reason} (step `{d.failure.step or '?'}`). "
                        f"Log excerpt{' from `' + d.log_file + '`' if d.log_file else ''}:"
                    )
                )
                display(_pre(d.log_excerpt, "vbench-log"))
            if len(d.values):
                display(_table(d.values, "vbench-values", index=False))
            tl = timeline.timeline(self.data.samples, run_id)
            display(Markdown("**Task attempts per node** (JobHistory)"))
            display(Image(figures.png(figures.timeline_figure(tl, run_id))))
            bad = tl.unsuccessful()
            if len(bad):
                display(
                    _table(bad[["step", "node", "attempt_id", "state", "diagnostics"]], "vbench-attempts", index=False)
                )
            if d.monitored:
                display(Markdown(f"**Time series** (`{d.timeseries_file}`)"))
                display(Image(figures.png(figures.timeseries_figure(d.timeseries, tl, run_id))))
            else:
                display(Markdown("*Not monitored: no time series (a design with `monitor_interval_s` records one).*"))
            counters = run.counters_beside(self.data, run_id)
            if len(counters):
                display(Markdown(f"**Hadoop counters** beside the other runs of {d.benchmark}:"))
                display(_table(counters.head(COUNTER_ROWS), "vbench-counters"))


def _headline_metric(benchmark: str | None, metrics: list[str]) -> str | None:
    """A benchmark's time when it has one (terasort_time), else its first metric."""
    for name in (f"{benchmark}_time", f"{benchmark}.job_time"):
        if name in metrics:
            return name
    return sorted(metrics, key=natural_key)[0] if metrics else None


def show_cost_split(
    explorer: Explorer,
    platform: str | None = None,
    job: str | None = None,
    run_id: str | None = None,
    fit: str | None = None,
) -> cost_split.CostSplit | None:
    """The notebook's cost split (vbench.explore.cost_split) of the explorer's campaign as its
    design compares it: `platform`'s `job` (None: gVisor's TeraSort where the campaign has them,
    else its first platform and job), one run (`run_id`, else the median of its blocks' pairs)
    beside the baseline's of its block, phase by phase, and the cost model's split of the
    prediction by resource with the fit campaign `fit` (None: params/paper.yaml's
    paper.cost_fit_campaign, the statistics stage's). Displays a line, the table and the figure,
    or says plainly why there is nothing to split or no model; returns the split shown."""
    raw = explorer.data.raw
    samples = read(raw).samples
    baseline = explorer.data.declared.baseline_or(explorer.settings.baseline)
    pairs = cost_split.timed_pairs(samples, baseline)
    if not pairs:
        jobs = ", ".join(j.name for j in cm.PHASED_JOBS)
        display(
            Markdown(
                f"Campaign **{raw.name}** has no run of a job the cost model explains ({jobs}) beside a "
                f"{baseline} run of the same block: no phases to split."
            )
        )
        return None
    chosen, job_name, notes = cost_split.choose(pairs, platform, job)
    fit = cost_split.fit_campaign(explorer.data_dir) if fit is None else fit
    models, why = cost_split.predictions(raw, fit)
    split = cost_split.cost_split(
        samples,
        chosen,
        job_name,
        baseline,
        models.get((chosen, job_name)),
        why or _no_prediction(chosen, job_name),
        run_id,
    )
    m = split.model
    said = [
        f"**{split.platform}** {split.job} run `{split.run.run_id}` (block {split.run.block or '-'}, {split.chosen}) "
        f"beside **{baseline}**'s `{split.native.run_id}`: x{split.run_ratio:.2f}."
    ]
    if m is not None:
        said.append(
            f"The cost model (fit `{m.fit}`, the statistics stage's prediction) predicts "
            f"x{_ratio_text(m.predicted)}; the campaign measured x{_ratio_text(m.measured)} over its blocks, "
            + (
                f"{split.unexplained * 100:+.0f} % unexplained (measured / predicted - 1)."
                if split.unexplained is not None
                else "nothing to set the prediction against."
            )
        )
        if m.rejected:
            said.append(f"*The lack-of-fit test rejects {split.job}'s additive form (Holm over the jobs).*")
    else:
        said.append(f"No model: {split.model_note}")
    notes = [*notes, *split.notes, *(m.notes if m is not None else ())]
    display(Markdown("\n\n".join(said + [f"- note: {n}" for n in notes])))
    display(_table(cost_split.split_parts(split), "vbench-cost-split", index=False))
    display(Image(figures.png(figures.cost_split_figure(split))))
    platforms = [p for p in dict.fromkeys(p for p, _ in pairs) if p != chosen]
    jobs = [j for p, j in pairs if p == chosen and j != job_name]
    others = [f"other platforms: {', '.join(platforms)}"] if platforms else []
    others += [f"{chosen}'s other jobs: {', '.join(jobs)}"] if jobs else []
    if others:
        display(Markdown(f"Also split here (`split_platform`, `split_job`): {'; '.join(others)}."))
    return split


def _no_prediction(platform: str, job: str) -> str:
    return f"the statistics stage predicts no {job} on {platform} (no measured ratio of it over two blocks or more)"


def _ratio_text(iv) -> str:
    if iv is None or iv.estimate is None:
        return "-"
    return f"{iv.estimate:.2f}" + (f" [{iv.low:.2f}, {iv.high:.2f}]" if iv.bounded else "")


def explore(data_dir: str | Path | None, *args, **kwargs) -> Explorer:
    """The notebook's one call: an Explorer on the repository's data (found from any directory when
    `data_dir` is None); the other arguments are Explorer's (campaign, benchmark, metric, compare_by,
    baseline, run_id, settings: the statistics stage's unless given)."""
    return Explorer(paths.data_dir() if data_dir is None else Path(data_dir), *args, **kwargs)
