"""The ``zhipu`` provider: Zhipu BigModel (智谱).

Spoken in OpenAI's chat-completions protocol. One object (:data:`zhipu`) whose plugin the
entry point ``zhipu`` names; the protocol, the key lookup and the faults are
:mod:`tai_provider_kit`'s.
"""

from tai_provider_kit.openai_compatible import service

zhipu = service(
    "zhipu", ("zhipu",), "Zhipu BigModel (智谱)", "https://open.bigmodel.cn/api/paas/v4", "zhipu"
)
