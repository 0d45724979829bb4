"""The values that cross the boundary between the pipeline and a provider.

Frozen and provider-neutral: a request says what to ask, a stream of events says what came
back, and nothing in either names a wire format. Each provider plugin translates them to
and from its protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, TypeAlias

import attrs


def _frozen_map(value: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(value))


@attrs.frozen
class Message:
    """One turn of the conversation sent to the model: ``role`` is ``user`` or ``assistant``."""

    role: str
    text: str


@attrs.frozen
class GenerationRequest:
    """What one model call asks: the system prompt, the turns, and the call's options."""

    system: str
    messages: tuple[Message, ...]
    max_output_tokens: int | None = None
    temperature: float | None = None
    reasoning_effort: str | None = None
    #: Extra HTTP headers for this call (from ``tai_before_model_call``).
    headers: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_map, hash=False)


@attrs.frozen
class Prices:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None


@attrs.frozen
class ModelSpec:
    """A model resolved from the configuration: everything needed to call it.

    ``name`` is what the user wrote (``-model NAME``); ``model`` the provider's identifier.
    """

    name: str
    provider: str
    type: str
    model: str
    base_url: str | None = None
    api_key: str | None = attrs.field(default=None, repr=False)
    context_tokens: int | None = None
    max_generate_tokens: int | None = None
    temperature: float | None = None
    reasoning_effort: str | None = None
    zero_data_retention: bool = False
    proxy: str | None = None
    prices: Prices | None = None
    #: Provider-specific request fields, merged into the request body as given.
    extra_arguments: Mapping[str, Any] = attrs.field(
        factory=dict, converter=_frozen_map, hash=False
    )
    #: Seconds a streaming call may go without data before it counts as stalled.
    read_timeout: float = 120.0
    #: The API version of providers that need one (Azure OpenAI).
    api_version: str | None = None
    #: Gemini's thinking budget in tokens (``None``: derived from the reasoning effort).
    max_thinking_tokens: int | None = None
    #: Connect directly: no proxy from the configuration or the environment.
    no_proxy: bool = False
    #: How often a call that failed before producing anything is repeated.
    retries: int = 3
    #: The longest wait before the first repeat, in seconds; each wait is between half and
    #: all of its step (jitter), and the step doubles after each, at most 20 s.
    retry_delay: float = 0.5


@attrs.frozen
class TextDelta:
    """A piece of the reply's text."""

    text: str


@attrs.frozen
class ThoughtDelta:
    """A piece of the model's reasoning (never parsed for blocks)."""

    text: str


@attrs.frozen
class Usage:
    """Normalised token counts of one call.

    ``input`` includes the cached tokens read (``cache_read``) and written (``cache_write``);
    ``output`` includes the reasoning tokens (``reasoning``).
    """

    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0

    def cost(self, prices: Prices | None) -> float | None:
        """The price of this usage in US dollars, or ``None`` when prices are unknown."""
        if prices is None:
            return None
        fresh_input = self.input - self.cache_read - self.cache_write
        cache_read_price = prices.input if prices.cache_read is None else prices.cache_read
        cache_write_price = prices.input if prices.cache_write is None else prices.cache_write
        return (
            fresh_input * prices.input
            + self.cache_read * cache_read_price
            + self.cache_write * cache_write_price
            + self.output * prices.output
        ) / 1_000_000


@attrs.frozen
class Finish:
    """The reply ended; ``reason`` is normalised: ``stop``, ``length``, ``content_filter``, or
    the provider's own word for anything else."""

    reason: str


StreamEvent: TypeAlias = TextDelta | ThoughtDelta | Usage | Finish


class ProviderError(Exception):
    """A model call that failed, in one line naming provider, model, status and message.

    ``retryable`` says whether the same call may succeed if repeated (rate limits, server
    errors, connection failures, streams cut or stalled); ``retry_after`` is the provider's
    requested delay in seconds, when it gave one.
    """

    def __init__(
        self,
        provider: str,
        model: str,
        message: str,
        *,
        status: int | str | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(provider, model, message)
        self.provider = provider
        self.model = model
        self.message = message
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after

    def __str__(self) -> str:
        status = f" {self.status}" if self.status is not None else ""
        return f"{self.provider} {self.model}:{status} {self.message}"
