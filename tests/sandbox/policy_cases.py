"""Table-driven checks of the shell policy's verdicts, shared by the policy test files:
each case is a command and its expected verdict as one line, ``allowed: …`` or
``refused: …``, with the test repository's path written ``<repo>``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tai_sandbox.policy import decide

#: The environment the cases are decided in.
ENVIRON = {"HOME": "/home/u", "PATH": "/usr/bin:/bin"}
ALLOWED = "allowed: no destructive pattern found (no allowed_shell_commands: any program runs)"
ROOT = "refused: recursive rm deletes the root directory"


def decision(command: str, repo: Path, environ: Mapping[str, str] = ENVIRON) -> str:
    """The policy's verdict on ``command`` run in ``repo``, as one line."""
    allowed, reason = decide(command, repo, {}, environ)
    return f"{'allowed' if allowed else 'refused'}: {reason.replace(str(repo), '<repo>')}"


def check(cases: list[tuple[str, str]], repo: Path) -> None:
    """Every ``(command, verdict)`` of ``cases`` decided as expected; the wrong ones listed."""
    found = {command: decision(command, repo) for command, _ in cases}
    wrong = {c: (expected, found[c]) for c, expected in cases if found[c] != expected}
    assert not wrong, "\n".join(f"{c!r}: expected {e!r}, got {f!r}" for c, (e, f) in wrong.items())
