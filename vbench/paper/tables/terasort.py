"""The TeraSort suite's tables (VMware, Tables 2-4; Jeong et al., Fig. 7): elapsed times per
platform, per HDFS replication and per data size, and per level of a design factor (guests per host,
Hadoop rack topology) with its ratio to the design's baseline level."""

from __future__ import annotations


from vbench.stats.compare import LEVEL, measured_platforms
from vbench.stats.keys import natural_key
from vbench.stats.tidy import size_levels, split_size_key
from vbench.wording import level_label, noun

from vbench.paper import results as R
from vbench.paper.fmt import NOT_MEASURED, configuration_tex, interval_text, size_display, tex_escape
from vbench.paper.tables.grid import (
    Cells,
    Grid,
    absent_note,
    campaign_platforms,
    experiment_tex,
    render,
    where_note,
)


# --- VMware, Tables 2-4 -----------------------------------------------------------------------------

_TERA = (
    ("teragen_time", "TeraGen"),
    ("terasort_time", "TeraSort"),
    ("teravalidate_time", "TeraValidate"),
    ("terasort.map_shuffle_time", "map-shuffle"),
    ("terasort.reduce_merge_time", "reduce-merge"),
)
_TERA_HEADER = ["TeraGen", "TeraSort", "TeraValidate", "map-shuffle", "reduce-merge"]


def _tera_cells(cells: Cells, stats, experiment, platform, size, extra=()) -> list[str]:
    out = [cells.mean(experiment, platform, "terasort", m, size) for m, _ in _TERA]
    return out + [cells.mean(experiment, platform, "terasort", m, size) for m in extra]


def _tera_table(lead: list[str], body, caption: str, label: str, notes, size: str, rules=(), extra=()) -> str:
    """A table of the TeraSort suite: the `lead` columns (left-aligned), the suite's steps and
    phases, then the `extra` columns; a rule after each body row of `rules`."""
    header = [*lead, *_TERA_HEADER, *extra]
    colspec = "l" * len(lead) + "c" * (len(header) - len(lead))
    return render(Grid(header, body, colspec, caption, label, notes, size=size, rules_after=tuple(rules)))


def _shown(
    cells: Cells, body: list[list[str]], notes: list[str], unmeasured: str = ""
) -> tuple[list[list[str]], list[str]]:
    """A table's rows and notes: as built, after the cells' own note, when a cell holds a value;
    else no rows, so that the table says it was not measured, and the note `unmeasured` alone."""
    if not cells.any_value:
        return [], [unmeasured]
    return body, [cells.notes(), *notes]


def table_tera_elapsed(stats, samples, baseline="native") -> str:
    """TeraGen/TeraSort/TeraValidate elapsed times and TeraSort phases per platform (VMware, Table 2)."""
    experiment = R.pick_experiment(stats, "terasort", ["terasort_time"], ("platforms",))
    cells = Cells(stats)
    body = []
    size = None
    elsewhere = []  # platforms of the merged campaigns that this experiment did not run
    if experiment:
        sizes = R.sizes_for(stats, experiment, "terasort", "terasort_time")
        size = sizes[-1] if sizes else None
        ran = set(R.platforms_in(stats, baseline, experiment=experiment, benchmark="terasort", size=size))
        platforms = set(measured_platforms(samples))  # not a factor study's levels (bridge, rack, 2...)
        for p in campaign_platforms(samples, baseline):
            if p not in ran:
                if p in platforms:
                    elsewhere.append(p)
                continue
            body.append([configuration_tex(p)] + _tera_cells(cells, stats, experiment, p, size))
    body, notes = _shown(
        cells,
        body,
        [
            r"Elapsed times in \unit{\second}; map-shuffle and reduce-merge are the"
            r" TeraSort job's phases from the job history.",
            where_note(samples, experiment, size),
            ("Measured in other experiments only: " + ", ".join(configuration_tex(p) for p in elsewhere) + ".")
            if elsewhere
            else "",
            absent_note(samples, baseline),
        ],
    )
    return _tera_table(
        ["Platform"],
        body,
        r"Elapsed times of the TeraSort suite per platform (after VMware, Table~2). Lower is better.",
        "tab:tera-elapsed",
        notes,
        size=r"\footnotesize",
    )


