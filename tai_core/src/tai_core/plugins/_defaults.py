"""The core's default hook implementations: what holds with no other plugin installed.

A kind validates and runs itself (``tai_validate_block``, ``tai_run_block``, the latter
``trylast`` so policies and wrappers come first); files named like secrets are withheld
(``tai_secret_file``, ``tryfirst``: answered before any content scan); the programs blocks
start lose tai's secrets from their environment (``tai_block_process``,
:mod:`tai_core.blocks._environment`). The host registers this module itself, as the plugin
``tai-core``, which cannot be blocked: an embedder's host withholds secrets by name too.
Kept as hook implementations (not direct calls) so that a policy plugin's ``tryfirst``
refusal or a timing wrapper sees every block the same way. The command line registers
:mod:`tai_core._core_plugin` in its place, which adds the core's commands to these.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tai_core.blocks._environment import block_environment
from tai_core.context._secrets import secret_name
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


@hookimpl(tryfirst=True)
def tai_secret_file(path: str, config: Mapping[str, Any]) -> str | None:
    """Withhold files by name (answered before any content scan, which it spares)."""
    return secret_name(path, config)


@hookimpl
def tai_block_process(argv: list[str], env: dict[str, str], config: Mapping[str, Any]) -> None:
    """Remove secrets from the environment of a block's program (``shell_environment``)."""
    del argv
    block_environment(env, config)
