"""A reviewer's checks of the paper as built (issue #54 item 4), on its LaTeX sources.

The paper is generated, so what a reviewer would object to (an abstract of 460 words, "platform(s)",
`network.mode` or `platforms@xavier2014-oci` in a sentence, "issue #21" in a caption, "Tables: 21 of
21" beside 22 tables) comes from a generator and comes back whenever a generator changes. These
functions read the text as LaTeX will typeset it: `main.tex` with its `\\input`s of `generated/`
inlined and every `\\vb...` macro of `generated/macros.tex` expanded (`\\vbIf` evaluated), so a
check needs `vbench paper build`'s generated files but no LaTeX run. Each check returns the problems
it found as readable lines (empty: none), so a failing test says what to fix and where.
tests/unit/test_paper_review.py runs them on the paper rebuilt from the committed campaigns.

The checks of the LaTeX run read what it left: its log (undefined references, overfull boxes past
a small tolerance, the figures it placed) and its PDF and figures rendered to PNG by pdftoppm (a
figure missing, empty or blank; a blank page).

Pure: text in, text out; `read_paper`, `render`, `ink` and `figure_problems` alone read files.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

#: The abstract's limit in words (issue #54: a performance venue's).
ABSTRACT_WORDS = 200

#: Notes for the project, not the reader, that a generator or a bibliography entry let through.
INTERNAL_NOTES = (
    (re.compile(r"\bissues?\s*#?\s*\d+", re.I), "an issue number"),
    (re.compile(r"\bseed texts?\b", re.I), "the seed texts"),
    (re.compile(r"\btables?:\s*\d+\s+of\s+\d+", re.I), "a build's tally"),
    (re.compile(r"\b(?:TODO|FIXME|XXX)\b"), "a to-do"),
)

#: A raw identifier: lower-case words joined by "." or "_" (network.mode, vms_per_host), as a
#: parameter, metric or column is named in code. Words a reader writes so are allowed.
IDENTIFIER = re.compile(r"(?<![\w.\\/@-])([a-z][a-z0-9]*(?:[._][a-z][a-z0-9]*)+)(?![\w/@-])")
NOT_IDENTIFIERS = frozenset({"e.g", "i.e", "et.al", "cf"})
#: `<experiment>@<campaign>`: how the statistics tell two campaigns' experiments apart.
CAMPAIGN_ID = re.compile(r"[\w.-]+@[\w.-]+")
FLOATS = ("figure", "table", "longtable")


@dataclass(frozen=True)
class Paper:
    """The parts of the built paper a reviewer reads, as LaTeX with every macro expanded."""

    title: str  # \title and \date: the title block
    abstract: str
    prose: str  # the body without its floats (tables, figures) and without the abstract
    captions: tuple[str, ...]
    floats: tuple[str, ...]  # every table and figure environment, captions included
    references: str  # references.bib as printed: its comment lines dropped

    def labels(self, prefix: str) -> list[str]:
        """The distinct labels of the floats with this prefix ("tab", "fig"), in order."""
        found = re.findall(r"\\label\{(" + re.escape(prefix) + r":[^}]*)\}", "\n".join(self.floats))
        return list(dict.fromkeys(found))


# --- reading LaTeX ------------------------------------------------------------------------------


def group(text: str, start: int) -> tuple[str, int]:
    """The balanced `{...}` group opening at `text[start]` (escaped braces skipped): (its content,
    the index after it)."""
    if start >= len(text) or text[start] != "{":
        raise ValueError(f"no group at {start}: {text[start : start + 30]!r}")
    depth, i = 0, start
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1 : i], i + 1
        i += 1
    raise ValueError(f"unbalanced group at {start}: {text[start : start + 30]!r}")


def strip_comments(tex: str) -> str:
    """LaTeX without its `%` comments (an escaped `\\%` stays)."""
    return "\n".join(re.sub(r"(?<!\\)%.*$", "", line) for line in tex.splitlines())


def read_macros(macros_tex: str) -> dict[str, str]:
    """`generated/macros.tex`'s `\\newcommand{\\vbName}{value}`, name -> value."""
    out = {}
    for m in re.finditer(r"\\newcommand\{\\(vb[A-Za-z]+)\}", macros_tex):
        out[m[1]], _ = group(macros_tex, m.end())
    return out


