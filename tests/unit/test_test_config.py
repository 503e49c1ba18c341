"""The test suite's own configuration (pyproject.toml, tests/conftest.py), run on small suites of
its own: a hung test ends the run naming it, a misspelt marker is an error, the budgets."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import INTEGRATION_TIMEOUT_S, SLOW_TIMEOUT_S

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def suite(pytester):
    """An empty suite with this repository's pytest configuration: pyproject.toml, tests/conftest.py."""
    shutil.copy(REPO / "pyproject.toml", pytester.path / "pyproject.toml")
    (pytester.path / "tests" / "unit").mkdir(parents=True)
    shutil.copy(REPO / "tests" / "conftest.py", pytester.path / "tests" / "conftest.py")
    return pytester


def test_a_test_hung_in_its_fixture_ends_the_run_naming_it(suite):
    suite.makepyfile(
        **{
            "tests/unit/test_hang.py": """
        import time
        import pytest

        @pytest.fixture
        def cluster():
            time.sleep(60)  # a bring-up that never answers

        def test_first():
            pass

        def test_hangs(cluster):
            pass

        def test_never_reached():
            pass
    """
        }
    )
    t0 = time.monotonic()
    # In a process of its own: the thread method ends the whole process.
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "-o", "timeout=1", timeout=50)
    assert time.monotonic() - t0 < 40
    assert result.ret == 1
    out = result.stdout.str()
    assert "Timeout: tests/unit/test_hang.py::test_hangs still running after 1 s" in out
    assert "in cluster\n    time.sleep(60)" in out  # the stack of the hang
    assert not re.search(r"\d+ passed", out)  # no summary: the run ended there


def test_a_misspelt_marker_is_an_error(suite):
    suite.makepyfile(
        **{
            "tests/unit/test_marker.py": """
        import pytest

        @pytest.mark.intergation
        def test_x():
            pass
    """
        }
    )
    result = suite.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*'intergation' not found in `markers` configuration option*"])


def test_integration_and_slow_tests_get_longer_budgets_unless_they_say(suite):
    suite.makepyfile(
        **{
            "tests/unit/test_budgets.py": """
        import pytest

        def test_unit():
            pass

        @pytest.mark.integration
        def test_integration():
            pass

        @pytest.mark.integration
        @pytest.mark.slow
        def test_slow():
            pass

        @pytest.mark.integration
        @pytest.mark.timeout(7)
        def test_says():
            pass
    """
        }
    )
    items, _ = suite.inline_genitems("-p", "no:cacheprovider")
    budgets = {i.name: (m.args[0] if (m := i.get_closest_marker("timeout")) else None) for i in items}
    assert budgets == {
        "test_unit": None,
        "test_integration": INTEGRATION_TIMEOUT_S,
        "test_slow": SLOW_TIMEOUT_S,
        "test_says": 7,
    }
    assert float(items[0].config.getini("timeout")) == 120  # what test_unit gets


def test_slow_tests_are_skipped_unless_asked_for(suite, monkeypatch):
    monkeypatch.delenv("VBENCH_SLOW", raising=False)
    suite.makepyfile(
        **{
            "tests/unit/test_slow.py": """
        import pytest

        @pytest.mark.slow
        def test_slow():
            pass
    """
        }
    )
    suite.runpytest("-p", "no:cacheprovider").assert_outcomes(skipped=1)
    suite.runpytest("-p", "no:cacheprovider", "-m", "slow").assert_outcomes(passed=1)
