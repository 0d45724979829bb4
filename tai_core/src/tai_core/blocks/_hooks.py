"""The core's own implementations of the block hooks, registered as the plugin ``tai-core``.

They are the defaults other plugins wrap or pre-empt: a kind validates itself and runs
itself. Kept as hook implementations (not direct calls) so that a policy plugin's
``tryfirst`` refusal or a timing wrapper sees every block the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tai_core.plugins._markers import hookimpl

if TYPE_CHECKING:
    from tai_core.blocks._kind import BlockKind, BlockResult, RunContext
    from tai_core.blocks._model import Block


@hookimpl
def tai_validate_block(block: Block, kind: BlockKind) -> list[str]:
    """The kind's own checks of its parameters and body."""
    return kind.validate(block)


@hookimpl(trylast=True)
def tai_run_block(block: Block, kind: BlockKind, context: RunContext) -> BlockResult:
    """Run the block by its kind (raises ``BlockNotRunnableError`` for kinds that cannot)."""
    return kind.execute(block, context)