def expand(tex: str, macros: dict[str, str]) -> str:
    """`tex` with every known `\\vb...` macro replaced by its value and `\\vbIf{flag}{a}{b}` by `a`
    when the flag reads 1, else `b` (as main.tex defines it). Unknown macros stay."""
    for _ in range(20):  # values hold no macros today; a few passes would do if they did
        out, pos = [], 0
        for m in re.finditer(r"\\(vb[A-Za-z]+)(?![A-Za-z])", tex):
            if m.start() < pos:
                continue
            out.append(tex[pos : m.start()])
            if m[1] == "vbIf":
                flag, i = group(tex, _skip_space(tex, m.end()))
                yes, i = group(tex, _skip_space(tex, i))
                no, i = group(tex, _skip_space(tex, i))
                out.append(_after_control_word(out, yes if expand(flag, macros).strip() == "1" else no))
                pos = i
            else:
                out.append(_after_control_word(out, macros.get(m[1], m[0])))
                # TeX skips the blanks after a control word, a line's end among them: "\\vbX\nNext"
                # prints the value glued to "Next" ("ratio.Next"), where "\\vbX{}" keeps the space.
                pos = _skip_blanks(tex, m.end()) if m[1] in macros else m.end()
        out.append(tex[pos:])
        new = "".join(out)
        if new == tex:
            return new
        tex = new
    return tex


def _after_control_word(out: list[str], value: str) -> str:
    """`value` as it follows what `out` holds so far: after a control word (`\\small\\vbDataNote`) a value
    starting with a letter gets a space, for LaTeX ends the control word at the macro's backslash
    and pasted text would make one word of both (`\\smallMeasured`, then dropped as a command)."""
    before = next((piece for piece in reversed(out) if piece), "")
    if value[:1].isalpha() and re.search(r"(?<!\\)(?:\\\\)*\\[A-Za-z]+$", before):
        return " " + value
    return value


def _skip_blanks(text: str, i: int) -> int:
    """Past the spaces and one line end after a control word, as TeX reads them; a blank line after
    it (a paragraph's end) stays."""
    while i < len(text) and text[i] in " \t":
        i += 1
    if i < len(text) and text[i] == "\n":
        i += 1
        while i < len(text) and text[i] in " \t":
            i += 1
    return i


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def inline_inputs(tex: str, root: Path) -> str:
    """`tex` with each `\\input{path}` replaced by that file under `root` (".tex" added as LaTeX
    does), recursively; a missing file stays an `\\input`."""

    def one(m: re.Match) -> str:
        name = m[1] if m[1].endswith(".tex") else m[1] + ".tex"
        f = root / name
        return inline_inputs(strip_comments(f.read_text(encoding="utf-8")), root) if f.is_file() else m[0]

    return re.sub(r"\\input\{([^}]*)\}", one, tex)


def environment(tex: str, name: str) -> str:
    """The content of the first `name` environment ("" when there is none)."""
    m = re.search(r"\\begin\{" + name + r"\}(.*?)\\end\{" + name + r"\}", tex, re.S)
    return m[1] if m else ""


def command_groups(tex: str, command: str) -> list[str]:
    """The first argument of every `\\command` (starred or with an optional argument too)."""
    out = []
    for m in re.finditer(r"\\" + command + r"\*?(?:\[[^\]]*\])?(?=\{)", tex):
        out.append(group(tex, m.end())[0])
    return out


