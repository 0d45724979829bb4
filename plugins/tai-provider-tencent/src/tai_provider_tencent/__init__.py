"""The ``tencent`` provider: Tencent Hunyuan (腾讯混元).

Spoken in OpenAI's chat-completions protocol. One object (:data:`tencent`) whose plugin the
entry point ``tencent`` names; the protocol, the key lookup and the faults are
:mod:`tai_provider_kit`'s.
"""

from tai_provider_kit.openai_compatible import service

tencent = service(
    "tencent", ("tencent",), "Tencent Hunyuan (腾讯混元)",
    "https://api.hunyuan.cloud.tencent.com/v1", "tencent",
)  # fmt: skip
