"""Every number the manuscript's text quotes, as LaTeX macros (showyourwork's rule: none typed by hand).

`macros_tex(...)` returns `generated/macros.tex`: `\\newcommand{\\vbName}{value}` lines, sorted by
name, values formatted by `vbench.paper.fmt`. Names are `vb` + CamelCase parts, e.g.
`\\vbTeraSortOverheadLxc`. Macros exist for every platform vbench knows, measured or not, so the
text compiles whatever the campaign holds; an unmeasured one reads "not measured". Flags
`\\vbHasTable<Name>` / `\\vbHasFigure<Name>` / `\\vbHas<Headline><Platform>` are 1 or 0 for text that
depends on data.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pandas as pd

from vbench.params import PLATFORMS
from vbench.samples import is_aa
from vbench.stats.campaign import Campaign
from vbench.stats.compare import compared_levels, measured_platforms
from vbench.stats.headlines import HEADLINES
from vbench.stats.keys import natural_key
from vbench.stats.machines import recorded

from vbench.paper import abstract as A
from vbench.paper import discussion as D
from vbench.paper import results as R
from vbench.paper.delta import (
    CONTRADICTED,
    REPRODUCED,
    STAND_INS,
    VERDICTS,
    DeltaRow,
    Published,
    counts,
    holm_family_size,
    rule_tex,
)
from vbench.paper.jvm_builds import JvmReading
from vbench.paper.machines import LABEL as CAMPAIGNS_LABEL, jvm_sentence, machines_sentence
from vbench.paper.sandbox import SandboxStudy, sandbox_macros, sandbox_ratio, sandbox_rows
from vbench.paper.tables.testbed import java_short
from vbench.paper.fmt import (
    NOT_MEASURED_TEXT,
    and_list,
    configuration_tex,
    digits_display,
    interval_text,
    macro_name,
    plain_number,
    qty_pm,
    size_display,
    tex_escape,
)
from vbench.wording import factor_name, level_name, noun, was


@dataclass(frozen=True)
class MacroContext:
    campaign: Campaign
    stats: R.StatisticsLookup
    baseline: str
    conf: float
    n_resamples: int
    seed: int
    equivalence_pct: float
    delta: list[DeltaRow]
    n_findings_studies: int
    has_table: dict[str, bool]
    has_figure: dict[str, bool]
    #: The abstract's quotes (`A.container_quotes(stats, baseline)`), computed once by the build,
    #: which also marks their campaigns in Table tab:campaigns.
    quotes: list[A.Quote]
    sandbox: SandboxStudy | None = None  # the sandbox study (issue #21); None: not given to this build
    #: The JVM builds' difference measured apart (`paper.jvm_campaign`); None: not given to this build.
    jvm: JvmReading | None = None
    #: Every campaign the build read (the main one, the studies', isolation, per-node, sandbox).
    campaigns: tuple[Campaign, ...] = ()
    #: The findings the delta judged (params/published.yaml): the verdict rule's margins.
    published: Published | None = None
    #: Campaigns whose data the paper shows but that are not read as a `Campaign` (the monitored run's).
    other_campaigns: tuple[str, ...] = ()


def _cell_text(benchmark: str, cell: str | None) -> str:
    if not cell:
        return "all runs"
    parts = [p.strip() for p in cell.split(",")]
    if benchmark == "pi_digits" and parts[0].isdigit():
        parts[0] = f"{digits_display(parts[0])} digits"
    else:
        parts[0] = size_display(parts[0])
    return tex_escape(", ".join(parts))


def _date(ts: float) -> str:
    return dt.datetime.fromtimestamp(float(ts), tz=dt.timezone.utc).strftime("%Y-%m-%d")


def _distinct(samples: pd.DataFrame, col: str) -> list[str]:
    if samples.empty or col not in samples.columns:
        return []
    return sorted(
        {
            str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)
            for v in samples[col].dropna()
            if str(v) not in ("", "nan")
        },
        key=natural_key,
    )


def headline_macros(stats: R.StatisticsLookup, baseline: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for bench, metric, stem, prefer in HEADLINES:
        ex = R.pick_experiment(stats, bench, [metric], prefer)
        sizes = R.sizes_for(stats, ex, bench, metric) if ex else []
        cell = sizes[-1] if sizes else None
        out[macro_name(stem, "Cell")] = _cell_text(bench, cell) if ex else NOT_MEASURED_TEXT
        for p in PLATFORMS:
            row = R.mean_row(stats, ex, p, bench, metric, cell) if ex else None
            out[macro_name(stem, p)] = (
                NOT_MEASURED_TEXT
                if row is None
                else qty_pm(row["estimate"], row["ci_low"], row["ci_high"], str(row["unit"]), single=" (one run)")
            )
            # For text that must not read "... read at not measured".
            out[macro_name("Has", stem, p)] = "0" if row is None else "1"
            if p == baseline:
                continue
            ov = R.ratio_row(stats, ex, p, bench, metric, cell, "overhead_pct") if ex else None
            ra = R.ratio_row(stats, ex, p, bench, metric, cell) if ex else None
            out[macro_name(stem, "Overhead", p)] = (
                NOT_MEASURED_TEXT
                if ov is None or pd.isna(ov["estimate"])
                else interval_text(ov["estimate"], ov["ci_low"], ov["ci_high"]) + r"\,\%"
            )
            out[macro_name(stem, "Ratio", p)] = (
                NOT_MEASURED_TEXT
                if ra is None or pd.isna(ra["estimate"])
                else interval_text(ra["estimate"], ra["ci_low"], ra["ci_high"])
            )
            # Which interval the ratio and overhead macros carry (paired by block, or Fieller).
            out[macro_name(stem, "Method", p)] = (
                NOT_MEASURED_TEXT if ra is None or pd.isna(ra["estimate"]) else R.method_text(str(ra["method"]))
            )
            # What Holm's correction over the ratio's campaign makes of it, for a result the text
            # calls surprising: an interval clear of 1 among hundreds of comparisons may be chance.
            out[macro_name(stem, "Holm", p)] = D.holm_clause(ra) or NOT_MEASURED_TEXT
    return out


def _overheads(
    stats: R.StatisticsLookup, baseline: str, bench: str, metric: str, experiment: str | None = None
) -> tuple[list[str], list[str], str | None]:
    """Each measured platform's overhead on one benchmark's metric, as text (platforms by their reader
    names, then the A/A copies' intervals apart), and the cell they were compared at; the experiment
    is `experiment`, else the statistics table's preferred one for the benchmark ("platforms", else
    the one with most platforms). The method is the statistics section's and the tables' to name,
    not every sentence's (issue #54)."""
    ex = experiment or R.pick_experiment(stats, bench, [metric], ("platforms",))
    if not ex:
        return [], [], None
    sizes = R.sizes_for(stats, ex, bench, metric)
    cell = sizes[-1] if sizes else None
    parts, aa = [], []
    for p in R.platforms_in(stats, baseline, experiment=ex, benchmark=bench, metric=metric, size=cell):
        if p == baseline:
            continue
        ov = R.ratio_row(stats, ex, p, bench, metric, cell, "overhead_pct")
        if ov is not None and pd.notna(ov["estimate"]):
            # The A/A copy is the campaign's false-positive check, not a platform: said apart.
            said = rf"{interval_text(ov['estimate'], ov['ci_low'], ov['ci_high'])}\,\%"
            (aa if is_aa(p) else parts).append(said if is_aa(p) else f"{said} on {A.reader_name(p)}")
    return parts, aa, cell or ""


