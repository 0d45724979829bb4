"""Fixtures for the sandbox: a git working directory, and a skip where namespaces are refused."""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path

import pytest

from ..conftest import run_tai

GO_BIN = "/usr/local/go/bin"


@cache
def namespaces_refused() -> str | None:
    """Why this kernel refuses user and mount namespaces, or ``None`` when it allows them."""
    from tai_sandbox import _linux

    pid = os.fork()
    if pid == 0:
        try:
            _linux.unshare(_linux.CLONE_NEWUSER | _linux.CLONE_NEWNS | _linux.CLONE_NEWPID)
        except OSError:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return None if os.waitstatus_to_exitcode(status) == 0 else "user namespaces are refused"


@pytest.fixture
def namespaces() -> None:
    reason = namespaces_refused()
    if reason:
        pytest.skip(f"the kernel refuses namespaces here: {reason}")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git working directory, one per test module (the policy's tests only read it)."""
    directory = tmp_path_factory.mktemp("repo")
    subprocess.run(["git", "init", "-q"], cwd=directory, check=True)
    return directory


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A git repository to work in, with a hook directory and a tai.toml."""
    directory = tmp_path / "work"
    directory.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=directory, check=True)
    (directory / "tai.toml").write_text("shell = true\n")
    (directory / "README").write_text("hello\n")
    return directory


@pytest.fixture
def env(isolated_env: dict[str, str]) -> dict[str, str]:
    return {**isolated_env, "PATH": f"{GO_BIN}:{isolated_env.get('PATH', '')}"}


def sandboxed(script: str, cwd: Path, env: dict[str, str], *flags: str):
    """``tai [FLAGS] sandbox run -- sh -c SCRIPT``: the script inside tai's sandbox."""
    return run_tai(*flags, "sandbox", "run", "--", "sh", "-c", script, cwd=cwd, env=env)
