"""The ``aliyun`` provider: Alibaba Cloud DashScope (阿里云百炼).

Spoken in OpenAI's chat-completions protocol. One object (:data:`aliyun`) whose plugin the
entry point ``aliyun`` names; the protocol, the key lookup and the faults are
:mod:`tai_provider_kit`'s.
"""

from tai_provider_kit.openai_compatible import service

aliyun = service(
    "aliyun", ("aliyun",), "Alibaba Cloud DashScope (阿里云百炼)",
    "https://dashscope.aliyuncs.com/compatible-mode/v1", "aliyun",
)  # fmt: skip
