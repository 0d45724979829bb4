"""What plugins may answer before a model call, checked before it changes the call.

``tai_before_model_call`` may give the call other ``messages`` (a plugin injects context
or removes what it judges stale). The session's conversation is never changed by it —
only this call's request — and what a plugin gives must be a conversation a provider can
take: a non-empty list of ``{"role": "user" | "assistant", "text": str}`` ending with the
user's message. Anything else fails the run with a message naming the fault, rather than
a provider's obscure refusal later.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tai_core.models import Message
from tai_core.pipeline._state import RunError


def plugin_messages(value: Any) -> tuple[Message, ...]:
    """The messages of a ``tai_before_model_call`` answer; :class:`RunError` when they are
    not a conversation a provider can take."""
    where = "tai_before_model_call returned messages"
    if not isinstance(value, list | tuple) or not value:
        raise RunError(f"{where} that are not a non-empty list")
    messages = []
    for index, item in enumerate(value):
        if not (
            isinstance(item, Mapping)
            and set(item) == {"role", "text"}
            and item["role"] in ("user", "assistant")
            and isinstance(item["text"], str)
        ):
            raise RunError(f"{where} whose item {index} is not {{role: user|assistant, text}}")
        messages.append(Message(item["role"], item["text"]))
    if messages[-1].role != "user":
        raise RunError(f"{where} that do not end with the user's message")
    return tuple(messages)
