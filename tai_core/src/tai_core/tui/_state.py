"""What the terminal UI shows, folded from the runtime's events of one session.

No terminal here: :class:`UiState` takes events (:meth:`UiState.apply`) and keeps the
latest session tree, the model's output by round and attempt, the log records and the
status, so the views only read it and tests check it without a screen.
"""

from __future__ import annotations

import time
from typing import Any

import attrs

from tai_core.events import (
    AgentActivated,
    BlockFinished,
    BlockStarted,
    ExtensionCommandFinished,
    ExtensionsReloaded,
    Notice,
    PromptAnswered,
    PromptRequested,
    RoundStarted,
    RunCancelled,
    RunFailed,
    RunFinished,
    SessionCompacted,
    SessionLoaded,
    SessionStarted,
    TextReceived,
    ThoughtReceived,
    TreeChanged,
    UsageReported,
)

#: Kinds whose block is shown as its body alone (the answer itself); the session tree keeps
#: it as written. Every other block is shown whole: a memory block above all, which writes
#: what every later session's prompt will carry, must stay where the user sees it.
ANSWER_KINDS = frozenset({"response"})


def readable(text: str) -> str:
    """A reply as a reader wants it: a response block's answer without the lines that
    open and close it, everything else as the model wrote it — other blocks (a shell
    command, a change, a memory) and a block still streaming or malformed included, so
    that nothing the model said or asked for is hidden but an answer's wrapping."""
    from tai_core.blocks import Block, parse_blocks

    pieces: list[str] = []
    at = 0
    for result in parse_blocks(text):
        if not isinstance(result, Block) or result.kind not in ANSWER_KINDS:
            continue
        pieces.append(text[at : result.start])
        if result.body:
            pieces.append(result.body + "\n")
        at = result.end
    pieces.append(text[at:])
    return "".join(pieces)


@attrs.define
class Section:
    """The model's output of one attempt of one round."""

    round: int
    attempt: int
    text: list[str] = attrs.Factory(list)
    thoughts: list[str] = attrs.Factory(list)
    #: Folded until its first content arrives; the user may fold it again.
    folded: bool = True
    #: The chat prompt that started it (the first section of a turn in ``tai ai``).
    prompt: str = ""
    #: Why the run ended here, when it failed: shown under the text, not in Logs alone.
    error: str = ""
    #: Whether the run was cancelled here (what it said stays on the screen, not kept).
    cancelled: bool = False
    #: The session command (``/help``) whose output this is, when it is no round's.
    command: str = ""
    #: :attr:`readable` as of how many pieces of text: a redraw reads every section, and
    #: only the streaming one changes (its text only grows, a piece at a time).
    _shown: tuple[int, str] = attrs.field(default=(0, ""), init=False, repr=False, eq=False)

    @property
    def readable(self) -> str:
        """Its text as a reader wants it (:func:`readable`), worked out again only when
        text came since."""
        if self._shown[0] != len(self.text):
            self._shown = (len(self.text), readable("".join(self.text)))
        return self._shown[1]

    @property
    def title(self) -> str:
        """Its heading: ``Round N`` (``, attempt M`` after the first), or the command."""
        if self.command:
            return self.command
        return f"Round {self.round}" + (f", attempt {self.attempt}" if self.attempt > 1 else "")


@attrs.define
class Running:
    """What runs now: ``what`` (streaming, a block), since when (monotonic seconds)."""

    what: str
    since: float


