"""The shell policy sees through disguises: the same destructive effects reached through
interpreters' one-liners, ``find``, ``env -S``, git's configuration, ``cd``, downloads that
are run, ``trap``; and what it must allow (temporary directories, the root user's home)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tai_sandbox.policy import decide


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("repo")
    subprocess.run(["git", "init", "-q"], cwd=directory, check=True)
    return directory


def _refused(command: str, repo: Path, **environ: str) -> str:
    allowed, reason = decide(command, repo, {}, environ or None)
    assert not allowed, f"{command!r} was allowed: {reason}"
    return reason


def _allowed(command: str, repo: Path, **environ: str) -> None:
    allowed, reason = decide(command, repo, {}, environ or None)
    assert allowed, f"{command!r} was refused: {reason}"


# -- the root user's home, and ~+ / ~- ----------------------------------------------------


@pytest.mark.parametrize(
    "command", ["rm -rf ~/project/build", "rm -rf /root/proj/tmp", "rm -rf ~/proj"]
)
def test_the_root_users_home_is_a_home(command: str, repo: Path) -> None:
    _allowed(command, repo, HOME="/root")


def test_the_root_users_home_itself_stays_precious(repo: Path) -> None:
    assert "the home directory" in _refused("rm -rf ~", repo, HOME="/root")
    assert "the home directory" in _refused("rm -rf /root", repo, HOME="/root")


def test_root_is_a_system_directory_for_other_users(repo: Path) -> None:
    reason = _refused("rm -rf /root/proj", repo, HOME="/home/alice")
    assert reason == "recursive rm deletes the system directory /root/proj"
    _allowed("rm -rf /home/alice/proj", repo, HOME="/home/alice")


def test_tilde_plus_is_the_working_directory(repo: Path) -> None:
    assert _refused("rm -rf ~+", repo) == "recursive rm deletes the working directory"
    assert "only known when the command runs" in _refused("rm -rf ~-", repo)
    _allowed("ls ~+ ~-", repo)
