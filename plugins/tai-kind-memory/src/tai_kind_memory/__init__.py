"""The ``memory`` kind: facts about the user the interactive chat keeps across sessions.

Only in ``tai ai``; the items are merged into the per-model profile after each successful
round. The body is a small XML document, checked here so a malformed one is fed back.
"""

from __future__ import annotations

from collections.abc import Callable

from tai_core import Block, BlockKind, hookimpl


class MemoryKind(BlockKind):
    """Update what tai remembers about the user."""

    name = "memory"
    commands = frozenset({"ai"})
    runs = False
    prompt_section = """\
# memory blocks

To remember something about the user for later sessions (preferences, background, running
projects), write a `memory` block holding the whole updated profile:
<memory><memory-item>one fact</memory-item><memory-item>another</memory-item></memory>
Items you leave out are kept from the previous profile; repeat none."""
    restatement = "memory block: the updated profile as <memory><memory-item>… items."
    disabled_notice = "nothing is remembered in this session; do not write memory blocks."

    def check_body(self, block: Block) -> list[str]:
        from xml.etree import ElementTree

        try:
            root = ElementTree.fromstring(block.body)
        except ElementTree.ParseError as error:
            return [f"the memory body is not well-formed XML: {error}"]
        if root.tag != "memory":
            return [f"the memory body's root element must be <memory>, not <{root.tag}>"]
        if not any(child.tag == "memory-item" for child in root):
            return ["the memory body needs at least one <memory-item>"]
        return []


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the memory kind."""
    register(MemoryKind())
