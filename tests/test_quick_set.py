"""The quick set's watch names the tests not marked slow that took long, and only them."""

from __future__ import annotations

import pytest

from tests import quick_set

pytest_plugins = ["pytester"]

TESTS = """
import time
import pytest

def test_quick():
    pass

def test_long_unmarked():
    time.sleep(0.2)

@pytest.mark.slow
def test_long_marked():
    time.sleep(0.2)
"""


def test_only_long_unmarked_tests_are_named(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(quick_set, "LIMIT", 0.1)
    pytester.makeini("[pytest]\nmarkers =\n    slow: takes seconds\n")
    pytester.makepyfile(test_timed=TESTS)
    result = pytester.runpytest_inprocess("-p", "tests.quick_set")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*1 test(s) not marked slow took over 0.1 s: mark them?*",
            "*s  test_timed.py::test_long_unmarked",
        ]
    )
    assert "test_long_marked" not in result.stdout.str()
    assert "test_quick" not in result.stdout.str()


def test_a_quick_run_names_none(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_timed="def test_quick():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "tests.quick_set")
    result.assert_outcomes(passed=1)
    assert "not marked slow" not in result.stdout.str()
