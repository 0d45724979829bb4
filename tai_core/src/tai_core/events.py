"""The typed events a run publishes, for every client (CLI printer, TUI, records, web).

Their own module because both the pipeline (which emits them) and the runtime (which
carries them on its bus) depend on them, and neither on the other's internals.

Events are frozen values. The pipeline never prints: everything a user or a recorder can
see of a run is one of these, in publication order. ``TERMINAL_EVENTS`` end a session's run
and are never dropped or merged by the bus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import attrs

from tai_core.blocks import Block, BlockParseError, BlockResult
from tai_core.models import Usage
from tai_core.tree import SessionTree

if TYPE_CHECKING:  # the sessions package imports sqlite3: only where sessions are kept
    from tai_core.sessions import SessionHeader


@attrs.frozen
class SessionStarted:
    """A session began: which command, with which model."""

    session_id: str
    command: str
    model: str


@attrs.frozen
class RoundStarted:
    """A round's attempt began (``attempt`` counts from 1 within the round)."""

    session_id: str
    round: int
    attempt: int


@attrs.frozen
class TextReceived:
    """A piece of the model's reply text."""

    session_id: str
    round: int
    text: str


@attrs.frozen
class ThoughtReceived:
    """A piece of the model's reasoning."""

    session_id: str
    round: int
    text: str


@attrs.frozen
class ThoughtSummarized:
    """A summary of the model's reasoning so far (``-summarize-thoughts``), by the fast
    model; never fed back."""

    session_id: str
    round: int
    summary: str


@attrs.frozen
class BlockParsed:
    """A complete block came out of the parser while the reply streamed."""

    session_id: str
    round: int
    block: Block


@attrs.frozen
class ParseFailed:
    """A malformed or unclosed block."""

    session_id: str
    round: int
    error: BlockParseError


@attrs.frozen
class BlockStarted:
    """A block is about to run (after the reply ended)."""

    session_id: str
    round: int
    block: Block


@attrs.frozen
class BlockFinished:
    """A block ran; ``result.text`` is what the model will read next round."""

    session_id: str
    round: int
    block: Block
    result: BlockResult


@attrs.frozen
class UsageReported:
    """Token usage of one model call, and its cost when prices are known."""

    session_id: str
    round: int
    usage: Usage
    cost: float | None


@attrs.frozen
class Notice:
    """Something the user should know: a retry, a handoff, feedback sent, a warning."""

    session_id: str
    level: str
    message: str


@attrs.frozen
class RoundEnded:
    """A round's attempt ended: ``outcome`` is ``success``, ``retry`` or ``error``."""

    session_id: str
    round: int
    outcome: str


@attrs.frozen
class ChangesWritten:
    """A round's changes reached the disk (the flush is done): the files it wrote or
    deleted, by path relative to the working directory."""

    session_id: str
    round: int
    paths: tuple[str, ...]


@attrs.frozen
class TreeChanged:
    """The session tree after a write (the whole tree: it is immutable and cheap to share)."""

    session_id: str
    tree: SessionTree = attrs.field(eq=False)


@attrs.frozen
class RunFinished:
    """The run ended normally. ``summary`` joins the summaries; ``report`` is the usage
    table; ``diff`` the changes made (empty when none)."""

    session_id: str
    summary: str
    report: str
    diff: str = ""
    remaining: tuple[Block, ...] = ()


@attrs.frozen
class RunFailed:
    """The run stopped on an error; ``message`` is one line naming what and where.
    ``final``: another run would fail the same way whatever the model does (the disk
    refused the round's changes), so a goal loop stops instead of trying again."""

    session_id: str
    message: str
    report: str = ""
    final: bool = False


@attrs.frozen
class RunCancelled:
    """The run was cancelled: the interrupted round's changes were not applied unless a
    :class:`ChangesWritten` of that round came before (its blocks were then stopped)."""

    session_id: str
    report: str = ""


@attrs.frozen
class SessionClosed:
    """The session was closed; no more events will come for it."""

    session_id: str


