"""The block protocol: how a model's plain-text reply carries requests.

A reply is prose with heredoc blocks in it (``<<W kind(params)`` … ``W``). Blocks are
requests, not tool calls: they are parsed while the reply streams and carried out after it
ends, and their results come back in the next round. The protocol charges no round trip
per block, so one reply can carry any number of edits, fetches and checks.

This package holds the parts every kind shares and nothing kind-specific:

* ``_model`` — the frozen values a parse produces (:class:`Block`,
  :class:`BlockParseError`);
* ``_parser`` — the incremental parser. Its invariants: any chunking of a reply gives
  exactly the results of parsing it whole, a result leaves the parser only once no later
  text can change it, and the work is linear in the reply's length (each line is examined
  once while streaming); ``_near_miss`` — the lines of a whole reply that meant a block
  of a known kind but missed the delimiter (:func:`misdelimited`), which the parser reads
  as text;
* ``_kind`` — the contract a kind fulfils (:class:`BlockKind`) and the values a run
  produces (:class:`BlockResult`);
* ``_prompts`` — the kind-agnostic format prompt and its restatement, and how the kinds'
  sections are composed around them;
* ``_processes`` — the programs blocks are running (:func:`running`), stopped at once when
  a run is cancelled (:func:`stop_all`); ``_environment`` — the environment they get.

The kinds themselves live in plugins (``tai-kind-NAME`` distributions and third parties).
"""

from tai_core.blocks._ask import ask
from tai_core.blocks._environment import process_hook
from tai_core.blocks._kind import (
    COMMANDS,
    BlockKind,
    BlockNotRunnableError,
    BlockResult,
    Param,
    RunContext,
)
from tai_core.blocks._model import Block, BlockParseError
from tai_core.blocks._near_miss import misdelimited
from tai_core.blocks._parser import BlockParser, parse_blocks
from tai_core.blocks._processes import cancellable, running, stop_all
from tai_core.blocks._prompts import (
    FORMAT_RESTATEMENT,
    FORMAT_SYSTEM_PROMPT,
    block_prompts,
    disabled_notice,
)

__all__ = [
    "COMMANDS",
    "FORMAT_RESTATEMENT",
    "FORMAT_SYSTEM_PROMPT",
    "Block",
    "BlockKind",
    "BlockNotRunnableError",
    "BlockParseError",
    "BlockParser",
    "BlockResult",
    "Param",
    "RunContext",
    "ask",
    "block_prompts",
    "cancellable",
    "disabled_notice",
    "misdelimited",
    "parse_blocks",
    "process_hook",
    "running",
    "stop_all",
]
