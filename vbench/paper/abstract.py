"""The abstract's generated sentences (issue #54 item 1): one answer per question, in a reader's names.

Seven experiments of the campaigns the paper reads compare LXC with native hosts on TeraSort (the
default design's and six of the studies' designs); an abstract quoting each gave four LXC answers
without saying which to believe. It quotes one per platform, chosen by a rule that does not look at
the ratio: of the experiments that compared the platform with the baseline on the metric, the one
with the most paired runs behind its interval (the most precise by design, not by outcome), and it
says so. gVisor's answer is the sandbox study's (`vbench.paper.sandbox.abstract_sentence`), the
only campaign with Hadoop on gVisor hosts.

Numbers come from the statistics table, as everywhere in the paper; the method is named once, in
the statistics section, so no sentence here repeats it after each interval. Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from vbench.stats.keys import natural_key
from vbench.stats.paired import PAIRED_METHODS

from vbench.paper import results as R
from vbench.paper.fmt import configuration_tex, interval_text, sig_digits, size_display, tex_escape, times_text

#: Platforms as a reader knows them (vbench's names are lower-case identifiers); gVisor's two network
#: levels where the sandbox study compares both (vbench.paper.sandbox).
READER_NAMES = {
    "native": "native hosts",
    "lxc": "LXC",
    "oci": "OCI",
    "gvisor": "gVisor",
    "qemu": "QEMU",
    "gvisor/sandbox": "gVisor",
    "gvisor/host": "gVisor on the host's network stack",
}
#: Benchmarks as a reader knows them (vbench's names are identifiers).
BENCHMARK_NAMES = {
    "terasort": "TeraSort",
    "wordcount": "WordCount",
    "dfsio": "TestDFSIO",
    "nnbench": "NNBench",
    "mrbench": "MRBench",
    "pi": "Pi",
    "sort": "Sort",
    "pi_digits": "the digits of pi",
    "iperf3": "iperf3",
    "bonnie": "bonnie++",
    "dd": "dd",
    "hdparm": "hdparm",
    "cpu": "sysbench",
    "fio": "fio",
    "latency": "a round-trip latency test",
}
#: The containers the abstract answers for, in the order it names them.
CONTAINERS = ("lxc", "oci")
#: The comparison the abstract quotes for containers: the studies' common Hadoop job.
QUOTED = ("terasort", "terasort_time", "TeraSort")


def reader_name(platform: str) -> str:
    """A platform as the prose names it; another configuration as the tables print it (the A/A copy
    `native~aa` as "native (A/A copy)")."""
    return READER_NAMES.get(platform) or configuration_tex(platform)


def benchmark_name(benchmark: str) -> str:
    return BENCHMARK_NAMES.get(benchmark, tex_escape(benchmark))


@dataclass(frozen=True, eq=False)
class Quote:
    """The comparison the abstract quotes for one platform, and what it was chosen among."""

    platform: str
    experiment: str
    cell: str | None
    row: pd.Series  # the statistics table's preferred ratio row (R.ratio_row)
    pairs: int  # paired runs behind the interval (0: unpaired)
    candidates: int  # campaigns with an experiment that compared the platform with the baseline on the metric

    @property
    def text(self) -> str:
        return interval_text(self.row["estimate"], self.row["ci_low"], self.row["ci_high"])

    @property
    def paired(self) -> bool:
        return str(self.row["method"]) in PAIRED_METHODS

    @property
    def half_width_pct(self) -> float:
        """Half the interval's width, in % of the ratio: the precision a reader can expect."""
        return 50.0 * (float(self.row["ci_high"]) - float(self.row["ci_low"])) / float(self.row["estimate"])

    @property
    def contains_one(self) -> bool:
        return float(self.row["ci_low"]) <= 1.0 <= float(self.row["ci_high"])


def _bounded(row: pd.Series | None) -> bool:
    return row is not None and all(pd.notna(row[k]) for k in ("estimate", "ci_low", "ci_high"))


