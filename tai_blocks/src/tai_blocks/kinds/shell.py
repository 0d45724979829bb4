"""The ``shell`` kind: one command, run after the reply ends, its output fed back.

Off unless ``-shell`` is given or ``allowed_shell_commands`` is configured; the policy
(destructive patterns always refused, the allowlist when set) belongs to the sandbox
distribution through ``tai_shell_policy``, so this module only declares the kind.
"""

from __future__ import annotations

from collections.abc import Callable

from tai_blocks.kinds._common import TREE_PARAMS
from tai_core import BlockKind, hookimpl


class ShellKind(BlockKind):
    """Run one shell command in the working directory."""

    name = "shell"
    params = TREE_PARAMS
    triggers_round = True
    max_rounds = 50
    commands = frozenset({"go", "any", "ai"})
    prompt_section = """\
# shell blocks

Run a command with a `shell` block; the body is the command, as for `sh -c`, run in the
working directory with a time limit of 30 seconds. Its exit status, standard output and
standard error arrive in the next message. Commands that destroy data, write outside the
working directory or reach into version-control internals are refused; a refused command
is reported with the reason and never runs. Prefer the dedicated kinds (go-test, go-src,
ingest) when one fits."""
    restatement = "shell blocks: one command per block; its output arrives next message."
    disabled_notice = "commands cannot be run now; state the command in prose for the user to run."
    requires_body = "a command"


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the shell kind."""
    register(ShellKind())
