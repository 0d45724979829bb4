"""Which Python runs a project's tests: its own virtual environment, else ``python3``.

The project root is the nearest directory at or above the working directory holding
``pyproject.toml``, ``setup.cfg`` or ``setup.py`` (the working directory itself when none
does). Its ``.venv/`` (what ``uv sync``, ``poetry`` with in-project environments and most
editors make) or ``venv/`` holds the project's dependencies and its own pytest, so its
``bin/python`` runs them. Without one, ``python3`` (then ``python``) on PATH: an activated
environment puts its own first. Only when there is neither is it the interpreter running
tai, whose packages are tai's and not the project's — the answer says so.

Why not ``uv run``: it never finds an environment that is not the ones looked at here
(``uv run --no-sync`` in a project without ``.venv`` creates an empty one, with no pytest
in it), and syncing one needs the network or uv's cache — which inside the sandbox is
read-only: even ``uv run --no-sync`` stops there, unable to take the cache's lock.

Found by looking at files only, never by running anything: a ``.venv/bin/python`` inside
the working directory may have been written by the model, and is run only the way every
block's program is, inside the run's sandbox.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import attrs

from tai_python import ENVIRONMENTS, project_root


@attrs.frozen
class Interpreter:
    """The Python that runs the tests, and why it was chosen (for the answer's head)."""

    path: str
    reason: str


def find_interpreter(cwd: Path) -> Interpreter:
    """The Python to run the tests of the project at or above ``cwd`` with."""
    root = project_root(cwd) or cwd
    for name in ENVIRONMENTS:
        python = root / name / "bin" / "python"
        if python.is_file() and os.access(python, os.X_OK):
            return Interpreter(str(python), f"the project's virtual environment {root / name}")
    missing = f"no {' or '.join(ENVIRONMENTS)} virtual environment at {root}"
    for name in ("python3", "python"):
        found = shutil.which(name)
        if found:
            return Interpreter(found, f"{name} on PATH; {missing}")
    alone = "the interpreter running tai, not the project's: no python3 or python on PATH"
    return Interpreter(sys.executable, f"{alone}; {missing}")
