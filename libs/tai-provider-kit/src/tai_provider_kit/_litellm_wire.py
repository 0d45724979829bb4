"""Calls through litellm, for protocols that need more than a JSON POST.

Azure's deployments and API versions, Bedrock's Converse API with its signing and binary
event-stream, and the hundred-odd providers behind a ``litellm`` model string are
litellm's job. It costs ~4 s to import and ~1 ms per chunk, so it is imported here, on the
first call of such a model, never before; and it is made quiet and local first: its
price table is read from its own wheel (``LITELLM_LOCAL_MODEL_COST_MAP``) instead of
being fetched at import, nothing is downloaded (``LITELLM_OFFLINE_MODE``), its debug
banners are off and its per-stream logging rebuild is skipped. Its retries are off too
(``max_retries=0``): repeating a call is :func:`tai_core.models.generate`'s decision.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

from tai_core.models import (
    Finish,
    GenerationRequest,
    ModelSpec,
    ProviderError,
    StreamEvent,
    TextDelta,
    ThoughtDelta,
    Usage,
)
from tai_provider_kit._call import (
    finish_reason,
    openai_messages,
    openai_usage,
    output_limit,
    reasoning_effort,
    temperature,
)
from tai_provider_kit._faults import failure, provider_message, retry_after, retryable_status

_LITELLM_PREFIX = re.compile(r"^(?:litellm\.\w+: )+")


def load_litellm() -> ModuleType:
    """litellm, imported once, offline and quiet."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ["LITELLM_OFFLINE_MODE"] = "true"
    import litellm

    litellm.suppress_debug_info = True
    litellm.disable_streaming_logging = True
    return litellm


def call_arguments(
    spec: ModelSpec, request: GenerationRequest, route: str, *, allow_effort: bool = False
) -> dict[str, Any]:
    """The keyword arguments of ``litellm.acompletion``; ``extra_arguments`` merged last.

    ``allow_effort`` passes ``reasoning_effort`` even where litellm does not know the
    model accepts it (an Azure deployment's name says nothing about its model).
    """
    arguments: dict[str, Any] = {
        "model": route + spec.model,
        "messages": openai_messages(request),
        "stream": True,
        "stream_options": {"include_usage": True},
        "timeout": spec.read_timeout,
        "stream_timeout": spec.read_timeout,
        "max_retries": 0,
    }
    optional = {
        "api_base": spec.base_url,
        "api_key": spec.api_key,
        "api_version": spec.api_version,
        "temperature": temperature(spec, request),
        "max_tokens": output_limit(spec, request),
        "reasoning_effort": reasoning_effort(spec, request),
        "extra_headers": dict(request.headers) or None,
    }
    arguments.update({key: value for key, value in optional.items() if value is not None})
    if allow_effort and "reasoning_effort" in arguments:
        arguments["allowed_openai_params"] = ["reasoning_effort"]
    arguments.update(spec.extra_arguments)
    return arguments


def _message(error: Exception) -> str:
    """The provider's words inside litellm's wrapping ("litellm.RateLimitError:
    AzureException RateLimitError - slow down" → "slow down")."""
    text = str(getattr(error, "message", "") or error or type(error).__name__)
    text = text.split("\nTraceback", 1)[0].split(" Original exception:", 1)[0]
    text = _LITELLM_PREFIX.sub("", text)
    _, dash, tail = text.partition(" - ")
    return provider_message(tail) if dash else text


def _failure(spec: ModelSpec, error: Exception) -> ProviderError:
    import openai

    if isinstance(error, openai.APITimeoutError):
        message = f"the stream stalled: no data for {spec.read_timeout:g} s (read timeout)"
        return failure(spec, message, retryable=True)
    status = getattr(error, "status_code", None)
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None) or {}
    return failure(
        spec,
        _message(error),
        status=status if isinstance(status, int) else None,
        retryable=isinstance(error, openai.APIConnectionError)
        or (isinstance(status, int) and retryable_status(status)),
        retry_after=retry_after(headers.get("retry-after")) if status in (429, 503) else None,
    )


async def stream(
    spec: ModelSpec, request: GenerationRequest, route: str, *, allow_effort: bool = False
) -> AsyncIterator[StreamEvent]:
    """Stream ``request`` through ``litellm.acompletion`` as model ``route + spec.model``."""
    litellm = load_litellm()
    arguments = call_arguments(spec, request, route, allow_effort=allow_effort)
    finish: str | None = None
    usage: Usage | None = None
    try:
        response = await litellm.acompletion(**arguments)
        async for chunk in response:
            for choice in chunk.choices:
                delta = choice.delta
                if thought := getattr(delta, "reasoning_content", None):
                    yield ThoughtDelta(thought)
                if text := delta.content:
                    yield TextDelta(text)
                if choice.finish_reason:
                    finish = choice.finish_reason
            if (raw := getattr(chunk, "usage", None)) is not None:
                usage = openai_usage(raw.model_dump())
    except Exception as error:
        raise _failure(spec, error) from error
    if finish is None:
        raise failure(spec, "the stream was cut: it ended without a finish reason", retryable=True)
    if usage is not None:
        yield usage
    yield Finish(finish_reason(finish))
