"""The OpenAI chat-completions protocol, spoken directly (over :mod:`._http`).

Most services tai names speak it: OpenAI, DeepSeek, Volcano Engine, Baidu Qianfan,
Tencent Hunyuan, Alibaba DashScope, Zhipu, Vercel's gateway, NVIDIA NIM, OpenRouter,
Ollama and OpenCode Go. Speaking it directly costs ~0.03 ms per streamed chunk where
litellm costs ~1 ms and a 4 s import, and keeps in view every detail tai relies on: the
exact body sent, both reasoning delta fields (``reasoning_content``, ``reasoning``),
cached and reasoning token counts (``stream_options.include_usage``), finish reasons.

A stream is complete when it has said ``data: [DONE]`` or given a finish reason; one that
ends before either was cut, and is reported so (retryable: nothing is taken back of what
was already yielded).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
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
from tai_provider_kit._call import (
    finish_reason,
    openai_messages,
    openai_usage,
    output_limit,
    reasoning_effort,
    temperature,
)
from tai_provider_kit._faults import failure
from tai_provider_kit._http import json_chunk, post_stream, sse_data


def chat_body(
    spec: ModelSpec,
    request: GenerationRequest,
    *,
    max_tokens_key: str = "max_completion_tokens",
    effort_object: bool = False,
) -> dict[str, Any]:
    """The streamed request body; ``extra_arguments`` are merged last, as given.

    ``effort_object`` sends the effort as ``reasoning: {effort}`` (OpenRouter's own form)
    instead of ``reasoning_effort``.
    """
    body: dict[str, Any] = {
        "model": spec.model,
        "messages": openai_messages(request),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    effort = reasoning_effort(spec, request)
    if effort and effort_object:
        body["reasoning"] = {"effort": effort}
    elif effort:
        body["reasoning_effort"] = effort
    limit = output_limit(spec, request)
    if limit is not None:
        body[max_tokens_key] = limit
    heat = temperature(spec, request)
    if heat is not None:
        body["temperature"] = heat
    body.update(spec.extra_arguments)
    return body


async def stream(
    spec: ModelSpec,
    request: GenerationRequest,
    *,
    max_tokens_key: str = "max_completion_tokens",
    effort_object: bool = False,
) -> AsyncIterator[StreamEvent]:
    """Stream ``request`` from ``spec.base_url + /chat/completions``."""
    url = f"{(spec.base_url or '').rstrip('/')}/chat/completions"
    headers = {"Accept": "text/event-stream"}
    if spec.api_key:
        headers["Authorization"] = f"Bearer {spec.api_key}"
    headers.update(request.headers)
    body = chat_body(spec, request, max_tokens_key=max_tokens_key, effort_object=effort_object)
    finish: str | None = None
    usage: Usage | None = None
    done = False
    async with post_stream(spec, url, headers, body) as response:
        async for data in sse_data(spec, response):
            if data == "[DONE]" or done:  # read on to the end: the connection is reused
                done = True
                continue
            chunk = json_chunk(spec, data)
            for choice in chunk.get("choices") or ():
                delta = choice.get("delta") or {}
                thought = delta.get("reasoning_content") or delta.get("reasoning")
                if thought:
                    yield ThoughtDelta(thought)
                if text := delta.get("content"):
                    yield TextDelta(text)
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
            if chunk.get("usage"):
                usage = openai_usage(chunk["usage"])
    if not done and finish is None:
        raise failure(spec, "the stream was cut: it ended without a finish reason", retryable=True)
    if usage is not None:
        yield usage
    yield Finish(finish_reason(finish or "stop"))
