"""AGENTS.md: found from the repository's root down to the working directory, sent in the
static part of the system prompt of every command, switched off by flag or setting, and
never carrying a secret."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tai_agents_md import MAX_BYTES, discovered, instructions
from tests.commands.test_next import AWS_KEY, configure, sent
from tests.conftest import run_tai
from tests.servers import FakeModelServer, Reply


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A git repository with an AGENTS.md at its root and in ``pkg``; one above it too."""
    (tmp_path / "AGENTS.md").write_text("Above the repository: never read.\n")
    root = tmp_path / "repo"
    (root / "pkg" / "inner").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "AGENTS.md").write_text("Use tabs.\n")
    (root / "pkg" / "AGENTS.md").write_text("In pkg, use spaces.\n")
    return root


def test_files_from_the_root_down_to_the_working_directory(repository: Path) -> None:
    inner = repository / "pkg" / "inner"
    assert discovered(inner) == [repository / "AGENTS.md", repository / "pkg" / "AGENTS.md"]
    text = instructions(inner)
    assert text is not None
    assert text.index("Use tabs.") < text.index("In pkg, use spaces.")  # nearest last
    assert "## ../../AGENTS.md" in text and "## ../AGENTS.md" in text
    assert "Above the repository" not in text


def test_outside_a_repository_only_the_working_directory_counts(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Not this one.\n")
    (tmp_path / "work").mkdir()
    assert discovered(tmp_path / "work") == []
    (tmp_path / "work" / "AGENTS.md").write_text("This one.\n")
    assert discovered(tmp_path / "work") == [tmp_path / "work" / "AGENTS.md"]


def test_a_large_file_is_cut_at_a_line_with_a_note(tmp_path: Path) -> None:
    line = "Keep every function short and name it for what it returns.\n"
    (tmp_path / "AGENTS.md").write_text(line * (2 * MAX_BYTES // len(line)))
    text = instructions(tmp_path)
    assert text is not None and len(text) < MAX_BYTES + 500
    assert text.split("\n\n")[-2].endswith("returns.")  # whole lines only
    assert "is left out)" in text


def test_empty_files_add_nothing(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("\n  \n")
    assert instructions(tmp_path) is None


def _next(folder: Path, server: FakeModelServer, env: dict[str, str], *flags: str) -> str:
    server.script(Reply(text="An answer.\n"))
    result = run_tai(*flags, "next", "chat", "hi", cwd=folder, env=env)
    assert result.returncode == 0, result.stderr
    system, _ = sent(server)
    server.requests.clear()
    return system


@pytest.mark.slow
def test_the_system_prompt_carries_them_and_the_flag_leaves_them_out(
    repository: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    configure(repository / "pkg", openai_server)
    system = _next(repository / "pkg", openai_server, isolated_env)
    assert "# Project instructions (AGENTS.md)" in system
    assert system.index("Use tabs.") < system.index("In pkg, use spaces.")
    assert "Above the repository" not in system
    bare = _next(repository / "pkg", openai_server, isolated_env, "-no-agents-md")
    assert "# Project instructions" not in bare and "Use tabs." not in bare


def test_the_setting_switches_them_off(
    repository: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    configure(repository, openai_server)
    config = repository / "tai.toml"
    config.write_text("agents_md = false\n" + config.read_text())
    assert "Use tabs." not in _next(repository, openai_server, isolated_env)


def test_a_secret_in_them_is_not_sent(
    tmp_path: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    configure(tmp_path, openai_server)
    (tmp_path / "AGENTS.md").write_text(f"Deploy with the key {AWS_KEY}.\n")
    server = openai_server
    server.script(Reply(text="An answer.\n"))
    result = run_tai("next", "chat", "hi", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 0, result.stderr
    system, user = sent(server)
    assert AWS_KEY not in system + user
    assert "plugin 'agents-md': its standing text is left out" in result.stderr
