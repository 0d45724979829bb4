"""tai-ollama-chat: a provider for Ollama's native ``/api/chat`` streaming protocol.

An example of a third-party provider: one module, one entry point in the group ``tai``,
nothing imported from tai but its public API. The protocol (Ollama's API reference,
"Generate a chat completion"): the request is ``{"model", "messages", "stream": true,
"options"}``; the reply is one JSON object per line, each with a piece of
``message.content`` (and of ``message.thinking`` for a thinking model), the last with
``"done": true``, ``done_reason`` and the token counts ``prompt_eval_count`` and
``eval_count``; a failure is an HTTP status with ``{"error": "..."}``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import httpx
from pydantic import BaseModel

from tai_core import hookimpl
from tai_core.models import (
    Finish,
    GenerationRequest,
    ModelConfigError,
    ModelSpec,
    ProviderError,
    StreamEvent,
    TextDelta,
    ThoughtDelta,
    Usage,
)

DEFAULT_URL = "http://127.0.0.1:11434"


class GeneratorFields(BaseModel):
    """The ``[[generators]]`` keys of this provider's own."""

    #: How long Ollama keeps the model loaded after the call ("10m", "-1" for ever).
    keep_alive: str | None = None
    #: The context length Ollama allocates for the call.
    num_ctx: int | None = None


class OllamaChat:
    """Ollama's native chat API, streamed as NDJSON."""

    name = "ollama-chat"
    description = "Ollama's native /api/chat protocol (NDJSON stream)"
    types = ("ollama-chat",)
    prefixes = ("ollama-chat",)
    short_names: Mapping[str, Mapping[str, Any]] = {}
    generator_fields = GeneratorFields

    def spec(self, name: str, fields: Mapping[str, Any], config: Mapping[str, Any],
             environ: Mapping[str, str]) -> ModelSpec:  # fmt: skip
        """The spec of model ``name`` (``OLLAMA_HOST`` or ``base_url`` for the server)."""
        del config
        model = fields.get("model") or name.partition(":")[2]
        if not model:
            raise ModelConfigError(f"{name}: name the model, as in ollama-chat:qwen3")
        base = fields.get("base_url") or environ.get("OLLAMA_HOST") or DEFAULT_URL
        extra = {key: fields[key] for key in GeneratorFields.model_fields if key in fields}
        return ModelSpec(
            name=name, provider=self.name, type="ollama-chat", model=str(model),
            base_url=str(base).rstrip("/"), context_tokens=fields.get("context_tokens"),
            extra_arguments=extra,
        )  # fmt: skip

    async def stream(
        self, spec: ModelSpec, request: GenerationRequest
    ) -> AsyncIterator[StreamEvent]:
        """Send ``request`` and yield the reply's pieces, its usage and how it ended."""
        failed = _failure(spec)
        try:
            async with httpx.AsyncClient(timeout=spec.read_timeout) as client, client.stream(
                "POST", f"{spec.base_url}/api/chat", json=_body(spec, request),
                headers=dict(request.headers),
            ) as response:  # fmt: skip
                if response.status_code >= 400:
                    await response.aread()
                    raise failed(response.status_code, _message(response.text))
                async for line in response.aiter_lines():
                    for event in _events(line, failed):
                        yield event
        except httpx.HTTPError as error:  # a refused connection, a timeout, a cut stream
            raise failed(None, f"{type(error).__name__}: {error}") from None


def _body(spec: ModelSpec, request: GenerationRequest) -> dict[str, Any]:
    messages = [{"role": "system", "content": request.system}] if request.system else []
    messages += [{"role": m.role, "content": m.text} for m in request.messages]
    options: dict[str, Any] = {}
    if request.temperature is not None:
        options["temperature"] = request.temperature
    if request.max_output_tokens is not None:
        options["num_predict"] = request.max_output_tokens
    if spec.extra_arguments.get("num_ctx") is not None:
        options["num_ctx"] = spec.extra_arguments["num_ctx"]
    body: dict[str, Any] = {"model": spec.model, "messages": messages, "stream": True,
                            "options": options}  # fmt: skip
    if spec.extra_arguments.get("keep_alive") is not None:
        body["keep_alive"] = spec.extra_arguments["keep_alive"]
    return body


def _events(line: str, failed: Callable[[int | None, str], ProviderError]) -> list[StreamEvent]:
    """The events of one NDJSON line."""
    if not line.strip():
        return []
    try:
        chunk = json.loads(line)
    except ValueError:
        raise failed(None, f"not a JSON line: {line[:80]!r}") from None
    if chunk.get("error"):
        raise failed(None, str(chunk["error"]))
    message = chunk.get("message") or {}
    events: list[StreamEvent] = []
    if message.get("thinking"):
        events.append(ThoughtDelta(str(message["thinking"])))
    if message.get("content"):
        events.append(TextDelta(str(message["content"])))
    if chunk.get("done"):
        events.append(Usage(input=int(chunk.get("prompt_eval_count") or 0),
                            output=int(chunk.get("eval_count") or 0)))  # fmt: skip
        events.append(Finish(str(chunk.get("done_reason") or "stop")))
    return events


def _message(body: str) -> str:
    try:
        return str(json.loads(body).get("error") or body)
    except (ValueError, AttributeError):
        return body[:300]


def _failure(spec: ModelSpec) -> Callable[[int | None, str], ProviderError]:
    def failed(status: int | None, message: str) -> ProviderError:
        retryable = status is None or status in (408, 429) or status >= 500
        return ProviderError("ollama-chat", spec.model, message, status=status,
                             retryable=retryable)  # fmt: skip

    return failed


@hookimpl
def tai_register_providers(register: Callable[[Any], None]) -> None:
    """Register the provider."""
    register(OllamaChat())


__all__ = ["OllamaChat", "tai_register_providers"]
