"""The ``done`` kind: the model declares the goal reached; the next goal loop verifies it.

A first ``done`` is only a claim: the goal runner starts a fresh loop that re-reads the
files and confirms or continues; two consecutive ``done`` end the run.
"""

from __future__ import annotations

from collections.abc import Callable

from tai_block_kit.common import ANY_TEXT, GO_COMMANDS, PY_COMMANDS, TREE_PARAMS
from tai_core import BlockKind, hookimpl


class DoneKind(BlockKind):
    """Declare the whole task finished."""

    name = "done"
    params = TREE_PARAMS
    #: The goal loops: a run of another command has no loop that would confirm the claim.
    commands = (GO_COMMANDS | PY_COMMANDS) - {ANY_TEXT}
    runs = False
    prompt_section = """\
# done blocks

When the whole task is finished and verified (tests pass, nothing is left), write a `done`
block saying briefly why. A fresh round will then re-read the files to confirm; write
`done` again only if it still holds."""
    restatement = "done block: only when the whole task is finished and verified."
    disabled_notice = "the run ends on its own; do not write done blocks."


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the done kind."""
    register(DoneKind())