def overhead_sentence(
    stats: R.StatisticsLookup,
    baseline: str,
    stem: str = "TeraSort",
    bench: str = "terasort",
    metric: str = "terasort_time",
) -> str:
    """One generated sentence on the overheads of one benchmark, whatever platforms were measured."""
    parts, aa, cell = _overheads(stats, baseline, bench, metric)
    if cell is None:
        return f"{stem} was not measured in this campaign."
    name = A.reader_name(baseline)
    check = (
        f" The A/A check, {name} measured again as a configuration of their own, gave "
        + " and ".join(aa)
        + " (0 expected)."
        if aa
        else ""
    )
    if not parts:
        only = rf"Only the baseline, {name}, ran {stem} ({_cell_text(bench, cell)}) in this campaign"
        return only + (f".{check}" if aa else ", so no overhead can be estimated from it.")
    return (
        rf"Relative to {name}, the {stem} time ({_cell_text(bench, cell)}) changed by {and_list(parts)} "
        r"(positive is slower)." + check
    )


def findings_sentence(delta: list[DeltaRow]) -> str:
    """Which published claims held here and which did not, by finding; empty when none was decided.
    Only findings tested on what they need: a stand-in's verdict (an emulated VM for KVM, a
    container for OpenVZ) is the delta table's, marked there, and no claim about the study."""
    said = []
    for verdict, text in ((REPRODUCED, "Held here"), (CONTRADICTED, "Did not hold")):
        rows = [r for r in delta if r.verdict == verdict and r.tested]
        if rows:
            said.append(
                f"{text}: "
                + "; ".join(rf"{tex_escape(r.finding.id)} ({tex_escape(r.finding.claim)})" for r in rows)
                + "."
            )
    return " ".join(said)


