"""What one call asks for and what its answer means, whatever the wire.

The request's options win over the spec's (a ``-effort`` flag over the generator's
``reasoning_effort``); an option set nowhere is left out of the request, so the service's
own default applies — except that a temperature of 0 is a setting, not an absence. On the
way back, finish reasons and token counts are put in tai's words (see
:class:`tai_core.models.Usage` for what each count includes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tai_core.models import GenerationRequest, ModelSpec, Usage


def output_limit(spec: ModelSpec, request: GenerationRequest) -> int | None:
    """The smaller of the spec's and the call's output limits, or ``None``."""
    limits = [x for x in (spec.max_generate_tokens, request.max_output_tokens) if x is not None]
    return min(limits) if limits else None


def temperature(spec: ModelSpec, request: GenerationRequest) -> float | None:
    """The call's temperature, else the spec's, else ``None`` (0 is kept)."""
    return request.temperature if request.temperature is not None else spec.temperature


def reasoning_effort(spec: ModelSpec, request: GenerationRequest) -> str | None:
    """The call's reasoning effort, else the spec's."""
    return request.reasoning_effort or spec.reasoning_effort


def openai_messages(request: GenerationRequest) -> list[dict[str, str]]:
    """OpenAI-shaped messages: the system prompt first, then the turns, adjacent
    turns of one role merged (some services refuse two user turns in a row)."""
    result = [{"role": "system", "content": request.system}] if request.system else []
    for message in request.messages:
        role = "assistant" if message.role == "assistant" else "user"
        if result and result[-1]["role"] == role:
            result[-1]["content"] += "\n\n" + message.text
        else:
            result.append({"role": role, "content": message.text})
    return result


_FINISH = {
    "stop": "stop",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "length": "length",
    "max_tokens": "length",
    "content_filter": "content_filter",
    "content_filtered": "content_filter",
    "safety": "content_filter",
    "recitation": "content_filter",
    "blocklist": "content_filter",
    "prohibited_content": "content_filter",
    "spii": "content_filter",
    "image_safety": "content_filter",
    "function_call": "tool_calls",
}


def finish_reason(raw: str) -> str:
    """A provider's finish reason in tai's words (``stop``, ``length``,
    ``content_filter``), or the provider's own, lower-cased."""
    word = raw.lower()
    return _FINISH.get(word, word)


def _count(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0


def openai_usage(raw: Mapping[str, Any]) -> Usage:
    """Usage from an OpenAI-shaped ``usage`` object (also litellm's and DeepSeek's)."""
    prompt = raw.get("prompt_tokens_details") or {}
    completion = raw.get("completion_tokens_details") or {}
    cache_read = _count(prompt.get("cached_tokens")) or _count(raw.get("prompt_cache_hit_tokens"))
    cache_write = _count(prompt.get("cache_write_tokens")) or _count(
        raw.get("cache_creation_input_tokens")
    )
    return Usage(
        input=_count(raw.get("prompt_tokens")),
        cache_read=cache_read,
        cache_write=cache_write,
        output=_count(raw.get("completion_tokens")),
        reasoning=_count(completion.get("reasoning_tokens")),
    )
