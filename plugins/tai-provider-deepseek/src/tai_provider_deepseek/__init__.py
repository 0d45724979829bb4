"""The ``deepseek`` provider: DeepSeek.

Spoken in OpenAI's chat-completions protocol. One object (:data:`deepseek`) whose plugin the
entry point ``deepseek`` names; the protocol, the key lookup and the faults are
:mod:`tai_provider_kit`'s.
"""

from tai_provider_kit.openai_compatible import service

deepseek = service("deepseek", ("deepseek",), "DeepSeek", "https://api.deepseek.com", "deepseek")
