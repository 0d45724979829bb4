"""Compaction: a long conversation replaced by its summary before it outgrows the window.

Why shaped so
    A chat (``tai ai``, a JSON-lines client) keeps every message of its session and sends
    them all at every turn, so a long one ends at the model's window with a refusal. Before
    that, at the start of a turn whose request — the system prompt, the conversation and
    the new input, estimated at a token per four characters — holds ``threshold_ratio``
    (0.75) of the window or more, the runtime asks the session's own model, in one call of
    its own, for a dense summary of the conversation within ``target_ratio`` (0.35) of the
    window, and the conversation becomes that summary (the user's message, acknowledged,
    so roles still alternate). The same is done on request (the ``compact`` command:
    ``/compact`` in ``tai ai``, ``{"type": "compact"}`` in ``tai serve``), with the user's
    own instructions for the summary. ``[auto_compact]`` in tai.toml sets ``enabled``
    (default true) and the two ratios.

    Plugins take part (``tai_before_compaction``: skip it, add instructions;
    ``tai_after_compaction``: told the counts and the summary). Nothing is lost to a
    failure: a summary call that fails, or comes back empty, leaves the conversation as
    it was, with a warning, and the turn goes on. The session tree keeps everything said
    before; the summary is an event node in it.

    What must not be summarised away stays pinned: the opening's rules and files (kept in
    front), the plans in force (their entries and how far each is, from the tree, after the
    summary), and what plugins add to every call (the memory profile of ``tai ai`` comes as
    ``system_text``, outside the conversation); the instructions of the summary call are
    the ``compact`` agent command's when one is registered (a project may tune them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from tai_core.models import Message, estimate_tokens
from tai_core.pipeline._record import plans_in_force

#: Fewer messages than this are never compacted: there is nothing to gain.
MINIMUM_MESSAGES = 4
#: The summary's heading as the conversation's first message after compaction.
SUMMARY_HEADING = "Conversation summary before compaction:"
#: The reply that keeps the roles alternating after the summary.
ACKNOWLEDGED = "Understood. I continue from this summary."
#: What introduces the plans pinned after the summary.
PLANS_HEADING = "Plans in force (from the session tree; carry on with the pending entries):"

COMPACT_SYSTEM_PROMPT = """\
You compact a conversation between a user and a coding assistant into a summary that \
replaces it: the assistant continues the work from your summary alone, without the \
conversation. Write it densely, in plain text, with these parts:

- Objective: what the user wants, in their words where it matters, and what is done.
- State: files changed, read and created (paths), decisions made and why, what failed \
and was abandoned.
- Constraints: what the user asked for or ruled out; conventions of the project.
- Next: the step in progress and the steps left.

Keep names, paths, commands, numbers and error messages exact. Do not write blocks, \
do not address the user, do not add anything that was not said."""


@attrs.frozen
class CompactionSettings:
    """``[auto_compact]``: whether turns compact by themselves, and the two ratios of the
    model's window (the request's share that starts it, the summary's at most)."""

    enabled: bool = True
    threshold_ratio: float = 0.75
    target_ratio: float = 0.35

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> CompactionSettings:
        """The settings of ``config`` (already checked by the schema); a target ratio not
        below the threshold is a :class:`ValueError` naming both."""
        table = config.get("auto_compact", {})
        settings = cls(**{key: table[key] for key in attrs.fields_dict(cls) if key in table})
        if settings.target_ratio >= settings.threshold_ratio:
            raise ValueError(
                f"auto_compact: target_ratio ({settings.target_ratio:g}) must be below "
                f"threshold_ratio ({settings.threshold_ratio:g})"
            )
        return settings


def request_estimate(system: str, messages: Sequence[Message], text: str) -> int:
    """The tokens of a request of ``system``, ``messages`` and the new input ``text``."""
    return (
        estimate_tokens(system)
        + sum(estimate_tokens(message.text) for message in messages)
        + estimate_tokens(text)
    )


def turns_since(messages: Sequence[Message]) -> int:
    """The messages of ``messages`` that a compaction would summarise anew: all, or those
    after the summary of a compaction before."""
    compacted_before = bool(messages) and SUMMARY_HEADING in messages[0].text
    return len(messages) - 2 if compacted_before else len(messages)


def due(
    settings: CompactionSettings, window_tokens: int, estimate: int, messages: Sequence[Message]
) -> bool:
    """Whether a turn whose request is ``estimate`` tokens, after ``messages``, compacts
    first."""
    return (
        settings.enabled
        and turns_since(messages) >= MINIMUM_MESSAGES
        and estimate >= window_tokens * settings.threshold_ratio
    )


def opening(messages: Sequence[Message]) -> str:
    """What the first message carried before its task (the rules and the files), with the
    task's heading; empty when it has no such heading."""
    from tai_core.context._prompt import TASK_HEADING

    if not messages or messages[0].role != "user":
        return ""
    text = messages[0].text
    at = text.rfind(TASK_HEADING)
    return text[: at + len(TASK_HEADING)] if at >= 0 else ""


