"""Fixtures of the provider tests: the fake servers, providers by name, a stream runner."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import pytest

from tai_core.models import (
    GenerationRequest,
    Message,
    ModelSpec,
    ProviderError,
    StreamEvent,
    resolve_model,
)
from tai_core.plugins import PluginHost


def ask(text: str = "hello", system: str = "be brief", **options: Any) -> GenerationRequest:
    """A one-turn request."""
    return GenerationRequest(system=system, messages=(Message("user", text),), **options)


def drain(events: AsyncIterator[StreamEvent]) -> tuple[list[StreamEvent], ProviderError | None]:
    """Every event of ``events`` and the ProviderError that ended them, if one did."""

    async def collect() -> tuple[list[StreamEvent], ProviderError | None]:
        seen: list[StreamEvent] = []
        try:
            async for event in events:
                seen.append(event)
        except ProviderError as error:
            return seen, error
        return seen, None

    return asyncio.run(collect())


@pytest.fixture
def providers(host: PluginHost) -> Mapping[str, Any]:
    """The registered providers, by name."""
    return host.registry.providers


@pytest.fixture
def resolve(providers: Mapping[str, Any]) -> Callable[..., ModelSpec]:
    """``resolve(name, generators=[...], environ={...}, **config)`` → the spec."""

    def run(
        name: str,
        generators: list[dict[str, Any]] | None = None,
        environ: Mapping[str, str] | None = None,
        confidential: bool = False,
        **config: Any,
    ) -> ModelSpec:
        configuration = {"generators": generators or [], **config}
        return resolve_model(
            name, configuration, providers, environ or {}, confidential=confidential
        )

    return run
