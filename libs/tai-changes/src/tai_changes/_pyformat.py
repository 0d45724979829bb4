"""Formatting the Python files a round changed with the formatter their project declares.

Which formatter
    The configuration that governs the file, found as the formatters find it, from the
    file's directory upwards: a ``.ruff.toml`` or ``ruff.toml`` declares ruff; the first
    ``pyproject.toml`` governs, and declares ruff with a ``[tool.ruff]`` table (or
    ``[tool.ruff.format]``), else black with ``[tool.black]``, else nothing. A project that
    declares no formatter gets its files as written: tai imposes no style of its own.

Which program
    The formatter in the project's virtual environment (``.venv`` or ``venv`` beside the
    configuration), else the first one on ``PATH``; it reads the text on its standard input
    (``ruff format --stdin-filename PATH -``, ``black -q --stdin-filename PATH -``), with
    the file's path for its configuration and exclusions, and gets an environment of
    ``PATH``, ``HOME``, the locale and the temporary directory only: none of tai's keys.
    No program found: the files stay as written, nothing fails.

What the model could have planted
    The model writes files in the working directory, a virtual environment there
    included, so ``.venv/bin/ruff`` may be a program of its own. Inside tai's sandbox
    that is no more than the model's shell blocks may do: the formatter is prepared as
    their programs are (the store's ``prepare_program``, a run's ``tai_block_process``),
    so with ``-no-network`` it runs without network too. Outside it — ``-no-sandbox``,
    ``TAI_NO_SANDBOX=1``, ``tai patch`` run so, an outer isolation other than tai's — tai
    runs no formatter that lies in the working directory or the project's directory, by
    its path or by where its links lead (an activated virtual environment on ``PATH``
    included): the rule is *write now, run later*, and a program written by one sandboxed
    run must not be run by the next unsandboxed tai. Such a project is formatted only by
    a formatter installed elsewhere (``uv tool install ruff``). The sandbox says it is in
    force by ``TAI_IN_SANDBOX=1``, which only it sets.

A refusal
    When the formatter fails (a configuration it cannot read, syntax newer than it knows,
    a time-out), the file is left as written and the round goes on: tai has already
    checked that what it spliced compiles, so the refusal is about the formatter or its
    configuration — nothing the model's block could fix, and failing would block every
    Python change of the project. (goimports' refusal fails the round: it is Go's parser
    speaking about the model's code.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import attrs

from tai_changes._format import Runner, format_files, pending
from tai_changes._splice import decode, encode
from tai_core.store import FileStore

#: Set by tai's sandbox inside it (``tai_sandbox.isolation.INSIDE_VARIABLE``).
SANDBOX_VARIABLE = "TAI_IN_SANDBOX"
#: Longest time one formatter run may take.
TIMEOUT = 60.0
SUFFIXES = (".py", ".pyi")
_VENVS = (".venv", "venv")
_BIN, _EXE = ("Scripts", ".exe") if sys.platform == "win32" else ("bin", "")
#: The environment a formatter gets (what it needs to start and read its configuration).
_ENVIRONMENT = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "SYSTEMROOT")
_ARGUMENTS = {"ruff": ("format", "--stdin-filename"), "black": ("-q", "--stdin-filename")}


@attrs.frozen
class Formatter:
    """A formatter a project declares: ``ruff`` or ``black``, and the directory of the
    configuration that declares it."""

    name: str
    project: Path


def _tools(pyproject: Path) -> dict[str, object]:
    """The ``[tool]`` table of a ``pyproject.toml`` (empty when it cannot be read)."""
    import tomllib  # only when a Python file changed: tai patch of Go files stays light

    try:
        with pyproject.open("rb") as file:
            tools = tomllib.load(file).get("tool")
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    return tools if isinstance(tools, dict) else {}


def declared(path: Path) -> Formatter | None:
    """The formatter the configuration governing the file ``path`` declares, if any."""
    for directory in path.parents:
        if (directory / ".ruff.toml").is_file() or (directory / "ruff.toml").is_file():
            return Formatter("ruff", directory)
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            tools = _tools(pyproject)
            name = next((name for name in ("ruff", "black") if name in tools), None)
            return Formatter(name, directory) if name else None
    return None


def sandboxed() -> bool:
    """Whether tai runs inside its sandbox."""
    return os.environ.get(SANDBOX_VARIABLE) == "1"


def _within(path: Path, directories: tuple[Path, ...]) -> bool:
    """Whether ``path`` — as named, with its directory's links resolved, or resolved
    whole — lies in one of ``directories`` (resolved)."""
    named = path.absolute()
    places = (named, named.parent.resolve() / named.name, named.resolve())
    return any(place == d or d in place.parents for place in places for d in directories)


def _candidates(formatter: Formatter) -> Iterator[Path]:
    """The project's virtual environments, then ``PATH`` (an empty entry, the current
    directory, left out)."""
    program = formatter.name + _EXE
    for venv in _VENVS:
        yield formatter.project / venv / _BIN / program
    for directory in os.get_exec_path():
        if directory:
            yield Path(directory) / program


def executable(formatter: Formatter, root: Path) -> Path | None:
    """The program to run ``formatter`` with (see the module docstring), or ``None``."""
    planted = () if sandboxed() else (root.resolve(), formatter.project.resolve())
    for candidate in _candidates(formatter):
        usable = candidate.is_file() and os.access(candidate, os.X_OK)
        if usable and not _within(candidate, planted):
            return candidate
    return None


def _run(program: Path, formatter: Formatter, store: FileStore, key: str, text: str) -> str:
    """``text`` formatted as the file ``key`` by ``program``, prepared as the store says
    (a run's ``tai_block_process``: the sandbox's network cut); as written when it fails
    or cannot be prepared."""
    argv = [str(program), *_ARGUMENTS[formatter.name], str(store.root / key), "-"]
    env = {name: os.environ[name] for name in _ENVIRONMENT if name in os.environ}
    try:
        store.prepare_program(argv, env)
    except Exception:  # noqa: BLE001 - a plugin refused the program (hookspec's failure rule)
        return text
    try:
        done = subprocess.run(
            argv, input=encode(text), cwd=formatter.project, env=env,
            capture_output=True, timeout=TIMEOUT, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return text
    if done.returncode != 0 or (text.strip() and not done.stdout.strip()):
        return text
    return decode(done.stdout)


def format_python(store: FileStore) -> FileStore:
    """``store`` with every pending Python file formatted by its project's formatter."""
    runs: dict[str, tuple[str, Runner]] = {}
    for key in pending(store, SUFFIXES):
        formatter = declared(store.root / key)
        if formatter is None:
            continue
        program = executable(formatter, store.root)
        if program is not None:
            run = partial(_run, program, formatter, store)
            runs[key] = (f"{formatter.name} {program}", run)
    return format_files(store, runs)
