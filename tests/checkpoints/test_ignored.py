"""Undo and ignored files: a run that rewrites ``.gitignore`` can neither make undo delete
ignored files it never touched, nor hide its own files from undo by ignoring them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..conftest import run_tai
from .test_undo import DONE, change, replay, run, shell

pytestmark = pytest.mark.permissions  # tai runs sandboxed: CI runs these as root and not root


def test_files_ignored_before_the_run_survive_an_unignoring_run(tree: Path, env) -> None:
    (tree / ".gitignore").write_text(".env\n*.log\nbuild/\n")
    (tree / ".env").write_text("TOKEN=secret\n")
    (tree / "notes.log").write_text("my notes\n")
    (tree / "build" / "deep").mkdir(parents=True)
    (tree / "build" / "deep" / "out.o").write_bytes(b"\x7fELF")
    replay(tree, "Tidy.\n" + change(".gitignore", "# nothing ignored\n") + DONE)
    run(tree, env)
    result = run_tai("undo", cwd=tree, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "removed" not in result.stdout
    assert (tree / ".env").read_text() == "TOKEN=secret\n"
    assert (tree / "notes.log").read_text() == "my notes\n"
    assert (tree / "build" / "deep" / "out.o").read_bytes() == b"\x7fELF"
    assert (tree / ".gitignore").read_text() == ".env\n*.log\nbuild/\n"


def test_an_ignored_file_the_run_changed_is_named_not_removed(tree: Path, env) -> None:
    (tree / ".gitignore").write_text("*.log\n")
    (tree / "build.log").write_text("the user's log\n")  # (.env: change blocks refuse it)
    replay(tree, "Go.\n" + change(".gitignore", "# none\n") + change("build.log", "model\n") + DONE)
    run(tree, env)
    result = run_tai("undo", cwd=tree, env=env)
    assert result.returncode == 1
    assert (tree / "build.log").exists()
    assert "kept build.log: ignored at the checkpoint" in result.stdout


def test_a_file_the_run_hides_by_ignoring_it_is_still_undone(tree: Path, env) -> None:
    replay(
        tree,
        "Hide.\n"
        + change("a.txt", "by the run\n")
        + change("made.txt", "the run's\n")
        + change(".gitignore", "a.txt\nmade.txt\n")
        + DONE,
    )
    run(tree, env)
    result = run_tai("undo", cwd=tree, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tree / "a.txt").read_text() == "alpha\n"
    assert not (tree / "made.txt").exists() and not (tree / ".gitignore").exists()


def test_a_hidden_file_edited_after_the_run_is_kept(tree: Path, env) -> None:
    replay(
        tree, "Hide.\n" + change("made.txt", "run\n") + change(".gitignore", "made.txt\n") + DONE
    )
    run(tree, env)
    (tree / "made.txt").write_text("the user's now\n")
    result = run_tai("undo", cwd=tree, env=env)
    assert result.returncode == 1
    assert (tree / "made.txt").read_text() == "the user's now\n"
    assert "kept made.txt: edited after the run ended" in result.stdout


def test_undo_does_not_complete_a_bare_repository(tree: Path, env) -> None:
    lib = tree / "vendor" / "lib"
    (lib / "objects").mkdir(parents=True)
    (lib / "HEAD").write_text("ref: refs/heads/main\n")
    (lib / "objects" / "info.txt").write_text("packed\n")
    replay(tree, "Go.\n" + shell("rm -rf vendor"), DONE)
    run(tree, env)
    (lib / "refs").mkdir(parents=True)  # the user, after the run
    (lib / "refs" / "note").write_text("mine\n")
    result = run_tai("undo", cwd=tree, env=env)
    assert result.returncode == 1
    assert "look like a git repository" in result.stdout
    names = {path.name for path in lib.iterdir()}
    assert not names >= {"HEAD", "objects", "refs"}
    subprocess.run(["git", "-C", str(lib), "rev-parse"], capture_output=True, check=False)