def split_paper(main_tex: str, macros: dict[str, str], root: Path, references: str = "") -> Paper:
    """The built paper's parts from main.tex's text, the macros and the directory its `\\input`s
    are relative to (`generated/` under it)."""
    tex = strip_comments(main_tex)
    preamble, _, body = tex.partition(r"\begin{document}")
    body = expand(inline_inputs(body.partition(r"\end{document}")[0], root), macros)
    title = " ".join(expand(g, macros) for c in ("title", "date") for g in command_groups(preamble, c))
    abstract = environment(body, "abstract")
    pattern = re.compile(r"\\begin\{(" + "|".join(FLOATS) + r")\*?\}.*?\\end\{\1\*?\}", re.S)
    floats = tuple(m[0] for m in pattern.finditer(body))
    prose = pattern.sub(" ", body.replace(abstract, " ", 1) if abstract else body)
    captions = tuple(c for f in floats for c in command_groups(f, "caption"))
    printed = "\n".join(ln for ln in references.splitlines() if not ln.lstrip().startswith("%"))
    return Paper(title=title, abstract=abstract, prose=prose, captions=captions, floats=floats, references=printed)


def read_paper(out_dir: Path, sources: Path | None = None) -> Paper:
    """The paper built into `out_dir` (its `generated/`), from the main.tex and references.bib of
    `sources` (default: `out_dir`'s own, else the checkout's paper/)."""
    from vbench.paper.build import SOURCES

    out_dir = Path(out_dir)
    src = Path(sources) if sources is not None else (out_dir if (out_dir / "main.tex").is_file() else SOURCES)
    macros = read_macros((out_dir / "generated" / "macros.tex").read_text(encoding="utf-8"))
    bib = src / "references.bib"
    return split_paper(
        (src / "main.tex").read_text(encoding="utf-8"),
        macros,
        out_dir,
        bib.read_text(encoding="utf-8") if bib.is_file() else "",
    )


def plain(tex: str, *, code: bool = True) -> str:
    """What a reader sees of `tex`, near enough to count words and match phrases: numbers and units
    unwrapped, references as "1", commands dropped with their braces; `code=False` drops
    `\\texttt{...}` (names deliberately set as code) too."""
    if not code:
        tex = _drop_commands(tex, ("texttt", "url", "path"))
    tex = _drop_commands(tex, ("label", "cite", "citep", "citet", "bibliographystyle", "bibliography"), "")
    tex = re.sub(r"\\(?:ref|eqref|pageref)\{[^}]*\}", "1", tex)
    tex = re.sub(r"\\qty\{([^}]*)\}\{([^}]*)\}", r"\1 \2", tex)
    for src, dst in (
        (r"\textasciitilde{}", "~"),
        (r"\textasciicircum{}", "^"),
        (r"\%", "%"),
        (r"\_", "_"),
        (r"\#", "#"),
        (r"\&", "&"),
        (r"\$", "$"),
        (r"\{", "("),
        (r"\}", ")"),
        (r"\pm", "±"),
        (r"\dagger", "†"),
        (r"\\", " "),
    ):
        tex = tex.replace(src, dst)
    tex = re.sub(r"\\[,;:! ]", " ", tex)
    tex = re.sub(r"\\[A-Za-z]+\*?", "", tex)
    tex = re.sub(r"[{}$]", "", tex).replace("~", " ")
    return re.sub(r"\s+", " ", tex).strip()


def _drop_commands(tex: str, commands: tuple[str, ...], keep: str = " ") -> str:
    """`tex` with each `\\command{...}` of `commands` (its whole group) replaced by `keep`."""
    pattern = re.compile(r"\\(?:" + "|".join(commands) + r")\*?(?:\[[^\]]*\])?(?=\{)")
    out, pos = [], 0
    for m in pattern.finditer(tex):
        if m.start() < pos:
            continue
        out.append(tex[pos : m.start()] + keep)
        pos = group(tex, m.end())[1]
    return "".join(out) + tex[pos:]


def words(tex: str) -> int:
    """Words as a reader counts them (and `wc -w` on the PDF's text, near enough): the
    whitespace-separated tokens with a letter or a digit; "95 %" is one word, "[0.97, 1.05]" two."""
    return sum(1 for t in plain(tex).split() if re.search(r"[A-Za-z0-9]", t))


def _context(text: str, start: int, end: int, width: int = 40) -> str:
    return "..." + text[max(0, start - width) : end + width].strip() + "..."


