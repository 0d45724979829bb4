"""The model's window: how many tokens a request may hold, and how a text is counted.

THEORY_OF_THE_WINDOW: a request larger than the model's context window fails at the
provider after the whole prompt was sent (and paid for, with some), or worse, is cut
silently. So every request is measured before it is sent: it may use the model's
``context_tokens`` less a reserve for the reply (``max_generate_tokens``, else
:data:`DEFAULT_REPLY_TOKENS`), and a model whose window is unknown gets
:data:`DEFAULT_CONTEXT_TOKENS`. Tokens are an offline estimate — one per four characters,
rounded up — because the same text must always cost the same (the staged context lowers
its levels by these numbers, and the same inputs must give the same reductions) and
because no tokenizer download or model dependency belongs on this path. For code and
English prose the estimate runs close to or above real tokenizer counts; text with many
multi-byte characters counts more tokens than it estimates, which the reserve absorbs.
"""

from __future__ import annotations

import attrs

from tai_core.models._values import GenerationRequest, ModelSpec

#: The window assumed for a model whose ``context_tokens`` is not known.
DEFAULT_CONTEXT_TOKENS = 128_000
#: The reply reserve of a model whose ``max_generate_tokens`` is not known.
DEFAULT_REPLY_TOKENS = 16_384


def estimate_tokens(text: str) -> int:
    """The token estimate of ``text``: characters / 4, rounded up."""
    return (len(text) + 3) // 4


@attrs.frozen
class Window:
    """A model's window: its size, the reply's reserve, and what a request may use."""

    context_tokens: int
    reply_tokens: int

    @property
    def request_tokens(self) -> int:
        """Tokens a request may hold: the window less the reply's reserve."""
        return max(0, self.context_tokens - self.reply_tokens)

    def describe(self) -> str:
        """``the model's window (N tokens less M for the reply)``."""
        return (
            f"the {self.request_tokens} tokens the model's window allows "
            f"({self.context_tokens} context_tokens less {self.reply_tokens} for the reply)"
        )


def window_of(spec: ModelSpec) -> Window:
    """The window of ``spec`` (see the module docstring for the defaults)."""
    context = spec.context_tokens or DEFAULT_CONTEXT_TOKENS
    reply = spec.max_generate_tokens or min(DEFAULT_REPLY_TOKENS, context // 4)
    return Window(context, reply)


def request_tokens(request: GenerationRequest) -> int:
    """The estimated tokens of ``request``: its system prompt and every message."""
    return estimate_tokens(request.system) + sum(
        estimate_tokens(message.text) for message in request.messages
    )
