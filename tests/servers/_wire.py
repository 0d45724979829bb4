"""What a scripted reply looks like on each wire: OpenAI SSE, Gemini SSE, Bedrock event-stream.

A :class:`Reply` is protocol-neutral (text, thoughts, normalised usage, a neutral finish
reason); the encoders below turn it into the bytes one protocol's server would send, one
HTTP chunk per item, so a client sees the reply arrive piece by piece.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

import attrs


@attrs.frozen
class Reply:
    """One scripted answer of the fake server.

    ``usage`` holds normalised counts (``input`` including cached tokens, ``cache_read``,
    ``cache_write``, ``output`` including ``reasoning``); when ``None`` the server makes up
    small ones. ``finish`` is neutral (``stop``, ``length``, ``content_filter``; other
    words are sent as given). ``chunks`` is how many pieces the text (and the thoughts)
    are cut into. ``fault`` is ``None``, an HTTP status such as ``"429"``/``"500"``/
    ``"401"`` (answered with a JSON error carrying ``message``, or with ``body`` as plain
    text when given; 429 adds ``Retry-After: retry_after``), ``"drop"`` (the connection is
    closed after half the pieces), ``"truncate"`` (the body ends cleanly after half the
    pieces), ``"badjson"`` (a malformed data line after half the pieces), ``"error"`` (a
    data line with an error object, code 502, after half the pieces) or ``"stall"``
    (nothing more after half the pieces, until the client hangs up or the server stops).
    """

    text: str = ""
    thoughts: str = ""
    usage: Mapping[str, int] | None = None
    finish: str = "stop"
    chunks: int = 3
    fault: str | None = None
    message: str = "scripted failure"
    body: str | None = None
    retry_after: str = "1"
    #: The OpenAI delta field the thoughts travel in (``reasoning_content`` or ``reasoning``).
    reasoning_field: str = "reasoning_content"

    def pieces(self) -> list[tuple[str, str]]:
        """``(kind, text)`` items in sending order: thoughts first, then text."""
        return [("thought", p) for p in _split(self.thoughts, self.chunks)] + [
            ("text", p) for p in _split(self.text, self.chunks)
        ]

    def counts(self) -> dict[str, int]:
        """The usage to report, normalised."""
        made_up = {"input": 12, "output": max(1, (len(self.text) + len(self.thoughts)) // 4)}
        counts = {"cache_read": 0, "cache_write": 0, "reasoning": 0, **made_up}
        counts.update(self.usage or {})
        return counts


def _split(text: str, parts: int) -> list[str]:
    if not text:
        return []
    size = -(-len(text) // max(1, parts))
    return [text[i : i + size] for i in range(0, len(text), size)]


# -- OpenAI chat completions ------------------------------------------------------------

_OPENAI_FINISH = {"stop": "stop", "length": "length", "content_filter": "content_filter"}


def _openai_usage(counts: Mapping[str, int]) -> dict[str, Any]:
    return {
        "prompt_tokens": counts["input"],
        "completion_tokens": counts["output"],
        "total_tokens": counts["input"] + counts["output"],
        "prompt_tokens_details": {"cached_tokens": counts["cache_read"]},
        "completion_tokens_details": {"reasoning_tokens": counts["reasoning"]},
    }


def _openai_chunk(model: str, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def openai_stream(reply: Reply, model: str, include_usage: bool) -> Iterator[bytes]:
    """SSE items of a streamed chat completion, ``data: [DONE]`` last."""
    for kind, text in reply.pieces():
        field = reply.reasoning_field if kind == "thought" else "content"
        yield _sse(_openai_chunk(model, {"role": "assistant", field: text}, None))
    finish = _OPENAI_FINISH.get(reply.finish, reply.finish)
    yield _sse(_openai_chunk(model, {}, finish))
    if include_usage:
        usage_chunk = _openai_chunk(model, {}, None)
        usage_chunk["choices"] = []
        usage_chunk["usage"] = _openai_usage(reply.counts())
        yield _sse(usage_chunk)
    yield b"data: [DONE]\n\n"


def openai_completion(reply: Reply, model: str) -> dict[str, Any]:
    """A non-streamed chat completion."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.thoughts:
        message[reply.reasoning_field] = reply.thoughts
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": _OPENAI_FINISH.get(reply.finish, reply.finish),
            }
        ],
        "usage": _openai_usage(reply.counts()),
    }


def openai_error(status: int, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "fake_error", "code": str(status)}}


# -- Gemini streamGenerateContent -------------------------------------------------------