def _as_count(level: object) -> float:
    """A factor's level as the count it names ("1" guest per host); a label that is no number counts
    as many, so its noun reads plural."""
    try:
        return float(str(level))
    except ValueError:
        return 0.0


def _vs_base_note(column: str, job: str, base: str) -> str:
    """What a factor table's "vs <base level>" column holds, in its note."""
    return (
        rf"Elapsed times in \unit{{\second}}; ``{column}'': {job}'s time over its time with {base}, "
        r"with its 95\,\% interval (paired by block where each block ran both). "
    )


def _experiments_comparing(samples, label: str) -> list[str]:
    """Experiments whose TeraSort runs compare levels of the design factor `label` (the level
    stays readable by name in a comparison view, vbench.stats.compare). Pure."""
    col = LEVEL + label
    if samples is None or samples.empty or col not in samples.columns:
        return []
    tera = samples[(samples["benchmark"] == "terasort") & samples[col].notna()]
    varied = tera.groupby(tera["experiment"].astype(str))[col].nunique()
    return sorted(varied[varied > 1].index, key=natural_key)


def _compared_experiments(stats, samples, label: str, metric: str):
    """(experiment, its largest size, its baseline level) of each experiment whose TeraSort-suite
    runs compare levels of the design factor `label` and hold `metric`. Pure."""
    for experiment in _experiments_comparing(samples, label):
        sizes = R.sizes_for(stats, experiment, "terasort", metric)
        if sizes:
            base = R.compared_baseline(stats, experiment=experiment, benchmark="terasort", metric=metric)
            yield experiment, sizes[-1], base


def _ratio_to_base_cell(stats, experiment, level, base_level, metric, size) -> str:
    """`metric` at `level` over its value at the design's baseline level, with its interval
    (paired where the blocks pair); "1" for the baseline level itself."""
    ratio = R.ratio_row(stats, experiment, level, "terasort", metric, size)
    if ratio is not None:
        return interval_text(ratio["estimate"], ratio["ci_low"], ratio["ci_high"])
    return "1" if level == base_level else NOT_MEASURED


def table_vms_per_host(stats, samples, baseline="native") -> str:
    """Elapsed times of the TeraSort suite per number of guests on each emulated physical host
    (VMware, Table 2's rows of 1 to 20 VMs per host, and Fig. 2's ratios): a row per level of a
    design comparing `vms_per_host`, TeraSort's time over the design's baseline level with its
    interval (paired where the blocks pair). Pure."""
    cells = Cells(stats)
    body: list[list[str]] = []
    where: list[str] = []
    base_level = ""
    for experiment, size, base_level in _compared_experiments(stats, samples, "vms_per_host", "terasort_time"):
        part = samples[samples["experiment"].astype(str) == experiment]
        guests = ", ".join(sorted({str(p) for p in part.get("host_platform", part["platform"]).dropna()}))
        for level in R.platforms_in(stats, base_level, experiment=experiment, benchmark="terasort", size=size):
            body.append(
                [f"{tex_escape(guests)}, {tex_escape(level)}"]
                + _tera_cells(cells, stats, experiment, level, size)
                + [_ratio_to_base_cell(stats, experiment, level, base_level, "terasort_time", size)]
            )
        where.append(where_note(samples, experiment, size))
    body, notes = _shown(
        cells,
        body,
        [
            _vs_base_note(
                f"TeraSort vs {tex_escape(base_level)}",
                "TeraSort",
                f"{tex_escape(base_level)} {noun(_as_count(base_level), 'guest')} per host",
            )
            + (
                r"The row's guests sit on emulated physical hosts "
                r"(network namespaces joined by a shaped link): what grouping them changes here is which transfers "
                r"cross that link, not the NUMA locality VMware attributes its speed-up to."
            ),
            " ".join(where),
        ],
    )
    return _tera_table(
        ["Guests, per host"],
        body,
        r"Elapsed times of the TeraSort suite per number of guests on each host (after VMware, Table~2 and "
        r"Fig.~2). Lower is better.",
        "tab:vms-per-host",
        notes,
        size=r"\footnotesize",
        extra=[f"TeraSort vs {tex_escape(base_level) or '1'}"],
    )


