"""The services that speak OpenAI's chat-completions protocol, one plugin each.

Each object below is one entry point (``openai = "tai_providers.openai_compatible:openai"``)
and differs from the others only in data: its type spellings, default base URL, where its
API key is found, and two dialect details — the name of the output-limit field (OpenAI's
``max_completion_tokens``; most others honour only ``max_tokens``) and OpenRouter's
``reasoning: {effort}`` object. The protocol itself is :mod:`tai_providers._openai_wire`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from tai_providers._base import ProviderBase

if TYPE_CHECKING:
    from tai_core.models import GenerationRequest, ModelSpec, StreamEvent


@attrs.define(kw_only=True, eq=False)
class OpenAICompatibleProvider(ProviderBase):
    """A service reached through ``POST {base_url}/chat/completions``."""

    #: The body field of the output limit.
    max_tokens_key: str = "max_tokens"
    #: Send the reasoning effort as ``reasoning: {effort}`` (OpenRouter).
    effort_object: bool = False

    def spec(
        self,
        name: str,
        fields: Mapping[str, Any],
        config: Mapping[str, Any],
        environ: Mapping[str, str],
    ) -> ModelSpec:
        """As :meth:`ProviderBase.spec`; the generator's ``provider`` (OpenRouter routing)
        and ``service_tier`` travel in the body, under ``extra_arguments``."""
        spec = super().spec(name, fields, config, environ)
        carried = {key: fields[key] for key in ("provider", "service_tier") if key in fields}
        if not carried:
            return spec
        return attrs.evolve(spec, extra_arguments={**carried, **spec.extra_arguments})

    def stream(self, spec: ModelSpec, request: GenerationRequest) -> AsyncIterator[StreamEvent]:
        """Stream ``request`` over the chat-completions protocol."""
        from tai_providers import _openai_wire

        return _openai_wire.stream(
            spec, request, max_tokens_key=self.max_tokens_key, effort_object=self.effort_object
        )


def _service(
    name: str, types: tuple[str, ...], what: str, url: str, key: str, **more: Any
) -> OpenAICompatibleProvider:
    """A service whose key is tai.toml's ``<key>_api_key`` or ``<KEY>_API_KEY``."""
    env = more.pop("key_env", (f"{key.upper()}_API_KEY",))
    return OpenAICompatibleProvider(
        name=name,
        types=types,
        description=f"{what} (OpenAI-compatible; {url})",
        default_base_url=url,
        key_config=f"{key}_api_key",
        key_env=env,
        **more,
    )


openai = _service(
    "openai", ("openai", "open-ai", "open_ai"), "OpenAI, or any OpenAI-compatible endpoint",
    "https://api.openai.com/v1", "openai", max_tokens_key="max_completion_tokens",
)  # fmt: skip
deepseek = _service("deepseek", ("deepseek",), "DeepSeek", "https://api.deepseek.com", "deepseek")
huoshan = _service(
    "huoshan", ("huoshan",), "Volcano Engine Ark (火山引擎)",
    "https://ark.cn-beijing.volces.com/api/v3", "huoshan",
)  # fmt: skip
baidu = _service(
    "baidu", ("baidu",), "Baidu Qianfan (百度千帆)", "https://qianfan.baidubce.com/v2", "baidu"
)
tencent = _service(
    "tencent", ("tencent",), "Tencent Hunyuan (腾讯混元)",
    "https://api.hunyuan.cloud.tencent.com/v1", "tencent",
)  # fmt: skip
aliyun = _service(
    "aliyun", ("aliyun",), "Alibaba Cloud DashScope (阿里云百炼)",
    "https://dashscope.aliyuncs.com/compatible-mode/v1", "aliyun",
)  # fmt: skip
zhipu = _service(
    "zhipu", ("zhipu",), "Zhipu BigModel (智谱)", "https://open.bigmodel.cn/api/paas/v4", "zhipu"
)
vercel = _service(
    "vercel", ("vercel",), "Vercel AI Gateway", "https://ai-gateway.vercel.sh/v1", "vercel"
)
nvidia = _service(
    "nvidia", ("nvidia",), "NVIDIA NIM", "https://integrate.api.nvidia.com/v1", "nvidia"
)
openrouter = _service(
    "openrouter", ("openrouter", "open-router", "open_router"), "OpenRouter",
    "https://openrouter.ai/api/v1", "openrouter",
    key_env=("OPEN_ROUTER_API_KEY", "OPENROUTER_API_KEY"), base_url_key="openrouter_endpoint",
    max_tokens_key="max_completion_tokens", effort_object=True,
)  # fmt: skip
opencode_go = _service(
    "opencode-go", ("opencode-go", "opencode_go", "opencodego"), "OpenCode Go",
    "https://opencode.ai/zen/go/v1", "opencode_go",
)  # fmt: skip
ollama = OpenAICompatibleProvider(
    name="ollama",
    types=("ollama",),
    description="Ollama, local models (OpenAI-compatible; http://127.0.0.1:11434/v1; no key)",
    prefixes=("ollama",),
    default_base_url="http://127.0.0.1:11434/v1",
    needs_key=False,
)