@attrs.define
class UiState:
    """Everything the screen shows of one session."""

    session_id: str
    model: str = ""
    #: The agent command the session's turns run under (``/plan``), ``""`` for its own.
    agent: str = ""
    round: int = 0
    tree: Any = None
    sections: list[Section] = attrs.Factory(list)
    logs: list[tuple[str, str]] = attrs.Factory(list)
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    #: The last request's input tokens and how many of them the provider's cache served.
    last_input: int = 0
    last_cached: int = 0
    #: The share of the last request tai expected the cache to serve: the request before
    #: it, which a conversation only ever extends (0 for the first request).
    stable: float = 0.0
    cost: float | None = None
    running: Running | None = None
    #: The run's terminal event once it came.
    outcome: Any = None
    #: The question a block asks now (``PromptRequested``), until it is answered.
    question: Any = None
    #: A chat prompt sent, waiting for the round it starts.
    prompted: str = ""
    #: A saved session was loaded: its turns are shown from the tree that comes next.
    history_due: bool = False
    #: The session command just typed (``/nosuch``), until it is answered: an error then
    #: is its refusal, shown in the Output tab under its name as its output would be.
    commanded: str = ""
    #: Bumped by every change, so views know when to lay out again.
    version: int = 0

    def apply(self, event: Any) -> bool:
        """Take ``event`` in; whether it was this session's (and so changed the state)."""
        if getattr(event, "session_id", "") not in (self.session_id, ""):
            return False
        handler = _HANDLERS.get(type(event))
        if handler is None:
            return False
        handler(self, event)
        if not isinstance(event, Notice):
            self.commanded = ""  # what came since answered it; a later error is no refusal
        self.version += 1
        return True

    def section(self) -> Section | None:
        """The section output goes to now: the last round's (a command's output shown
        since, while a reply streams, is not where the reply goes on)."""
        return next((section for section in reversed(self.sections) if not section.command),
                    None)  # fmt: skip

    def elapsed(self, now: float | None = None) -> float:
        """Seconds the running thing has run (0 when nothing runs)."""
        if self.running is None:
            return 0.0
        return (time.monotonic() if now is None else now) - self.running.since


def _started(state: UiState, event: SessionStarted) -> None:
    state.model = event.model


def _round(state: UiState, event: RoundStarted) -> None:
    state.outcome = None  # a chat's next turn
    state.round = event.round
    state.sections.append(Section(event.round, event.attempt, prompt=state.prompted))
    state.prompted = ""
    state.running = Running("streaming", time.monotonic())


def _text(state: UiState, event: TextReceived | ThoughtReceived) -> None:
    section = state.section()
    if section is None:
        section = Section(event.round, 1)
        state.sections.append(section)
    if not section.text and not section.thoughts:
        section.folded = False  # its first content: open it
    (section.thoughts if isinstance(event, ThoughtReceived) else section.text).append(event.text)


def _block(state: UiState, event: BlockStarted) -> None:
    state.running = Running(f"{event.block.kind} block", time.monotonic())


def _block_done(state: UiState, event: BlockFinished) -> None:
    state.running = None


def _usage(state: UiState, event: UsageReported) -> None:
    usage = event.usage
    state.prompt_tokens += usage.input
    state.cached_tokens += usage.cache_read
    state.completion_tokens += usage.output
    previous = state.last_input
    state.last_input, state.last_cached = usage.input, usage.cache_read
    state.stable = min(previous / usage.input, 1.0) if usage.input else 0.0
    if event.cost is not None:
        state.cost = (state.cost or 0.0) + event.cost


def _notice(state: UiState, event: Notice) -> None:
    state.logs.append((event.level, event.message))
    if state.commanded and event.level == "error":
        _show_command(state, state.commanded, [f"error: {event.message}"])


#: The lines that leave a chat, as Ctrl-D does (handled by the chat itself: no session
#: command).
LEAVE_COMMANDS = frozenset({"/quit", "/exit"})


def not_kept(session_id: str) -> str:
    """What a chat says as it ends when its new session was not kept: its opening line
    promised the id for ``-resume`` once a turn is answered, and none was."""
    return f"tai: session {session_id} was not kept: no turn was answered"


#: The chat's own commands, beside what ``/help`` lists of the runtime's.
CHAT_HELP = (
    "/reload — read the configuration and the installed plugins again",
    "/compact [what to keep] — replace the conversation by its summary",
    "/quit (or /exit) — leave the chat, as Ctrl-D does",
)


