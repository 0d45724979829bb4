"""The next start of tai in a directory finishes a flush a killed process left half done."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tai_core.cli._main import JOURNAL_DIR as CLI_JOURNAL_DIR
from tai_core.store import JOURNAL_DIR
from tests.conftest import run_tai

KILLER = """
import os, signal, sys
from pathlib import Path
from tai_core.store import FileStore
store = FileStore.open(Path.cwd())
store = store.write("a.txt", "new a\\n").write("b.txt", "new b\\n")
def step(name):
    if name == sys.argv[1]:
        os.kill(os.getpid(), signal.SIGKILL)
store.flush(on_step=step)
"""


def killed_flush(cwd: Path, at_step: str, env: dict[str, str]) -> None:
    (cwd / "a.txt").write_text("old a\n")
    (cwd / "b.txt").write_text("old b\n")
    result = subprocess.run([sys.executable, "-c", KILLER, at_step], cwd=cwd, env=env)
    assert result.returncode == -9
    assert (cwd / JOURNAL_DIR).is_dir()


def test_the_cli_names_the_store_journal() -> None:
    assert CLI_JOURNAL_DIR == JOURNAL_DIR


def test_a_committed_flush_is_completed(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    killed_flush(tmp_path, "commit", isolated_env)
    (tmp_path / ".AI").write_text("nothing to apply\n")
    result = run_tai("patch", cwd=tmp_path, env=isolated_env)
    assert "completed an interrupted flush" in result.stderr
    assert (tmp_path / "a.txt").read_text() == "new a\n"
    assert (tmp_path / "b.txt").read_text() == "new b\n"
    assert not (tmp_path / JOURNAL_DIR).exists()


def test_an_uncommitted_flush_is_rolled_back(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    killed_flush(tmp_path, "journal", isolated_env)
    (tmp_path / ".AI").write_text("nothing to apply\n")
    result = run_tai("patch", cwd=tmp_path, env=isolated_env)
    assert "rolled back an interrupted flush" in result.stderr
    assert (tmp_path / "a.txt").read_text() == "old a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".AI", "a.txt", "b.txt", "config", "data"]


def test_help_and_plugins_never_recover(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    killed_flush(tmp_path, "commit", isolated_env)
    run_tai("plugins", cwd=tmp_path, env=isolated_env)
    assert (tmp_path / JOURNAL_DIR).is_dir()  # left for a command that works on the tree