def _replication_cells(stats) -> list[tuple[str, str, str]]:
    """(experiment, size key, replication) of TeraSort suite cells, in experiments where replication
    varies, a data size's replication levels together. Keyed on TeraGen, the one step every run
    has (`generate_only` runs have no TeraSort)."""
    r = R.rows(stats, benchmark="terasort", metric="teragen_time", statistic="mean", method="t")
    if r.empty or "replication" not in r.columns:
        return []
    out = []
    for experiment, grp in r.groupby("experiment", sort=False):
        reps = grp["replication"].astype(str)
        if reps.nunique() < 2:
            continue
        for size, rep in sorted(
            {(s, x) for s, x in zip(grp["size"].astype(str), reps)},
            key=lambda t: (natural_key(split_size_key(t[0])[0]), natural_key(t[1]), natural_key(t[0])),
        ):
            out.append((str(experiment), size, rep))
    return out


def _grouped(combos: list[tuple[str, str, str]]) -> list[tuple[tuple[str, str], list[tuple[str, str]]]]:
    """`_replication_cells` grouped by (experiment, data size label), in order, each group's
    (size key, replication) cells. Pure."""
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for experiment, size, rep in combos:
        groups.setdefault((experiment, split_size_key(size)[0]), []).append((size, rep))
    return list(groups.items())


def table_racks(stats, samples, baseline="native") -> str:
    """TeraGen's elapsed time per Hadoop topology (Jeong et al., Fig. 7: virtual rack grouping
    against none): a row per level of a design comparing `topology`, TeraGen's time over the
    design's baseline level with its interval (paired where the blocks pair). Pure."""
    cells = Cells(stats)
    body: list[list[str]] = []
    where: list[str] = []
    base_level = ""
    compared = list(_compared_experiments(stats, samples, "topology", "teragen_time"))
    for experiment, size, base_level in compared:
        if len(compared) > 1:  # two runs of the design (e.g. with speculative execution off): say whose rows
            body.append([rf"\multicolumn{{3}}{{l}}{{\emph{{{experiment_tex(samples, experiment)}}}}}"])
        for level in R.platforms_in(stats, base_level, experiment=experiment, benchmark="terasort", size=size):
            body.append(
                [
                    tex_escape(level),
                    cells.mean(experiment, level, "terasort", "teragen_time", size),
                    _ratio_to_base_cell(stats, experiment, level, base_level, "teragen_time", size),
                ]
            )
        where.append(where_note(samples, experiment, size))
    body, notes = _shown(
        cells,
        body,
        [
            _vs_base_note(f"vs {tex_escape(base_level)}", "TeraGen", f"the {tex_escape(base_level)} topology")
            + (
                r"With \texttt{rack} the guests of each emulated physical host form a Hadoop rack, so each "
                r"block's second and third replicas go to one other host and cross the shaped link between "
                r"hosts once; with \texttt{flat} (one default rack) they go to any two other nodes."
            ),
            " ".join(where),
        ],
    )
    return render(
        Grid(
            ["Hadoop topology", "TeraGen", f"vs {tex_escape(base_level) or 'flat'}"],
            body,
            "lcc",
            r"TeraGen's elapsed time with and without virtual rack grouping (after Jeong et al., "
            r"Figure~7). Lower is better.",
            "tab:racks",
            notes,
            size=r"\footnotesize",
        )
    )


