"""What a registered provider or context provider must at least tell about itself.

These are structural: a plugin's objects need not inherit from anything, they only need
the attributes. The full provider interface (streaming, usage, pricing) and the context
interface grow on top of these with the pipeline.
"""

from __future__ import annotations

from typing import Protocol


class ProviderInfo(Protocol):
    """A model provider as registered through ``tai_register_providers``."""

    #: The provider's name, unique among providers (``"openai"``, ``"gemini"``, …).
    name: str
    #: The configuration ``type`` values it serves (``("openai", "open-ai", "open_ai")``).
    types: tuple[str, ...]
    #: One line for ``tai plugins``.
    description: str


class ContextProviderInfo(Protocol):
    """A context provider as registered through ``tai_register_context_providers``."""

    #: The provider's name, unique among context providers (``"go"``, ``"any"``, …).
    name: str
    #: One line for ``tai plugins``.
    description: str


def provider_problems(provider: object) -> list[str]:
    """What ``provider`` lacks of :class:`ProviderInfo`."""
    problems = _named_problems(provider)
    types = getattr(provider, "types", None)
    if not isinstance(types, tuple) or not all(isinstance(t, str) and t for t in types):
        problems.append("types must be a tuple of non-empty strings")
    return problems


def context_provider_problems(provider: object) -> list[str]:
    """What ``provider`` lacks of :class:`ContextProviderInfo`."""
    return _named_problems(provider)


def _named_problems(thing: object) -> list[str]:
    problems = []
    name = getattr(thing, "name", None)
    if not isinstance(name, str) or not name:
        problems.append("name must be a non-empty string")
    if not isinstance(getattr(thing, "description", None), str):
        problems.append("description must be a string")
    return problems