@dataclass(frozen=True, eq=False)
class Compared:
    """One experiment's comparison of a platform with the baseline on a metric, at its largest cell."""

    experiment: str
    cell: str | None
    row: pd.Series  # the statistics table's preferred ratio row (R.ratio_row)
    pairs: int  # paired runs behind the interval (0: unpaired)

    @property
    def campaign(self) -> str:
        """`<experiment>@<campaign>` where campaigns share an experiment's name; "" for the analysed one."""
        return self.experiment.partition("@")[2]


def compared_in(
    stats: R.StatisticsLookup, platform: str, baseline: str, benchmark: str = QUOTED[0], metric: str = QUOTED[1]
) -> list[Compared]:
    """Every experiment that compared `platform` with `baseline` on `metric` (each at its largest
    cell) with a bounded interval, in the paper's ranking of experiments: what the abstract chooses
    its quote among, and what the discussion says of them together."""
    found = []
    for ex in R.experiments_for(stats, benchmark, [metric], prefer=(), compared=True):
        sizes = R.sizes_for(stats, ex, benchmark, metric)
        cell = sizes[-1] if sizes else None
        row = R.ratio_row(stats, ex, platform, benchmark, metric, cell)
        if not _bounded(row) or str(row.get("baseline", baseline)) != baseline:
            continue
        paired = str(row["method"]) in PAIRED_METHODS
        pairs = int(row["n_pairs"]) if paired and "n_pairs" in row and pd.notna(row["n_pairs"]) else 0
        found.append(Compared(ex, cell, row, pairs))
    return found


def quoted_comparison(
    stats: R.StatisticsLookup, platform: str, baseline: str, benchmark: str = QUOTED[0], metric: str = QUOTED[1]
) -> Quote | None:
    """The comparison of `platform` with `baseline` the abstract quotes: of those `compared_in`
    finds, the one with the most paired runs, then by name; None when there is none."""
    found = compared_in(stats, platform, baseline, benchmark, metric)
    if not found:
        return None
    best = min(found, key=lambda c: (-c.pairs, natural_key(c.experiment)))
    return Quote(platform, best.experiment, best.cell, best.row, best.pairs, len({c.campaign for c in found}))


def campaign_of(experiment: str, main: str) -> str:
    """The campaign an experiment of the merged statistics belongs to: `<experiment>@<campaign>` names
    it; one without is the analysed campaign's, `main` (vbench.stats.campaign.distinct_experiments)."""
    return experiment.partition("@")[2] or main


def quoted_campaigns(quotes: list[Quote], main: str) -> dict[str, list[str]]:
    """Each campaign the abstract quotes from -> the platforms it is quoted for (their names), in
    the quotes' order: what Table tab:campaigns marks."""
    out: dict[str, list[str]] = {}
    for q in quotes:
        out.setdefault(campaign_of(q.experiment, main), []).append(reader_name(q.platform))
    return out


def container_quotes(stats: R.StatisticsLookup, baseline: str) -> list[Quote]:
    """The abstract's quote for each container platform measured (CONTAINERS' order)."""
    return [q for p in CONTAINERS if p != baseline and (q := quoted_comparison(stats, p, baseline)) is not None]


def _cell(q: Quote) -> str:
    return tex_escape(size_display(q.cell)) if q.cell else ""


def _runs(q: Quote) -> str:
    """ "(16 paired runs, the most of 7 campaigns)": what a quote stands on, and why it is this one."""
    if not q.pairs:
        return ""
    most = f", the most of {q.candidates} campaigns" if q.candidates > 1 else ""
    return f" ({q.pairs} paired runs{most})"


