"""The ``ollama`` provider: Ollama, local models (no key).

Spoken in OpenAI's chat-completions protocol. One object (:data:`ollama`) whose plugin the
entry point ``ollama`` names; the protocol, the key lookup and the faults are
:mod:`tai_provider_kit`'s.
"""

from tai_provider_kit.openai_compatible import OpenAICompatibleProvider

ollama = OpenAICompatibleProvider(
    name="ollama",
    types=("ollama",),
    description="Ollama, local models (OpenAI-compatible; http://127.0.0.1:11434/v1; no key)",
    prefixes=("ollama",),
    default_base_url="http://127.0.0.1:11434/v1",
    needs_key=False,
)
