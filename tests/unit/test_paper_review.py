"""A reviewer's checks, automated (issue #54 item 4): the paper rebuilt from the committed campaigns,
read as LaTeX will typeset it (vbench.paper.review), has an abstract of at most 200 words, no "(s)"
plurals, no parameter names or campaign ids in its sentences, no notes for the project in its
captions or references, and states the numbers of tables, figures and verdicts its tables have.

The paper's generated files are built once for the module, without LaTeX, as `invoke paper` builds
them (the campaigns params/paper.yaml names, the statistics computed as a fresh clone computes them);
the planted texts below show that each check catches what it is for."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from vbench.paper import review as V

ROOT = Path(__file__).resolve().parents[2]
RAW = ROOT / "data" / "raw"
MAIN = "reference"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """`invoke paper`'s generated files in a fresh data tree (links to the committed campaigns, no
    data/processed/ whose settings could differ), without the LaTeX run."""
    if not (RAW / MAIN / "samples.jsonl").is_file():
        pytest.skip("no committed reference campaign")
    pytest.importorskip("matplotlib")
    from vbench.paper.build import generate
    from vbench.paper.inputs import PaperInputs

    inputs = PaperInputs.from_params(
        yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"],
        yaml.safe_load((ROOT / "params" / "pipeline.yaml").read_text())["pipeline"]["monitoring_campaign"],
    )
    raw = tmp_path_factory.mktemp("data") / "raw"
    raw.mkdir()
    for name in {MAIN, *(n for _flag, n in inputs.flags())}:
        if (RAW / name).is_dir():
            (raw / name).symlink_to(RAW / name, target_is_directory=True)
    args = inputs.build_arguments(raw)
    args["extra_campaigns"] = [d for d in args["extra_campaigns"] if d.is_dir()]
    out = tmp_path_factory.mktemp("paper")
    generate(raw / MAIN, out, **args)
    return out


@pytest.fixture(scope="module")
def paper(built) -> V.Paper:
    return V.read_paper(built, ROOT / "paper")


@pytest.fixture(scope="module")
def delta(built) -> pd.DataFrame:
    return pd.read_csv(built / "generated" / "delta.csv")


@pytest.fixture(scope="module")
def latex(built) -> Path:
    """The LaTeX run over the generated files, as `invoke paper` makes it: its directory (build/
    holds paper.pdf, .log and .aux)."""
    import shutil

    from vbench.paper.build import latex_available, run_latex

    if not latex_available():
        pytest.skip("no LaTeX (latexmk, pdflatex, bibtex)")
    for name in ("main.tex", "references.bib"):
        shutil.copyfile(ROOT / "paper" / name, built / name)
    run_latex(built)
    return built / "build"


def _needs_rendering() -> None:
    import shutil

    if not shutil.which("pdftoppm"):
        pytest.skip("no pdftoppm (poppler-utils)")
    pytest.importorskip("PIL")


def _report(problems: list[str]) -> str:
    return "\n".join(problems)


#: The checks of the text alone, each a test of its own: (test id, check).
TEXT_CHECKS = [
    ("the abstract has at most 200 words", V.abstract_length),
    ("no (s) plurals", V.s_plurals),
    ("no parameter names in sentences", V.parameter_names),
    ("no campaign ids in sentences", V.campaign_ids),
    ("no parameter names or recorded levels in tables", V.table_names),
    ("no internal notes in references, captions or text", V.internal_notes),
    ("no cost of 100 % or more in the abstract", V.percent_multiples),
    ("no '1 were', no sentences glued at a full stop", V.sentence_slips),
]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("check", [c for _, c in TEXT_CHECKS], ids=[i for i, _ in TEXT_CHECKS])
def test_the_text_passes_the_reviewers_check(paper, check):
    assert check(paper) == [], _report(check(paper))


@pytest.mark.timeout(300)
def test_no_s_plurals_in_any_generated_file(built):
    """Every generated table, figure include and macro, whether main.tex prints it or not."""
    found = [
        line
        for f in sorted((built / "generated").rglob("*.tex"))
        for line in V.s_plurals_in(str(f.relative_to(built)), f.read_text(encoding="utf-8"))
    ]
    assert found == [], _report(found)


@pytest.mark.timeout(300)
def test_the_title_block_keeps_every_word_of_its_macros(built, paper):
    note = V.read_macros((built / "generated" / "macros.tex").read_text(encoding="utf-8"))["vbDataNote"]
    assert V.plain(note) and V.plain(note) in V.plain(paper.title), V.plain(paper.title)


@pytest.mark.timeout(300)
def test_the_numbers_of_tables_and_figures_said_are_those_built(paper):
    assert len(paper.labels("tab")) > 10 and len(paper.labels("fig")) > 3
    assert V.float_counts(paper) == [], _report(V.float_counts(paper))


#: Tables that compare rather than measure, whose direction is their columns' own: the findings'
#: ratios A/B (either way can be the claim), the testbed, the sandbox's ratios (a "better" column
#: per metric), the cost model's predictions, every part's (an error's sign explained in its note;
#: each held-out campaign's, `NO_DIRECTION_PREFIXES`) and the campaigns' machines.
NO_DIRECTION = {
    "tab:delta",
    "tab:findings-summary",
    "tab:testbed",
    "tab:sandbox",
    "tab:costs",
    "tab:costs-syscalls",
    "tab:costs-syscall-levels",
    "tab:costs-file-levels",
    "tab:costs-rpc-levels",
    "tab:costs-memory-levels",
    "tab:costs-cpu",
    "tab:campaigns",
}
#: The held-out campaigns' tables, tab:costs-heldout-<campaign>, one per campaign params/paper.yaml lists.
NO_DIRECTION_PREFIXES = ("tab:costs-heldout-",)
#: The pooled tests' tables, tab:costs-pooled-<n>, one per record (an error's sign explained in its note).
POOLED_PREFIX = "tab:costs-pooled-"
#: The rest tests' tables, tab:costs-rest-<n>, one per record (an error's sign explained in its note too).
REST_PREFIX = "tab:costs-rest-"


def _compares(label: str) -> bool:
    return label in NO_DIRECTION or label.startswith((*NO_DIRECTION_PREFIXES, POOLED_PREFIX, REST_PREFIX))


@pytest.mark.timeout(300)
def test_every_table_of_measurements_says_which_way_is_better(paper):
    tables = [f for f in paper.floats if re.search(r"\\label\{tab:", f)]
    labels = [re.search(r"\\label\{(tab:[^}]*)\}", f)[1] for f in tables]
    missing = [
        label
        for label, f in zip(labels, tables)
        if not _compares(label) and not re.search(r"is better|are better", V.plain(f))
    ]
    assert len(labels) > 10 and missing == [], missing


@pytest.mark.timeout(300)
def test_each_held_out_campaign_listed_is_a_table_of_the_paper_in_the_list_s_order(paper):
    """params/paper.yaml's `syscall_levels_heldout` lists campaigns: one table each, labelled by its
    name, in that order (none may stand in for another under one label)."""
    from vbench.paper.inputs import campaign_list

    listed = campaign_list(
        yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]["syscall_levels_heldout"]
    )
    labels = [label for label in paper.labels("tab") if label.startswith(NO_DIRECTION_PREFIXES)]
    assert labels == [f"tab:costs-heldout-{name}" for name in listed]


@pytest.mark.timeout(300)
def test_the_verdict_counts_said_are_the_delta_tables(paper, delta):
    assert V.delta_counts(paper, delta) == [], _report(V.delta_counts(paper, delta))


@pytest.mark.timeout(300)
def test_the_method_the_text_states_is_the_one_the_delta_applied(paper, delta):
    """The margin the text states is the findings' (no +/-10 % beside a stated +/-5 %), and the
    correction it names (Holm's, over N findings) is the one delta.csv's verdicts carry."""
    from vbench.paper.delta import load_published, margins

    found = V.method_claims(paper, delta, margins(load_published()))
    assert found == [], _report(found)


@pytest.mark.timeout(300)
def test_no_undefined_references(latex):
    log = (latex / "paper.log").read_text(errors="replace")
    assert V.undefined_references(log) == [], _report(V.undefined_references(log))


@pytest.mark.timeout(300)
def test_no_overfull_boxes_past_the_tolerance(latex):
    boxes = V.overfull_boxes((latex / "paper.log").read_text(errors="replace"))
    assert boxes == [], f"{len(boxes)} overfull boxes past {V.OVERFULL_TOLERANCE_PT} pt:\n" + _report(boxes)


@pytest.mark.timeout(300)
def test_every_figure_is_drawn_and_no_page_is_blank(paper, built, latex, tmp_path):
    """Each figure's file is there, not empty and not blank when rendered, LaTeX placed it with a
    size, and the PDF's pages (rendered to PNG) have ink, the figures' pages among them."""
    _needs_rendering()
    assert len(V.figure_files(paper)) > 3
    assert V.figure_problems(paper, built, tmp_path) == [], _report(V.figure_problems(paper, built, tmp_path))
    log = (latex / "paper.log").read_text(errors="replace")
    assert V.figures_not_placed(paper, log) == [], _report(V.figures_not_placed(paper, log))
    pages = V.render(latex / "paper.pdf", tmp_path / "page")
    on = V.figure_pages((latex / "paper.aux").read_text(errors="replace"))
    assert set(on) == set(V.figure_files(paper)) and max(on.values()) <= len(pages)
    assert V.blank_pages(pages) == []


# --- each check on planted text: what it catches, what it lets through ---------------------------

MACROS = r"""% Generated
\newcommand{\vbNumPlatforms}{4}
\newcommand{\vbHasX}{1}
\newcommand{\vbTeraSortRatioLxc}{\num{1.01} [\num{0.97}, \num{1.05}]}
"""


def _paper(abstract: str = "", prose: str = "", floats: str = "", bib: str = "", tmp: Path = Path(".")) -> V.Paper:
    main = (
        "\\title{T}\\date{D}\n\\begin{document}\n"
        + f"\\begin{{abstract}}\n{abstract}\n\\end{{abstract}}\n{prose}\n{floats}\n\\end{{document}}\n"
    )
    return V.split_paper(main, V.read_macros(MACROS), tmp, bib)


def test_macros_and_vbif_are_expanded_as_latex_would():
    p = _paper(r"We ran \vbNumPlatforms{} platforms; \vbIf{\vbHasX}{LXC took \vbTeraSortRatioLxc}{none}.")
    assert V.plain(p.abstract) == "We ran 4 platforms; LXC took 1.01 [0.97, 1.05]."
    assert V.words(p.abstract) == 9
    assert V.plain(_paper(r"\vbIf{0}{yes}{no \% \texttt{a\_b}}").abstract) == "no % a_b"


def test_a_macro_after_a_control_word_stays_a_word_of_its_own():
    """`\\date{\\small\\vbDataNote}` pasted as `\\smallMeasured data ...` lost its first word to the
    command dropped: LaTeX ends `\\small` at the next backslash, so must the expansion."""
    macros = V.read_macros(MACROS + "\\newcommand{\\vbDataNote}{Measured data from 4 campaigns.}\n")
    main = "\\title{T}\\date{\\small\\vbDataNote}\n\\begin{document}\n\\end{document}\n"
    assert V.plain(V.split_paper(main, macros, Path(".")).title) == "T Measured data from 4 campaigns."
    assert V.plain(V.expand(r"\large\vbIf{\vbHasX}{Yes}{No} \small\vbNumPlatforms", macros)) == "Yes 4"
    # a line break is a control symbol, not a word: nothing to separate
    assert V.expand(r"a\\\vbDataNote", macros) == r"a\\Measured data from 4 campaigns."


def test_abstract_length_counts_words_not_markup():
    assert V.abstract_length(_paper(" ".join(["word"] * 200))) == []
    assert V.abstract_length(_paper(" ".join(["word"] * 201))) == ["abstract: 201 words, over the limit of 200"]
    assert V.words(r"ratio \num{1.01} [\num{0.97}, \num{1.05}] (95\,\% interval)") == 6


def test_s_plurals_are_caught_in_prose_captions_and_table_notes():
    p = _paper(prose="one master and 3 worker(s)", floats=r"\begin{figure}\caption{run(s)}\label{fig:a}\end{figure}")
    found = V.s_plurals(p)
    assert len(found) == 3 and found[0].startswith("prose:") and found[1].startswith("caption 1:")
    assert found[2].startswith("float 1 (fig:a):")
    note = (
        r"\begin{table}\caption{Times}\label{tab:t}a & \qty{1.5}{\second} (s)\\ \emph{0 of 3 run(s) flagged}\end{table}"
    )
    assert [f.split(" in ")[0] for f in V.s_plurals(_paper(floats=note))] == ["float 1 (tab:t): '(s)' plural"]
    assert V.s_plurals(_paper(floats=note.replace("run(s)", "runs"))) == []


def test_counts_in_statistics_notes_agree_with_their_nouns():
    from vbench.stats.quiet import QuietCounts
    from vbench.stats.warmup import ExclusionRule
    from vbench.wording import count

    assert [count(1, "run"), count(0, "run"), count(3, "run"), count(2, "repetition")] == [
        "1 run",
        "0 runs",
        "3 runs",
        "2 repetitions",
    ]
    assert QuietCounts(1, 0, 0, 0, 1.02, 1).text() == (
        "0 of 1 run measured while the quiet-machine gate flagged the machine; "
        "CPU probe x1.02 this machine's reference (median over the 1 run measured with one)"
    )
    assert (
        ExclusionRule(use_warmup_column=False, drop_first_n=1).describe()
        == "excluded the first 1 repetition of each group"
    )


def test_parameter_names_outside_code_and_in_the_abstract_even_as_code():
    p = _paper(
        abstract=r"the levels of network.mode and \texttt{vms\_per\_host}",
        prose=r"e.g.\ the setting \texttt{client\_poll\_ms}, i.e. code; but hadoop.topology here",
    )
    found = V.parameter_names(p)
    assert [f.split("'")[1] for f in found] == ["network.mode", "vms_per_host", "hadoop.topology"]


def test_parameter_names_and_recorded_levels_in_tables_outside_code():
    p = _paper(
        floats=(
            r"\begin{table}\caption{Findings}\label{tab:x} lxc (stress=\allowbreak{}memory) / lxc; $n=13/13$;"
            r" no read\_throughput samples; dd with \texttt{conv=fdatasync}\end{table}"
        )
    )
    found = V.table_names(p)
    assert [f.split(": ", 1)[1].split(" in ")[0] for f in found] == [
        "parameter name 'read_throughput'",
        "recorded level 'stress=memory'",
    ]
    assert all(f.startswith("float 1 (tab:x)") for f in found)


def test_campaign_ids_are_caught_even_in_code_font():
    p = _paper(abstract=r"TeraSort (\texttt{platforms@xavier2014-oci}) by 2\,\%")
    assert V.campaign_ids(p) == [
        "abstract: campaign id 'platforms@xavier2014-oci' in ...TeraSort (platforms@xavier2014-oci) by 2 %..."
    ]


def test_one_were_and_sentences_glued_at_a_full_stop_are_caught():
    macros = {"vbQuoted": "The ratio was 1.0 on the ratio."}
    # A macro at a line's end eats the line break, as TeX does: the next sentence is glued on.
    glued = _paper(prose=V.expand("It ran. \\vbQuoted\nWordCount took 5 s.", macros))
    assert [f.split(" in ")[0] for f in V.sentence_slips(glued)] == ["prose: no space after a full stop"]
    assert V.sentence_slips(_paper(prose=V.expand("It ran. \\vbQuoted{}\nWordCount took 5 s.", macros))) == []
    p = _paper(abstract="Of 28 findings, 1 were reproduced and 11 were not", prose="Xavier et al.K and e.g.\\ Table 1.")
    assert [f.split(" in ")[0] for f in V.sentence_slips(p)] == ["abstract: '1 were'"]
    assert V.sentence_slips(_paper(abstract="Of 28 findings, 1 was reproduced and 21 were not")) == []


def test_internal_notes_in_captions_references_and_text():
    p = _paper(
        prose=r"(Tables: 21 of 21 with data)",
        floats=r"\begin{table}\caption{After the sandbox study (issue \#21).}\label{tab:a}\end{table}",
        bib="% the seed text is our source\n@misc{a, note = {the seed text starts at the summary}}",
    )
    assert [f.split(":")[0] for f in V.internal_notes(p)] == ["prose", "caption 1", "references"]


def test_counts_of_tables_and_figures_against_the_labels_built():
    floats = (
        r"\begin{table}\caption{a}\label{tab:a}\end{table}"
        r"\begin{longtable}{l}\caption{b}\label{tab:b}\\ x\end{longtable}"
        r"\begin{figure}\caption{c}\label{fig:c}\end{figure}"
    )
    assert V.float_counts(_paper(prose="All 2 tables and 1 figures; figures: 1 of 1.", floats=floats)) == []
    found = V.float_counts(_paper(prose="(Tables: 1 of 1 with data; 3 figures)", floats=floats))
    assert [f.split(", the paper")[1] for f in found] == [" has 2", " has 1"]


def test_verdict_counts_against_the_delta_table():
    delta = pd.DataFrame(
        {
            "verdict": ["reproduced", "reproduced", "contradicted", "not measured"],
            "tested": [True, False, True, False],
        }
    )
    ok = "Of the 4 published findings, 1 were reproduced, 1 contradicted, 0 inconclusive and 1 not measured."
    assert V.delta_counts(_paper(ok), delta) == []
    found = V.delta_counts(_paper("Of the 5 findings, 2 reproduced."), delta)
    assert len(found) == 2 and "the delta table has 1" in found[0] and "has 4" in found[1]


def test_verdict_counts_before_holm_are_read_against_the_intervals_alone():
    delta = pd.DataFrame(
        {
            "verdict": ["reproduced", "inconclusive", "inconclusive"],
            "verdict_interval_alone": ["reproduced", "reproduced", "contradicted"],
            "tested": [True, True, True],
        }
    )
    ok = "Of the 3 findings, 1 were reproduced. By their intervals alone, 2 were reproduced and 1 contradicted."
    assert V.delta_counts(_paper(prose=ok), delta) == []
    found = V.delta_counts(_paper(prose="By their intervals alone, 1 were reproduced."), delta)
    assert len(found) == 1 and "the delta table has 2" in found[0]


def _holm_delta(verdicts=("inconclusive", "inconclusive", "not measured")) -> pd.DataFrame:
    """Two verdicts of their intervals (p 0.03 and 0.04) that Holm's 0.06 makes inconclusive."""
    return pd.DataFrame(
        {
            "id": ["A", "B", "C"],
            "verdict": list(verdicts),
            "verdict_interval_alone": ["reproduced", "reproduced", "not measured"],
            "p_value": [0.03, 0.04, float("nan")],
            "p_holm": [0.06, 0.06, float("nan")],
        }
    )


def test_the_method_stated_against_the_delta_applied():
    rule = r"the margin, $\pm$5\,\%. Holm's correction~\citep{holm1979} runs over the 2 verdicts with an interval."
    assert V.method_claims(_paper(prose=rule), _holm_delta(), [5.0]) == []
    # A margin the findings do not use, and one they use that the text never states.
    found = V.method_claims(_paper(prose=rule.replace("5", "10", 1)), _holm_delta(), [5.0])
    assert len(found) == 2 and "±10 %" in found[0] and "never states the margin ±5 %" in found[1]
    # The family the text names, and verdicts that are not Holm's.
    found = V.method_claims(_paper(prose=rule.replace("the 2", "the 3")), _holm_delta(), [5.0])
    assert found == ["prose: says Holm's correction runs over 3 findings, delta.csv has 2 with a p-value"]
    found = V.method_claims(_paper(prose=rule), _holm_delta(("inconclusive", "reproduced", "not measured")), [5.0])
    assert len(found) == 1 and "B is reproduced" in found[0] and "gives inconclusive" in found[0]
    assert (
        "does not say which correction" in V.method_claims(_paper(prose=r"within $\pm$5\,\%."), _holm_delta(), [5.0])[0]
    )


LOG = r"""This is pdfTeX, Version 3.141592653
(./main.tex
LaTeX2e <2022-11-01>
(/usr/share/texlive/texmf-dist/tex/latex/base/article.cls
Document Class: article 2022/07/02 v1.4n Standard LaTeX document class
)
(./generated/tables/wide.tex

Overfull \hbox (42.5pt too wide) in alignment at lines 6--14
 [][] (unbalanced [] 
 []

)
Overfull \hbox (0.8pt too wide) in paragraph at lines 20--21
[]\T1/ptm/m/n/10 a (
 []


Overfull \vbox (3.0pt too high) has occurred while \output is active []

LaTeX Warning: Reference `fig:gone' on page 3 undefined on input line 40.

LaTeX Warning: Reference `fig:gone' on page 4 undefined on input line 52.

Package natbib Warning: Citation `nobody2020' on page 5 undefined on input line 60.

<generated/figures/a.pdf, id=12, 455.3pt x 187.9pt>
<generated/figures/flat.pdf, id=13, 455.3pt x 0.0pt>
)"""


def test_overfull_boxes_past_the_tolerance_with_their_file():
    found = V.overfull_boxes(LOG)
    assert found == [
        "generated/tables/wide.tex in alignment at lines 6--14: hbox 42.5 pt too wide",
        "main.tex has occurred while \\output is active []: vbox 3.0 pt too high",
    ]
    assert len(V.overfull_boxes(LOG, tolerance_pt=0.5)) == 3
    assert V.overfull_boxes(LOG, tolerance_pt=50) == []


def test_undefined_references_and_citations_once_each():
    assert V.undefined_references(LOG) == [
        "reference 'fig:gone' undefined (page 3)",
        "citation 'nobody2020' undefined (page 5)",
    ]
    assert V.undefined_references("LaTeX Warning: There were undefined references.") != []
    assert V.undefined_references("Output written on paper.pdf (18 pages).") == []


def _figures(*names: str) -> str:
    return (
        "".join(
            rf"\begin{{figure}}\includegraphics[width=\linewidth]{{generated/figures/{n}.pdf}}\caption{{{n}}}"
            rf"\label{{fig:{n}}}\end{{figure}}"
            for n in names
        )
        + r"\begin{figure}\caption{No data.}\label{fig:none}\end{figure}"
    )


def test_figures_missing_empty_blank_or_not_placed_are_caught(tmp_path):
    _needs_rendering()
    plt = pytest.importorskip("matplotlib.pyplot")
    fig_dir = tmp_path / "generated" / "figures"
    fig_dir.mkdir(parents=True)
    drawn, blank = plt.subplots(figsize=(4, 3)), plt.subplots(figsize=(4, 3))
    drawn[1].plot([1, 2, 3], [3, 1, 2])
    drawn[0].savefig(fig_dir / "a.pdf")
    blank[1].set_axis_off()
    blank[0].savefig(fig_dir / "blank.pdf")
    plt.close("all")
    (fig_dir / "empty.pdf").write_bytes(b"")
    paper = _paper(floats=_figures("a", "blank", "empty", "gone"))
    work = tmp_path / "work"
    work.mkdir()
    found = V.figure_problems(paper, tmp_path, work)
    assert [f.split(" ", 1)[1] for f in found] == [
        "generated/figures/blank.pdf renders blank (0.00 % ink)",
        "generated/figures/empty.pdf is empty",
        "generated/figures/gone.pdf is missing",
        "includes no graphics file",
    ]
    assert [f.split(": ")[0] for f in found] == ["fig:blank", "fig:empty", "fig:gone", "fig:none"]
    placed = V.figures_not_placed(_paper(floats=_figures("a", "flat", "gone")), LOG)
    assert placed == [
        "fig:flat: generated/figures/flat.pdf drawn at no size",
        "fig:gone: generated/figures/gone.pdf not placed by LaTeX",
    ]
    pages = V.render(fig_dir / "a.pdf", work / "page")
    assert len(pages) == 1 and V.blank_pages(pages) == []
    assert V.blank_pages(V.render(fig_dir / "blank.pdf", work / "blank")) == ["page 1: blank"]


def test_figure_pages_from_the_aux():
    aux = r"\newlabel{fig:a}{{1}{5}{Cap}{figure.caption.8}{}}\newlabel{tab:b}{{2}{6}{}{}{}}\newlabel{fig:c}{{3}{12}{}{}{}}"
    assert V.figure_pages(aux) == {"fig:a": 5, "fig:c": 12}


# --- the abstract's generated sentences (vbench.paper.abstract, vbench.paper.macros) --------------


def _quote(platform, estimate, low, high, pairs, candidates):
    from vbench.paper.abstract import Quote
    from vbench.stats.paired import PAIRED_T

    row = pd.Series({"estimate": estimate, "ci_low": low, "ci_high": high, "method": PAIRED_T})
    return Quote(platform, f"platforms@{platform}-campaign", "128MB", row, pairs, candidates)


def test_the_abstract_gives_one_container_answer_each_and_says_where_it_comes_from():
    from vbench.paper import abstract as A
    from vbench.paper.fmt import interval_text

    lxc, oci = _quote("lxc", 1.009, 0.971, 1.049, 16, 7), _quote("oci", 0.986, 0.929, 1.047, 7, 1)
    assert A.container_sentence([lxc, oci], "native") == (
        f"TeraSort (128 MB) took {interval_text(1.009, 0.971, 1.049)} times as long on LXC as on native hosts "
        f"(16 paired runs, the most of 7 campaigns), and {interval_text(0.986, 0.929, 1.047)} times on OCI "
        "(7 paired runs)."
    )
    assert A.precision_sentence([lxc, oci], 0.95) == (
        r"Every ratio carries a 95\,\% interval over blocks that ran each platform in shuffled order; "
        r"TeraSort's are $\pm$3.9\,\% (LXC) and $\pm$6.0\,\% (OCI)."
    )
    gvisor = pd.Series({"estimate": 1.3, "ci_low": 1.2, "ci_high": 1.4})
    assert A.takeaway_sentence([lxc, oci], gvisor) == (
        r"On a current kernel, containers cost Hadoop at most 4.9\,\%, and a sandboxed kernel about "
        r"30\,\% on TeraSort."
    )
    slower = _quote("lxc", 1.2, 1.1, 1.3, 4, 1)
    assert A.takeaway_sentence([slower], None) == r"On a current kernel, containers cost Hadoop 20\,\%."
    assert "a sandboxed kernel costs Hadoop about 30" in A.takeaway_sentence([], gvisor)
    assert A.container_sentence([], "native") == A.precision_sentence([], 0.95) == A.takeaway_sentence([], None) == ""


def test_ratios_of_two_or_more_read_as_multiples():
    from vbench.paper.fmt import times_text

    said = [times_text(r) for r in (2.0, 2.1, 2.5, 3.13, 2.86, 9.9, 12.3)]
    assert said == [
        "about twice",
        "about twice",
        "2.5 times",
        "about three times",
        "about three times",
        "about ten times",
        "12 times",
    ]
    with pytest.raises(ValueError):
        times_text(1.99)


def test_the_takeaway_says_a_cost_of_two_or_more_as_a_multiple():
    from vbench.paper import abstract as A

    lxc = _quote("lxc", 1.009, 0.971, 1.049, 16, 7)
    gvisor = pd.Series({"estimate": 3.13, "ci_low": 2.69, "ci_high": 3.64})
    said = A.takeaway_sentence([lxc], gvisor)
    assert said == (
        r"On a current kernel, containers cost Hadoop at most 4.9\,\%, and a sandboxed kernel makes "
        "TeraSort take about three times as long."
    )
    assert "%" not in A.takeaway_sentence([], gvisor)
    slow = [_quote("lxc", 2.5, 2.4, 2.6, 4, 1), _quote("oci", 1.5, 1.4, 1.6, 4, 1)]
    assert A.takeaway_sentence(slow, None) == (
        "On a current kernel, containers make TeraSort take 1.5 times to 2.5 times as long."
    )
    assert V.percent_multiples(_paper(A.takeaway_sentence([lxc], gvisor))) == []
    found = V.percent_multiples(_paper(r"a sandboxed kernel about 213\,\% and \num{213} [\num{169}, \num{264}]\,\%"))
    assert [f.split(" %")[0] for f in found] == ["abstract: 213", "abstract: 213"]
    assert V.percent_multiples(_paper(r"at most 4.9\,\%, [\num{0.97}, \num{105}]\,\%")) == []


def test_the_abstract_quotes_the_experiment_with_most_paired_runs_whatever_its_ratio():
    from vbench.paper.abstract import quoted_comparison
    from vbench.paper.results import lookup_of
    from vbench.stats.paired import PAIRED_T

    def rows(experiment, ratio, pairs):
        common = {"experiment": experiment, "benchmark": "terasort", "metric": "terasort_time", "size": "128MB"}
        return [
            {
                **common,
                "platform": p,
                "statistic": "mean",
                "method": "t",
                "estimate": 20.0,
                "ci_low": 19.0,
                "ci_high": 21.0,
                "baseline": "",
                "n_pairs": None,
            }
            for p in ("native", "lxc")
        ] + [
            {
                **common,
                "platform": "lxc",
                "statistic": "ratio_to_baseline",
                "method": PAIRED_T,
                "estimate": ratio,
                "ci_low": ratio - 0.05,
                "ci_high": ratio + 0.05,
                "baseline": "native",
                "n_pairs": pairs,
            }
        ]

    stats = lookup_of(
        pd.DataFrame(rows("platforms", 1.5, 4) + rows("platforms@big", 1.0, 16) + rows("platforms@mid", 0.5, 8))
    )
    q = quoted_comparison(stats, "lxc", "native")
    assert (q.experiment, q.pairs, q.candidates, q.cell) == ("platforms@big", 16, 3, "128MB")
    assert quoted_comparison(stats, "oci", "native") is None


def test_counts_in_words_title_block_and_availability():
    from vbench.paper.macros import artifacts_sentence, counted

    assert [counted([3], "worker"), counted([1], "worker"), counted([2, 3], "worker")] == [
        "3 workers",
        "1 worker",
        "2 or 3 workers",
    ]
    assert counted([3, 16, 4], "run") == "3 to 16 runs"
    assert artifacts_sentence({"a": True, "delta": True}, {"f": True}) == "its 2 tables, 1 figure"
    assert artifacts_sentence({"a": False, "b": True}, {"f": True, "g": True}) == (
        "its 2 tables, 2 figures (1 of them without data in this build)"
    )
