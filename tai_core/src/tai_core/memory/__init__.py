"""What ``tai ai`` remembers about the user: a profile per model, kept across sessions.

Why a plugin of the session, not code in the chat loop
    The profile reaches the model and is updated through the hooks any plugin has
    (``tai_before_model_call`` appends it to the system prompt, ``tai_block_parsed`` and
    ``tai_round_end`` take a successful round's ``memory`` block), so the chat loop knows
    nothing of it, ``-no-memory`` is only not registering it, and a third party could
    replace it by registering its own.

Why a JSON file and not the sessions database
    The profile outlives sessions and is small; it keeps the original tai's file format
    (``ai-memory.json``), so a user can read and edit it, with a lock and atomic
    replacement for concurrent sessions (``_profile``); each entry is signed by tai, and
    one it did not sign (a hand edit, or a plant by a command a model ran) is used only
    once the user has signed it (``tai ai -trust-memory``).

* ``_profile`` — the profiles file: reading, bounding, merging, appending;
* ``_keeper`` — the session's plugin.
"""

from tai_core.memory._keeper import PROFILE_HEADING, SessionMemory, memory_items, profile_section
from tai_core.memory._profile import (
    MAX_ITEM_CHARS,
    MAX_ITEMS,
    MEMORY_FILE,
    Entry,
    ProfileDamaged,
    bounded,
    memory_path,
    merged,
    profile,
    read_entries,
    record,
    sign_all,
    untrusted,
)

__all__ = [
    "MAX_ITEMS",
    "MAX_ITEM_CHARS",
    "MEMORY_FILE",
    "PROFILE_HEADING",
    "Entry",
    "ProfileDamaged",
    "SessionMemory",
    "bounded",
    "memory_items",
    "memory_path",
    "merged",
    "profile",
    "profile_section",
    "read_entries",
    "record",
    "sign_all",
    "untrusted",
]