def _parts(paper: Paper) -> list[tuple[str, str]]:
    """(where, text) of everything printed in sentences: title block, abstract, prose, captions."""
    return [
        ("title block", paper.title),
        ("abstract", paper.abstract),
        ("prose", paper.prose),
        *((f"caption {i + 1}", c) for i, c in enumerate(paper.captions)),
    ]


def _float_name(tex: str) -> str:
    """A float as a reader finds it: its label, else the start of its caption."""
    label = re.search(r"\\label\{([^}]*)\}", tex)
    captions = command_groups(tex, "caption")
    return label[1] if label else (plain(captions[0])[:30] if captions else "no label")


# --- the checks ---------------------------------------------------------------------------------


def abstract_length(paper: Paper, limit: int = ABSTRACT_WORDS) -> list[str]:
    n = words(paper.abstract)
    return [f"abstract: {n} words, over the limit of {limit}"] if n > limit else []


def s_plurals(paper: Paper) -> list[str]:
    """ "platform(s)": a generator that did not count, where the count is known. Tables' and figures'
    bodies too: their notes are where the statistics' own notes ("1 attempt(s) lost the race") land."""
    out = []
    floats = [(f"float {i + 1} ({_float_name(f)})", f) for i, f in enumerate(paper.floats)]
    for where, tex in [*_parts(paper), *floats]:
        out += s_plurals_in(where, tex)
    return out


def s_plurals_in(where: str, tex: str) -> list[str]:
    """ "(s)" plurals in one piece of LaTeX (a generated file, say), as `s_plurals` reports them."""
    text = plain(tex)
    return [f"{where}: '(s)' plural in {_context(text, m.start(), m.end())}" for m in re.finditer(r"\w\(s\)", text)]


def parameter_names(paper: Paper) -> list[str]:
    """Raw identifiers (network.mode, vms_per_host) in sentences: outside code font anywhere, and in
    the abstract even in code font, which has no place for code."""
    out = []
    for where, tex in _parts(paper):
        text = plain(tex, code=where == "abstract")
        for m in IDENTIFIER.finditer(text):
            if m[1].lower() not in NOT_IDENTIFIERS:
                out.append(f"{where}: parameter name '{m[1]}' in {_context(text, m.start(), m.end())}")
    return out


#: `name=value`: a factor's level as the samples record it ("stress=memory"), where a table names it
#: as a reader knows it ("stress: memory"). A one-letter name is mathematics ($n=13$).
KEY_VALUE = re.compile(r"(?<![\w.])([a-z][a-z0-9_.]+)=([\w+-]+(?:\.[\w+-]+)*)")


def table_names(paper: Paper) -> list[str]:
    """Raw identifiers (read_throughput, vms_per_host) and recorded levels (stress=memory) in the
    bodies and notes of tables and figures, outside code font: `parameter_names` reads the
    sentences; a table of findings is read as sentences too."""
    out = []
    for i, tex in enumerate(paper.floats):
        where = f"float {i + 1} ({_float_name(tex)})"
        text = plain(tex, code=False)
        for m in IDENTIFIER.finditer(text):
            if m[1].lower() not in NOT_IDENTIFIERS:
                out.append(f"{where}: parameter name '{m[1]}' in {_context(text, m.start(), m.end())}")
        out += [
            f"{where}: recorded level '{m[0]}' in {_context(text, m.start(), m.end())}"
            for m in KEY_VALUE.finditer(text)
        ]
    return out


def campaign_ids(paper: Paper) -> list[str]:
    """`<experiment>@<campaign>` in sentences, code font included: an internal key, not a name."""
    out = []
    for where, tex in _parts(paper):
        text = plain(tex)
        out += [
            f"{where}: campaign id '{m[0]}' in {_context(text, m.start(), m.end())}" for m in CAMPAIGN_ID.finditer(text)
        ]
    return out


