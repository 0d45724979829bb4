"""A recorded run's replies as a transcript for the replay provider (``-model replay:FILE``).

Every attempt of every round is one reply, in order: its thoughts, its usage, its finish
reason and its text. An attempt that failed is replayed as a failure after the same
output (``@@@ error``), so the run retries where it retried. A handoff note written after a
truncation is a reply of its own, in a ``handoff`` block, for the model that wrote it —
replay with the same handoff model (by default the run's model) to keep the order. Not
reproduced: transport-level retries that produced nothing (the call simply succeeds) and
handoffs that failed; trailing blank lines of a reply, which the format drops.

The format (``docs/replay-format.md``): ``@@@ reply`` starts a reply; in it every line
starting with ``@@@ `` is a directive and all other lines are its text, verbatim. A reply
with such a line in its text cannot be written (:class:`ReplayError`).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from tai_core.records._recorder import FINISH, HANDOFF, ROUND_START, TEXT, THOUGHT, USAGE
from tai_core.records._store import EventRow

REPLY = "@@@ reply"
DIRECTIVE = "@@@ "
#: The usage counts the replay provider takes.
USAGE_KEYS = ("input", "output", "cache_read", "cache_write", "reasoning")
#: Delimiters for a handoff block; the first one absent from the note is used.
HANDOFF_DELIMITERS = ("交接", "琥珀", "松柏", "紫藤", "蘭菊")
#: The replayed failure of an attempt that failed: not retryable, so a failure without
#: output ends the run at once, as the recorded one did.
FAILURE = "@@@ error 400 the recorded attempt failed here"
#: Recorded row type -> the reply's field it fills.
_FIELDS = {TEXT: "text", THOUGHT: "thought", USAGE: "usage", FINISH: "finish"}


class ReplayError(ValueError):
    """A recorded reply the replay format cannot carry; the message says which."""


@attrs.define
class _Reply:
    text: str = ""
    thought: str = ""
    usage: str = ""
    finish: str = ""

    def render(self, where: str) -> str:
        lines = [REPLY]
        lines.extend(f"{DIRECTIVE}thought: {line}" for line in self.thought.splitlines())
        counts = [item for item in self.usage.split() if item.partition("=")[0] in USAGE_KEYS]
        if counts:
            lines.append(f"{DIRECTIVE}usage {' '.join(counts)}")
        if self.finish == "error":
            lines.append(FAILURE)
        elif self.finish:
            lines.append(f"{DIRECTIVE}finish {self.finish}")
        if any(line.startswith(DIRECTIVE) for line in self.text.splitlines()):
            raise ReplayError(f"{where}: a line of it starts with {DIRECTIVE!r}")
        text = self.text if not self.text or self.text.endswith("\n") else self.text + "\n"
        return "\n".join(lines) + "\n" + text


def _handoff(note: str) -> _Reply:
    delimiter = next((d for d in HANDOFF_DELIMITERS if d not in note), HANDOFF_DELIMITERS[0])
    return _Reply(text=f"<<{delimiter} handoff\n{note}\n{delimiter}\n")


def runs_named(sessions: Sequence[int | str]) -> str:
    """``run 3``, ``runs 1 and 2``, ``runs 1, 2 and 3`` (recorded runs by number, or runs
    by session id)."""
    if len(sessions) == 1:
        return f"run {sessions[0]}"
    return f"runs {', '.join(map(str, sessions[:-1]))} and {sessions[-1]}"


def replay_script(
    runs: Sequence[tuple[int, Sequence[EventRow]]], *, asked: int | None = None
) -> str:
    """The transcript of the replies of recorded ``runs`` (one or more, each its id and its
    rows), one after the other: the goal loops or chat turns of one tai command play again
    in order; its first line names the run ``asked`` for (default: the first).
    :class:`ReplayError` when a reply cannot be written in the format."""
    replies: list[tuple[str, _Reply]] = []
    for session, events in runs:
        start = len(replies)
        for row in events:
            if row.type == ROUND_START:
                replies.append((f"run {session}, reply in round {row.round}, {row.detail}",
                                _Reply()))  # fmt: skip
            elif row.type == HANDOFF:
                replies.append((f"run {session}, reply in the handoff in round {row.round}",
                                _handoff(row.detail)))  # fmt: skip
            elif len(replies) > start and row.type in _FIELDS:
                setattr(replies[-1][1], _FIELDS[row.type], row.detail)
    header = (
        f"# The replies of recorded {runs_named([session for session, _ in runs])} "
        f"(tai record -session {asked or runs[0][0]} -replay FILE), for -model replay:FILE.\n"
    )
    return header + "".join(reply.render(where) for where, reply in replies)
