"""tai-note: a block kind that files notes for the user in ``NOTES.md``.

An example of a third-party plugin: one module, one entry point in the group ``tai``,
nothing imported from tai but its public API.
"""

from __future__ import annotations

from collections.abc import Callable

from tai_core import Block, BlockKind, BlockResult, Param, RunContext, hookimpl

NOTES_FILE = "NOTES.md"


class NoteKind(BlockKind):
    """File a note for the user under a topic."""

    name = "note"
    params = (Param("topic", "A short topic the note is filed under.", required=True),)
    triggers_round = False
    commands = frozenset({"go", "any", "ai", "next"})
    prompt_section = """\
# note blocks

To leave the user a note that outlives this session (a follow-up, a doubt, a risk you saw
but did not act on), write a `note` block with a `topic`; the body is the note. Notes are
appended to NOTES.md in the working directory."""
    restatement = "note blocks: topic required; body = the note for the user."
    disabled_notice = "notes are not kept now; mention the point in your summary."

    requires_body = "the note"

    def check_body(self, block: Block) -> list[str]:
        return ["a note topic is one line"] if "\n" in block.params.get("topic", "") else []

    def execute(self, block: Block, context: RunContext) -> BlockResult:
        path = context.cwd / NOTES_FILE
        with path.open("a", encoding="utf-8") as notes:
            notes.write(f"## {block.params['topic']}\n\n{block.body}\n\n")
        return BlockResult(
            kind=self.name, ok=True, text=f"Note filed in {NOTES_FILE}.", triggers_round=False
        )


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the note kind."""
    register(NoteKind())
