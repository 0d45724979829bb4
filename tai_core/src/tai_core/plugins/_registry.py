"""What the plugins registered, and which plugin registered each thing.

A plugin's registrations are staged and checked as a whole before they join the
registry: a plugin whose kind breaks the contract, or whose name collides with one taken
by an earlier plugin, joins with nothing — the registry never holds half a plugin. Names
are first come, first served (plugins load in entry-point name order), and a collision is
reported as the later plugin's load error rather than silently renamed, because a model's
prompt names kinds: two plugins cannot both own ``shell``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import attrs

from tai_core.blocks._kind import BlockKind, missing_members
from tai_core.plugins._contracts import (
    agent_command_problems,
    context_provider_problems,
    provider_problems,
    session_command_problems,
)

#: The categories of things a plugin registers, as named in ``tai plugins``.
CATEGORIES: tuple[str, ...] = (
    "block_kinds", "providers", "context_providers", "session_commands", "agent_commands",
    "commands",
)  # fmt: skip


#: Category -> (its label in messages, the check of the contract its things fulfil).
_CONTRACTS: dict[str, tuple[str, Callable[[Any], list[str]]]] = {
    "block_kinds": ("block kind", missing_members),
    "providers": ("provider", provider_problems),
    "context_providers": ("context provider", context_provider_problems),
    "session_commands": ("session command", session_command_problems),
    "agent_commands": ("agent command", agent_command_problems),
}


class RegistrationError(Exception):
    """A plugin's registrations break the contract or collide with another plugin's."""


@attrs.define
class Staging:
    """The registrations of one plugin, collected before they are checked."""

    plugin: str
    block_kinds: list[BlockKind] = attrs.Factory(list)
    providers: list[Any] = attrs.Factory(list)
    context_providers: list[Any] = attrs.Factory(list)
    session_commands: list[Any] = attrs.Factory(list)
    agent_commands: list[Any] = attrs.Factory(list)

    def register_callback(self, category: str) -> Callable[[Any], None]:
        """The ``register`` argument of the registration hook for ``category``."""
        return _Register(getattr(self, category), category, self.plugin)


def stage(pm: Any, plugin: object, name: str, hooks: Iterable[tuple[str, str]]) -> Staging:
    """What ``plugin`` (named ``name``) registers through ``hooks`` — (hook, category)
    pairs of hooks it implements — each called for that plugin alone, not yet checked."""
    others = [p for p in pm.get_plugins() if p is not plugin]
    staged = Staging(plugin=name)
    for hook, category in hooks:
        caller = pm.subset_hook_caller(hook, remove_plugins=others)
        caller(register=staged.register_callback(category))
    return staged


@attrs.frozen
class _Register:
    """A ``register`` callback; its repr says what it registers, for hook traces."""

    into: list[Any] = attrs.field(repr=False)
    category: str
    plugin: str

    def __call__(self, thing: Any) -> None:
        self.into.append(thing)

    def __repr__(self) -> str:
        return f"<register {self.category.replace('_', ' ')} of {self.plugin!r}>"


@attrs.define
class Registry:
    """Everything registered, by name, with the owning plugin of each name."""

    block_kinds: dict[str, BlockKind] = attrs.Factory(dict)
    providers: dict[str, Any] = attrs.Factory(dict)
    provider_types: dict[str, str] = attrs.Factory(dict)
    context_providers: dict[str, Any] = attrs.Factory(dict)
    #: Commands users type in a session (``/NAME``), by name.
    session_commands: dict[str, Any] = attrs.Factory(dict)
    #: Modes a session switches to (``/NAME``), by name.
    agent_commands: dict[str, Any] = attrs.Factory(dict)
    commands: dict[str, str] = attrs.Factory(dict)
    #: Plugin name -> the settings model it declared (``tai_plugin_settings``).
    settings: dict[str, Any] = attrs.Factory(dict)
    owners: dict[tuple[str, str], str] = attrs.Factory(dict)

    def problems(self, staged: Staging) -> list[str]:
        """Why ``staged`` cannot join (empty when it can)."""
        problems: list[str] = []
        seen: set[tuple[str, str]] = set()

        def claim(category: str, name: str, label: str) -> None:
            key = (category, name)
            if key in self.owners:
                problems.append(f"{label} {name!r} is already registered by {self.owners[key]!r}")
            elif key in seen:
                problems.append(f"{label} {name!r} is registered twice")
            seen.add(key)

        for category, (label, check) in _CONTRACTS.items():
            for thing in getattr(staged, category):
                wrong = check(thing)
                if wrong:
                    name = getattr(thing, "name", None)
                    shown = repr(name) if isinstance(name, str) else repr(thing)
                    problems.append(
                        f"{label} {shown} does not fulfil the contract: {'; '.join(wrong)}"
                    )
                    continue
                claim(category, thing.name, label)
        for provider in staged.providers:
            for type_name in getattr(provider, "types", ()):
                claim("provider_types", type_name.lower(), "provider type")
        for thing in [*staged.session_commands, *staged.agent_commands]:  # one /NAME each
            if isinstance(getattr(thing, "name", None), str):
                claim("slash", thing.name, "/NAME")
        return problems

    def commit(self, staged: Staging) -> dict[str, list[str]]:
        """Add ``staged`` (checked by :meth:`problems`); returns the names per category."""
        registers: dict[str, list[str]] = {}
        for category in _CONTRACTS:
            table: dict[str, Any] = getattr(self, category)
            registers[category] = []
            for thing in getattr(staged, category):
                table[thing.name] = thing
                self.owners[category, thing.name] = staged.plugin
                registers[category].append(thing.name)
        for provider in staged.providers:
            for type_name in provider.types:
                self.provider_types[type_name.lower()] = provider.name
                self.owners["provider_types", type_name.lower()] = staged.plugin
        for thing in [*staged.session_commands, *staged.agent_commands]:
            self.owners["slash", thing.name] = staged.plugin
        return registers

    def add_commands(self, plugin: str, names: list[str]) -> None:
        """Record that ``plugin`` added the commands ``names``."""
        for name in names:
            self.commands[name] = plugin
            self.owners["commands", name] = plugin

    def extensions(self) -> dict[str, tuple[str, Any]]:
        """The session commands, each with the plugin that registered it (for the
        runtime's messages)."""
        return {name: (self.owners["session_commands", name], command)
                for name, command in self.session_commands.items()}  # fmt: skip

    def add_settings(self, plugin: str, model: Any) -> None:
        """Record that ``plugin`` declared the settings ``model``."""
        self.settings[plugin] = model
        self.owners["settings", plugin] = plugin

    def remove_plugin(self, plugin: str) -> None:
        """Forget everything ``plugin`` registered."""
        for (category, name), owner in list(self.owners.items()):
            if owner != plugin:
                continue
            del self.owners[category, name]
            table: dict[str, Any] = getattr(self, category, {})  # "slash": names only
            table.pop(name, None)
