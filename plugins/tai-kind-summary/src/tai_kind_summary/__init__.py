"""The ``summary`` kind: the completion signal of a round, bullets of what was done.

A round whose reply has no summary and no round-triggering block is taken as cut short
and retried; the summary's bullets are what the user reads at the end.
"""

from __future__ import annotations

from collections.abc import Callable

from tai_block_kit.common import CODE_COMMANDS, TREE_PARAMS, body_lines
from tai_core import Block, BlockKind, hookimpl


class SummaryKind(BlockKind):
    """Say what this reply did; marks the reply as complete."""

    name = "summary"
    params = TREE_PARAMS
    commands = CODE_COMMANDS | {"next"}
    runs = False
    prompt_section = """\
# summary blocks

End every reply with a `summary` block: a few `- ` bullets saying what you did and what
you found. A reply without a summary (and without a block that starts another round) is
taken as cut short and is retried."""
    restatement = "summary block: always, at the end, `- ` bullets."
    disabled_notice = "no summary is needed; end the answer normally."

    def check_body(self, block: Block) -> list[str]:
        if any(line.startswith("- ") for line in body_lines(block.body)):
            return []
        return ["a summary block needs at least one `- ` bullet"]


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the summary kind."""
    register(SummaryKind())
