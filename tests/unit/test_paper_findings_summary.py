"""The results summary of the introduction (tab:findings-summary): the long delta table's rows, in brief."""

from __future__ import annotations

import re

import pytest

from vbench.paper import delta as D
from vbench.paper import delta_summary as S

PUBLISHED = D.load_published(check=False)
VERDICT_OF_TEX = {tex: verdict for verdict, tex in D.VERDICT_TEX.items()}
_CELL = re.compile(r"(?<!\\)&")


def _rows() -> list[D.DeltaRow]:
    """A row per published finding, every case the tables print: each verdict, paired and Fieller
    intervals, a ratio without an interval, on the study's platforms and on stand-ins, Holm's change."""
    rows = []
    for i, f in enumerate(PUBLISHED.findings):
        verdict = D.VERDICTS[i % len(D.VERDICTS)]
        if verdict == D.NOT_MEASURED_VERDICT:
            rows.append(D.DeltaRow(f, verdict, reason="no samples for lxc"))
            continue
        ratio = 0.41 + 0.137 * i
        low, high = (None, None) if i == 5 else (ratio * (0.9 + 0.004 * i), ratio * (1.05 + 0.01 * i))
        rows.append(
            D.DeltaRow(
                f,
                verdict,
                ratio,
                low,
                high,
                n_a=3,
                n_b=3,
                method=D.PAIRED_T_ROUNDS if i % 3 == 0 else D.FIELLER,
                on_study_platforms=i % 5 == 0,
                p_value=0.01 * (i + 1),
                p_holm=min(1.0, 0.03 * (i + 1)),
                unadjusted=D.REPRODUCED if verdict == D.INCONCLUSIVE and i % 2 else "",
            )
        )
    return rows


def _table_rows(tex: str) -> dict[str, list[str]]:
    """Finding id -> the cells of its row, in a table of either kind (rows that start with an id)."""
    ids = {f.id for f in PUBLISHED.findings}
    out: dict[str, list[str]] = {}
    for line in tex.splitlines():
        if not line.endswith(r"\\"):
            continue
        cells = [c.strip() for c in _CELL.split(line[: -len(r"\\")])]
        if cells[0] in ids:
            assert cells[0] not in out, f"{cells[0]} has two rows"
            out[cells[0]] = cells
    return out


def _verdict(cell: str) -> str:
    return VERDICT_OF_TEX[cell.split(r"\newline")[0].strip()]


@pytest.fixture(scope="module")
def tables():
    rows = _rows()
    summary = S.findings_summary_tex(rows, PUBLISHED)
    return rows, _table_rows(summary), _table_rows(D.delta_table_tex(rows, PUBLISHED)), summary


def test_the_summary_has_one_row_per_delta_row_in_its_order(tables):
    rows, summary, long, tex = tables
    assert len(rows) == len(PUBLISHED.findings) >= 28
    assert list(summary) == [r.finding.id for r in rows] == list(long)
    assert all(len(cells) == len(S.WIDTHS) for cells in summary.values())
    # The rows given, not the published file's: a part of the delta gives a part of the summary.
    part = rows[3:9]
    assert list(_table_rows(S.findings_summary_tex(part, PUBLISHED))) == [r.finding.id for r in part]
    assert rf"\label{{{S.LABEL}}}" in tex and tex.count(r"\begin{table}") == 1
    # The caption counts the findings the delta has (the reviewer's check counts "N published findings").
    assert f"The {len(rows)} published findings" in tex


def test_its_verdicts_are_the_long_tables(tables):
    rows, summary, long, _tex = tables
    assert {r.verdict for r in rows} == set(D.VERDICTS)  # every verdict is exercised
    for r in rows:
        theirs = _verdict(long[r.finding.id][-1])
        assert _verdict(summary[r.finding.id][-1]) == theirs == r.verdict, r.finding.id
        # A verdict on stand-ins is marked in both tables, and only there.
        on_stand_ins = "(stand-ins only)" in long[r.finding.id][-1]
        assert (
            (S.STAND_INS_NOTE in summary[r.finding.id][-1])
            == on_stand_ins
            == (r.verdict != D.NOT_MEASURED_VERDICT and not r.tested)
        ), r.finding.id


def test_its_interval_text_is_the_long_tables(tables):
    rows, summary, long, _tex = tables
    marked = 0
    for r in rows:
        ours = summary[r.finding.id][4]
        assert ours == long[r.finding.id][5], r.finding.id
        if r.ratio is None:
            assert ours == r"\textemdash"
        elif r.low is not None:
            assert re.fullmatch(r"\\num\{[-\d.]+\} \[\\num\{[-\d.]+\}, \\num\{[-\d.]+\}\](\$\^\{p\}\$)?", ours), ours
        marked += ours.endswith("$^{p}$")
    assert marked == sum(1 for r in rows if r.ratio is not None and r.method == D.PAIRED_T_ROUNDS) > 0


def test_each_study_is_named_once_with_its_year_and_citation(tables):
    rows, summary, _long, tex = tables
    named = [cells[1] for cells in summary.values() if cells[1]]
    assert len(named) == len({r.finding.study for r in rows}) == 5
    assert r"Xavier 2014~\citep{xavier2014}" in named and r"VMware 2015~\citep{vmware2015}" in named
    assert summary["X1"][1] and not summary["X2"][1]  # the group's first row only
    assert tex.count(r"\addlinespace") == 4  # between the studies' groups


@pytest.mark.parametrize(
    "finding, figure",
    [
        ("V1", "0.9817"),  # a magnitude: the study's figure
        ("J1", "0.3--0.9"),  # a magnitude: the study's range
        ("L3", "4.2--4.8"),
        ("X2", r"$\approx$\,1"),  # a claim of no difference
        ("V2", r"$<$\,1"),  # a direction: the study gives no figure
        ("V8", r"$>$\,1"),
    ],
)
def test_their_figure_is_the_published_ratio(tables, finding, figure):
    _rows_, summary, _long, _tex = tables
    assert summary[finding][3] == figure
    assert summary[finding][2] == D.tex_escape(next(f.claim for f in PUBLISHED.findings if f.id == finding))
