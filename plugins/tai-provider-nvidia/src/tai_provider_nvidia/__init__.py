"""The ``nvidia`` provider: NVIDIA NIM.

Spoken in OpenAI's chat-completions protocol. One object (:data:`nvidia`) whose plugin the
entry point ``nvidia`` names; the protocol, the key lookup and the faults are
:mod:`tai_provider_kit`'s.
"""

from tai_provider_kit.openai_compatible import service

nvidia = service(
    "nvidia", ("nvidia",), "NVIDIA NIM", "https://integrate.api.nvidia.com/v1", "nvidia"
)
