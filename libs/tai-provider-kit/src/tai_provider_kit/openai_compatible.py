"""The provider class of the services that speak OpenAI's chat-completions protocol.

Each service is a distribution of its own (``tai-provider-openai``, ``tai-provider-deepseek``,
…) holding one :class:`OpenAICompatibleProvider` object, made with :func:`service`; the
objects differ only in data: its type spellings, default base URL, where its
API key is found, and two dialect details — the name of the output-limit field (OpenAI's
``max_completion_tokens``; most others honour only ``max_tokens``) and OpenRouter's
``reasoning: {effort}`` object. The protocol itself is :mod:`tai_provider_kit._openai_wire`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from tai_provider_kit._base import ProviderBase

if TYPE_CHECKING:
    from tai_core.models import GenerationRequest, ModelSpec, StreamEvent


@attrs.define(kw_only=True, eq=False)
class OpenAICompatibleProvider(ProviderBase):
    """A service reached through ``POST {base_url}/chat/completions``."""

    speaks_http: bool = True
    protocol: str | None = "tai_provider_kit._openai_wire"
    #: The body field of the output limit.
    max_tokens_key: str = "max_tokens"
    #: Send the reasoning effort as ``reasoning: {effort}`` (OpenRouter).
    effort_object: bool = False

    def spec(
        self,
        name: str,
        fields: Mapping[str, Any],
        config: Mapping[str, Any],
        environ: Mapping[str, str],
    ) -> ModelSpec:
        """As :meth:`ProviderBase.spec`; the generator's ``provider`` (OpenRouter routing)
        and ``service_tier`` travel in the body, under ``extra_arguments``."""
        spec = super().spec(name, fields, config, environ)
        carried = {key: fields[key] for key in ("provider", "service_tier") if key in fields}
        if not carried:
            return spec
        return attrs.evolve(spec, extra_arguments={**carried, **spec.extra_arguments})

    def stream(self, spec: ModelSpec, request: GenerationRequest) -> AsyncIterator[StreamEvent]:
        """Stream ``request`` over the chat-completions protocol."""
        from tai_provider_kit import _openai_wire

        return _openai_wire.stream(
            spec, request, max_tokens_key=self.max_tokens_key, effort_object=self.effort_object
        )


def service(
    name: str, types: tuple[str, ...], what: str, url: str, key: str, **more: Any
) -> OpenAICompatibleProvider:
    """A service whose key is tai.toml's ``<key>_api_key`` or ``<KEY>_API_KEY``."""
    env = more.pop("key_env", (f"{key.upper()}_API_KEY",))
    return OpenAICompatibleProvider(
        name=name,
        types=types,
        description=f"{what} (OpenAI-compatible; {url})",
        default_base_url=url,
        key_config=f"{key}_api_key",
        key_env=env,
        **more,
    )
