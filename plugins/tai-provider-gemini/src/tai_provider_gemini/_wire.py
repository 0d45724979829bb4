"""Gemini's ``streamGenerateContent`` protocol (AI Studio), spoken directly (``_http``).

``POST {base}/models/{model}:streamGenerateContent?alt=sse`` with ``x-goog-api-key``.
Thoughts arrive as parts marked ``thought: true``; usage as ``usageMetadata`` on the
chunks (the last one counts), where ``candidatesTokenCount`` excludes the thoughts. The
thinking configuration follows the original: a budget of ``max_thinking_tokens``, else a
level from the reasoning effort, else a quarter of the output limit; thoughts are always
included. Safety filters are off (``BLOCK_NONE``), as in the original: a coding tool's
inputs trip them for no reason. A stream that produced nothing is an error — for a
safety-type finish a final one ("terminal finish reason"), otherwise a retryable one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

from tai_core.models import (
    Finish,
    GenerationRequest,
    ModelSpec,
    StreamEvent,
    TextDelta,
    ThoughtDelta,
    Usage,
)
from tai_provider_kit._call import finish_reason, output_limit, reasoning_effort, temperature
from tai_provider_kit._faults import failure
from tai_provider_kit._http import json_chunk, post_stream, sse_data

_SAFETY_CATEGORIES = (
    "HARM_CATEGORY_HARASSMENT",
    "HARM_CATEGORY_HATE_SPEECH",
    "HARM_CATEGORY_SEXUALLY_EXPLICIT",
    "HARM_CATEGORY_DANGEROUS_CONTENT",
)


def contents(request: GenerationRequest) -> list[dict[str, Any]]:
    """The turns as Gemini contents (``user``/``model``), adjacent turns of a role merged."""
    result: list[dict[str, Any]] = []
    for message in request.messages:
        role = "model" if message.role == "assistant" else "user"
        if result and result[-1]["role"] == role:
            result[-1]["parts"].append({"text": message.text})
        else:
            result.append({"role": role, "parts": [{"text": message.text}]})
    return result


def thinking_config(spec: ModelSpec, request: GenerationRequest) -> dict[str, Any]:
    """Thoughts included; a budget, or a level from the reasoning effort."""
    config: dict[str, Any] = {"includeThoughts": True}
    effort = reasoning_effort(spec, request)
    limit = output_limit(spec, request)
    if spec.max_thinking_tokens is not None:
        config["thinkingBudget"] = spec.max_thinking_tokens
    elif effort:
        config["thinkingLevel"] = effort
    elif limit is not None:
        config["thinkingBudget"] = limit // 4
    return config


def request_body(spec: ModelSpec, request: GenerationRequest) -> dict[str, Any]:
    """The request body; ``extra_arguments`` are merged last, as given."""
    generation: dict[str, Any] = {"thinkingConfig": thinking_config(spec, request)}
    heat = temperature(spec, request)
    if heat is not None:
        generation["temperature"] = heat
    limit = output_limit(spec, request)
    if limit is not None:
        generation["maxOutputTokens"] = limit
    body: dict[str, Any] = {
        "contents": contents(request),
        "generationConfig": generation,
        "safetySettings": [{"category": c, "threshold": "BLOCK_NONE"} for c in _SAFETY_CATEGORIES],
    }
    if request.system:
        body["systemInstruction"] = {"parts": [{"text": request.system}]}
    body.update(spec.extra_arguments)
    return body


def usage(metadata: Mapping[str, Any]) -> Usage:
    """Usage from ``usageMetadata``: output = candidates + thoughts."""
    thoughts = int(metadata.get("thoughtsTokenCount") or 0)
    return Usage(
        input=int(metadata.get("promptTokenCount") or 0),
        cache_read=int(metadata.get("cachedContentTokenCount") or 0),
        output=int(metadata.get("candidatesTokenCount") or 0) + thoughts,
        reasoning=thoughts,
    )


async def stream(spec: ModelSpec, request: GenerationRequest) -> AsyncIterator[StreamEvent]:
    """Stream ``request`` from Gemini's ``streamGenerateContent``."""
    model = spec.model.removeprefix("models/")
    url = f"{(spec.base_url or '').rstrip('/')}/models/{model}:streamGenerateContent?alt=sse"
    headers = {"Accept": "text/event-stream", **request.headers}
    if spec.api_key:
        headers["x-goog-api-key"] = spec.api_key
    finish: str | None = None
    last_usage: Usage | None = None
    produced = False
    async with post_stream(spec, url, headers, request_body(spec, request)) as response:
        async for data in sse_data(spec, response):
            chunk = json_chunk(spec, data)
            blocked = (chunk.get("promptFeedback") or {}).get("blockReason")
            if blocked:
                raise failure(spec, f"the prompt was blocked: {blocked}")
            for candidate in chunk.get("candidates") or ():
                for part in (candidate.get("content") or {}).get("parts") or ():
                    if text := part.get("text"):
                        produced = True
                        yield ThoughtDelta(text) if part.get("thought") else TextDelta(text)
                if candidate.get("finishReason"):
                    finish = candidate["finishReason"]
            if chunk.get("usageMetadata"):
                last_usage = usage(chunk["usageMetadata"])
    if finish is None:
        raise failure(spec, "the stream was cut: it ended without a finish reason", retryable=True)
    reason = finish_reason(finish)
    if not produced and reason == "content_filter":
        raise failure(spec, f"no output: terminal finish reason: {finish}")
    if not produced:
        raise failure(spec, f"no output (finish reason {finish})", retryable=True)
    if last_usage is not None:
        yield last_usage
    yield Finish(reason)
