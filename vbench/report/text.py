"""A campaign summary as text: terminal lines (with a style each, for rich) and Markdown. Pure."""

from __future__ import annotations

from vbench.report.summary import (
    DIFFERS,
    EQUIVALENT,
    NO_INTERVAL,
    AACheck,
    CampaignSummary,
    Mean,
    Ratio,
    aa_text,
    display,
    duet_text,
    duration_text,
    noise_text,
    sentence,
    split_aa,
    verdict,
)
from vbench.stats.dvc_views import benchmark_key

#: A line and its rich style ("" for none).
Line = tuple[str, str]

_STYLE = {EQUIVALENT: "green", DIFFERS: "bold yellow", NO_INTERVAL: "red"}

FOREST_PNG = "forest.png"
FOREST_SVG = "forest.svg"


def ratio_text(ratio: float | None, low: float | None, high: float | None) -> str:
    """`0.969 [0.914, 1.027]`; `1.02 (no interval)`."""
    if ratio is None:
        return "no ratio"
    if low is None or high is None:
        return f"{ratio:.3f} (no interval)"
    return f"{ratio:.3f} [{low:.3f}, {high:.3f}]"


def _method(r: Ratio) -> str:
    return f"{r.method}, {r.counts()}"


def _aa_line(a: AACheck) -> str:
    return f"{a.label}  {ratio_text(a.ratio, a.low, a.high)}  {a.method}, n {a.n}: {aa_text(a)}"


def _mean_text(m: Mean) -> str:
    value = "no mean" if m.mean is None else f"{m.mean:.4g} {m.unit}"
    interval = f" [{m.low:.4g}, {m.high:.4g}]" if m.low is not None and m.high is not None else ""
    return (
        f"{display(m.level)} {benchmark_key(m.benchmark, m.cell)} {m.metric}: {value}{interval} ({m.method}, n {m.n})"
    )


def heading(s: CampaignSummary) -> str:
    what = " and ".join(s.compare) if s.compare != ("platform",) else "platforms"
    when = f", measured {s.measured}" if s.measured else ""
    return f"campaign {s.campaign} ({s.path}): {what} against {display(s.baseline, s.compare)}{when}"


def _settings(s: CampaignSummary) -> str:
    st = s.settings
    return (
        f"{s.runs} runs, {s.failures} failed; statistics: {st.source} (95 % intervals, "
        f"+/-{st.equivalence_pct:g} % equivalence, {st.n_resamples} resamples, seed {st.seed})"
    )


def _comparisons_title(s: CampaignSummary) -> str:
    which = "Headline comparisons" if s.headline_only else "Comparisons (no headline metric measured: every metric)"
    return f"{which}: ratio to {display(s.baseline, s.compare)} [95 % interval], method, n"


def quiet_text(s: CampaignSummary) -> str:
    q = s.quiet
    if q is None:
        gate = "no run carries the quiet gate's verdict (a campaign from before the gate)"
    else:
        gate = f"{q.flagged} of {q.runs} runs measured while it flagged the machine"
        if q.waited:
            gate += f", {q.waited} after waiting for it to be quiet"
        if q.unchecked:
            gate += f", {q.unchecked} not checked"
    probe = s.probe.text if s.probe is not None else "no CPU probe recorded in this campaign"
    return f"{gate}; CPU probe: {probe}"


def times_text(s: CampaignSummary) -> str:
    if not s.times:
        return "not recorded"
    return ", ".join(f"{t.stage} {duration_text(t.seconds)} ({t.source})" for t in s.times)


def terminal_lines(s: CampaignSummary) -> list[Line]:
    """The summary as printed at the end of a run: a line per comparison with its sentence."""
    out: list[Line] = [(f"vbench summary: {heading(s)}", "bold"), (f"  {_settings(s)}", "")]
    shown = split_aa(s.ratios)
    if shown:
        out.append((_comparisons_title(s), "bold"))
        for r in shown:
            out.append((f"  {r.label}  {ratio_text(r.ratio, r.low, r.high)}  {_method(r)}", ""))
            out.append((f"    {sentence(r)}", _STYLE.get(verdict(r).kind, "")))
    elif s.means:
        out.append(("Nothing compared (one level): each metric's mean [95 % interval], method, n", "bold"))
        out += [(f"  {_mean_text(m)}", "") for m in s.means]
    else:
        out.append(("Nothing compared: the campaign has no samples of a metric the statistics compare", "bold"))
    out.append((f"A/A: {display(s.baseline, s.compare)} against its own copy", "bold"))
    for a in s.aa:
        out.append((f"  {_aa_line(a)}", "red" if a.passes is False else ""))
    out.append((f"  {noise_text(s.aa, s.measured)}", "red" if any(a.passes is False for a in s.aa) else ""))
    out.append((f"Quiet gate: {quiet_text(s)}", ""))
    if s.duet is not None:
        out.append((f"Duet: {duet_text(s.duet)}", ""))
    out.append((f"Time: {times_text(s)}", ""))
    out += [(f"  note: {n}", "") for n in s.notes]
    out.append(("Where to look next:", "bold"))
    out += [(f"  {what}: {where}", "") for what, where in s.next_steps]
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(s: CampaignSummary, figure: bool = True) -> str:
    """The summary as Markdown, the forest plot (`forest.png`, beside it) at the top unless
    `figure` is False (a notebook shows the image itself)."""
    lines = [f"# Summary: campaign `{s.campaign}`", "", f"{heading(s)}; {_settings(s)}.", ""]
    if figure:
        lines += [f"![ratio to {s.baseline}, 95 % intervals]({FOREST_PNG})", ""]
    shown = split_aa(s.ratios)
    if shown:
        lines += [f"## {_comparisons_title(s)}", ""]
        lines += ["| comparison | ratio [95 % CI] | method | n | verdict |", "|---|---|---|---|---|"]
        for r in shown:
            lines.append(
                f"| {_cell(r.label)} | {ratio_text(r.ratio, r.low, r.high)} | {_cell(r.method)} | "
                f"{r.counts().removeprefix('n ')} | {_cell(sentence(r))} |"
            )
    elif s.means:
        lines += ["## Nothing compared (one level): each metric's mean", ""]
        lines += [f"- {_mean_text(m)}" for m in s.means]
    else:
        lines += ["## Nothing compared", "", "The campaign has no samples of a metric the statistics compare."]
    lines += ["", f"## A/A: {display(s.baseline, s.compare)} against its own copy", ""]
    lines += [f"- {_cell(_aa_line(a))}" for a in s.aa]
    lines += [f"- {noise_text(s.aa, s.measured)}", "", "## Quiet gate and CPU probe", "", quiet_text(s), ""]
    if s.duet is not None:
        lines += ["## Duet", "", duet_text(s.duet), ""]
    lines += ["## Time", "", times_text(s), ""]
    if s.notes:
        lines += ["## Notes", "", *[f"- {n}" for n in s.notes], ""]
    lines += ["## Where to look next", "", *[f"- {what}: {where}" for what, where in s.next_steps], ""]
    return "\n".join(lines)
