"""The generation interface: what the pipeline asks of a model and what comes back.

Providers are plugins; this package is the narrow, provider-neutral contract between them
and the pipeline — request, stream events, usage and prices, the error type — plus the two
pieces of logic every provider shares: resolving ``-model NAME`` against the configuration,
and retrying a failed call that produced nothing. Nothing here imports a provider SDK or an
HTTP client; providers bring their own, lazily.
"""

from tai_core.models._ask import ask
from tai_core.models._generate import RetryPolicy, generate
from tai_core.models._provider import Provider
from tai_core.models._resolve import ModelConfigError, resolve_model
from tai_core.models._values import (
    Finish,
    GenerationRequest,
    Message,
    ModelSpec,
    Prices,
    ProviderError,
    StreamEvent,
    TextDelta,
    ThoughtDelta,
    Usage,
)
from tai_core.models._window import (
    DEFAULT_CONTEXT_TOKENS,
    DEFAULT_REPLY_TOKENS,
    Window,
    estimate_tokens,
    request_tokens,
    window_of,
)

__all__ = [
    "DEFAULT_CONTEXT_TOKENS",
    "DEFAULT_REPLY_TOKENS",
    "Finish",
    "GenerationRequest",
    "Message",
    "ModelConfigError",
    "ModelSpec",
    "Prices",
    "Provider",
    "ProviderError",
    "RetryPolicy",
    "StreamEvent",
    "TextDelta",
    "ThoughtDelta",
    "Usage",
    "Window",
    "ask",
    "estimate_tokens",
    "generate",
    "request_tokens",
    "resolve_model",
    "window_of",
]