def runs_per_cell(samples: pd.DataFrame) -> list[int]:
    """Distinct runs (run_id) of every cell: experiment, platform, benchmark and size."""
    if samples.empty:
        return []
    top = samples[~samples["metric"].astype(str).str.contains(".", regex=False)]
    out = []
    for _, grp in top.groupby(["experiment", "platform", "benchmark", "size"], sort=True):
        ids = grp["run_id"].astype(str)
        out.append(int(ids[ids != ""].nunique()) or int(grp["repetition"].nunique()))
    return out


def counted(values: list[int], noun: str) -> str:
    """ "3 workers", "1 worker", "2 or 3 workers", "3 to 16 runs": a count in words that agree with
    it, where "worker(s)" left the reader to do it. Pure."""
    vs = sorted(set(values))
    if not vs:
        return f"no {noun}s"
    plural = f"{noun}s" if vs[-1] != 1 else noun
    if len(vs) == 1:
        return f"{vs[0]} {plural}"
    if len(vs) == 2:
        return f"{vs[0]} or {vs[1]} {plural}"
    return f"{vs[0]} to {vs[-1]} {plural}"


def runs_range(ns: list[int]) -> str:
    if not ns:
        return "0"
    return str(min(ns)) if min(ns) == max(ns) else f"{min(ns)} to {max(ns)}"


def runs_sentence(ns: list[int]) -> str:
    """How often each configuration ran, in words that stay true for any campaign."""
    if not ns:
        return "No configuration was measured in this campaign."
    if max(ns) == 1:
        return (
            r"Each configuration ran once in this campaign; a result without repeated samples carries no "
            r"confidence interval (marked $^\dagger$ in the tables)."
        )
    if min(ns) == max(ns):
        return f"Each configuration ran {max(ns)} times."
    return f"Each configuration ran {min(ns)} to {max(ns)} times."


def machine_sentence(campaign: Campaign) -> str:
    cpus = recorded(campaign, "vcpus")
    models = recorded(campaign, "cpu_model")
    if not cpus and not models:
        return "one machine (its CPU count and model were not recorded with this campaign)"
    bits = []
    if cpus:
        bits.append(f"{'/'.join(cpus)} vCPUs per host")
    if models:
        bits.append(tex_escape("; ".join(models)))
    return "one machine (" + ", ".join(bits) + ")" if bits else "one machine"


def campaign_names(ctx: MacroContext) -> list[str]:
    """Every campaign whose data the paper shows, once each, in natural order. Pure."""
    names = {c.name for c in (ctx.campaigns or (ctx.campaign,))} | set(ctx.other_campaigns)
    return sorted(names, key=natural_key)


