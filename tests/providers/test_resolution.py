"""Every provider's defaults through ``resolve_model``: base URLs, keys, facts, built-ins."""

from __future__ import annotations

import pytest

from tai_core.models import ModelConfigError, Usage

#: provider, default base URL, tai.toml key of the API key, environment variable.
SERVICES = [
    ("openai", "https://api.openai.com/v1", "openai_api_key", "OPENAI_API_KEY"),
    ("deepseek", "https://api.deepseek.com", "deepseek_api_key", "DEEPSEEK_API_KEY"),
    ("huoshan", "https://ark.cn-beijing.volces.com/api/v3", "huoshan_api_key", "HUOSHAN_API_KEY"),
    ("baidu", "https://qianfan.baidubce.com/v2", "baidu_api_key", "BAIDU_API_KEY"),
    ("tencent", "https://api.hunyuan.cloud.tencent.com/v1", "tencent_api_key", "TENCENT_API_KEY"),
    (
        "aliyun",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "aliyun_api_key",
        "ALIYUN_API_KEY",
    ),
    ("zhipu", "https://open.bigmodel.cn/api/paas/v4", "zhipu_api_key", "ZHIPU_API_KEY"),
    ("vercel", "https://ai-gateway.vercel.sh/v1", "vercel_api_key", "VERCEL_API_KEY"),
    ("nvidia", "https://integrate.api.nvidia.com/v1", "nvidia_api_key", "NVIDIA_API_KEY"),
    ("openrouter", "https://openrouter.ai/api/v1", "openrouter_api_key", "OPEN_ROUTER_API_KEY"),
    ("opencode-go", "https://opencode.ai/zen/go/v1", "opencode_go_api_key", "OPENCODE_GO_API_KEY"),
    (
        "gemini",
        "https://generativelanguage.googleapis.com/v1beta",
        "google_api_key",
        "GOOGLE_API_KEY",
    ),
]


def generator(kind: str, **fields) -> dict:
    return {"name": "m", "type": kind, "model": "some-model", **fields}


@pytest.mark.parametrize(("kind", "url", "key", "variable"), SERVICES)
def test_defaults_and_key_precedence(resolve, kind, url, key, variable) -> None:
    environ = {variable: "from-env"}
    spec = resolve("m", [generator(kind)], environ=environ)
    assert (spec.provider, spec.base_url, spec.api_key) == (kind, url, "from-env")
    assert resolve("m", [generator(kind)], environ=environ, **{key: "from-config"}).api_key == (
        "from-config"
    )
    own = resolve("m", [generator(kind, api_key="own")], environ=environ, **{key: "c"})
    assert own.api_key == "own"
    elsewhere = resolve("m", [generator(kind, base_url="http://h/v1")], environ=environ)
    assert elsewhere.base_url == "http://h/v1"


@pytest.mark.parametrize(("kind", "url", "key", "variable"), SERVICES)
def test_a_missing_key_names_where_to_set_it(resolve, kind, url, key, variable) -> None:
    with pytest.raises(ModelConfigError) as caught:
        resolve("m", [generator(kind)])
    said = str(caught.value)
    assert said.startswith(f"model 'm' ({kind}) has no API key: set the environment variable ")
    assert variable in said
    assert f"{key} in tai.toml" in said
    assert said.endswith(" or api_key in its [[generators]] table of tai.toml")


@pytest.mark.parametrize(
    ("url", "needs_key"),
    [("http://127.0.0.1:8000/v1", False), ("http://localhost:11434/v1", False),
     ("http://[::1]:8000/v1", False), ("http://127.1.2.3/v1", False),
     ("http://10.0.0.5:8000/v1", True), ("https://api.example.com/v1", True),
     ("http://localhost.example.com/v1", True), ("not a url", True)],
)  # fmt: skip
def test_an_endpoint_on_this_machine_needs_no_key(resolve, url: str, needs_key: bool) -> None:
    """README's local server (type openai, base_url on 127.0.0.1) resolves without a key;
    any other endpoint still needs one."""
    if needs_key:
        with pytest.raises(ModelConfigError, match="has no API key"):
            resolve("m", [generator("openai", base_url=url)])
    else:
        assert resolve("m", [generator("openai", base_url=url)]).api_key is None


def test_the_missing_key_message(resolve) -> None:
    with pytest.raises(ModelConfigError) as caught:
        resolve("m", [generator("openrouter")])
    assert str(caught.value) == (
        "model 'm' (openrouter) has no API key: set the environment variable "
        "OPEN_ROUTER_API_KEY or OPENROUTER_API_KEY, openrouter_api_key in tai.toml or api_key "
        "in its [[generators]] table of tai.toml"
    )


@pytest.mark.parametrize(
    ("spelling", "provider"),
    [("OpenAI", "openai"), ("open-ai", "openai"), ("open_ai", "openai"),
     ("open-router", "openrouter"), ("open_router", "openrouter"),
     ("opencode_go", "opencode-go"), ("opencodego", "opencode-go")],
)  # fmt: skip
def test_type_spellings(resolve, spelling, provider) -> None:
    assert resolve("m", [generator(spelling, api_key="k")]).provider == provider


def test_openrouter_second_variable_and_endpoint(resolve) -> None:
    spec = resolve(
        "m",
        [generator("openrouter")],
        environ={"OPENROUTER_API_KEY": "k2"},
        openrouter_endpoint="https://gateway.example/api/v1",
    )
    assert (spec.api_key, spec.base_url) == ("k2", "https://gateway.example/api/v1")


