"""The ``vercel`` provider: Vercel AI Gateway.

Spoken in OpenAI's chat-completions protocol. One object (:data:`vercel`) whose plugin the
entry point ``vercel`` names; the protocol, the key lookup and the faults are
:mod:`tai_provider_kit`'s.
"""

from tai_provider_kit.openai_compatible import service

vercel = service(
    "vercel", ("vercel",), "Vercel AI Gateway", "https://ai-gateway.vercel.sh/v1", "vercel"
)
