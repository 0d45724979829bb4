"""Crash-atomic flushes: flushing processes killed with SIGKILL, then recovered.

The work happens in ``crash_driver.py``, run as a subprocess, which forks a fresh child per
kill; see its docstring. Every kill is followed by the recovery tai runs at start and a
check that each of the 20 files holds entirely one generation and that all agree.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

DRIVER = Path(__file__).with_name("crash_driver.py")


def drive(root: Path, mode: str, seed: int = 0, count: int = 0) -> dict:
    root.mkdir()
    done = subprocess.run(
        [sys.executable, str(DRIVER), str(root), mode, str(seed), str(count)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_a_kill_after_any_step_leaves_old_before_the_commit_and_new_after(
    tmp_path: Path,
) -> None:
    steps = drive(tmp_path / "work", "steps")["steps"]
    survivors = [survivor for _, _, survivor in steps]
    old = survivors.count("old")
    assert old >= 21  # the journal and the staging of the 20 files, before the commit
    assert survivors == ["old"] * old + ["new"] * (len(survivors) - old)
    assert {outcome for _, outcome, survivor in steps if survivor == "old"} == {"rolled back"}
    assert {outcome for _, outcome, survivor in steps if survivor == "new"} <= {
        "completed",
        "clean",
    }
    assert [outcome for _, outcome, _ in steps].count("completed") >= 21


def test_two_hundred_kills_at_random_instants(tmp_path: Path) -> None:
    report = drive(tmp_path / "work", "random", seed=20260101, count=200)
    outcomes = report["outcomes"]
    assert sum(outcomes.values()) == 200
    # The kills really landed inside flushes, on both sides of the commit.
    assert outcomes.get("rolled back", 0) >= 20
    assert outcomes.get("completed", 0) >= 10
    assert report["generation"] >= 5
