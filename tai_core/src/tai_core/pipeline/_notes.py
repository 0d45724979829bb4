"""What the program says to the model between rounds, and why it says it so.

THEORY_OF_RETRIES: a failed attempt is not shown to the model as if it had happened. After
an error that came with output, the partial reply stays in the conversation (the model's
work is not wasted) with a note that none of its blocks ran, so it re-emits them all; after
a truncation the round restarts from the snapshot before it, with the handoff note of what
the cut-off attempt had found when there is one. Both notes ask the model to partition
large work with continue blocks, the usual cause of both failures.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tai_core._nearest import aside, did_you_mean
from tai_core.blocks import Block, BlockParseError


def error_retry_note(error: str, attempt: int, retries: int, apply_failed: bool) -> str:
    """The user note after an attempt that failed with output."""
    lines = [
        f"[System note] The previous reply failed: {error}",
        f"This is retry attempt {attempt} of {retries}. None of the blocks of that reply were "
        "carried out and no change was applied.",
        "Write the reply again, re-emitting every block you still need. If the work is large, "
        "do a coherent part now and continue the rest with a continue block.",
    ]
    if apply_failed:
        lines.append(
            "All change blocks of that reply were dropped: re-emit all of them, with the failing "
            "one corrected."
        )
    return "\n".join(lines)


def truncation_note(attempt: int, retries: int, handoff: str, cut: bool = True) -> str:
    """The note after a truncated attempt — ``cut`` by the length limit, or ended without a
    summary or a block that continues — before its handoff when one was written (without
    one the note alone makes the retry differ from the request that was cut off)."""
    how = "was cut off" if cut else "ended without a summary block or a block that continues"
    first = (
        f"[System note] Your previous reply {how} (retry attempt {attempt} of "
        f"{retries}); nothing of it was applied and you cannot see it."
    )
    if not handoff and not cut:
        return (
            f"{first}\nEnd the reply with a summary block when the work is done; while it is "
            "not, end it with a block that continues the work (a continue block for the rest)."
        )
    if not handoff:
        return (
            f"{first}\nIt ended before a summary block or a block that continues the work. "
            "Do a smaller, coherent part of the work now, continue the rest with a continue "
            "block, and end the reply with a summary block."
        )
    return "\n".join(
        [
            first,
            "Do a smaller, coherent part of the work now and continue the rest with a continue "
            "block. The handoff below is what the cut-off reply had found; use it as a "
            "reference and keep its reasoning.",
            "",
            handoff,
        ]
    )


def parse_error_note(errors: Sequence[str], correction: int, budget: int) -> str:
    """The feedback for blocks that could not be parsed or were invalid."""
    return "\n\n".join(
        [
            "[System note] Only these blocks failed; all other blocks of your reply were "
            "carried out. Re-emit only the failed blocks, corrected (re-emitting the others "
            f"would apply them twice). Correction attempt {correction} of {budget}; after "
            "that, failed blocks are dropped. End with a summary block.",
            *errors,
        ]
    )


def describe_parse_error(error: BlockParseError) -> str:
    """One parse error as the model reads it."""
    return error.message()


def unknown_kind_note(block: Block, kinds: Iterable[str]) -> str:
    """A block of a kind no installed plugin runs: not run, and said (a misspelt kind
    would otherwise look to the model as if it had run and said nothing)."""
    return (
        f"{block.kind} block at line {block.line}: no installed plugin runs {block.kind} "
        f"blocks{aside(did_you_mean(block.kind, kinds))}; it was passed over"
    )


def input_node_note(name: str) -> str:
    """The line that closes a user input: its name in the session tree, the parent a
    response or a plan that answers it names (one line, not the whole outline, which
    every feedback shows and a long session would repeat at every input)."""
    return f"(In the session tree this input is the node {name}.)"


def rejected_batch_note(reason: str) -> str:
    """The feedback when the session tree refused the reply's named blocks."""
    return (
        f"[System note] {reason} None of the named blocks of your reply ran. Fix the parent "
        "and name parameters (names must be new; parents must exist in the outline) and "
        "re-emit them."
    )


def plan_entry_note(name: str, body: str) -> str:
    """The feedback that hands the model the next pending plan entry."""
    return f"[Plan] Next pending entry {name!r}:\n{body}\nDo it, then mark it done with plan-op."


def cut_feedback_note(size: int, room: int) -> str:
    """The note closing block results cut to fit the model's window."""
    return (
        f"[System note] The results of your blocks were about {size} tokens; the model's "
        f"window leaves about {room} for them, so they are cut here. Ask for less at a "
        "time: name declarations instead of whole packages, or one file at a time."
    )