_GEMINI_FINISH = {"stop": "STOP", "length": "MAX_TOKENS", "content_filter": "SAFETY"}
_GEMINI_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 429: "RESOURCE_EXHAUSTED"}


def gemini_stream(reply: Reply, model: str) -> Iterator[bytes]:
    """SSE items of ``streamGenerateContent?alt=sse``; the last carries finish and usage."""
    for kind, text in reply.pieces():
        part: dict[str, Any] = (
            {"text": text, "thought": True} if kind == "thought" else {"text": text}
        )
        yield _sse({"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}]})
    counts = reply.counts()
    yield _sse(
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": ""}]},
                    "finishReason": _GEMINI_FINISH.get(reply.finish, reply.finish),
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": counts["input"],
                "candidatesTokenCount": counts["output"] - counts["reasoning"],
                "thoughtsTokenCount": counts["reasoning"],
                "cachedContentTokenCount": counts["cache_read"],
                "totalTokenCount": counts["input"] + counts["output"],
            },
            "modelVersion": model,
        }
    )


def gemini_error(status: int, message: str) -> dict[str, Any]:
    return {
        "error": {
            "code": status,
            "message": message,
            "status": _GEMINI_STATUS.get(status, "INTERNAL"),
        }
    }


# -- Bedrock converse-stream (AWS binary event-stream) ----------------------------------

_BEDROCK_FINISH = {"stop": "end_turn", "length": "max_tokens", "content_filter": "content_filtered"}


def _event(event_type: str, payload: Mapping[str, Any]) -> bytes:
    """One AWS event-stream message: prelude, string headers, JSON payload, CRC32s."""
    headers = b"".join(
        bytes([len(name)]) + name + b"\x07" + len(value).to_bytes(2, "big") + value
        for name, value in (
            (b":event-type", event_type.encode()),
            (b":content-type", b"application/json"),
            (b":message-type", b"event"),
        )
    )
    body = json.dumps(payload).encode()
    prelude = (16 + len(headers) + len(body)).to_bytes(4, "big") + len(headers).to_bytes(4, "big")
    message = prelude + zlib.crc32(prelude).to_bytes(4, "big") + headers + body
    return message + zlib.crc32(message).to_bytes(4, "big")


def bedrock_stream(reply: Reply) -> Iterator[bytes]:
    """Event-stream messages of ``/model/{id}/converse-stream``."""
    yield _event("messageStart", {"role": "assistant"})
    for kind, text in reply.pieces():
        delta = {"reasoningContent": {"text": text}} if kind == "thought" else {"text": text}
        yield _event("contentBlockDelta", {"contentBlockIndex": 0, "delta": delta})
    yield _event("contentBlockStop", {"contentBlockIndex": 0})
    yield _event("messageStop", {"stopReason": _BEDROCK_FINISH.get(reply.finish, reply.finish)})
    counts = reply.counts()
    fresh = counts["input"] - counts["cache_read"] - counts["cache_write"]
    usage = {
        "inputTokens": fresh,
        "outputTokens": counts["output"],
        "totalTokens": counts["input"] + counts["output"],
        "cacheReadInputTokens": counts["cache_read"],
        "cacheWriteInputTokens": counts["cache_write"],
    }
    yield _event("metadata", {"usage": usage, "metrics": {"latencyMs": 1}})


def bedrock_error(status: int, message: str) -> dict[str, Any]:
    return {"message": message}


# -- Ollama's native /api/chat ------------------------------------------------------------


def ollama_stream(reply: Reply, model: str) -> Iterator[bytes]:
    """NDJSON lines of a streamed chat: a piece of ``message`` each, then ``done``."""
    for kind, text in reply.pieces():
        field = "thinking" if kind == "thought" else "content"
        message = {"role": "assistant", field: text}
        yield json.dumps({"model": model, "message": message, "done": False}).encode() + b"\n"
    counts = reply.counts()
    last = {"model": model, "message": {"role": "assistant", "content": ""}, "done": True,
            "done_reason": reply.finish, "prompt_eval_count": counts["input"],
            "eval_count": counts["output"]}  # fmt: skip
    yield json.dumps(last).encode() + b"\n"


def ollama_error(status: int, message: str) -> dict[str, Any]:
    del status
    return {"error": message}


def stream_error(message: str) -> bytes:
    """A data line reporting an upstream failure mid-stream (OpenRouter, Gemini)."""
    return _sse({"error": {"code": 502, "message": message}})


def _sse(payload: Mapping[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"