def transcript(messages: Sequence[Message]) -> str:
    """The conversation as one text for the summary call."""
    return "\n\n".join(f"[{message.role}]\n{message.text}" for message in messages)


def summary_request(messages: Sequence[Message], target_tokens: int, instructions: str) -> str:
    """The summary call's user message: the conversation and what is asked of it."""
    asked = f"Write the summary of the conversation above in at most {target_tokens} tokens."
    if instructions.strip():
        asked += f"\n\nThe user adds: {instructions.strip()}"
    return f"<conversation>\n{transcript(messages)}\n</conversation>\n\n{asked}"


def compacted(summary: str, kept: str = "", plans: str = "") -> tuple[Message, Message]:
    """The conversation that replaces the compacted one (``kept``: the opening's rules and
    files, in front; ``plans``: the plans in force, pinned after the summary)."""
    pinned = f"\n\n{PLANS_HEADING}\n{plans}" if plans else ""
    return Message("user", f"{kept}{SUMMARY_HEADING}\n{summary.strip()}{pinned}"), Message(
        "assistant", ACKNOWLEDGED
    )


def plugin_answers(answers: Sequence[Any]) -> tuple[bool, str, list[str]]:
    """``tai_before_compaction``'s answers: whether one said skip, the instructions they
    add (joined), and the problems of answers that are not so shaped."""
    skip, instructions, problems = False, [], []
    for answer in answers:
        if answer is None:
            continue
        if not isinstance(answer, Mapping) or not set(answer) <= {"skip", "instructions"}:
            problems.append(
                f"tai_before_compaction answered {answer!r}, not a mapping of skip and "
                "instructions; ignored"
            )
            continue
        skip = skip or bool(answer.get("skip"))
        if isinstance(answer.get("instructions"), str) and answer["instructions"].strip():
            instructions.append(answer["instructions"].strip())
    return skip, "\n".join(instructions), problems


async def compact(
    *,
    options: Any,
    state: Any,
    provider: Any,
    spec: Any,
    settings: CompactionSettings,
    hook: Any,
    publish: Callable[[Any], None],
    observe: Callable[..., None],
    reason: str,
    instructions: str = "",
    system: str | None = None,
) -> Any | None:
    """Compact the conversation of ``state`` (a session's :class:`RunState`) for
    ``reason`` (``"auto"``, ``"requested"``); the new state, or ``None`` when it stays as
    it is (too short, skipped by a plugin, the summary call failed: each said in a notice).
    ``options`` is the session view the hooks receive, ``provider`` and ``spec`` the
    session's model, ``observe(hook_name, **kwargs)`` calls an observation hook, ``system``
    the instructions of the summary call (default :data:`COMPACT_SYSTEM_PROMPT`)."""
    from tai_core.events import Notice, SessionCompacted, TreeChanged
    from tai_core.models import ProviderError, ask, window_of
    from tai_core.plugins._failures import PluginHookError
    from tai_core.tree import NodeKind, NodeSpec

    session_id = options.session_id

    def warn(message: str) -> None:
        publish(Notice(session_id, "warning", message))

    messages = state.messages
    if turns_since(messages) < MINIMUM_MESSAGES:
        if reason == "requested":
            warn(f"nothing to compact: the conversation holds {len(messages)} messages")
        return None
    shown = [{"role": message.role, "text": message.text} for message in messages]
    try:
        answers = hook.tai_before_compaction(session=options, messages=shown, reason=reason)
    except PluginHookError as error:
        warn(f"{error}; the conversation is kept as it is")
        return None
    skip, added, problems = plugin_answers(answers)
    for problem in problems:
        warn(problem)
    if skip:
        publish(Notice(session_id, "info", "compaction skipped: a plugin keeps the conversation"))
        return None
    target = int(window_of(spec).context_tokens * settings.target_ratio)
    asked = "\n".join(filter(None, [instructions.strip(), added]))
    try:
        summary = await ask(
            provider,
            spec,
            system or COMPACT_SYSTEM_PROMPT,
            summary_request(messages, target, asked),
        )
    except ProviderError as error:
        warn(f"compaction failed: {error}; the conversation is kept as it is")
        return None
    if not summary.strip():
        warn("compaction failed: the summary came back empty; the conversation is kept")
        return None
    replacement = compacted(summary, opening(messages), plans_in_force(state.tree))
    node = NodeSpec(NodeKind.EVENT, body=summary.strip(),
                    attrs={"event": "compaction", "reason": reason})  # fmt: skip
    tree, _ = state.tree.add(node)
    publish(TreeChanged(session_id, tree))
    publish(SessionCompacted(session_id, reason, len(messages), len(replacement), summary))
    observe(
        "tai_after_compaction", session=options, reason=reason,
        messages_before=len(messages), messages_after=len(replacement), summary=summary,
    )  # fmt: skip
    return attrs.evolve(state, messages=replacement, tree=tree)
