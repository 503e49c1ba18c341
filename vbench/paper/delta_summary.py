"""The results summary of the introduction (issue #54 item 1): the reproduction delta in one page.

One compact table (`tab:findings-summary`, `generated/tables/findings_summary.tex`) of every
published finding: its study, the claim, the ratio the study published, ours with its interval and
the verdict. It is drawn from the rows the long table (`vbench.paper.delta.delta_table_tex`,
`tab:delta`) is drawn from, by the build, and prints their ratio cell and verdict with the same
functions (`ratio_cell`, `verdict_cell`): nothing here computes a ratio, an interval or a verdict.
"""

from __future__ import annotations

import re

from vbench.paper.delta import (
    DeltaRow,
    Finding,
    Published,
    ratio_cell,
    verdict_cell,
)
from vbench.paper.fmt import plain_number, tex_escape

NAME, LABEL = "findings_summary", "tab:findings-summary"
#: Column widths (fractions of \linewidth): ID, study, claim, theirs, ours, verdict. With the
#: column separation they fill the text width at \footnotesize.
WIDTHS = (0.035, 0.10, 0.38, 0.085, 0.185, 0.13)
#: What a verdict reached on the local stand-ins alone says under it (not a test of the claim).
STAND_INS_NOTE = "on stand-ins"


def study_text(study: dict) -> str:
    """A study as the summary names it: its first author and year, then its citation
    ("Xavier 2014 [n]"; the year from the bibliography key, the name from the study's short one)."""
    name = re.split(r"[\s,]", study["short"].strip(), maxsplit=1)[0]
    year = re.search(r"(19|20)\d\d", study["bibkey"])
    label = f"{name} {year[0]}" if year else study["short"]
    return rf"{tex_escape(label)}~\citep{{{study['bibkey']}}}"


def published_figure(f: Finding) -> str:
    """The ratio A/B the study published: its figure or range for a magnitude claim, about 1 for a
    claim of no difference, the side of 1 for a direction claim (the study gives no figure)."""
    if f.kind == "magnitude":
        if f.published_range is not None:
            lo, hi = f.published_range
            return rf"{plain_number(lo)}--{plain_number(hi)}"
        return plain_number(f.published_ratio)
    if f.kind == "equivalence":
        return r"$\approx$\,1"
    return r"$<$\,1" if f.expect == "less" else r"$>$\,1"


def findings_summary_tex(rows: list[DeltaRow], published: Published, conf: float = 0.95) -> str:
    """The summary table: a row per delta row, in its order, each study named on its first row."""
    cols = "".join(rf">{{\raggedright\arraybackslash}}p{{{w}\linewidth}}" for w in WIDTHS)
    conf_pct = plain_number(conf * 100)
    lines = [
        r"\begin{table}[tp]",
        r"\centering\footnotesize",
        r"\setlength{\tabcolsep}{3pt}",
        rf"\caption{{The {len(rows)} published findings at a glance: the ratio A/B each study published (its"
        r" figure or range; $\approx$\,1 for a claim of no difference; $<$\,1 or $>$\,1 for a claim without a"
        rf" figure), ours with its {conf_pct}\,\% interval ($^{{p}}$~paired by block, otherwise Fieller's), and the"
        r" verdict of the rule of Section~\ref{sec:delta} after Holm's correction. A verdict reached on the local"
        r" stand-ins alone is marked so: it is not a test of the claim. Table~\ref{tab:delta} gives each"
        r" comparison in full and the command that tests each finding this machine cannot.}",
        rf"\label{{{LABEL}}}",
        rf"\begin{{tabular}}{{{cols}}}",
        r"\toprule",
        r"ID & Study & Claim & Theirs & Ours [CI] & Verdict \\",
        r"\midrule",
    ]
    previous = None
    for r in rows:
        f = r.finding
        first = f.study != previous
        if first and previous is not None:
            lines.append(r"\addlinespace")
        previous = f.study
        cells = [
            tex_escape(f.id),
            study_text(published.studies[f.study]) if first else "",
            tex_escape(f.claim),
            published_figure(f),
            ratio_cell(r),
            verdict_cell(r, STAND_INS_NOTE),
        ]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"