@attrs.frozen
class SessionStatusChanged:
    """The session's status changed: ``idle`` (between turns), ``streaming`` (a turn
    runs), ``error`` (the last turn failed: ``error`` says why) or ``closed``."""

    session_id: str
    status: str
    error: str | None = None


@attrs.frozen
class SessionUpdated:
    """The session's model or call parameters changed (from the next model call on)."""

    session_id: str
    model: str
    parameters: dict[str, Any]


@attrs.frozen
class AgentActivated:
    """The session switched to the agent command ``name`` (``""``: back to its own system
    prompt, kinds and model), from its next turn on; ``kinds`` are the block kinds in
    force, ``model`` the model its turns go to."""

    session_id: str
    name: str
    model: str
    kinds: tuple[str, ...]


@attrs.frozen
class SessionReset:
    """The session's conversation and tree were cleared; its setup is kept."""

    session_id: str


@attrs.frozen
class SessionCompacted:
    """The session's conversation was replaced by its summary (``reason``: ``"auto"``
    when the turn's request neared the window, ``"requested"`` by the compact command);
    the session tree keeps what was said before, and the summary as an event node."""

    session_id: str
    reason: str
    messages_before: int
    messages_after: int
    summary: str


@attrs.frozen
class SessionsListed:
    """The saved sessions asked for, newest first."""

    sessions: tuple[SessionHeader, ...]


@attrs.frozen
class SessionLoaded:
    """A saved session is live again under its id, with ``messages`` messages (its tree
    follows as a :class:`TreeChanged`); ``input_tokens``, ``output_tokens`` and ``cost``
    are what its turns so far spent (``cost`` ``None`` when no price was known)."""

    session_id: str
    messages: int
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None


@attrs.frozen
class SessionDeleted:
    """A saved session was deleted (and its live copy, if any, closed)."""

    session_id: str


@attrs.frozen
class SessionExported:
    """A saved session was written as JSON lines to ``path``."""

    session_id: str
    path: str


@attrs.frozen
class ExtensionCommandFinished:
    """A plugin's session command (``/NAME``) ran; ``output`` is what it has to show."""

    session_id: str
    name: str
    output: str


@attrs.frozen
class PromptRequested:
    """A running block asks the user: ``kind`` is ``confirm``, ``select`` (one of
    ``choices``) or ``input``; answer with ``RespondToPrompt`` and ``prompt_id`` (it takes
    ``default`` when no answer comes)."""

    session_id: str
    prompt_id: str
    kind: str
    message: str
    choices: tuple[str, ...]
    default: Any


@attrs.frozen
class PromptAnswered:
    """An open question was answered (by whichever client answered first)."""

    session_id: str
    prompt_id: str
    answer: Any


@attrs.frozen
class ExtensionsReloaded:
    """The configuration and the plugins were read again: ``plugins`` loaded, ``problems``
    one line per plugin that failed or warning."""

    plugins: tuple[str, ...]
    problems: tuple[str, ...]


Event: TypeAlias = (
    SessionStarted
    | RoundStarted
    | TextReceived
    | ThoughtReceived
    | ThoughtSummarized
    | BlockParsed
    | ParseFailed
    | BlockStarted
    | BlockFinished
    | UsageReported
    | Notice
    | RoundEnded
    | ChangesWritten
    | TreeChanged
    | RunFinished
    | RunFailed
    | RunCancelled
    | SessionClosed
    | SessionStatusChanged
    | SessionUpdated
    | AgentActivated
    | SessionReset
    | SessionCompacted
    | SessionsListed
    | SessionLoaded
    | SessionDeleted
    | SessionExported
    | ExtensionCommandFinished
    | ExtensionsReloaded
    | PromptRequested
    | PromptAnswered
)

#: Events that end a run or a session: always delivered, never merged.
TERMINAL_EVENTS: tuple[type[Any], ...] = (RunFinished, RunFailed, RunCancelled, SessionClosed)
