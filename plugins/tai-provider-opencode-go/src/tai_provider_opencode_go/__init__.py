"""The ``opencode-go`` provider: OpenCode Go.

Spoken in OpenAI's chat-completions protocol. One object (:data:`opencode_go`) whose plugin
the entry point ``opencode-go`` names; the protocol, the key lookup and the faults are
:mod:`tai_provider_kit`'s.
"""

from tai_provider_kit.openai_compatible import service

opencode_go = service(
    "opencode-go", ("opencode-go", "opencode_go", "opencodego"), "OpenCode Go",
    "https://opencode.ai/zen/go/v1", "opencode_go",
)  # fmt: skip
