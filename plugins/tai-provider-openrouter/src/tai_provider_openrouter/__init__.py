"""The ``openrouter`` provider: OpenRouter (routing and ``reasoning: {effort}``).

Spoken in OpenAI's chat-completions protocol. One object (:data:`openrouter`) whose plugin
the entry point ``openrouter`` names; the protocol, the key lookup and the faults are
:mod:`tai_provider_kit`'s.
"""

from tai_provider_kit.openai_compatible import service

openrouter = service(
    "openrouter", ("openrouter", "open-router", "open_router"), "OpenRouter",
    "https://openrouter.ai/api/v1", "openrouter",
    key_env=("OPEN_ROUTER_API_KEY", "OPENROUTER_API_KEY"), base_url_key="openrouter_endpoint",
    max_tokens_key="max_completion_tokens", effort_object=True,
)  # fmt: skip
