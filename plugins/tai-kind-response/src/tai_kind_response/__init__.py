"""The ``response`` kind: a named answer in the session tree, for text-output tasks."""

from __future__ import annotations

from collections.abc import Callable

from tai_core import BlockKind, Param, hookimpl
from tai_core.blocks import COMMANDS


class ResponseKind(BlockKind):
    """An answer to the user, recorded as a named node."""

    name = "response"
    params = (
        Param(
            "parent", "The session-tree node this answers (usually the user input).", required=True
        ),
        Param("name", "The response's name, unique in the session tree.", required=True),
    )
    commands = COMMANDS
    runs = False
    prompt_section = """\
# response blocks

Give an answer meant for the user in a `response` block (`parent` = the node it answers,
`name` = a new unique name). The body is the answer itself, in Markdown."""
    restatement = "response blocks: parent and name required; body = the answer."
    disabled_notice = "answer in plain prose instead."
    requires_body = "the answer"


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the response kind."""
    register(ResponseKind())
