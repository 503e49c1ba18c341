"""The documentation's pointers hold: every relative link resolves, the README stays an entry page
that reaches every page of docs/, and the paper map names everything the paper stage generates.

Links are what rots first when files move (issue #17: a paper map linked but never written, a
notebooks README saying the notebooks did not exist yet), and nothing else would notice."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAPER_MAP = DOCS / "paper-map.md"

#: The README is an entry page, not a lab notebook: topic pages hold the rest (issue #17: ~150).
README_MAX_LINES = 160

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...


def markdown_files() -> list[Path]:
    return [
        README,
        *sorted(DOCS.glob("*.md")),
        ROOT / "paper" / "README.md",
        ROOT / "notebooks" / "README.md",
        ROOT / "data" / "README.md",
    ]


def prose(text: str) -> str:
    """The text without code blocks and code spans, where a `[x](y)` is an example, not a link."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def links(path: Path) -> list[str]:
    text = prose(path.read_text(encoding="utf-8"))
    return INLINE_LINK.findall(text) + REFERENCE_DEF.findall(text)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: link targets and markup dropped, lower case, punctuation other
    than '-' and '_' removed, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"[^\w\- ]", "", text.replace("`", "").lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, title in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(title)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def resolve(source: Path, target: str) -> tuple[Path, str]:
    """(path, anchor) of a relative link; a bare '#anchor' points into the source itself."""
    target, _, anchor = target.partition("#")
    path = (source.parent / unquote(target)).resolve() if target else source
    return path, unquote(anchor)


def relative_links() -> list[tuple[Path, str]]:
    return [(f, t) for f in markdown_files() for t in links(f) if not EXTERNAL.match(t)]


def test_the_pages_checked_exist_and_have_links():
    for f in markdown_files():
        assert f.is_file(), f
    assert len(relative_links()) > 50  # the parser finds the links (a broken regex would pass all)


@pytest.mark.parametrize(
    "source,target", relative_links(), ids=lambda v: str(v.relative_to(ROOT)) if isinstance(v, Path) else v
)
def test_relative_link_resolves(source: Path, target: str):
    path, anchor = resolve(source, target)
    assert path.exists(), f"{source.relative_to(ROOT)}: link target {target} does not exist"
    assert ROOT in path.parents or path == ROOT, f"{source.relative_to(ROOT)}: {target} leaves the repository"
    if anchor and path.suffix == ".md":
        assert anchor in anchors(path), (
            f"{source.relative_to(ROOT)}: {target}: no heading with anchor #{anchor} in {path.relative_to(ROOT)}"
        )


def test_slug_follows_github():
    assert slug("Network modes x VMs per host (`netmodes`)") == "network-modes-x-vms-per-host-netmodes"
    assert slug("Physical hosts, racks and Hadoop's topology") == "physical-hosts-racks-and-hadoops-topology"
    assert slug("The local testbed: native hosts") == "the-local-testbed-native-hosts"


def test_readme_is_an_entry_page():
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert n <= README_MAX_LINES, f"README.md has {n} lines; move detail into docs/ (at most {README_MAX_LINES})"


def test_readme_links_every_page_of_docs():
    linked = {resolve(README, t)[0] for t in links(README) if not EXTERNAL.match(t)}
    missing = [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked]
    assert not missing, f"docs pages the README's map does not link: {missing}"


def test_paper_map_names_every_table_and_figure_with_its_function():
    pytest.importorskip("matplotlib")
    pytest.importorskip("seaborn")
    from vbench.paper.figures import FIGURES
    from vbench.paper.tables import TABLES

    text = PAPER_MAP.read_text(encoding="utf-8")
    for name, (fn, label, _src) in TABLES.items():
        assert f"`{label}`" in text and f"{fn.__module__}.{fn.__name__}" in text, name
    for name, (fn, label, _cap, _src) in FIGURES.items():
        assert f"`{label}`" in text and f"{fn.__module__}.{fn.__name__}" in text, name


def test_paper_map_names_every_generated_input_and_macro_of_main_tex():
    main = (ROOT / "paper" / "main.tex").read_text(encoding="utf-8")
    text = PAPER_MAP.read_text(encoding="utf-8")
    for name in sorted(set(re.findall(r"\\input\{generated/([^}]+)\}", main))):
        stem = name.removesuffix(".tex")
        assert f"`{name}`" in text or f"`{stem}.{{pdf,png,tex}}`" in text, f"generated/{name} is not in the paper map"
    for macro in sorted(set(re.findall(r"\\vb[A-Za-z]+", main))):
        assert f"`{macro}`" in text, f"{macro} (used in paper/main.tex) is not in the paper map"
