"""Small Python projects in temporary directories, and pytest runs kept quick."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tai_core.testing import project

CALC = {
    "pyproject.toml": (
        '[project]\nname = "calc"\nversion = "0"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
    ),
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": """\
from calc import add


def test_add():
    assert add(1, 2) == 3


def test_wrong():
    assert add(2, 2) == 5, "wrong on purpose"
""",
    # Runs only when CALC_HANG names a marker: starts a child in the test's process group,
    # says so in a file, then waits for ever.
    "tests/test_hang.py": """\
import os
import subprocess
import time
from pathlib import Path

import pytest


@pytest.mark.skipif(not os.environ.get("CALC_HANG"), reason="hangs on purpose")
def test_hang():
    subprocess.Popen(["sleep", os.environ["CALC_HANG"]])
    Path(os.environ["CALC_STARTED"]).write_text("started")
    time.sleep(3600)
""",
}


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    """The calc project: one passing test, one failing, one that hangs when asked."""
    return project(tmp_path / "calc", CALC)


@pytest.fixture(autouse=True)
def quick_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python3`` on PATH is the Python running these tests (it has pytest), and pytest
    loads no plugins of this environment (hypothesis, xdist …): seconds saved per run."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
