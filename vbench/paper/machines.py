"""Which machine each campaign the paper reads ran on (the threats section's sentence and the
appendix's `tab:campaigns`). The machine behind a working session is not always the same one, and
the same design's precision differed between two of them (docs/results.md), so a reader can tell
which figures share a machine: each campaign's CPU model as its hosts reported it, and the quiet
gate's median CPU probe, since the same model of CPU is not always as fast (`speculation-confirm`
ran at 1.34 times the usual probe, with three times the spread). The sentence counts; the table
names the campaigns, so the prose carries no list of campaign ids (issue #54). Pure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from vbench.campaign.machine_ref import samples_probe_ms
from vbench.stats.campaign import Campaign, jvm_builds, jvm_builds_differ, jvm_compared
from vbench.stats.machines import recorded
from vbench.stats.keys import natural_key
from vbench.wording import count

from vbench.paper.fmt import and_list, tex_escape
from vbench.paper.jvm_builds import JvmReading

NAME, LABEL = "campaigns", "tab:campaigns"
#: Why a campaign has no CPU model: it is older than the stamp.
UNRECORDED = "not recorded"


def cpu_model(campaign: Campaign) -> str:
    """The campaign's CPU model ("" where none was recorded); a campaign whose hosts were two
    machines names both, joined, under neither alone."""
    return "; ".join(recorded(campaign, "cpu_model"))


def _distinct(campaigns: list[Campaign]) -> list[Campaign]:
    seen: dict[str, Campaign] = {}
    for c in campaigns:
        seen.setdefault(c.name, c)
    return [seen[n] for n in sorted(seen, key=natural_key)]


def machines_sentence(campaigns: list[Campaign]) -> str:
    """The threats section's count of machines: how many campaigns each CPU model ran, how many
    recorded none, and the range of the campaigns' median CPU probes, pointing to the table."""
    campaigns = _distinct(campaigns)
    if not campaigns:
        return ""
    by_model = Counter(cpu_model(c) for c in campaigns)
    models = [(model, n) for model, n in sorted(by_model.items()) if model]
    sentence = f"Of the {count(len(campaigns), 'campaign')} with samples"
    if models:
        sentence += ", the hosts of " + and_list([f"{n} reported {tex_escape(model)}" for model, n in models])
    if by_model.get(""):
        sentence += (
            f"{'; ' if models else ', '}{by_model['']} recorded no CPU model (measured before vbench stamped it"
            " on every sample)"
        )
    probes = [ms for c in campaigns if (ms := samples_probe_ms(c.samples)) is not None]
    if probes:
        missing = len(campaigns) - len(probes)
        sentence += (
            "; the quiet gate's CPU probe (the same arithmetic, timed on the quiet machine before each round or"
            " session: a slower time is a slower machine) had a median from "
            rf"\qty{{{min(probes):.1f}}}{{\milli\second}} to \qty{{{max(probes):.1f}}}{{\milli\second}} by campaign"
            + (f" (not taken in {count(missing, 'campaign')})" if missing else "")
        )
    return sentence + rf". Table~\ref{{{LABEL}}} in the appendix gives each campaign's CPU model and probe."


def jvm_sentence(campaigns: list[Campaign], measured: JvmReading | None = None) -> str:
    """The threats section's JVM builds: how many of the campaigns compared configurations whose hosts
    ran different builds (`vbench.stats.campaign.jvm_builds_differ`, as `jvm_note` reads it; not those
    that varied the build on purpose, `jvm_compared`), and which builds; "" where none did. With
    `measured` (`paper.jvm_campaign`'s reading), what the builds' difference was where it was
    measured apart; without it, that it was not."""
    campaigns = _distinct(campaigns)
    read = [jvm_builds(c.samples) for c in campaigns if not jvm_compared(c.samples)]  # each read once
    differing = [builds for builds in read if jvm_builds_differ(builds)]
    if not differing:
        return ""
    named = sorted({b for builds in differing for bs in builds.values() for b in bs}, key=natural_key)
    return (
        f"In {len(differing)} of the {count(len(campaigns), 'campaign')} the compared hosts ran different JVM "
        f"builds ({and_list([tex_escape(b) for b in named])}): a native host runs the machine's JDK, a container "
        "or a sandbox the one in vbench's guest image, so each of those ratios holds the difference between "
        f"the builds as well as the platform's; {measured_clause(measured)}."
    )


def measured_clause(measured: JvmReading | None) -> str:
    """ "it was not measured apart", or the ratios image / host the campaign that varied the build
    alone measured, each with its interval, and how many of the intervals hold 1."""
    if measured is None or not measured.ratios:
        return "it was not measured apart"
    builds = (
        f": the image's {tex_escape(measured.image_build)} against the machine's {tex_escape(measured.host_build)}"
        if measured.image_build and measured.host_build
        else ""
    )
    said = and_list([f"{r.text} for {tex_escape(r.label)}" for r in measured.ratios])
    n = len(measured.ratios)
    apart = [tex_escape(r.label) + "'s" for r in measured.ratios if not r.holds_one]
    exceptions = f" (not {and_list(apart)})" if apart and len(apart) < n else ""
    return (
        rf"measured apart on native hosts (\texttt{{{tex_escape(measured.name)}}}, "
        f"{count(measured.blocks, 'block')}{builds}), the ratio of the two was {said}, and "
        f"{measured.holding_one} of the {n} intervals hold 1{exceptions}"
    )


def campaigns_table_tex(
    campaigns: list[Campaign], others: tuple[str, ...] = (), quoted: Mapping[str, list[str]] | None = None
) -> str:
    """`tab:campaigns`: each campaign the paper reads samples of, its hosts' CPU model and its median
    CPU probe; `others`, campaigns read otherwise (the monitored run's time series), in its note;
    `quoted`, the campaigns the abstract quotes (-> for which platforms), marked with a dagger."""
    quoted = quoted or {}
    rows = []
    for c in _distinct(campaigns):
        ms = samples_probe_ms(c.samples)
        probe = rf"\num{{{ms:.1f}}}" if ms is not None else r"\textemdash"
        model = tex_escape(cpu_model(c)) or rf"\emph{{{UNRECORDED}}}"
        mark = r"$^\dagger$" if c.name in quoted else ""
        rows.append(rf"\texttt{{{tex_escape(c.name)}}}{mark} & {model} & {probe} \\")
    said = "; ".join(rf"{and_list(ps)} from \texttt{{{tex_escape(n)}}}" for n, ps in quoted.items())
    return (
        "\n".join(
            [
                r"\begin{table}[tp]",
                r"\centering\footnotesize",
                r"\caption{The campaigns this paper reads and the machine each ran on: the CPU model its hosts "
                r"reported and the quiet gate's CPU probe, the median over its readings (a fixed arithmetic timed "
                r"before each round or session; a longer time is a slower machine).}",
                rf"\label{{{LABEL}}}",
                r"\begin{tabular}{llr}",
                r"\toprule",
                r"Campaign & CPU model & CPU probe (\unit{\milli\second}) \\",
                r"\midrule",
                *rows,
                r"\bottomrule",
                r"\end{tabular}",
                r"\par\smallskip\parbox{0.95\linewidth}{\footnotesize\raggedright A campaign without a CPU model was"
                r" measured before vbench stamped it on every sample; one without a probe ran without the quiet gate."
                r" Lower probe times are faster machines."
                + "".join(rf" Read as a monitored run, not listed: \texttt{{{tex_escape(n)}}}." for n in others)
                + (rf" $^\dagger$The abstract's TeraSort ratios: {said}." if said else "")
                + "}",
                r"\end{table}",
            ]
        )
        + "\n"
    )