def internal_notes(paper: Paper) -> list[str]:
    """Notes for the project (issue numbers, the seed texts, a build's tally) anywhere printed:
    title block, abstract, prose, captions and the references."""
    out = []
    for where, tex in [*_parts(paper), ("references", paper.references)]:
        text = plain(tex)
        for pattern, what in INTERNAL_NOTES:
            out += [f"{where}: {what}, {_context(text, m.start(), m.end())}" for m in pattern.finditer(text)]
    return out


#: "1 were reproduced": a count of one with a plural verb, from a sentence that did not count.
_ONE_WERE = re.compile(r"(?<![\d.,])\b1\s+were\b")
#: "ratio.WordCount": the next sentence glued to a full stop, as TeX leaves it when a macro at a
#: line's end eats the line break. Two lower-case letters before the stop, so that "et al.K" and
#: initials do not count, and an upper-case letter with a lower-case one after it.
_GLUED = re.compile(r"[a-z]{2}\.(?=[A-Z][a-z])")


def sentence_slips(paper: Paper) -> list[str]:
    """Slips a generated sentence makes and a reader sees at once, in sentences: "1 were" and two
    sentences glued at a full stop."""
    out = []
    for where, tex in _parts(paper):
        text = plain(tex)
        out += [f"{where}: '1 were' in {_context(text, m.start(), m.end())}" for m in _ONE_WERE.finditer(text)]
        out += [
            f"{where}: no space after a full stop in {_context(text, m.start(), m.end())}"
            for m in _GLUED.finditer(text)
        ]
    return out


#: A percentage of 100 or more: "about 213 %" where a reader says "about three times".
_BIG_PERCENT = re.compile(r"(?<![\d.\[,-])(?P<n>\d{3,}(?:\.\d+)?)\s*(?:\[[^\]]*\]\s*)?%")


def percent_multiples(paper: Paper) -> list[str]:
    """Costs of 100 % or more given as percentages in the abstract, which a reader takes in at a
    glance: they read as multiples (vbench.paper.fmt.times_text). Interval bounds are not costs."""
    text = plain(paper.abstract)
    return [
        f"abstract: {m['n']} % reads better as a multiple, {_context(text, m.start(), m.end())}"
        for m in _BIG_PERCENT.finditer(text)
    ]


#: How the text states a number of tables or figures: "22 tables", "21 of the 22 tables",
#: "Tables: 21 of 21", "figures: 8 of 8". The total is the number compared.
_COUNTS = (
    re.compile(r"\b(?P<kind>tables|figures):\s*\d+\s+of\s+(?P<n>\d+)", re.I),
    re.compile(r"\b\d+\s+of\s+(?:the|its|all)?\s*(?P<n>\d+)\s+(?P<kind>tables|figures)\b", re.I),
    re.compile(r"(?<!of )\b(?P<n>\d+)\s+(?P<kind>tables|figures)\b", re.I),
)


def float_counts(paper: Paper) -> list[str]:
    """Every number of tables or figures the text states, against the tables and figures built."""
    built = {"tables": len(paper.labels("tab")), "figures": len(paper.labels("fig"))}
    out = []
    for where, tex in _parts(paper):
        text = plain(tex)
        seen: set[int] = set()
        for pattern in _COUNTS:
            for m in pattern.finditer(text):
                if m.start() in seen:
                    continue
                seen.add(m.start())
                kind, n = m["kind"].lower(), int(m["n"])
                if n != built[kind]:
                    out.append(
                        f"{where}: says {n} {kind} ({_context(text, m.start(), m.end(), 20)}), "
                        f"the paper has {built[kind]}"
                    )
    return out


#: How the text states the delta's counts: "28 published findings", "5 reproduced", "2 were contradicted".
_VERDICT_COUNT = re.compile(
    r"\b(?P<n>\d+)\s+(?:were\s+|are\s+)?(?P<verdict>reproduced|contradicted|inconclusive|not measured)\b", re.I
)
#: delta.csv's column of the verdicts the intervals gave alone, before Holm's correction, and the
#: phrase that makes a sentence's counts those.
ALONE_COLUMN, ALONE_PHRASE = "verdict_interval_alone", "intervals alone"
_FINDINGS_COUNT = re.compile(r"\b(?P<n>\d+)\s+(?:published\s+)?findings\b", re.I)


