"""The replay provider: a model that plays a transcript, one reply per call.

``-model replay:PATH`` (or a generator with ``type = "replay"`` and ``model = PATH``)
answers the n-th model call of the process with the n-th reply of the transcript at PATH,
so examples, demos and tests of the whole pipeline run offline and deterministically.
The position is kept per resolved absolute path in the provider object (``rewind`` starts
a transcript over). Replay never sends anything anywhere: its models count as zero data
retention, cost nothing and have a context window of 1,000,000 tokens.

Transcript format (UTF-8 text; also in ``docs/replay-format.md``)::

    # Lines starting with # before the first reply are comments.
    @@@ reply
    @@@ expect user: fix the off-by-one
    @@@ thought: The loop bound is wrong.
    @@@ usage input=1200 output=80 cache_read=1000 reasoning=20
    I will change the bound.
    <<紫藤 summary
    - fixed the bound
    紫藤
    @@@ reply
    @@@ error 429 rate limited, try again

* A line ``@@@ reply`` starts a reply. In a reply, every line starting ``@@@ `` is a
  directive (wherever it stands); all other lines up to the next ``@@@ reply`` or the end
  of the file are the reply's text, verbatim. Trailing blank lines are dropped and the
  text ends with one newline when its last line had one.
* ``@@@ expect user: TEXT`` — the call's last user message must contain TEXT;
  ``@@@ expect system: TEXT`` — its system prompt must. Repeatable.
* ``@@@ thought: TEXT`` — a thought streamed before the text (repeatable; joined by
  newlines).
* ``@@@ usage input=N output=N cache_read=N cache_write=N reasoning=N`` — the reported
  usage; counts not given are estimated (a token per 4 characters) or 0 for the cache
  and reasoning counts.
* ``@@@ finish REASON`` — the finish reason (default ``stop``; ``length`` to test
  truncation).
* ``@@@ error STATUS MESSAGE`` — the call fails with a ProviderError of that status
  (retryable for 429 and 5xx); when the reply also has text or thoughts they are streamed
  first, as by a connection cut mid-reply.
* ``@@@ chunk N`` — stream the text (and thoughts) in pieces of N characters (default 16).

A call past the last reply, or one whose expectation fails, is a non-retryable
ProviderError naming the reply and the expectation. Resolving the model checks that the
file exists and parses; an error names the file and the line.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from tai_provider_kit._base import ProviderBase

if TYPE_CHECKING:
    from tai_core.models import GenerationRequest, ModelSpec, StreamEvent


@attrs.define(kw_only=True, eq=False)
class ReplayProvider(ProviderBase):
    """Plays transcripts; keeps each transcript's position and parsed replies."""

    #: Resolved path -> index of the reply the next call gets.
    positions: dict[str, int] = attrs.field(factory=dict)
    #: Resolved path -> its parsed replies (refreshed by every ``spec``).
    transcripts: dict[str, Any] = attrs.field(factory=dict)

    def spec(
        self,
        name: str,
        fields: Mapping[str, Any],
        config: Mapping[str, Any],
        environ: Mapping[str, str],
    ) -> ModelSpec:
        """The spec of the transcript ``fields["model"]``, parsed now to fail early."""
        from tai_provider_replay import _transcript

        return _transcript.transcript_spec(self, name, fields)

    def stream(self, spec: ModelSpec, request: GenerationRequest) -> AsyncIterator[StreamEvent]:
        """Play the transcript's next reply."""
        from tai_provider_replay import _transcript

        return _transcript.play(self, spec, request)

    def rewind(self, path: str | None = None) -> None:
        """Start the transcript at resolved ``path`` (or every transcript) over."""
        if path is None:
            self.positions.clear()
        else:
            self.positions.pop(path, None)


replay = ReplayProvider(
    name="replay",
    types=("replay",),
    description="plays a transcript file, one reply per call (replay:PATH; offline)",
    prefixes=("replay",),
    needs_key=False,
)
