"""What the command line adds to a request: ``-summary-language`` (or ``summary_language``)
asks for summary blocks in a language, the word ``clean`` adds the clean-up prompt — each
checked in the request the model receives (the replay model's expectations)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core.commands._options import CLEANUP_PROMPT, chat_text
from tests.conftest import run_tai

GERMAN = "Write the bullets of summary blocks in German."


def replay(tmp_path: Path, expectations: str) -> None:
    (tmp_path / "run.txt").write_text(f"@@@ reply\n{expectations}Gut.\n", encoding="utf-8")


@pytest.mark.parametrize("how", ["flag", "config"])
def test_summary_blocks_in_a_language(how: str, tmp_path: Path, isolated_env: dict) -> None:
    replay(tmp_path, f"@@@ expect system: {GERMAN}\n")
    flags = ["-summary-language", "German"] if how == "flag" else []
    if how == "config":
        (tmp_path / "tai.toml").write_text('summary_language = "German"\n')
    result = run_tai("next", "-model", "replay:run.txt", *flags, "chat", "explain",
                     cwd=tmp_path, env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Gut.\n"


def test_no_language_asks_for_none(tmp_path: Path, isolated_env: dict) -> None:
    replay(tmp_path, "@@@ expect system: # Summary language\n")
    result = run_tai("next", "-model", "replay:run.txt", "chat", "explain",
                     cwd=tmp_path, env=isolated_env)  # fmt: skip
    assert "expected the system prompt to contain '# Summary language'" in result.stderr


def test_clean_adds_the_clean_up_prompt(tmp_path: Path, isolated_env: dict) -> None:
    replay(tmp_path, "@@@ expect user: tidy the parser\n\nAlso clean up the code\n")
    result = run_tai("next", "-model", "replay:run.txt", "clean", "chat", "tidy the parser",
                     cwd=tmp_path, env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr


def test_chat_words() -> None:
    assert chat_text(["chat", "a", "chat", "b"]) == "a\nb"
    assert chat_text(["clean", "chat", "a"]) == f"a\n\n{CLEANUP_PROMPT}"
    assert chat_text(["chat", "a", "clean"]) == f"a\n\n{CLEANUP_PROMPT}"


@pytest.mark.parametrize("words", [["chat", ""], ["chat", "  \n"], ["chat", "", "chat", " "]])
def test_an_empty_task_is_said_to_be_empty(words: list[str]) -> None:
    """chat "$TASK" with the variable unset: not 'give the task as chat', which it was."""
    import click

    with pytest.raises(click.UsageError, match='the task after chat is empty: chat "what to do"'):
        chat_text(words)
    assert chat_text(["chat", "", "chat", "b"]) == "\nb"  # one of several may be empty
