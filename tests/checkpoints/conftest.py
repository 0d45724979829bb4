"""Fixtures of the checkpoint tests: a small git working tree, and the environment of a
``tai`` subprocess (sandboxed where user namespaces are allowed)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..sandbox.conftest import namespaces_refused


@pytest.fixture
def env(isolated_env: dict[str, str]) -> dict[str, str]:
    if namespaces_refused():
        return {**isolated_env, "TAI_NO_SANDBOX": "1"}
    return isolated_env


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "src" / "deep").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\n")
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / "src" / "deep" / "data.bin").write_bytes(bytes(range(256)))
    (root / "run.sh").write_text("echo run\n")
    (root / "run.sh").chmod(0o755)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root
