"""pyproject.toml declares what vbench imports, at the versions it needs, and nothing else
(issue #24, item 7). Imports are read with ast, so nothing here depends on what is installed."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
FIRST_PARTY = {"vbench", "tests", "selfbench"}

#: Import names whose distribution is named otherwise.
DISTRIBUTION_OF_IMPORT = {"yaml": "pyyaml", "PIL": "pillow"}

#: Declared, imported nowhere, and needed all the same.
USED_WITHOUT_IMPORT = {
    "pyarrow": "pandas' engine for read_parquet / to_parquet (vbench/pipeline.py, vbench/stats/io.py)",
    "ipykernel": "the kernel papermill runs the stage notebooks in",
    "jupyterlab": "where the notebooks are opened and edited",
    "dvc": "runs the pipeline of dvc.yaml: a command, not a library",
}

#: Declared for the tests, imported nowhere: commands the test run calls.
TEST_COMMANDS = {
    "ruff": "scripts/setup.sh test lints with `ruff check` before pytest",
    "pytest-xdist": "scripts/setup.sh test runs the unit tests on every core (`-n auto`)",
}

#: Minimum versions that what vbench or its tests call need.
NEEDED_MINIMUM = {
    "scipy": ((1, 15), "scipy.stats.bootstrap(..., rng=) in tests/unit/test_stats_describe.py and test_stats_ratio.py"),
}


def normalized(name: str) -> str:
    """A distribution name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(spec: str) -> str:
    return normalized(re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", spec).group(0))


def requirement_minimum(spec: str) -> tuple[int, ...] | None:
    m = re.search(r">=\s*([0-9]+(?:\.[0-9]+)*)", spec)
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


def declared(*groups: str) -> dict[str, str]:
    """Distribution -> requirement, of [project] dependencies ("core") and the named extras."""
    specs = []
    for group in groups:
        specs += PROJECT["dependencies"] if group == "core" else PROJECT["optional-dependencies"][group]
    return {requirement_name(s): s for s in specs}


def distribution(import_name: str) -> str:
    return normalized(DISTRIBUTION_OF_IMPORT.get(import_name, import_name))


def is_third_party(top: str) -> bool:
    return top not in sys.stdlib_module_names and top not in FIRST_PARTY and top != "__future__"


# -- reading imports ----------------------------------------------------------------------------


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def absolute(node: ast.ImportFrom, path: Path) -> str:
    """The module an ImportFrom names, relative imports resolved against `path`."""
    if not node.level:
        return node.module or ""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def imported_names(statements, path: Path) -> set[str]:
    """Dotted names that import statements among `statements` load (for `from a import b`: a and a.b)."""
    names = set()
    for node in statements:
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = absolute(node, path)
            names |= {module} | {f"{module}.{a.name}" for a in node.names}
    return names


def all_imports(path: Path) -> set[str]:
    return imported_names(ast.walk(ast.parse(path.read_text())), path)


def import_time_imports(path: Path) -> set[str]:
    """What importing the module runs: its body's imports, also under if/try, not those in functions."""

    def body(statements):
        for node in statements:
            yield node
            if isinstance(node, (ast.If, ast.Try)):
                yield from body(node.body + node.orelse + getattr(node, "finalbody", []))
                for handler in getattr(node, "handlers", []):
                    yield from body(handler.body)

    return imported_names(body(ast.parse(path.read_text()).body), path)


def third_party(names) -> dict[str, str]:
    """Top-level import name -> its distribution, for the third-party ones among `names`."""
    tops = {n.split(".")[0] for n in names}
    return {t: distribution(t) for t in tops if is_third_party(t)}


def sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def imports_of(folder: str) -> dict[str, set[str]]:
    """Distribution -> files of `folder` that import it."""
    out: dict[str, set[str]] = {}
    for path in sources(folder):
        for dist in third_party(all_imports(path)).values():
            out.setdefault(dist, set()).add(str(path.relative_to(ROOT)))
    return out


def command_line_modules() -> dict[str, Path]:
    """Every vbench module that `vbench --help` imports (cli.py imports every command module for it)."""
    modules = {module_name(p): p for p in sources("vbench")}
    todo = ["vbench.cli", *(m for m in modules if m.startswith("vbench.commands."))]
    seen: dict[str, Path] = {}
    while todo:
        name = todo.pop()
        if name in seen or name not in modules:
            continue
        seen[name] = modules[name]
        parents = [".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)]
        todo += parents + [n for n in import_time_imports(modules[name]) if n.split(".")[0] == "vbench"]
    return seen


# -- the tests ------------------------------------------------------------------------------------


def test_every_third_party_import_of_vbench_is_declared():
    undeclared = {d: files for d, files in imports_of("vbench").items() if d not in declared("core", "pipeline")}
    assert undeclared == {}


def test_what_the_command_line_imports_is_a_core_dependency():
    # `pip install vbench` without extras must give a working `vbench` command.
    needs = {}
    for name, path in command_line_modules().items():
        for dist in third_party(import_time_imports(path)).values():
            needs.setdefault(dist, set()).add(name)
    assert {d: sorted(m) for d, m in needs.items() if d not in declared("core")} == {}


def test_the_tests_import_only_declared_distributions():
    undeclared = {d: files for d, files in imports_of("tests").items() if d not in declared("core", "pipeline", "test")}
    assert undeclared == {}


def test_every_declared_dependency_is_used():
    used = set(imports_of("vbench")) | set(USED_WITHOUT_IMPORT)
    unused = sorted(set(declared("core", "pipeline")) - used)
    assert unused == [], f"declared, never imported by vbench/: {unused}"
    assert sorted(set(declared("test")) - set(imports_of("tests")) - set(TEST_COMMANDS)) == []


def test_what_is_used_without_an_import_is_declared():
    assert sorted(set(USED_WITHOUT_IMPORT) - set(declared("core", "pipeline"))) == []


def test_nothing_is_declared_twice():
    specs = PROJECT["dependencies"] + [s for extra in PROJECT["optional-dependencies"].values() for s in extra]
    names = [requirement_name(s) for s in specs]
    assert sorted({n for n in names if names.count(n) > 1}) == []


@pytest.mark.parametrize("dist", sorted(NEEDED_MINIMUM))
def test_minimum_versions_cover_what_is_called(dist):
    needed, why = NEEDED_MINIMUM[dist]
    spec = declared("core", "pipeline", "test")[dist]
    assert (requirement_minimum(spec) or ()) >= needed, f"{spec}: {why} needs {'.'.join(map(str, needed))}"


def test_every_requirement_has_a_minimum_version():
    specs = PROJECT["dependencies"] + [s for extra in PROJECT["optional-dependencies"].values() for s in extra]
    assert [s for s in specs if requirement_minimum(s) is None] == []


def test_package_data_names_files_that_exist():
    package_data = (
        tomllib.loads((ROOT / "pyproject.toml").read_text())
        .get("tool", {})
        .get("setuptools", {})
        .get("package-data", {})
    )
    missing = [
        f"{pkg}/{pattern}"
        for pkg, patterns in package_data.items()
        for pattern in patterns
        if not any(p.is_file() for p in (ROOT / pkg.replace(".", "/")).glob(pattern))
    ]
    assert missing == []


def test_the_conda_environment_asks_for_the_same_distributions():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
    conda = {
        requirement_name(s): s.replace(" ", "")
        for s in env
        if isinstance(s, str) and s not in ("pip",) and not s.startswith("python")
    }
    pip = {n: s.replace(" ", "") for n, s in declared("core", "pipeline", "test").items()}
    assert conda == pip


def test_import_names_map_to_the_distributions_that_provide_them():
    """Checked against what is installed here, for the names that are."""
    provided = importlib.metadata.packages_distributions()
    names = set(imports_of("vbench")) | set(imports_of("tests"))
    by_import = {
        t: distribution(t) for p in [*sources("vbench"), *sources("tests")] for t in third_party(all_imports(p))
    }
    wrong = {
        t: (d, provided[t])
        for t, d in by_import.items()
        if t in provided and d not in {normalized(x) for x in provided[t]}
    }
    assert names and wrong == {}


def test_the_commands_the_test_dependencies_are_declared_for_are_in_setup_sh():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert ".venv/bin/ruff check" in setup
    unit_line = next(line for line in setup.splitlines() if "pytest" in line and "tests/unit" in line)
    assert " -n auto " in unit_line, unit_line  # pytest-xdist; the integration tests stay serial
    integration_line = next(line for line in setup.splitlines() if "pytest" in line and "tests/integration" in line)
    assert " -n " not in integration_line, integration_line