def table_tera_replication(stats, samples, baseline="native") -> str:
    """Single versus triple HDFS replica (VMware, Table 3 beside Table 2)."""
    cells = Cells(stats)
    body, rules = [], []
    combos = _replication_cells(stats)
    for (experiment, label), group in _grouped(combos):
        # Several campaigns and sizes share this table: each group of rows says whose it is.
        head = experiment_tex(samples, experiment) + (f", {tex_escape(label)}" if label else "")
        body.append([rf"\multicolumn{{7}}{{l}}{{\emph{{{head}}}}}"])
        for size, rep in group:
            for p in campaign_platforms(samples, baseline):
                if R.mean_row(stats, experiment, p, "terasort", "teragen_time", size) is None:
                    continue
                body.append([tex_escape(rep), configuration_tex(p)] + _tera_cells(cells, stats, experiment, p, size))
        rules.append(len(body) - 1)
    body, notes = _shown(
        cells,
        body,
        [
            r"Elapsed times in \unit{\second}; each group of rows is one campaign and data size; a run"
            r" of TeraGen alone has no TeraSort or TeraValidate."
        ],
        r"No experiment of this campaign varied the HDFS replication.",
    )
    return _tera_table(
        ["Replicas", "Platform"],
        body,
        r"TeraSort suite with different HDFS replication (after VMware, Tables~2--3). Lower is better.",
        "tab:tera-replication",
        notes,
        size=r"\footnotesize",
        rules=rules,
    )


def scaling_sizes(sizes: list[str]) -> tuple[list[str], str]:
    """The cells of one size series and the factors they share ("" when none): the cells without
    other factors if two or more, else the largest series of one factor combination, the last in
    natural order on a tie (VMware's Table 4 ran triple replication: `replication=3` before `=1`).
    Pure."""
    series: dict[str, list[str]] = {}
    for s in sizes:
        label, levels = split_size_key(s)
        if label:  # a sizeless cell is no point of a size series
            series.setdefault(levels, []).append(s)
    if len(series.get("", [])) >= 2:
        return series[""], ""
    best = max(sorted(series, key=natural_key, reverse=True), key=lambda k: len(series[k]), default="")
    return (series[best], best) if len(series.get(best, [])) >= 2 else ([], "")


def table_tera_scaling(stats, samples, baseline="native") -> str:
    """Dataset-size scaling with TeraSort throughput (VMware, Table 4)."""
    experiment, sizes, shared = None, [], ""
    for ex in R.experiments_for(stats, "terasort", ["terasort_time"], ("scaling", "platforms")):
        sizes, shared = scaling_sizes(R.sizes_for(stats, ex, "terasort", "terasort_time"))
        if sizes:
            experiment = ex
            break
    cells = Cells(stats)
    body, rules = [], []
    if experiment:
        for p in campaign_platforms(samples, baseline):
            added = False
            for size in sizes:
                if R.mean_row(stats, experiment, p, "terasort", "terasort_time", size) is None:
                    continue
                body.append(
                    [configuration_tex(p), tex_escape(size_display(split_size_key(size)[0]))]
                    + _tera_cells(cells, stats, experiment, p, size, extra=("terasort_throughput",))
                )
                added = True
            if added:
                rules.append(len(body) - 1)
    body, notes = _shown(
        cells,
        body,
        [
            r"Elapsed times in \unit{\second}; throughput is the data size over the TeraSort time,"
            r" in \unit{\mebi\byte\per\second}.",
            where_note(samples, experiment, None),
            f"Every size at {tex_escape(level_label(size_levels(shared)[1]))}." if shared else "",
        ],
        r"No experiment of this campaign ran TeraSort at two or more sizes.",
    )
    return _tera_table(
        ["Platform", "Size"],
        body,
        r"TeraSort suite against data size, with throughput (after VMware, Table~4). Lower times and "
        r"higher throughputs are better.",
        "tab:tera-scaling",
        notes,
        size=r"\scriptsize",
        rules=rules,
        extra=["Throughput"],
    )
