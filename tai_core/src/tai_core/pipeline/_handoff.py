"""The handoff: a cut-off attempt's findings, written down for the retry that cannot see it.

When a reply is truncated, the retry starts from the snapshot before the round and would
redo all the reading and reasoning. A second, cheaper model call (the handoff model, else
the fast model, else the run's model) turns the lost attempt's text into a self-contained
note, which the retry receives as a reference. Short attempts (under 100 characters) are
not worth a call; a handoff that fails three times is simply skipped.
"""

from __future__ import annotations

from tai_core.blocks import FORMAT_SYSTEM_PROMPT, Block, parse_blocks
from tai_core.models import (
    GenerationRequest,
    Message,
    ModelSpec,
    Provider,
    ProviderError,
    TextDelta,
    generate,
)

#: Below this many characters an attempt has nothing worth handing off.
MIN_HANDOFF_INPUT = 100
ATTEMPTS = 3

HANDOFF_SYSTEM_PROMPT = """\
You are a handoff assistant. Another model's reply was cut off before it ended. Nothing of
it was applied, and the next attempt cannot see it. Write a self-contained note for that
next attempt: what was found, what was decided, which changes were attempted, and advice
to do a smaller part first and continue the rest with a continue block. Output exactly one
`handoff` block (no parameters) holding the note, and no prose outside it."""


class HandoffWriter:
    """Writes handoff notes with one model."""

    def __init__(self, provider: Provider, spec: ModelSpec) -> None:
        self.provider = provider
        self.spec = spec

    async def __call__(self, lost: str) -> str | None:
        """The note for the ``lost`` text, or ``None`` when there is none to write."""
        if len(lost.strip()) < MIN_HANDOFF_INPUT:
            return None
        request = GenerationRequest(  # the model's own settings (temperature) apply
            system=f"{HANDOFF_SYSTEM_PROMPT}\n\n{FORMAT_SYSTEM_PROMPT}",
            messages=(Message("user", lost),),
        )
        for _ in range(ATTEMPTS):
            pieces: list[str] = []
            try:
                async for event in generate(self.provider, self.spec, request):
                    if isinstance(event, TextDelta):
                        pieces.append(event.text)
            except ProviderError:
                continue
            for result in parse_blocks("".join(pieces)):
                if isinstance(result, Block) and result.kind == "handoff" and result.body:
                    return result.body
        return None
