"""One model call outside a session (``ping``, ``record -analyze``, thought summaries): the
reply's text.

It goes through :func:`tai_core.models.generate`, so a call that fails before producing
anything is retried like any other; thoughts, usage and the finish reason are not needed.
"""

from __future__ import annotations

from collections.abc import Callable

from tai_core.models._generate import generate
from tai_core.models._provider import Provider
from tai_core.models._values import GenerationRequest, Message, ModelSpec, TextDelta


async def ask(
    provider: Provider,
    spec: ModelSpec,
    system: str,
    user: str,
    on_text: Callable[[str], None] | None = None,
) -> str:
    """Send ``user`` under ``system``; the whole reply text (each piece also to ``on_text``)."""
    request = GenerationRequest(
        system=system,
        messages=(Message("user", user),),
        max_output_tokens=spec.max_generate_tokens,
        temperature=spec.temperature,
        reasoning_effort=spec.reasoning_effort,
    )
    parts: list[str] = []
    async for event in generate(provider, spec, request):
        if isinstance(event, TextDelta):
            parts.append(event.text)
            if on_text is not None:
                on_text(event.text)
    return "".join(parts)