def delta_counts(paper: Paper, delta: pd.DataFrame) -> list[str]:
    """The delta's counts the text states against those of its table (`delta.csv`): a verdict counts
    where the finding was tested on what it needs, as the table marks it; every finding counts once."""
    tested = delta["tested"].astype(str).str.lower().isin(["true", "1"])

    def expected(column: str) -> dict[str, int]:
        verdicts = delta[column].astype(str)
        out = {v: int(((verdicts == v) & tested).sum()) for v in ("reproduced", "contradicted", "inconclusive")}
        out["not measured"] = int((verdicts == "not measured").sum())
        return out

    after = expected("verdict")
    # A sentence about the intervals alone (before Holm's correction) counts the verdicts before it.
    before = expected(ALONE_COLUMN) if ALONE_COLUMN in delta.columns else after
    out = []
    for where, tex in _parts(paper):
        text = plain(tex)
        for m in _VERDICT_COUNT.finditer(text):
            v, n = m["verdict"].lower(), int(m["n"])
            sentence_start = max(text.rfind(". ", 0, m.start()), 0)
            expect = before if ALONE_PHRASE in text[sentence_start : m.start()].lower() else after
            if n != expect[v]:
                out.append(
                    f"{where}: says {n} {v} ({_context(text, m.start(), m.end(), 20)}), the delta table has {expect[v]}"
                )
        for m in _FINDINGS_COUNT.finditer(text):
            if int(m["n"]) != len(delta):
                out.append(
                    f"{where}: says {m['n']} findings ({_context(text, m.start(), m.end(), 20)}), "
                    f"the delta table has {len(delta)}"
                )
    return out


#: A margin as the text states it: "±5 %" (after `plain`).
_MARGIN = re.compile(r"±\s*(?P<m>\d+(?:\.\d+)?)\s*%")
#: How the text names the correction of the delta's verdicts and the size of its family.
_HOLM_FAMILY = re.compile(r"Holm's correction\s+runs over the (?P<n>\d+) verdicts with an interval", re.I)


def method_claims(paper: Paper, delta: pd.DataFrame, margins: list[float], alpha: float = 0.05) -> list[str]:
    """The method the text states against the one the delta applied (issue #54 item 2):

    * every margin the text states (``±5 %``) is a margin the findings use (`margins`: the
      equivalence margins of params/published.yaml, the paper's among them), and every margin the
      findings use is stated;
    * the correction the text names for the delta (Holm's, over N findings) is the one delta.csv
      carries: N findings with a p-value, each adjusted p-value Holm's
      (`vbench.stats.hypothesis.holm`, the statistics table's function) of the p-values, and each
      verdict the interval's where the adjusted p is at most `alpha`, inconclusive where not."""
    from vbench.stats.hypothesis import holm

    out = []
    text = plain(paper.prose)
    stated = {float(m["m"]) for m in _MARGIN.finditer(text)}
    used = {float(m) for m in margins}
    for m in sorted(stated - used):
        out.append(
            f"prose: states a margin of ±{m:g} %, the findings use {', '.join(f'±{u:g} %' for u in sorted(used))}"
        )
    for m in sorted(used - stated):
        out.append(f"prose: never states the margin ±{m:g} % that findings use")
    family = [int(m["n"]) for m in _HOLM_FAMILY.finditer(text)]
    if not family:
        out.append("prose: does not say which correction the delta's verdicts get (Holm's, over how many findings)")
        return out
    tested = delta[delta["p_value"].notna()] if "p_value" in delta.columns else delta.iloc[0:0]
    for n in family:
        if n != len(tested):
            out.append(
                f"prose: says Holm's correction runs over {n} findings, delta.csv has {len(tested)} with a p-value"
            )
    if tested.empty:
        return out
    adjusted = holm(tested["p_value"].to_numpy(dtype=float))
    for (_, row), adj in zip(tested.iterrows(), adjusted):
        if not abs(float(row["p_holm"]) - float(adj)) <= 1e-9:
            out.append(f"delta.csv: {row['id']} has p_holm {row['p_holm']}, Holm's adjustment gives {adj:.6g}")
        alone = str(row[ALONE_COLUMN])
        want = alone if adj <= alpha + 1e-12 or alone == "inconclusive" else "inconclusive"
        if str(row["verdict"]) != want:
            out.append(f"delta.csv: {row['id']} is {row['verdict']}, Holm's adjusted p {adj:.3g} gives {want}")
    return out