def data_note(campaigns: list[Campaign], n_campaigns: int, synthetic: bool) -> str:
    """The title block's line on the data: how many campaigns, measured when (UTC). The paper reads
    many campaigns; naming the analysed one alone ("Campaign reference") said it read one. Pure."""
    if synthetic:
        return r"\textbf{Synthetic data generated for testing vbench, not a measurement.}"
    stamps = [c.samples["timestamp"] for c in campaigns if not c.samples.empty and "timestamp" in c.samples.columns]
    when = ""
    if stamps:
        ts = pd.concat(stamps)
        when = f", {_date(ts.min())} to {_date(ts.max())} (UTC)"
    word = "campaign" if n_campaigns == 1 else "campaigns"
    return f"Measured data from {n_campaigns} {word}{when}."


def artifacts_sentence(has_table: dict[str, bool], has_figure: dict[str, bool]) -> str:
    """What a rebuild regenerates, counted from the tables and figures it wrote (the reproduction
    delta among the tables), and how many lack data in this build. Pure."""
    n_t, n_f = len(has_table), len(has_figure)
    text = f"its {n_t} {'table' if n_t == 1 else 'tables'}, {n_f} {'figure' if n_f == 1 else 'figures'}"
    empty = (n_t - sum(has_table.values())) + (n_f - sum(has_figure.values()))
    if empty:
        text += f" ({empty} of them without data in this build)"
    return text


def quoted_sentence(quotes: list[A.Quote], main: str) -> str:
    """Which campaigns the abstract's container answers come from (marked in the appendix's table of
    campaigns, so that the prose names no campaign), and why those. Pure."""
    if not quotes:
        return ""
    n = len(A.quoted_campaigns(quotes, main))
    who = and_list([A.reader_name(q.platform) for q in quotes])
    return (
        rf"The abstract quotes {A.QUOTED[2]} for {who} from the {noun(n, 'campaign')} marked $\dagger$ in "
        rf"Table~\ref{{{CAMPAIGNS_LABEL}}}: of the campaigns that compared each platform with the baseline on "
        r"it, the one with the most paired runs, a rule that does not look at the ratio."
    )