def container_sentence(quotes: list[Quote], baseline: str) -> str:
    """ "TeraSort (128 MB) took 1.01 [0.97, 1.05] times as long on LXC as on native hosts (16 paired
    runs, the most of 7 campaigns), and 0.99 [...] times on OCI (7 paired runs)." Empty without a quote."""
    if not quotes:
        return ""
    first, rest = quotes[0], quotes[1:]
    cell = _cell(first)
    text = (
        f"{QUOTED[2]}{f' ({cell})' if cell else ''} took {first.text} times as long on "
        f"{reader_name(first.platform)} as on {reader_name(baseline)}{_runs(first)}"
    )
    for q in rest:
        other_cell = f" at {_cell(q)}" if q.cell != first.cell and q.cell else ""
        text += f", and {q.text} times on {reader_name(q.platform)}{other_cell}{_runs(q)}"
    return text + "."


def _pct(x: float) -> str:
    """A percentage as the abstract gives it: one decimal below 10, else whole."""
    return f"{x:.1f}" if abs(x) < 10 else f"{x:.0f}"


#: From this ratio on, a cost reads as a multiple ("about three times as long"), not as "213 %".
MULTIPLE = 2.0


def _multiple(ratio: float) -> str:
    return times_text(ratio) if ratio >= MULTIPLE else f"{sig_digits(ratio, 2)} times"


def precision_sentence(quotes: list[Quote], conf: float) -> str:
    """How precise the quoted answers are: the interval's design and its half-width per platform."""
    if not quotes:
        return ""
    how = (
        "over blocks that ran each platform in shuffled order"
        if all(q.paired for q in quotes)
        else "from repeated runs"
    )
    widths = " and ".join(rf"$\pm${_pct(q.half_width_pct)}\,\% ({reader_name(q.platform)})" for q in quotes)
    return rf"Every ratio carries a {_pct(conf * 100)}\,\% interval {how}; {QUOTED[2]}'s are {widths}."


def takeaway_sentence(quotes: list[Quote], sandbox: pd.Series | None) -> str:
    """The one sentence a reader takes away, from the same numbers: what containers cost Hadoop (at
    most the largest upper bound, where every interval holds 1) and what the sandboxed kernel costs
    its TeraSort job (`sandbox`: gVisor's ratio row of the sandbox study, or None). A ratio of
    `MULTIPLE` or more is said as a multiple: "about 213 %" left the reader to work out "three times"."""
    parts = []
    if quotes:
        if all(q.contains_one for q in quotes):
            upper = max(float(q.row["ci_high"]) for q in quotes)
            parts.append(rf"containers cost Hadoop at most {_pct(100 * (upper - 1))}\,\%")
        else:
            ests = sorted(float(q.row["estimate"]) for q in quotes)
            if ests[-1] >= MULTIPLE:
                said = " to ".join(dict.fromkeys(_multiple(e) for e in (ests[0], ests[-1])))
                parts.append(f"containers make {QUOTED[2]} take {said} as long")
            else:
                pcts = [_pct(100 * (e - 1)) for e in (ests[0], ests[-1])]
                said = pcts[0] if len(ests) == 1 else f"{pcts[0]} to {pcts[1]}"
                parts.append(rf"containers cost Hadoop {said}\,\%")
    if _bounded(sandbox):
        est, low, high = (float(sandbox[k]) for k in ("estimate", "ci_low", "ci_high"))
        verb = "" if parts else " costs Hadoop"  # "containers cost Hadoop X, and a sandboxed kernel Y"
        if low > 1.0 and est >= MULTIPLE:
            parts.append(f"a sandboxed kernel makes {QUOTED[2]} take {times_text(est)} as long")
        elif low > 1.0:
            parts.append(rf"a sandboxed kernel{verb} about {_pct(100 * (est - 1))}\,\% on TeraSort")
        elif high < 1.0:
            parts.append(rf"a sandboxed kernel{verb} nothing on TeraSort, which ran {_pct(100 * (1 - est))}\,\% faster")
        else:
            parts.append(rf"a sandboxed kernel{verb} an amount on TeraSort these blocks cannot resolve")
    if not parts:
        return ""
    return "On a current kernel, " + ", and ".join(parts) + "."