# --- the LaTeX run: its log and its PDF ---------------------------------------------------------

#: How far past its column a box may stick out before a reader would see it (TeX's points; 1 pt is
#: about a third of a millimetre). TeX reports every overfull box, however slight.
OVERFULL_TOLERANCE_PT = 1.0

_OVERFULL = re.compile(r"^Overfull \\(?P<box>[hv])box \((?P<pt>[\d.]+)pt too (?:wide|high)\) (?P<where>.*?)\s*$")
_UNDEFINED = re.compile(r"(?P<kind>Reference|Citation) `(?P<key>[^']*)' on page (?P<page>\d+) undefined")
_OPENED = re.compile(r"\((?P<file>\.?/[^\s()]+|[\w-]+\.(?:tex|bbl))")


def _log_messages(log: str, start: re.Pattern) -> list[tuple[re.Match, str]]:
    """Each log line matching `start`, with the file TeX was reading then (its stack of `(file`
    opened and `)` closed; the excerpt of a box TeX prints after the message is not read for files,
    for its text may hold parentheses of its own)."""
    found, stack, excerpt = [], [], False
    for line in log.splitlines():
        if excerpt:
            excerpt = bool(line.strip())
            continue
        m = start.match(line)
        if m:
            found.append((m, next((f for f in reversed(stack) if f), "main.tex")))
            excerpt = line.startswith(("Overfull", "Underfull"))
            continue
        for tok in re.finditer(r"\(|\)", line):
            if tok[0] == ")":
                if stack:
                    stack.pop()
            else:
                opened = _OPENED.match(line, tok.start())
                stack.append(opened["file"].removeprefix("./") if opened else None)
    return found


def overfull_boxes(log: str, tolerance_pt: float = OVERFULL_TOLERANCE_PT) -> list[str]:
    """Boxes TeX could not fit by more than `tolerance_pt`: a table past its column, a line past the
    margin. One line each, with the file and its lines, widest first."""
    boxes = [
        (
            float(m["pt"]),
            f"{file} {m['where']}: {m['box']}box {float(m['pt']):.1f} pt too {'wide' if m['box'] == 'h' else 'high'}",
        )
        for m, file in _log_messages(log, _OVERFULL)
        if float(m["pt"]) > tolerance_pt
    ]
    return [text for _, text in sorted(boxes, key=lambda b: -b[0])]


def undefined_references(log: str) -> list[str]:
    """`\\ref`s and `\\cite`s LaTeX could not resolve (printed as "??" or "[?]"), once each."""
    seen = {}
    for m in _UNDEFINED.finditer(log):
        seen.setdefault((m["kind"], m["key"]), m["page"])
    out = [f"{kind.lower()} '{key}' undefined (page {page})" for (kind, key), page in seen.items()]
    if not out and "There were undefined references" in log:
        out.append("LaTeX says there were undefined references")
    return out


#: A rendered figure or page with less ink than this (the fraction of its pixels that are not the
#: background) is taken for blank: a figure of one line on white axes has far more.
INK_MIN = 0.002


def figure_files(paper: Paper) -> dict[str, list[str]]:
    """Each figure's label -> the files its float includes (`\\includegraphics`), in order."""
    out = {}
    for f in paper.floats:
        if not f.lstrip().startswith(r"\begin{figure"):
            continue
        label = re.search(r"\\label\{(fig:[^}]*)\}", f)
        out[label[1] if label else _float_name(f)] = command_groups(f, "includegraphics")
    return out