def macros_tex(ctx: MacroContext) -> str:
    c = ctx.campaign
    s = c.samples
    m: dict[str, str] = {}
    m["vbCampaign"] = tex_escape(c.name)
    m["vbNumSamples"] = str(len(s))
    m["vbNumRuns"] = str(len(_distinct(s, "run_id")))
    m["vbNumFailures"] = str(len(c.failures))
    # Platforms only: a comparison of factor levels (network modes) names its levels separately.
    measured = sorted(measured_platforms(s), key=natural_key)
    plats = [p for p in ([ctx.baseline] if ctx.baseline in measured else []) + measured if p and not is_aa(p)]
    plats = list(dict.fromkeys(plats))
    copies = [p for p in measured if is_aa(p)]
    m["vbAASentence"] = (
        " with an A/A self-check (" + ", ".join(configuration_tex(p) for p in copies) + ": the baseline measured again)"
        if copies
        else ""
    )
    m["vbNumPlatforms"] = str(len(plats))
    m["vbPlatformList"] = ", ".join(configuration_tex(p) for p in plats) or NOT_MEASURED_TEXT
    levels = compared_levels(s)
    # Factors and levels as a reader knows them ("network: bridge, bridge + NAT, NAT"), in the
    # order of their recorded names.
    named = [
        (tex_escape(factor_name(k)), ", ".join(tex_escape(level_name(k, v)) for v in sorted(vs, key=natural_key)))
        for k, vs in sorted(levels.items())
    ]
    m["vbFactorLevels"] = "; ".join(f"{k}: {v}" for k, v in named) or "none"
    m["vbFactorLevelsSentence"] = "".join(f" and the levels of {k} ({v})" for k, v in named)
    missing = [p for p in PLATFORMS if p not in plats]
    # The sandbox study keeps its own campaign: a platform only it measured is not "unmeasured".
    sandboxed = set(measured_platforms(ctx.sandbox.samples)) if ctx.sandbox is not None else set()
    elsewhere = (
        f" (measured in the sandbox study's own campaign, {tex_escape(ctx.sandbox.name)})" if ctx.sandbox else ""
    )
    m["vbPlatformsMissing"] = (
        ", ".join(configuration_tex(p) + (elsewhere if p in sandboxed else "") for p in missing) or "none"
    )
    benches = _distinct(s, "benchmark")
    m["vbNumBenchmarks"] = str(len(benches))
    m["vbBenchmarkList"] = ", ".join(tex_escape(b) for b in benches) or NOT_MEASURED_TEXT
    m["vbNumExperiments"] = str(len(_distinct(s, "experiment")))
    m["vbCampaignStart"] = _date(s["timestamp"].min()) if not s.empty else NOT_MEASURED_TEXT
    m["vbCampaignEnd"] = _date(s["timestamp"].max()) if not s.empty else NOT_MEASURED_TEXT
    ns = runs_per_cell(s)
    m["vbRunsMin"] = str(min(ns)) if ns else "0"
    m["vbRunsMax"] = str(max(ns)) if ns else "0"
    m["vbRunsRange"] = runs_range(ns)
    m["vbRunsSentence"] = runs_sentence(ns)
    m["vbRunsPerCellText"] = counted(ns, "run")
    m["vbBaseline"] = tex_escape(ctx.baseline)
    m["vbConfPct"] = plain_number(ctx.conf * 100)
    m["vbResamples"] = str(int(ctx.n_resamples))
    m["vbSeed"] = str(int(ctx.seed))
    m["vbEquivalencePct"] = plain_number(ctx.equivalence_pct)
    for name, col in (
        ("vbHadoopVersion", "hadoop_version"),
        ("vbKernel", "kernel"),
        ("vbWorkers", "workers"),
        ("vbConfigHash", "hadoop_config_hash"),
        ("vbCommit", "vbench_commit"),
    ):
        vals = _distinct(s, col)
        if vals and name in ("vbConfigHash", "vbCommit"):
            # In typewriter type one by one, 7 characters as git abbreviates them: a line of them
            # can then break and stretch at the commas between them.
            m[name] = ", ".join(r"\texttt{" + tex_escape(v) + "}" for v in dict.fromkeys(v[:7] for v in vals))
            continue
        m[name] = tex_escape(", ".join(vals)) if vals else r"\emph{not recorded}"
    workers = [int(float(w)) for w in _distinct(s, "workers") if w.replace(".", "", 1).isdigit()]
    m["vbWorkersText"] = counted(workers, "worker") if workers else r"workers (their number \emph{not recorded})"
    javas = _distinct(s, "java_version")
    m["vbJavaVersion"] = (
        tex_escape(", ".join(sorted({java_short(j) for j in javas}))) if javas else r"\emph{not recorded}"
    )
    m["vbMachine"] = machine_sentence(c)
    # What the machine under every host is (the threats to validity): its vCPUs, as the analysed
    # campaign's hosts saw them, and the hypervisor beneath its kernel, as any campaign recorded it.
    vcpus = [int(v) for v in recorded(c, "vcpus") if v.isdigit()]
    m["vbMachineVcpus"] = counted(vcpus, "vCPU") if vcpus else r"vCPUs \emph{not recorded}"
    m["vbHypervisor"] = D.hypervisor_text([v for x in (ctx.campaigns or (c,)) for v in recorded(x, "virt_vm")])
    m["vbHasHypervisor"] = "1" if m["vbHypervisor"] else "0"
    m["vbMachinesSentence"] = machines_sentence(list(ctx.campaigns or (c,)))
    m["vbJvmSentence"] = jvm_sentence(list(ctx.campaigns or (c,)), ctx.jvm)
    synthetic = "synthetic" in s.columns and s["synthetic"].fillna(False).astype(bool).any()
    m["vbSynthetic"] = "1" if synthetic else "0"
    names = campaign_names(ctx)
    m["vbNumCampaigns"] = str(len(names))
    m["vbDataNote"] = data_note(list(ctx.campaigns or (c,)), len(names), bool(synthetic))
    m.update(headline_macros(ctx.stats, ctx.baseline))
    m["vbTeraSortSentence"] = overhead_sentence(ctx.stats, ctx.baseline)
    m["vbWordCountSentence"] = overhead_sentence(ctx.stats, ctx.baseline, "WordCount", "wordcount", "job_wall_time")
    m["vbFindingsSentence"] = findings_sentence(ctx.delta)
    m.update(sandbox_macros(ctx.sandbox, ctx.baseline))
    # The abstract: one answer per platform (vbench.paper.abstract), in a reader's names.
    quotes = ctx.quotes
    m["vbContainerSentence"] = A.container_sentence(quotes, ctx.baseline)
    m["vbQuotedSentence"] = quoted_sentence(quotes, ctx.campaigns[0].name if ctx.campaigns else c.name)
    m["vbPrecisionSentence"] = A.precision_sentence(quotes, ctx.conf)
    gvisor = sandbox_ratio(sandbox_rows(ctx.sandbox.stats, ctx.baseline), "Terasort") if ctx.sandbox else None
    m["vbTakeawaySentence"] = A.takeaway_sentence(quotes, gvisor)
    # The discussion: what the campaigns' comparisons say together (vbench.paper.discussion).
    tally = D.container_tally(ctx.stats, ctx.baseline, ctx.equivalence_pct)
    m["vbContainerTallySentence"] = D.tally_sentence(tally, ctx.baseline, plain_number(ctx.equivalence_pct))
    m["vbAACheckSentence"] = D.aa_sentence(ctx.stats, ctx.baseline, ctx.conf)
    m["vbSpreadSentence"] = " ".join(
        s for p in A.CONTAINERS if p != ctx.baseline and (s := D.spread_sentence(ctx.stats, p, ctx.baseline))
    )
    k = counts(ctx.delta)
    m["vbDeltaTotal"] = str(len(ctx.delta))
    for v in VERDICTS:
        m[macro_name("Delta", v)] = str(k[v])
    m["vbDeltaStandIns"] = str(k[STAND_INS])
    # The abstract's verbs agree with its counts ("1 was reproduced", never "1 were").
    m["vbDeltaReproducedWas"] = was(k[REPRODUCED])
    m["vbDeltaStandInsWas"] = was(k[STAND_INS])
    alone = counts(ctx.delta, alone=True)
    m["vbDeltaAloneReproducedWas"] = was(alone[REPRODUCED])
    for v in (REPRODUCED, CONTRADICTED):
        m[macro_name("Delta", "alone", v)] = str(alone[v])
    m["vbDeltaTested"] = str(len(ctx.delta) - k["not measured"] - k[STAND_INS])
    m["vbNumStudies"] = str(ctx.n_findings_studies)
    m["vbDeltaHolmFamily"] = str(holm_family_size(ctx.delta))
    m["vbVerdictRule"] = (
        rule_tex(ctx.published, ctx.delta, ctx.conf, ctx.equivalence_pct) if ctx.published is not None else ""
    )
    for name, flag in ctx.has_table.items():
        m[macro_name("Has", "Table", name)] = "1" if flag else "0"
    for name, flag in ctx.has_figure.items():
        m[macro_name("Has", "Figure", name)] = "1" if flag else "0"
    m["vbNumTablesWithData"] = str(sum(ctx.has_table.values()))
    m["vbNumTables"] = str(len(ctx.has_table))
    m["vbNumFiguresWithData"] = str(sum(ctx.has_figure.values()))
    m["vbNumFigures"] = str(len(ctx.has_figure))
    m["vbArtifactsSentence"] = artifacts_sentence(ctx.has_table, ctx.has_figure)
    lines = ["% Generated by vbench.paper.macros from the campaign's data. Do not edit."]
    lines += [rf"\newcommand{{\{name}}}{{{value}}}" for name, value in sorted(m.items())]
    return "\n".join(lines) + "\n"
