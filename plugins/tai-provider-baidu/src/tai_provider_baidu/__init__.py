"""The ``baidu`` provider: Baidu Qianfan (百度千帆).

Spoken in OpenAI's chat-completions protocol. One object (:data:`baidu`) whose plugin the
entry point ``baidu`` names; the protocol, the key lookup and the faults are
:mod:`tai_provider_kit`'s.
"""

from tai_provider_kit.openai_compatible import service

baidu = service(
    "baidu", ("baidu",), "Baidu Qianfan (百度千帆)", "https://qianfan.baidubce.com/v2", "baidu"
)
