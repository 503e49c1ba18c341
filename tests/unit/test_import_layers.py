"""Layers import downwards only (docs/architecture.md, "The layers").

LAYERS is the one written order; the docs' table is checked against it, so the two cannot drift.
Imports inside functions and under TYPE_CHECKING count: they still tie a lower layer to a
higher one's code.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "vbench"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

#: Lowest first: the top-level modules and packages of vbench/ in each layer. "vbench" is the
#: package's own __init__.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "core",
        (
            "errors",
            "path_below",
            "units",
            "validate",
            "params",
            "machine_fit",
            "host",
            "each_host",
            "lifecycle",
            "durable",
            "ledger",
            "samples",
            "store",
            "cache",
            "statedir",
            "wording",
            "vbench",
        ),
    ),
    ("hosts", ("testbed", "inventory")),
    ("cluster", ("hadoop",)),
    ("measure", ("monitor", "benchmarks")),
    ("run", ("campaign", "isolation", "smoke", "provenance")),
    ("statistics", ("stats",)),
    ("stages", ("pipeline", "explore", "report")),
    ("paper", ("paper",)),
    ("interface", ("commands", "cli", "notebook_stage")),
)

#: (importing module, imported top-level name): the upward imports that remain, each with why.
#: An entry that is no longer needed fails the test too, so the list only shrinks.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {
    ("vbench.inventory.prepare", "hadoop"): "`vbench inventory prepare` pushes Hadoop's jars to the hosts",
    ("vbench.inventory.source", "hadoop"): "the inventory hosts source stops the Hadoop daemons a killed run left",
}

RANK = {name: i for i, (_, names) in enumerate(LAYERS) for name in names}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top_level(module: str) -> str:
    """vbench.hadoop.config -> hadoop; vbench itself -> vbench."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every vbench import in the file, relative ones resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            # `from vbench import stats` imports the subpackage, not vbench's __init__.
            targets = [f"{base}.{a.name}" for a in node.names] if base == "vbench" else [base]
            found += [(node.lineno, t) for t in targets]
    return [(line, m) for line, m in found if m == "vbench" or m.startswith("vbench.")]


def resolve_top(module: str) -> str:
    top = top_level(module)
    # `from vbench import __version__` names an attribute of the package, not a module.
    return top if top in RANK or module.count(".") > 1 else "vbench"


def upward_imports() -> list[tuple[str, int, str, str]]:
    """(file, line, importing module, imported top-level name) of every import that goes up."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = module_name(path)
        for line, module in imported_modules(path):
            target = resolve_top(module)
            if RANK[target] > RANK[top_level(importer)]:
                found.append((str(path.relative_to(ROOT)), line, importer, target))
    return found


def layer_of(top: str) -> str:
    return LAYERS[RANK[top]][0]


def test_every_module_of_vbench_has_a_layer():
    tops = {top_level(module_name(p)) for p in PACKAGE.rglob("*.py")}
    missing = sorted(tops - set(RANK))
    assert not missing, (
        f"no layer for {missing}: add each to LAYERS in {Path(__file__).name} and to the layers "
        "table of docs/architecture.md"
    )


def test_layers_import_downwards_only():
    bad = [
        f"{file}:{line}: {importer} ({layer_of(top_level(importer))}) imports vbench.{target} ({layer_of(target)})"
        for file, line, importer, target in upward_imports()
        if (importer, target) not in ALLOWED_UPWARD
    ]
    assert not bad, (
        "a lower layer imports a higher one (docs/architecture.md, The layers); move the shared "
        "code down instead:\n" + "\n".join(bad)
    )


def test_every_allowed_upward_import_is_still_needed():
    used = {(importer, target) for _, _, importer, target in upward_imports()}
    stale = sorted(set(ALLOWED_UPWARD) - used)
    assert not stale, (
        f"no longer imported upwards: remove {stale} from ALLOWED_UPWARD and from the known "
        "exceptions of docs/architecture.md"
    )


def _docs_section(title: str) -> str:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    start = text.index(title)
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_docs_layer_table_matches_layers():
    rows = re.findall(r"^\| (\d+)\. (\w+) \| ([^|]+) \|", _docs_section("## The layers"), re.M)
    documented = [(name, tuple(re.findall(r"`([\w.]+)`", modules))) for _, name, modules in rows]
    assert [(name, tuple(sorted(ms))) for name, ms in documented] == [(name, tuple(sorted(ms))) for name, ms in LAYERS]


def test_docs_list_the_allowed_upward_imports():
    section = _docs_section("## The layers")
    exceptions = section[section.index("Known exceptions") :]
    documented = {
        m.replace("/", ".").removesuffix(".py") for m in re.findall(r"^\| `(vbench/[\w/]+\.py)`", exceptions, re.M)
    }
    assert documented == {importer for importer, _ in ALLOWED_UPWARD}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from vbench.paper import data", ["vbench.paper"]),
        ("from vbench import stats, __version__", ["vbench.stats", "vbench.__version__"]),
        ("def f():\n    import vbench.cli", ["vbench.cli"]),
        ("from ..commands import stats_cmd", ["vbench.commands"]),
        ("from . import io", ["vbench.stats"]),
        ("import os", []),
    ],
)
def test_imports_are_found_wherever_and_however_written(tmp_path, monkeypatch, source, expected):
    fake_root = tmp_path / "vbench"
    path = fake_root / "stats" / "x.py"
    path.parent.mkdir(parents=True)
    path.write_text(source)
    monkeypatch.setattr(f"{__name__}.PACKAGE", fake_root)
    assert [m for _, m in imported_modules(path)] == expected
