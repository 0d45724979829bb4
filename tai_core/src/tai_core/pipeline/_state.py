"""The values a run is made of: its options, its state between rounds, one attempt.

``RunState`` is immutable, so the state before a round is the snapshot a retry starts from:
nothing needs undoing when an attempt fails (invariant 1). The workspace (the in-memory
store of changes) is part of the state for the same reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from tai_core.blocks import Block, BlockParseError
from tai_core.models import Message, ProviderError, Usage
from tai_core.tree import SessionTree


@attrs.frozen
class RunOptions:
    """How a run behaves; fixed for its whole length."""

    command: str
    session_id: str
    #: Retries of one round after a failed attempt (so up to ``max_retries + 1`` attempts).
    max_retries: int = 3
    #: Rounds of parse-error feedback before errors are only collected.
    parse_error_budget: int = 3
    #: A reply must carry a summary or a round-triggering block, else it counts as cut short.
    require_completion: bool = True
    #: Most rounds in all (0: no limit).
    max_rounds: int = 0
    #: Kinds switched off for this run (beyond those the command does not offer).
    disabled: frozenset[str] = frozenset()
    #: Write each successful round's changes to disk (False: a dry run, ``-no-apply``:
    #: changes accumulate in the workspace and are only shown).
    flush: bool = True
    #: The tai command this run is one of, when it is one of several (the goal loops of
    #: one ``tai chat`` share it: ``tai undo`` undoes them together); ``None``: alone.
    command_id: str | None = None


@attrs.frozen
class UsageRow:
    """One line of the usage table: an attempt of a round."""

    round: int
    attempt: int
    usage: Usage
    cost: float | None
    seconds: float
    outcome: str
    #: The usage is tai's estimate, not the provider's report: the attempt was cut after
    #: the model had begun (a block that could not be applied), so the report that ends a
    #: stream never came, though the provider bills what it generated.
    estimated: bool = False


@attrs.frozen
class RunState:
    """Everything a run carries from one round to the next."""

    messages: tuple[Message, ...]
    tree: SessionTree = attrs.field(eq=False)
    #: The node new responses hang under (the last user input or feedback).
    anchor: str
    workspace: Any = None
    round: int = 0
    parse_feedback_rounds: int = 0
    kind_rounds: Mapping[str, int] = attrs.field(factory=dict)
    remaining: tuple[Block, ...] = ()
    summaries: tuple[str, ...] = ()
    parse_errors: tuple[BlockParseError, ...] = ()
    usage_rows: tuple[UsageRow, ...] = ()


@attrs.frozen
class Attempt:
    """What one attempt at a round produced, successful or not."""

    text: str
    thoughts: str
    blocks: tuple[Block, ...]
    errors: tuple[BlockParseError, ...]
    workspace: Any
    usage: Usage | None
    finish: str | None
    #: Set when the attempt failed: a provider error, a block that could not be applied,
    #: or one whose failure ends the run (:class:`RunError`, after the attempt is counted).
    failure: ProviderError | BlockApplyError | WorkspaceError | RunError | None = None
    #: Summaries of the thoughts (``-summarize-thoughts``), in order.
    thought_summaries: tuple[str, ...] = ()

    @property
    def produced(self) -> bool:
        """True when the model wrote anything before the attempt ended."""
        return bool(self.text or self.thoughts)


class BlockApplyError(Exception):
    """A streaming block (a change) could not be applied; the attempt fails."""

    def __init__(self, block: Block, reason: str) -> None:
        super().__init__(block, reason)
        self.block = block
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.block.kind} block at line {self.block.line} failed: {self.reason}"


class WorkspaceError(Exception):
    """The workspace could not finish the attempt's edits (formatting refused a file)."""


class RunError(Exception):
    """The run cannot go on; the message is one line naming what and where."""

    #: The run's state when it stopped, set by the round it stopped in: the usage of that
    #: round's attempts and what the tree recorded of them belong to the failed run too.
    state: RunState | None = None
    #: Whether another run would fail the same way whatever the model does, so goal loops
    #: stop instead of starting the next loop (see :class:`FlushRefused`).
    final: bool = False


class FlushRefused(RunError):
    """The disk refused the round's changes (a read-only tree, a full disk, a journal that
    cannot be written): nothing the model writes next can mend it."""

    final = True


class CallRefused(RunError):
    """The model's provider refused the call, before any output, in a way repeating it
    cannot mend (a key it does not take, a model it does not have, a request it rejects,
    a replay transcript that does not match): the next goal loop would send much the same
    request to the same refusal, so none is started."""

    final = True
