"""The shell policy never fails with an exception: whatever the text, ``decide`` answers.

Random text, and random mixtures of the tokens the analysis treats specially (quotes,
expansions, substitutions, redirections, wrappers, interpreters, here-documents), are fed
to :func:`decide`; an error inside the analysis must come back as a refusal with a reason.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tai_sandbox.policy import decide

_TOKENS = [
    "rm", "-rf", "/", "~", "~+", "~-", "~root", "~nobody_tai", "$HOME", "${X:-/}", "$(", ")",
    "`", "'", '"', "$'\\x72'", "\\", "|", "||", "&&", ";", "&", ">", ">>", "<", "<<<", "<<EOF",
    "\nEOF\n", "{", "}", "(", "((", "))", "[[", "]]", "*", "..", ".", "cd", "env", "-S",
    "sudo", "xargs", "find", "-delete", "-exec", "{}", "+", "\\;", "sh", "-c", "eval", "trap",
    "python3", "-c", "perl", "-e", "node", "-e", "ruby", "php", "-r", "git", "-c",
    "alias.x=!rm", "mktemp", "-d", "curl", "-o", "x.sh", "wget", "X=", "IFS=,", "for", "in",
    "do", "done", "f()", "{a,b}", "import os; os.system('rm -rf /')", "while", "fork",
    "\x00", "\t", "\n", "é", "#", "=", "$1", "$@", "!", "-", "--", "=", "%x(", "qx{",
]  # fmt: skip


def _answers(command: str, repo: Path) -> None:
    allowed, reason = decide(command, repo, {})
    assert isinstance(allowed, bool)
    assert reason


_SETTINGS = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@_SETTINGS
@given(st.text(max_size=80))
def test_random_text_gets_a_decision(repo: Path, text: str) -> None:
    _answers(text, repo)


@_SETTINGS
@given(st.lists(st.sampled_from(_TOKENS), max_size=14), st.sampled_from(["", " "]))
def test_mixtures_of_shell_tokens_get_a_decision(
    repo: Path, tokens: list[str], separator: str
) -> None:
    _answers(separator.join(tokens), repo)


def test_an_error_inside_the_analysis_is_a_refusal(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tai_sandbox import _analysis

    def broken(self: object, text: str) -> None:
        raise ValueError("broken on purpose")

    monkeypatch.setattr(_analysis.Analysis, "check", broken)
    assert decide("ls", repo, {}) == (
        False,
        "the policy could not analyse the command (ValueError: broken on purpose)",
    )


def test_deep_nesting_is_refused_not_raised(repo: Path) -> None:
    allowed, reason = decide("(" * 3000 + "ls" + ")" * 3000, repo, {})
    assert not allowed and reason


def test_characters_that_crash_the_bash_parser_get_a_decision(repo: Path) -> None:
    # In a child process: the parser's crash would kill the whole test run otherwise.
    program = (
        "from tai_sandbox.policy import decide\n"
        "for _ in range(300):\n"
        "    for text in ('{\\U000e0001', '{\\U000a3a08ÝË', 'echo \\U0001f389 > x'):\n"
        "        allowed, reason = decide(text, '.', {})\n"
        "print(decide('echo \\U0001f389 done', '.', {}))\n"
    )
    import sys

    result = subprocess.run([sys.executable, "-c", program], cwd=repo, capture_output=True,
                            text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("(True,")
