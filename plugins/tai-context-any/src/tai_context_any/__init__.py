"""The ``any`` context provider plugin: the text files of any directory, whole.

Registered through ``tai_register_context_providers`` under the entry point ``any``; the
provider itself and its theory (git's ignore rules, a deterministic order, a byte budget
with a closing list, secrets withheld and named) are :mod:`tai_text`'s, which the
``ingest`` kind and checkpoints share.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tai_core import hookimpl
from tai_text._provider import AnyTextProvider, provider

__all__ = ["AnyTextProvider", "provider"]


@hookimpl
def tai_register_context_providers(register: Callable[[Any], None]) -> None:
    """Register the any-text provider."""
    register(provider)
