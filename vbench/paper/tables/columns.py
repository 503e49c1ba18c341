"""Tables with a column per platform, the layout of most of the studies' tables: the columns and
notes they share (`platform_columns`: emulated platforms marked, platforms with no value named in a
note) and `MetricRows`, a row per metric of one benchmark, with bonnie++'s *untimed* cells."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd

from vbench.benchmarks.micro.bonnie import TEST_OF_METRIC
from vbench.stats.compare import measured_platforms
from vbench.stats.tidy import stamp_list, stamp_mapping

from vbench.paper import results as R
from vbench.paper.fmt import NOT_MEASURED, configuration_tex, unit_tex
from vbench.paper.tables.grid import Cells, Grid, absent_note, campaign_platforms, render, where_note


def emulated_platforms(samples: pd.DataFrame | None) -> set[str]:
    """The platforms whose hosts ran under software emulation (QEMU's TCG) in these samples, from
    the runs' `host_accelerators` and `host_platforms` stamps (dicts, or their JSON text after
    tidying). A mixed cluster's VM marks its own platform only. Pure."""
    cols = ["host_accelerators", "host_platforms"]
    if samples is None or any(c not in samples.columns for c in cols):
        return set()

    out: set[str] = set()
    stamps = samples[cols].dropna().map(lambda v: v if isinstance(v, str) else json.dumps(dict(v), sort_keys=True))
    for accelerators, platforms in stamps.drop_duplicates().itertuples(index=False):
        hosts = stamp_mapping(platforms)
        out |= {str(hosts[h]) for h, a in stamp_mapping(accelerators).items() if a == "tcg" and h in hosts}
    return out


#: The mark of an emulated platform's column and its note.
EMULATED_MARK = r"$^{\ddagger}$"
EMULATED_NOTE = (
    EMULATED_MARK + r" A QEMU guest under TCG, software emulation of the CPU (this machine has no usable KVM):"
    r" an emulator's figures, not a hypervisor's."
)


@dataclass(frozen=True)
class MetricRows:
    """A table in the layout of most of the studies' tables: a row per (label, metric) of one
    benchmark, a column per platform. Called like every table function; `name` and `module` (the
    module that defines the table, its `__name__`) are the function's it stands for."""

    name: str
    benchmark: str
    metrics: tuple[tuple[str, str], ...]
    caption: str
    label: str
    first_col: str
    prefer: tuple[str, ...] = ("micro", "platforms")
    module: str = __name__

    def __post_init__(self) -> None:
        # docs/paper-map.md names every table by its function's module and name: this instance's
        # module is the one that defines it, not this class's.
        object.__setattr__(self, "__module__", self.module)

    @property
    def __name__(self) -> str:
        # docs/paper-map.md names every table by its function's name; this one stands for one.
        return self.name

    def __call__(self, stats, samples, baseline="native") -> str:
        platforms = campaign_platforms(samples, baseline)
        names = [m for _, m in self.metrics]
        experiment = R.pick_experiment(stats, self.benchmark, names, self.prefer)
        if experiment:
            # One experiment fills the table: the platforms only other experiments ran (another
            # study's factor levels, the default campaign's A/A copy) would be columns of dashes.
            ran = set(R.rows(stats, experiment=experiment)["platform"].astype(str))
            platforms = [p for p in platforms if p in ran] or platforms
        cells = Cells(stats)
        body = []
        size_used = None
        untimed = untimed_tests(samples, experiment) if self.benchmark == "bonnie" and experiment else {}
        any_untimed = False
        if experiment:
            for text, metric in self.metrics:
                sizes = R.sizes_for(stats, experiment, self.benchmark, metric)
                size = sizes[-1] if sizes else None
                size_used = size_used or size
                unit = _unit_of(stats, self.benchmark, metric)
                label_cell = f"{text} ({unit_tex(unit)})" if unit_tex(unit) else text
                row = [label_cell]
                for p in platforms:
                    cell = cells.mean(experiment, p, self.benchmark, metric, size)
                    if cell == NOT_MEASURED and TEST_OF_METRIC.get(metric) in untimed.get(p, ()):
                        cell, any_untimed = UNTIMED, True
                    row.append(cell)
                body.append(row)
        where = (experiment, size_used)
        return platform_columns(
            cells,
            body,
            self.first_col,
            platforms,
            samples,
            baseline,
            where,
            self.caption,
            self.label,
            about=UNTIMED_NOTE if any_untimed else "",
        )


#: A bonnie++ cell that ran but printed "+++++": the test ended too fast to time.
UNTIMED = r"\emph{untimed}"
UNTIMED_NOTE = (
    r"\emph{untimed}: measured, but bonnie++ finished the test too fast to time at this file size "
    r"(it prints +++++), on every run of the platform."
)


def untimed_tests(samples: pd.DataFrame, experiment: str) -> dict[str, set[str]]:
    """platform -> the bonnie++ tests that every one of its runs in `experiment` finished too fast
    to time (the runs' `too_fast`, vbench.benchmarks.micro.bonnie). Pure."""
    if samples is None or samples.empty or "too_fast" not in samples.columns:
        return {}
    rows = samples[(samples["benchmark"] == "bonnie") & (samples["experiment"] == experiment)]
    out: dict[str, set[str]] = {}
    for platform, group in rows.groupby(rows["platform"].astype(str)):
        runs = [stamp_list(v) for v in group.drop_duplicates("run_id")["too_fast"]] if "run_id" in group else []
        if runs and all(r is not None for r in runs):
            out[platform] = set.intersection(*(set(r) for r in runs))
    return out


def platform_columns(
    cells: Cells,
    body: list[list[str]],
    first_col: str,
    platforms: list[str],
    samples,
    baseline: str,
    where: tuple[str | None, str | None],
    caption: str,
    label: str,
    about: str = "",
    **grid,
) -> str:
    """A table with a column per platform, its notes those of every such table: the cells' (n,
    gaps), `about` (what the numbers are), `where` (experiment, size) they come from, and the
    platforms this campaign did not measure. No measured cell: no rows."""
    body = body if cells.any_value else []
    # A platform this table has no value for gets no column (its page is not wide enough for every
    # platform of a campaign): the note names it instead.
    keep = [i for i in range(len(platforms)) if not body or any(row[i + 1] != NOT_MEASURED for row in body)]
    # A factor study's levels (2 guests per host, bridge + NAT) sit where platforms go in its
    # comparison view (vbench.stats.compare): no platform, so no "not measured" platform either.
    measured = set(measured_platforms(samples)) if samples is not None else set()
    unmeasured = [platforms[i] for i in range(len(platforms)) if i not in keep and platforms[i] in measured]
    body = [[row[0]] + [row[i + 1] for i in keep] for row in body]
    platforms = [platforms[i] for i in keep]
    emulated = emulated_platforms(samples) & set(platforms)
    header = [first_col] + [configuration_tex(p) + (EMULATED_MARK if p in emulated else "") for p in platforms]
    notes = [
        cells.notes() if body else "",
        about if body else "",
        where_note(samples, *where) if body else "",
        EMULATED_NOTE if body and emulated else "",
        ("Not measured in this table: " + ", ".join(configuration_tex(p) for p in unmeasured) + ".")
        if unmeasured
        else "",
        absent_note(samples, baseline),
    ]
    return render(Grid(header, body, "l" + "c" * len(platforms), caption, label, notes, **grid))


def _unit_of(stats, benchmark, metric) -> str:
    r = R.rows(stats, benchmark=benchmark, metric=metric, statistic="mean", method="t")
    return str(r["unit"].iloc[0]) if not r.empty else ""
