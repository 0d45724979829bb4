"""The ``openai`` provider: OpenAI, or any OpenAI-compatible endpoint (``max_completion_tokens``).

Spoken in OpenAI's chat-completions protocol. One object (:data:`openai`) whose plugin the
entry point ``openai`` names; the protocol, the key lookup and the faults are
:mod:`tai_provider_kit`'s.
"""

from tai_provider_kit.openai_compatible import service

openai = service(
    "openai", ("openai", "open-ai", "open_ai"), "OpenAI, or any OpenAI-compatible endpoint",
    "https://api.openai.com/v1", "openai", max_tokens_key="max_completion_tokens",
)  # fmt: skip
