"""The memory of one ``tai ai`` session, as a plugin of the session's own.

Registered by the command for its session, through the same hooks any plugin uses: before
every model call it appends the model's profile to the system prompt (last, so that the
prompt's prefix stays the same while the profile changes), and when a round succeeds it
merges the items of the round's first ``memory`` block into that profile. A round that
fails or is retried changes nothing: the items of its blocks are dropped with it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tai_core.blocks import Block, BlockKind
from tai_core.memory._profile import ProfileDamaged, profile, read_entries, record, untrusted
from tai_core.plugins._markers import hookimpl

PROFILE_HEADING = "# What you know about the user"


def memory_items(body: str) -> list[str]:
    """The ``<memory-item>`` texts of a memory block's body (none when it is not the
    ``<memory>`` document the memory kind asks for)."""
    from xml.etree import ElementTree

    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError:
        return []
    if root.tag != "memory":
        return []
    return [item.text or "" for item in root if item.tag == "memory-item"]


def profile_section(items: Sequence[str]) -> str:
    """The system prompt's section holding a profile."""
    return "\n".join([PROFILE_HEADING, "", *(f"- {item}" for item in items)])


class SessionMemory:
    """The memory of session ``session_id``, in the profiles file at ``path``; ``warn``
    receives what went wrong (a damaged file, a failed write)."""

    def __init__(self, path: Path, session_id: str, warn: Callable[[str], None]) -> None:
        self.path = path
        self.session_id = session_id
        self._warn = warn
        self.model: str | None = None
        self._pending: list[str] | None = None
        #: Whether the entries tai did not sign were reported (once per session).
        self._reported = False

    def _ours(self, session: Any) -> bool:
        return getattr(session, "session_id", None) == self.session_id

    def profile(self, model: str) -> tuple[str, ...]:
        """``model``'s profile now (empty, with a warning, when the file is damaged)."""
        try:
            entries = read_entries(self.path)
        except ProfileDamaged as error:
            self._warn(f"the memory file is damaged and is ignored: {error}")
            return ()
        foreign = untrusted(entries)
        if foreign and not self._reported:
            self._reported = True
            self._warn(
                f"{self.path} holds {len(foreign)} entries tai did not write as they are (an "
                "edit by hand, or a command a model ran); they are not used. If they are "
                "yours, `tai ai -trust-memory` shows and signs them."
            )
        return profile(entries, model)

    @hookimpl
    def tai_before_model_call(
        self, session: Any, model: str, messages: Sequence[Mapping[str, Any]]
    ) -> Mapping[str, Any] | None:
        """The model's profile, last in the system prompt."""
        del messages
        if not self._ours(session):
            return None
        self.model = model
        items = self.profile(model)
        return {"system_text": profile_section(items)} if items else None

    @hookimpl
    def tai_round_start(self, session: Any, round_number: int) -> None:
        """A new attempt: nothing of it is remembered yet."""
        del round_number
        if self._ours(session):
            self._pending = None

    @hookimpl
    def tai_block_parsed(self, block: Block, kind: BlockKind | None) -> None:
        """The round's first memory block with items is the one remembered."""
        del kind
        if block.kind == "memory" and self._pending is None:
            items = memory_items(block.body)
            self._pending = items or None

    @hookimpl
    def tai_round_end(self, session: Any, round_number: int, outcome: str) -> None:
        """A successful round's memory block updates the profile."""
        del round_number
        if not self._ours(session):
            return
        items, self._pending = self._pending, None
        if outcome != "success" or not items or self.model is None:
            return
        from tai_core.store import StoreError

        try:
            record(self.path, self.model, items)
        except (OSError, StoreError) as error:  # StoreError: tai's key cannot be read
            self._warn(f"the memory could not be saved: {error}")
