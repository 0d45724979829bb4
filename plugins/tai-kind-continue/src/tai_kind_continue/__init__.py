"""The ``continue`` kind: the model asks for another round, with its own words as input.

This kind runs for real: its body becomes the next round's user message verbatim. It is
how a model splits large work over rounds.
"""

from __future__ import annotations

from collections.abc import Callable

from tai_block_kit.common import CODE_COMMANDS, TREE_PARAMS
from tai_core import Block, BlockKind, BlockResult, RunContext, hookimpl


class ContinueKind(BlockKind):
    """Start another round with the body as its input."""

    name = "continue"
    params = TREE_PARAMS
    triggers_round = True
    max_rounds = 200
    commands = CODE_COMMANDS
    prompt_section = """\
# continue blocks

When the work is too large for one reply, do a coherent part, then write a `continue`
block whose body tells the next round what remains; it is sent back to you verbatim as
the next message. Put it last, after the summary block."""
    restatement = "continue blocks: last in the reply, after the summary; body = what remains."
    disabled_notice = "there is no next round; answer fully now."
    requires_body = "what remains to be done"

    def execute(self, block: Block, context: RunContext) -> BlockResult:
        del context
        return BlockResult(kind=self.name, ok=True, text=block.body, triggers_round=True)


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the continue kind."""
    register(ContinueKind())
