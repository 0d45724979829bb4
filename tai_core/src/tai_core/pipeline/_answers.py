"""What plugins may answer before a model call, checked before it changes the call.

``tai_before_model_call`` may append system text, add headers, switch the one call to
another ``model`` (named as ``-model`` takes it, resolved against the configuration as
the session's own was; a name that does not resolve fails the run naming it, rather than
a call to a model nobody chose), or give the call other ``messages`` (a plugin injects
context or removes what it judges stale). The session's conversation is never changed by it —
only this call's request — and what a plugin gives must be a conversation a provider can
take: a non-empty list of ``{"role": "user" | "assistant", "text": str}`` ending with the
user's message. Anything else fails the run with a message naming the fault, rather than
a provider's obscure refusal later.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from tai_core.models import Message, ModelConfigError, ModelSpec, Provider
from tai_core.pipeline._state import RunError

#: The keys an answer of ``tai_before_model_call`` may hold.
KEYS = frozenset({"system_text", "headers", "messages", "model"})


@attrs.frozen
class CallChanges:
    """What the plugins' answers change of one call."""

    system_texts: tuple[str, ...] = ()
    headers: Mapping[str, str] = attrs.field(factory=dict)
    #: The call's messages instead of the conversation's, when a plugin gave them.
    messages: tuple[Message, ...] | None = None
    #: The provider and spec of the model the call uses instead of the session's.
    model: tuple[Provider, ModelSpec] | None = None


def call_changes(
    answers: Sequence[tuple[str, Any]],
    resolve: Callable[[str], tuple[Provider, ModelSpec]] | None,
) -> CallChanges:
    """The answers, each with its plugin's name, in registration order (later plugins
    win), merged; :class:`RunError` naming the plugin of an answer tai cannot carry out."""
    system_texts: list[str] = []
    headers: dict[str, str] = {}
    messages: tuple[Message, ...] | None = None
    model: tuple[str, str] | None = None
    for plugin, answer in answers:
        if not isinstance(answer, Mapping):
            raise RunError(
                f"plugin {plugin!r}: tai_before_model_call returned {type(answer).__name__}, "
                "not a mapping"
            )
        unknown = set(answer) - KEYS
        if unknown:
            raise RunError(
                f"plugin {plugin!r}: tai_before_model_call returned unknown keys {sorted(unknown)}"
            )
        if answer.get("system_text"):
            system_texts.append(str(answer["system_text"]))
        headers.update(answer.get("headers") or {})
        if "messages" in answer:
            messages = plugin_messages(answer["messages"], plugin)
        if answer.get("model") is not None:
            model = (plugin, str(answer["model"]))
    return CallChanges(tuple(system_texts), headers, messages, _switched(model, resolve))


def _switched(
    asked: tuple[str, str] | None, resolve: Callable[[str], tuple[Provider, ModelSpec]] | None
) -> tuple[Provider, ModelSpec] | None:
    if asked is None:
        return None
    plugin, name = asked
    where = f"plugin {plugin!r}: tai_before_model_call asked for the model {name!r}"
    if resolve is None:
        raise RunError(f"{where}, but this session cannot switch models")
    try:
        return resolve(name)
    except ModelConfigError as error:
        raise RunError(f"{where}: {error}") from None


def plugin_messages(value: Any, plugin: str = "?") -> tuple[Message, ...]:
    """The messages of ``plugin``'s ``tai_before_model_call`` answer; :class:`RunError`
    when they are not a conversation a provider can take."""
    where = f"plugin {plugin!r}: tai_before_model_call returned messages"
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
