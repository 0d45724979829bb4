"""The README's main job in Python: the bundled package fixed through goal loops, end to end
— with the bundled replay model (what `scripts/example.sh py` runs), in a copy that has a
virtual environment of its own holding pytest, so tai's pytest blocks run there."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, run_tai, uv_executable

EXAMPLE = REPO / "examples" / "pystats"
TASK = (
    "pystats.stats.mean is wrong: the mean of 1, 2, 3 and 6 must be 3. Fix it and prove it "
    "with the tests."
)

pytestmark = pytest.mark.slow


@pytest.fixture
def work(tmp_path: Path) -> Path:
    copy = tmp_path / "pystats"
    shutil.copytree(EXAMPLE, copy)
    return copy


def _suite(work: Path, python: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=work,
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_the_example_fails_before(work: Path) -> None:
    assert _suite(work, sys.executable).returncode == 1  # the bug is real


def test_with_the_replay_model_in_the_projects_own_environment(
    work: Path, isolated_env: dict[str, str], uv_cache: str
) -> None:
    import os

    uv = uv_executable()
    env = {**os.environ, "UV_CACHE_DIR": uv_cache}
    subprocess.run([uv, "venv", "-q", ".venv"], cwd=work, check=True, env=env)
    subprocess.run([uv, "pip", "install", "-q", "--offline", "--python", ".venv/bin/python",
                    "pytest"], cwd=work, check=True, env=env)  # fmt: skip
    result = run_tai("-model", "replay:fix-mean.replay", "chat", TASK, cwd=work, env=isolated_env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Goal Achieved after 2 loop(s)" in result.stderr
    assert "-    return total(values) / (len(values) - 1)" in result.stderr  # the diff
    assert f"Interpreter: {work / '.venv/bin/python'}" in result.stderr
    assert "return total(values) / len(values)\n" in (work / "src/pystats/stats.py").read_text()
    suite = _suite(work, str(work / ".venv/bin/python"))
    assert suite.returncode == 0, suite.stdout + suite.stderr


def test_dash_py_stages_a_directory_without_project_files(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    work = tmp_path / "scripts"
    work.mkdir()
    (work / "tool.py").write_text('"""A tool."""\n\n\ndef run(n: int) -> int:\n    return n\n')
    done = "<<甲乙 done\nNothing to change.\n甲乙\n<<丙丁 summary\n- read tool.run\n丙丁\n"
    replay = work / "r.replay"
    replay.write_text(
        "@@@ reply\n@@@ expect user: begin of focus module tool\n"
        f"@@@ expect user: def run(n: int) -> int:\n{done}"
        f"@@@ reply\n{done}"
    )
    result = run_tai("-py", "-model", f"replay:{replay}", "chat", "Look at run", cwd=work,
                     env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Goal Achieved after 2 loop(s)" in result.stderr
    plain = run_tai("-model", f"replay:{replay}", "-ignore", "r.replay", "chat", "Look at run",
                    cwd=work, env=isolated_env)  # fmt: skip
    assert plain.returncode != 0  # without -py: the any-text context, which shows the file whole
    assert "expected the last user message to contain 'begin of focus module tool'" in (
        plain.stderr
    )


@pytest.mark.permissions  # tai runs sandboxed: CI runs this as root and not root
def test_a_subdirectory_of_a_project_under_tmp_is_staged_as_python_in_the_sandbox(
    tmp_path: Path, work: Path, isolated_env: dict[str, str]
) -> None:
    if not tmp_path.is_relative_to("/tmp"):
        pytest.skip("pytest's temporary directory is not under /tmp (fresh in the sandbox)")
    tests = work / "tests"
    done = "<<甲乙 done\nNothing to change.\n甲乙\n<<丙丁 summary\n- read the tests\n丙丁\n"
    (tests / "r.replay").write_text(
        "@@@ reply\n@@@ expect user: begin of focus module tests.test_stats\n"
        f"{done}@@@ reply\n{done}"
    )  # the pyproject.toml above the directory must be seen inside the sandbox's fresh /tmp
    result = run_tai("-model", "replay:r.replay", "chat", "Read the tests", cwd=tests,
                     env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    # goal loops, not one any-text session (whose context would show the transcript too)
    assert "Goal Achieved after 2 loop(s)" in result.stderr


def test_a_disk_that_refuses_the_changes_stops_the_loops(
    work: Path, isolated_env: dict[str, str]
) -> None:
    """No loop can mend a tree the disk will not write (here a file where the flush's
    journal directory must go, which binds root too): the run stops after the first
    loop with exit status 1, instead of feeding the failure back until a ``done`` of the
    model's is taken for the goal achieved."""
    (work / ".tai-journal").write_text("in the way\n")
    change = (
        '<<甲乙 change(op="MODIFY", target="mean", file-path="src/pystats/stats.py")\n'
        "def mean(values: Sequence[float]) -> float:\n    return total(values) / len(values)\n"
        "甲乙\n<<丙丁 summary\n- fixed mean\n丙丁\n"
    )
    done = "<<甲乙 done\nFixed.\n甲乙\n<<丙丁 summary\n- done\n丙丁\n"
    replay = work / "refused.replay"  # in the tree: the sandbox's /tmp is its own
    replay.write_text(f"@@@ reply\n{change}@@@ reply\n{done}@@@ reply\n{done}")
    before = (work / "src/pystats/stats.py").read_text()
    result = run_tai("-model", f"replay:{replay}", "chat", TASK, cwd=work, env=isolated_env)
    assert result.returncode == 1, result.stderr[-3000:]
    assert "tai: error: writing the round's changes failed: nothing was written" in result.stderr
    assert "=== Goal Loop 2/" not in result.stderr and "Goal Achieved" not in result.stderr
    assert (work / "src/pystats/stats.py").read_text() == before