def _said(state: UiState, event: ExtensionCommandFinished) -> None:
    """A session command's output, in the Output tab where it was typed, and in Logs."""
    lines = event.output.splitlines() + (list(CHAT_HELP) if event.name == "help" else [])
    state.logs += [("command", line) for line in lines]
    if lines:
        _show_command(state, f"/{event.name}", lines)


def _show_command(state: UiState, command: str, lines: list[str]) -> None:
    """A session command's output (or refusal) in the Output tab, under its name."""
    state.commanded = ""
    state.sections.append(Section(state.round, 1, ["\n".join(lines)], folded=False,
                                  command=command))  # fmt: skip


def _reloaded(state: UiState, event: ExtensionsReloaded) -> None:
    state.logs.append(("reloaded", f"{len(event.plugins)} plugins"))
    state.logs += [("warning", problem) for problem in event.problems]


def _switched(state: UiState, event: AgentActivated) -> None:
    mode = f"/{event.name}" if event.name else "the session's own prompt"
    state.model, state.agent = event.model, event.name
    state.logs.append(("agent", f"{mode} (kinds: {', '.join(event.kinds)})"))


def _compacted(state: UiState, event: SessionCompacted) -> None:
    state.logs.append(("compacted", f"{event.messages_before} messages into a summary"))


def _loaded(state: UiState, event: SessionLoaded) -> None:
    state.history_due = True
    # the status counts from what the session's earlier turns spent, as a report does
    state.prompt_tokens, state.completion_tokens = event.input_tokens, event.output_tokens
    state.cost = event.cost


def _tree(state: UiState, event: TreeChanged) -> None:
    state.tree = event.tree
    if state.history_due and event.tree is not None:
        state.history_due = False
        if not state.sections:  # a resumed chat opens with its conversation so far
            state.sections = history(event.tree)
            state.round = len(state.sections)


def history(tree: Any) -> list[Section]:
    """The sections of a saved session's turns, from its tree: each input's replies (the
    response nodes the loop records a round's whole reply in, not the ``response`` blocks
    inside them, which carry their block's kind), the first under the input's text."""
    from tai_core.tree import NodeKind

    sections: list[Section] = []
    for turn in tree.root.children:
        if turn.kind is not NodeKind.USER_INPUT:
            continue
        prompt, stack = turn.body, list(reversed(turn.children))
        while stack:
            node = stack.pop()
            stack.extend(reversed(node.children))
            if node.kind is NodeKind.RESPONSE and "kind" not in node.attrs:
                sections.append(Section(len(sections) + 1, 1, [node.body], prompt=prompt,
                                        folded=False))  # fmt: skip
                prompt = ""
    return sections


def _asked(state: UiState, event: PromptRequested) -> None:
    state.question = event


def _answered(state: UiState, event: PromptAnswered) -> None:
    if state.question is not None and state.question.prompt_id == event.prompt_id:
        state.question = None


def _ended(state: UiState, event: RunFinished | RunFailed | RunCancelled) -> None:
    state.outcome = event
    state.running = None
    state.question = None
    if isinstance(event, RunFailed):
        state.logs.append(("error", event.message))
        section = state.section()
        if section is None:  # it failed before the model said anything
            section = Section(state.round or 1, 1)
            state.sections.append(section)
        section.error, section.folded = event.message, False
    elif isinstance(event, RunCancelled) and (section := state.section()) is not None:
        section.cancelled, section.folded = True, False


_HANDLERS: dict[type, Any] = {
    SessionStarted: _started, RoundStarted: _round, TextReceived: _text,
    ThoughtReceived: _text, BlockStarted: _block, BlockFinished: _block_done,
    UsageReported: _usage, Notice: _notice, TreeChanged: _tree, RunFinished: _ended,
    RunFailed: _ended, RunCancelled: _ended, PromptRequested: _asked,
    PromptAnswered: _answered, ExtensionCommandFinished: _said, AgentActivated: _switched,
    SessionCompacted: _compacted, ExtensionsReloaded: _reloaded, SessionLoaded: _loaded,
}  # fmt: skip
