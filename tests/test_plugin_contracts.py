"""Registration checks the whole contract of providers and context providers: a plugin whose
object lacks a member is refused at load, its error naming every member missing or wrong,
and nothing of it is registered (never a traceback later, when the object is first used)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from types import MappingProxyType

import pytest

from tai_core import ContextPart, ContextRequest, hookimpl
from tai_core.context import TIER_CONTEXT
from tai_core.models import Finish, ModelSpec, TextDelta
from tai_core.plugins import PluginHost


class EchoProvider:
    """A provider that fulfils the contract: it answers with the last message."""

    name = "echo"
    description = "repeats the last message"
    types = ("echo",)
    prefixes = ("echo",)
    short_names = MappingProxyType({"parrot": {"type": "echo", "model": "parrot"}})

    def spec(self, name, fields, config, environ) -> ModelSpec:
        model = fields.get("model", name)
        return ModelSpec(name=name, provider=self.name, type="echo", model=model)

    async def stream(self, spec, request) -> AsyncIterator[object]:
        yield TextDelta(request.messages[-1].content)
        yield Finish("stop")


class ChangelogProvider:
    name = "changelog"
    description = "the CHANGELOG"

    def applies(self, cwd: Path) -> bool:
        return (cwd / "CHANGELOG.md").is_file()

    def collect(self, request: ContextRequest) -> tuple[ContextPart, ...]:
        return (ContextPart(TIER_CONTEXT, "changelog", "changes"),)


def without(cls: type, *members: str) -> object:
    """An instance of a copy of ``cls`` without ``members``."""
    return type(cls.__name__, (), {k: v for k, v in vars(cls).items() if k not in members})()


def plugin(hook: str, *things: object) -> object:
    class Plugin:
        __name__ = "contract_plugin"

    def register_all(register) -> None:
        for thing in things:
            register(thing)

    setattr(Plugin, hook, staticmethod(hookimpl(specname=hook)(register_all)))
    return Plugin()


def test_complete_objects_are_registered(host: PluginHost) -> None:
    record = host.register(plugin("tai_register_providers", EchoProvider()), "echo")
    assert record.status == "loaded", record.error
    assert host.registry.providers["echo"].name == "echo"
    record = host.register(plugin("tai_register_context_providers", ChangelogProvider()), "cl")
    assert record.status == "loaded", record.error
    assert "changelog" in host.registry.context_providers


@pytest.mark.parametrize(
    ("members", "named"),
    [
        (("spec",), ["spec is missing (a method spec(name, fields, config, environ)"]),
        (("stream", "prefixes"), ["stream is missing", "prefixes is missing"]),
        (("short_names",), ["short_names is missing (a mapping of model names"]),
    ],
)
def test_a_provider_missing_members_is_refused_naming_them(
    host: PluginHost, members: tuple[str, ...], named: list[str]
) -> None:
    record = host.register(plugin("tai_register_providers", without(EchoProvider, *members)), "p")
    assert record.status == "failed"
    assert "does not fulfil the contract" in record.error
    for words in named:
        assert words in record.error
    assert "echo" not in host.registry.providers and "echo" not in host.registry.provider_types


def test_a_provider_with_wrong_members_is_refused(host: PluginHost) -> None:
    wrong = EchoProvider()
    wrong.types = ["echo"]  # a list, not a tuple
    wrong.spec = "not callable"
    record = host.register(plugin("tai_register_providers", wrong), "p")
    assert record.status == "failed"
    assert "types must be a tuple of non-empty strings" in record.error
    assert "spec must be a method" in record.error


@pytest.mark.parametrize("member", ["applies", "collect", "description"])
def test_a_context_provider_missing_a_member_is_refused(host: PluginHost, member: str) -> None:
    incomplete = without(ChangelogProvider, member)
    record = host.register(plugin("tai_register_context_providers", incomplete), "cl")
    assert record.status == "failed"
    assert f"{member} is missing" in record.error
    assert "changelog" not in host.registry.context_providers


def test_one_bad_object_refuses_the_whole_plugin(host: PluginHost) -> None:
    record = host.register(
        plugin("tai_register_providers", EchoProvider(), without(EchoProvider, "spec")), "p"
    )
    assert record.status == "failed"
    assert "echo" not in host.registry.providers
