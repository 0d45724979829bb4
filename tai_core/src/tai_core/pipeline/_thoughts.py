"""Thought summaries (``-summarize-thoughts``): the model's reasoning, a line or two at a
time, instead of all of it or none.

A reasoning model thinks at length before it answers; the raw thoughts scroll by too fast
to read and hiding them leaves the user blind. While a reply streams, the thoughts are
gathered and, at most every :data:`INTERVAL` seconds, the part up to the last paragraph
break (else line break) is summarised by the fast model in the background — the stream is
never held up; when the answer's text begins, or the attempt ends, the rest is summarised.
Each summary is published as it comes and written to the session tree as an event node
when the attempt ends. A summary is never fed back to the model; a summariser that fails
is skipped (the run does not depend on it).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from tai_core.blocks import FORMAT_SYSTEM_PROMPT, Block, parse_blocks
from tai_core.models import ModelSpec, Provider, ProviderError, ask

#: Seconds between summaries while thoughts stream.
INTERVAL = 3.0

SUMMARY_SYSTEM_PROMPT = """\
You summarise another model's reasoning for the user watching it work. Write at most two \
bullets of one sentence each: the problem it is working on, and the direction it is \
taking. Output exactly one `summary` block holding the bullets, and nothing outside it."""

Summarizer = Callable[[str], Awaitable[str | None]]


class ThoughtSummarizer:
    """Summaries with one model (the fast one), in ``language`` when given."""

    def __init__(self, provider: Provider, spec: ModelSpec, language: str = "") -> None:
        self.provider = provider
        self.spec = spec
        self.language = language

    async def __call__(self, thoughts: str) -> str | None:
        """The summary of ``thoughts``; ``None`` when the model could not give one."""
        system = f"{SUMMARY_SYSTEM_PROMPT}\n\n{FORMAT_SYSTEM_PROMPT}"
        if self.language:
            system += f"\n\nWrite the bullets in {self.language}."
        try:
            reply = await ask(self.provider, self.spec, system, thoughts)
        except ProviderError:
            return None
        blocks = [b for b in parse_blocks(reply) if isinstance(b, Block)]
        chosen = next((b for b in blocks if b.kind == "summary"), blocks[0] if blocks else None)
        text = chosen.body if chosen is not None else reply
        return text.strip() or None


class ThoughtStream:
    """The thoughts of one attempt, summarised in the background as they come; ``publish``
    receives each summary as soon as it is written."""

    def __init__(
        self,
        summarize: Summarizer,
        publish: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._summarize = summarize
        self._publish = publish
        self._clock = clock
        self._pending = ""
        self._last = clock()
        self._tasks: list[asyncio.Task[str | None]] = []

    def thought(self, text: str) -> None:
        """More reasoning; a summary of what came up to a break, when it is time."""
        self._pending += text
        if self._clock() - self._last < INTERVAL:
            return
        cut = self._pending.rfind("\n\n")
        cut = cut + 2 if cut >= 0 else self._pending.rfind("\n") + 1
        if cut > 0:
            self._start(self._pending[:cut])
            self._pending = self._pending[cut:]

    def answer_began(self) -> None:
        """The reply's text began: what was thought is summarised now."""
        self._start(self._pending)
        self._pending = ""

    async def summaries(self) -> tuple[str, ...]:
        """Every summary of the attempt, in order, once the rest is summarised too."""
        self.answer_began()
        found = await asyncio.gather(*self._tasks, return_exceptions=True)
        return tuple(s for s in found if isinstance(s, str))

    def cancel(self) -> None:
        """The attempt ended without waiting for its summaries."""
        for task in self._tasks:
            task.cancel()

    def _start(self, thoughts: str) -> None:
        if not thoughts.strip():
            return
        self._last = self._clock()
        self._tasks.append(asyncio.get_running_loop().create_task(self._one(thoughts)))

    async def _one(self, thoughts: str) -> str | None:
        summary = await self._summarize(thoughts)
        if summary:
            self._publish(summary)
        return summary
