"""A model provider that answers from a script and remembers what it was asked."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import attrs

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


@attrs.frozen
class Reply:
    """One scripted answer: its text (streamed in ``chunk``-character pieces, so a plugin
    that works while the reply streams sees it arrive in parts), its thoughts, its usage
    and how it finished (``stop``, or ``length`` for a reply cut short)."""

    text: str
    thoughts: str = ""
    usage: Usage | None = None
    finish: str = "stop"
    chunk: int = 64


@attrs.frozen
class Fault:
    """A scripted failure of one call, as a provider reports it: retried by the pipeline
    when ``retryable`` (a rate limit, a server error), fatal otherwise."""

    message: str = "scripted fault"
    status: int | str | None = 500
    retryable: bool = True


class ScriptedModel:
    """A provider whose calls are answered, in order, by the scripted replies (a string is
    a :class:`Reply` of that text); a call after the last fails (not retryable), so a test
    sees a session that asks for more than it scripted. Fulfils
    :class:`tai_core.models.Provider`; its ``requests`` are what it was sent."""

    types: tuple[str, ...] = ("scripted",)
    prefixes: tuple[str, ...] = ("scripted",)
    short_names: Mapping[str, Mapping[str, Any]] = {}
    description = "a scripted model (tai_core.testing)"

    def __init__(self, *replies: str | Reply | Fault, name: str = "scripted",
                 context_tokens: int = 128_000) -> None:  # fmt: skip
        self.name = name
        self.context_tokens = context_tokens
        self.script: list[Reply | Fault] = [
            Reply(reply) if isinstance(reply, str) else reply for reply in replies
        ]
        #: Every request received, in order.
        self.requests: list[GenerationRequest] = []

    def then(self, *replies: str | Reply | Fault) -> ScriptedModel:
        """Add replies to the script (for the next turn of a session); ``self``."""
        self.script += [Reply(reply) if isinstance(reply, str) else reply for reply in replies]
        return self

    def spec(self, name: str, fields: Mapping[str, Any], config: Mapping[str, Any],
             environ: Mapping[str, str]) -> ModelSpec:  # fmt: skip
        """The spec of this model (nothing is required of the configuration)."""
        del config, environ
        model = str(fields.get("model") or name)
        return ModelSpec(name=name, provider=self.name, type=self.types[0], model=model,
                         context_tokens=self.context_tokens)  # fmt: skip

    async def stream(
        self, spec: ModelSpec, request: GenerationRequest
    ) -> AsyncIterator[StreamEvent]:
        """The next scripted reply as events, or its fault raised."""
        self.requests.append(request)
        if not self.script:
            raise ProviderError(self.name, spec.model, "the script has no reply left")
        reply = self.script.pop(0)
        if isinstance(reply, Fault):
            raise ProviderError(self.name, spec.model, reply.message, status=reply.status,
                                retryable=reply.retryable)  # fmt: skip
        if reply.thoughts:
            yield ThoughtDelta(reply.thoughts)
        for start in range(0, len(reply.text), max(1, reply.chunk)):
            yield TextDelta(reply.text[start : start + reply.chunk])
        if reply.usage is not None:
            yield reply.usage
        yield Finish(reply.finish)