def ink(png: Path) -> float:
    """The fraction of an image's pixels that differ from its most common colour (its background)."""
    from PIL import Image

    with Image.open(png) as im:
        grey = im.convert("L")
        hist = grey.histogram()
    total = sum(hist)
    background = max(range(256), key=lambda v: hist[v])
    # Anti-aliasing leaves near-background greys on a blank page's edges: not ink.
    near = sum(hist[max(0, background - 8) : background + 9])
    return (total - near) / total if total else 0.0


def render(
    pdf: Path, out_prefix: Path, *, dpi: int = 40, first: int | None = None, last: int | None = None
) -> list[Path]:
    """The PDF's pages (or `first`..`last`) as PNG files `<out_prefix>-<n>.png` by pdftoppm."""
    if not shutil.which("pdftoppm"):
        raise FileNotFoundError("pdftoppm (poppler-utils) is not installed")
    cmd = ["pdftoppm", "-png", "-r", str(dpi)]
    cmd += ["-f", str(first)] if first else []
    cmd += ["-l", str(last)] if last else []
    subprocess.run([*cmd, str(pdf), str(out_prefix)], check=True, capture_output=True, timeout=300)
    pages = sorted(out_prefix.parent.glob(out_prefix.name + "-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    return pages


def figure_problems(paper: Paper, out_dir: Path, work: Path) -> list[str]:
    """Figures a reader would find empty or missing: a figure float that includes no file, a file
    that is absent or empty, or one that renders blank (first page, by pdftoppm, into `work`)."""
    out = []
    for label, files in figure_files(paper).items():
        if not files:
            out.append(f"{label}: includes no graphics file")
        for name in files:
            f = Path(out_dir) / name
            if not f.is_file() and not f.suffix:
                f = next((f.with_suffix(s) for s in (".pdf", ".png") if f.with_suffix(s).is_file()), f)
            if not f.is_file() or f.stat().st_size == 0:
                out.append(f"{label}: {name} is {'empty' if f.is_file() else 'missing'}")
                continue
            if f.suffix == ".pdf":
                pngs = render(f, Path(work) / re.sub(r"\W", "_", label), first=1, last=1)
                png = pngs[0] if pngs else None
            else:
                png = f
            share = ink(png) if png is not None else 0.0
            if share < INK_MIN:
                out.append(f"{label}: {name} renders blank ({100 * share:.2f} % ink)")
    return out


#: pdflatex's line for each graphics file it placed: `<generated/figures/x.pdf, id=144, 455.3pt x 187.9pt>`.
_PLACED = re.compile(r"<(?P<file>[^<>,\s]+), id=\d+, (?P<w>[\d.]+)pt x (?P<h>[\d.]+)pt>")


def figures_not_placed(paper: Paper, log: str) -> list[str]:
    """Figures' files the LaTeX run did not place on a page with a size (its log names each one it
    did): a figure left out by a missing file, or drawn at no size."""
    placed = {m["file"]: float(m["w"]) * float(m["h"]) for m in _PLACED.finditer(log)}
    out = []
    for label, files in figure_files(paper).items():
        for name in files:
            hits = [area for f, area in placed.items() if f == name or Path(f).with_suffix("") == Path(name)]
            if not hits or max(hits) <= 0:
                out.append(f"{label}: {name} {'drawn at no size' if hits else 'not placed by LaTeX'}")
    return out


def figure_pages(aux: str) -> dict[str, int]:
    """Each figure's label -> the page LaTeX put it on, from the run's `.aux` (`\\newlabel`)."""
    return {m[1]: int(m[2]) for m in re.finditer(r"\\newlabel\{(fig:[^}]*)\}\{\{[^}]*\}\{(\d+)\}", aux)}


def blank_pages(pages: list[Path]) -> list[str]:
    """Rendered pages with no ink: a page of floats that came out empty, a stray page break."""
    return [f"page {i}: blank" for i, p in enumerate(pages, 1) if ink(p) < INK_MIN]