@pytest.mark.parametrize(("kind", "url", "key", "variable"), SERVICES)
def test_every_provider_type_is_a_prefix(resolve, kind, url, key, variable) -> None:
    spec = resolve(f"{kind.upper()}:vendor/some-model:v2", environ={variable: "k"})
    assert (spec.provider, spec.model, spec.base_url) == (kind, "vendor/some-model:v2", url)


def test_every_installed_provider_answers_to_each_of_its_types(providers) -> None:
    from tai_core.models._resolve import _prefixed

    for provider in providers.values():
        for kind in provider.types:
            assert _prefixed(f"{kind}:m", providers) == {"type": kind, "model": "m"}
    assert _prefixed("no-such-provider:m", providers) is None


def test_ollama_prefix_needs_no_key(resolve) -> None:
    spec = resolve("ollama:qwen3-coder:30b")
    assert (spec.provider, spec.model, spec.api_key) == ("ollama", "qwen3-coder:30b", None)
    assert spec.base_url == "http://127.0.0.1:11434/v1"


def test_azure_endpoint_version_and_key(resolve) -> None:
    with pytest.raises(ModelConfigError, match="set base_url in its generator or azure_endpoint"):
        resolve("m", [generator("azure", api_key="k")])
    spec = resolve("m", [generator("azure")], environ={"AZURE_API_KEY": "ak"},
                   azure_endpoint="https://res.openai.azure.com")  # fmt: skip
    assert (spec.base_url, spec.api_version, spec.api_key) == (
        "https://res.openai.azure.com",
        "2024-05-01-preview",
        "ak",
    )
    configured = resolve("m", [generator("azure", api_key="k")], azure_endpoint="https://r",
                         azure_api_version="2025-04-01")  # fmt: skip
    assert configured.api_version == "2025-04-01"
    own = resolve("m", [generator("azure", api_key="k", base_url="https://b", api_version="v9")])
    assert (own.base_url, own.api_version) == ("https://b", "v9")


def test_bedrock_key_is_optional(resolve) -> None:
    assert resolve("m", [generator("bedrock")]).api_key is None
    keyed = resolve("m", [generator("bedrock")], environ={"AWS_BEDROCK_API_KEY": "bk"})
    assert keyed.api_key == "bk"


def test_litellm_takes_the_prefix_key_from_tai_toml(resolve) -> None:
    model = {"model": "anthropic/claude-sonnet-4-5"}
    assert resolve("m", [generator("litellm", **model)]).api_key is None
    spec = resolve("m", [generator("litellm", **model)], anthropic_api_key="ant")
    assert spec.api_key == "ant"
    assert (spec.context_tokens, spec.max_generate_tokens) == (200_000, 64_000)


@pytest.mark.parametrize("name", ["flash", "gemini-flash"])
def test_builtin_flash(resolve, name) -> None:
    spec = resolve(name, environ={"GOOGLE_API_KEY": "g"})
    assert (spec.provider, spec.model, spec.temperature) == (
        "gemini",
        "models/gemini-flash-latest",
        0.0,
    )


@pytest.mark.parametrize("name", ["gemini", "pro", "gemini-pro"])
def test_builtin_pro(resolve, name) -> None:
    spec = resolve(name, google_api_key="g")
    assert spec.model == "models/gemini-pro-latest"
    assert (spec.context_tokens, spec.max_generate_tokens, spec.temperature) == (
        192 * 1024,
        32 * 1024,
        0.1,
    )
    assert spec.prices is not None and not spec.zero_data_retention


def test_builtins_need_the_google_key(resolve) -> None:
    with pytest.raises(ModelConfigError, match="GOOGLE_API_KEY"):
        resolve("flash")


def test_bundled_facts_and_cost(resolve) -> None:
    spec = resolve("m", [generator("openai", model="gpt-5", api_key="k")])
    assert (spec.context_tokens, spec.max_generate_tokens) == (400_000, 128_000)
    usage = Usage(input=1_000_000, cache_read=400_000, output=100_000)
    assert usage.cost(spec.prices) == pytest.approx(0.6 * 1.25 + 0.4 * 0.125 + 0.1 * 10.0)
    routed = resolve(
        "m", [generator("openrouter", model="anthropic/claude-sonnet-4.5", api_key="k")]
    )
    assert routed.prices.cache_write == 3.75
    own = resolve("m", [generator("openai", model="gpt-5", api_key="k", context_tokens=1000)])
    assert own.context_tokens == 1000
    unknown = resolve("m", [generator("deepseek", model="deepseek-v9", api_key="k")])
    assert (unknown.context_tokens, unknown.prices) == (None, None)


def test_proxy_timeout_and_carried_fields(resolve) -> None:
    spec = resolve("m", [generator("openai", api_key="k")], proxy="http://proxy:3128")
    assert (spec.proxy, spec.no_proxy, spec.read_timeout) == ("http://proxy:3128", False, 120.0)
    direct = resolve(
        "m",
        [generator("openai", api_key="k", no_proxy=True, read_timeout=30, service_tier="flex")],
        proxy="http://proxy:3128",
    )
    assert (direct.proxy, direct.no_proxy, direct.read_timeout) == (None, True, 30.0)
    assert direct.extra_arguments == {"service_tier": "flex"}


def test_confidential_mode_refuses_before_sending(resolve, openai_server) -> None:
    fields = {"api_key": "k", "base_url": openai_server.base_url}
    with pytest.raises(ModelConfigError, match="confidential mode"):
        resolve("m", [generator("openai", **fields)], confidential=True)
    with pytest.raises(ModelConfigError, match="confidential mode"):
        resolve("ollama:qwen3", confidential=True)
    assert openai_server.requests == []
    allowed = resolve("m", [generator("openai", zero_data_retention=True, **fields)],
                      confidential=True)  # fmt: skip
    assert allowed.zero_data_retention
