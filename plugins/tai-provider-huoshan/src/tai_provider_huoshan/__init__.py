"""The ``huoshan`` provider: Volcano Engine Ark (火山引擎).

Spoken in OpenAI's chat-completions protocol. One object (:data:`huoshan`) whose plugin the
entry point ``huoshan`` names; the protocol, the key lookup and the faults are
:mod:`tai_provider_kit`'s.
"""

from tai_provider_kit.openai_compatible import service

huoshan = service(
    "huoshan", ("huoshan",), "Volcano Engine Ark (火山引擎)",
    "https://ark.cn-beijing.volces.com/api/v3", "huoshan",
)  # fmt: skip
