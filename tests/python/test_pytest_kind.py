"""pytest blocks: real pytest runs in temporary projects, read back as the model reads them."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from tai_core import Block, BlockResult
from tai_core.plugins import PluginHost
from tai_core.testing import project
from tai_kind_pytest import REFUSED, PytestKind, split_arguments
from tai_kind_pytest._interpreter import find_interpreter
from tests.conftest import run_context, uv_executable
from tests.processes import alive, wait_for


def run(host: PluginHost, cwd: Path, body: str, **config: object) -> BlockResult:
    block = Block(kind="pytest", delimiter="W", params={}, body=body, line=1, start=0, end=0)
    return PytestKind().execute(block, run_context(host, cwd, command="py", config=config))


def head(cwd: Path, root: Path, args: str) -> str:
    python = shutil.which("python3")
    return (
        f"Working directory: {cwd}\n"
        f"Interpreter: {python} (python3 on PATH; no .venv or venv virtual environment at "
        f"{root})\n"
        f"Pytest command: {python} -m pytest -p no:cacheprovider --color=no {args}\n\n"
    )


def planted(path: Path, script: str) -> Path:
    """An executable shell script at ``path`` (a virtual environment's ``bin/python``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_pass_names_where_and_what_and_leaves_no_cache(host: PluginHost, calc: Path) -> None:
    result = run(host, calc, "-k test_add")
    assert result.ok, result.text
    assert result.text.startswith(head(calc, calc, "-k test_add") + "Tests passed.\nStdout:\n")
    assert "1 passed, 2 deselected" in result.text
    assert PytestKind.triggers_round and PytestKind.runs_programs
    left = {path.name for path in calc.rglob("*")}
    assert not left & {".pytest_cache", "__pycache__"}, left


def test_a_failure_is_fed_back(host: PluginHost, calc: Path) -> None:
    result = run(host, calc, "tests/test_calc.py::test_wrong")
    assert not result.ok
    assert "\n\nTests failed (exit status 1): some tests failed.\nStdout:\n" in result.text
    assert "wrong on purpose" in result.text and "1 failed" in result.text


def test_an_empty_body_runs_the_suite(host: PluginHost, calc: Path) -> None:
    result = run(host, calc, "")
    assert result.text.startswith(head(calc, calc, "").replace(" \n\n", "\n\n"))
    assert "1 failed, 1 passed, 1 skipped" in result.text and not result.ok


def test_a_breakpoint_left_in_the_code_does_not_stop_the_run(host: PluginHost, calc: Path) -> None:
    (calc / "tests" / "test_debug.py").write_text("def test_x():\n    breakpoint()\n")
    result = run(host, calc, "tests/test_debug.py")
    assert result.ok, result.text  # without PYTHONBREAKPOINT=0: BdbQuit, the stdin empty


def test_a_collection_error_is_an_interruption(host: PluginHost, calc: Path) -> None:
    (calc / "tests" / "test_broken.py").write_text("def test_x(:\n    pass\n")
    result = run(host, calc, "tests/test_broken.py")
    assert not result.ok
    assert "Tests interrupted (exit status 2): pytest stopped early" in result.text
    assert "ERROR collecting tests/test_broken.py" in result.text
    assert "SyntaxError" in result.text


def test_no_tests_collected_is_not_a_pass(host: PluginHost, calc: Path) -> None:
    result = run(host, calc, "-k 'nothing and matches'")
    assert not result.ok
    assert "No tests ran (exit status 5): pytest collected none. This is not a pass" in (
        result.text
    )


def test_an_unknown_option_is_a_usage_error(host: PluginHost, calc: Path) -> None:
    result = run(host, calc, "--no-such-option")
    assert not result.ok and "pytest failed (exit status 4): a usage error" in result.text
    assert "unrecognized arguments: --no-such-option" in result.text


def test_a_subdirectory_runs_in_itself_with_the_projects_settings(
    host: PluginHost, calc: Path
) -> None:
    tests = calc / "tests"
    result = run(host, tests, "test_calc.py::test_add")
    assert result.ok, result.text
    assert result.text.startswith(head(tests, calc, "test_calc.py::test_add"))
    assert f"rootdir: {calc}\nconfigfile: pyproject.toml" in result.text


@pytest.mark.slow
def test_the_time_limit_ends_the_whole_process_group(
    host: PluginHost, calc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = f"{3600 + os.getpid() % 1000 / 1000 + 0.0007:.4f}"
    started = tmp_path / "started"
    monkeypatch.setenv("CALC_HANG", marker)
    monkeypatch.setenv("CALC_STARTED", str(started))
    result = run(host, calc, "tests/test_hang.py", pytest_timeout=5)
    assert not result.ok
    assert "\n\nTests failed: timed out after 5 s (the process group was killed)\n" in result.text
    assert started.exists(), result.text  # the test was running, its child started
    wait_for(lambda: not alive(marker), "the hanging test's child to end")


def test_argument_splitting() -> None:
    assert split_arguments("") == []
    assert split_arguments("-k 'parse and not slow'\n\ntests/x.py::test_y\n-x") == [
        "-k", "parse and not slow", "tests/x.py::test_y", "-x",
    ]  # fmt: skip
    assert split_arguments("-p no:randomly --rootdir=. -c tox.ini") == [
        "-p", "no:randomly", "--rootdir=.", "-c", "tox.ini",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="No closing quotation"):
        split_arguments("-k 'open")


@pytest.mark.parametrize(
    ("body", "option", "why"),
    [
        ("--pdb", "--pdb", "waits for input at a terminal"),
        ("-x\n--trace", "--trace", "waits for input at a terminal"),
        ("--pdbcls=IPython.terminal.debugger:TerminalPdb", "--pdbcls", "a terminal"),
        ("-f", "-f", "never ending"),
        ("--basetemp=src", "--basetemp", "empties the directory"),
        ("--pastebin=all", "--pastebin", "web service"),
        ("--tx ssh=me@host", "--tx", "over ssh or sockets"),
        ("--lf", "--lf", "needs pytest's cache"),
        ("--sw", "--sw", "name the tests to run again by their node ids"),
    ],
)
def test_refused_options_say_why_and_run_nothing(
    host: PluginHost, tmp_path: Path, body: str, option: str, why: str
) -> None:
    ran = tmp_path / "ran"
    planted(tmp_path / ".venv" / "bin" / "python", f"touch {ran}")
    result = run(host, tmp_path, body)
    assert not result.ok and not ran.exists()
    assert result.text.startswith(f"pytest block refused: {option} is not allowed in pytest ")
    assert why in result.text and result.text.count("\n") == 1
    assert REFUSED[option] in result.text


def test_the_projects_virtual_environment_comes_first(
    host: PluginHost, calc: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "seen"
    python = planted(calc / ".venv" / "bin" / "python",
                     f'echo "$@" > {seen}\nexec {sys.executable} "$@"')  # fmt: skip
    result = run(host, calc, "-k test_add")
    assert result.ok, result.text
    assert f"Interpreter: {python} (the project's virtual environment {calc / '.venv'})\n" in (
        result.text
    )
    assert seen.read_text() == "-m pytest -p no:cacheprovider --color=no -k test_add\n"


def test_a_python_without_pytest_says_so(host: PluginHost, calc: Path) -> None:
    python = planted(calc / "venv" / "bin" / "python", f'exec {sys.executable} -I -S "$@"')
    result = run(host, calc, "")
    assert not result.ok
    assert f"Tests not run (exit status 1): pytest is not installed for {python}." in result.text


def test_an_interpreter_that_cannot_start_says_why(host: PluginHost, calc: Path) -> None:
    python = planted(calc / ".venv" / "bin" / "python", "")
    python.write_text("#!/no/such/interpreter\n")
    result = run(host, calc, "")
    assert not result.ok
    assert result.text.endswith(
        f"Pytest command: {python} -m pytest -p no:cacheprovider --color=no\n\n"
        f"Error: cannot start {python}: No such file or directory\n"
    )


def test_which_interpreter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "p", {"setup.cfg": "", "src/p/__init__.py": ""})
    below = root / "src" / "p"
    venv = planted(root / "venv" / "bin" / "python", "")
    assert find_interpreter(below).path == str(venv)  # the root's, from below it
    dot = planted(root / ".venv" / "bin" / "python", "")
    assert find_interpreter(below).path == str(dot)  # .venv before venv
    dot.chmod(0o644)
    assert find_interpreter(below).path == str(venv)  # not runnable: not used
    shutil.rmtree(root / "venv")
    only = tmp_path / "bin"
    planted(only / "python", "")
    monkeypatch.setenv("PATH", str(only))
    found = find_interpreter(below)
    assert found.path == str(only / "python")
    assert found.reason == f"python on PATH; no .venv or venv virtual environment at {root}"
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    found = find_interpreter(tmp_path)  # no project: the directory itself is looked at
    assert found.path == sys.executable
    assert found.reason == (
        "the interpreter running tai, not the project's: no python3 or python on PATH; "
        f"no .venv or venv virtual environment at {tmp_path}"
    )


@pytest.mark.slow
def test_a_real_virtual_environment_of_the_project_runs_the_tests(
    host: PluginHost, calc: Path, uv_cache: str
) -> None:
    import os
    import subprocess

    uv = uv_executable()
    env = {**os.environ, "UV_CACHE_DIR": uv_cache}  # the suite's cache: pytest is in it
    subprocess.run([uv, "venv", "-q", ".venv"], cwd=calc, check=True, env=env)
    subprocess.run([uv, "pip", "install", "-q", "--offline", "--python", ".venv/bin/python",
                    "pytest"], cwd=calc, check=True, env=env)  # fmt: skip
    (calc / "tests" / "test_where.py").write_text(
        f"import sys\n\n\ndef test_where():\n    assert sys.prefix == {str(calc / '.venv')!r}\n"
    )
    result = run(host, calc, "tests/test_where.py")
    assert result.ok, result.text
    python = calc / ".venv" / "bin" / "python"
    assert f"Interpreter: {python} (the project's virtual environment {calc / '.venv'})\n" in (
        result.text
    )
    assert f"Pytest command: {python} -m pytest -p no:cacheprovider --color=no tests/" in (
        result.text
    )
