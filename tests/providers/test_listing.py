"""The providers as a user sees them in ``tai plugins``: one plugin each."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_tai

PROVIDERS = [
    "aliyun", "azure", "baidu", "bedrock", "deepseek", "gemini", "huoshan", "litellm",
    "nvidia", "ollama", "openai", "opencode-go", "openrouter", "replay", "tencent", "vercel",
    "zhipu",
]  # fmt: skip


def test_every_provider_is_its_own_plugin(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("plugins", "--json", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["providers"] == PROVIDERS
    for name in PROVIDERS:
        (plugin,) = [p for p in document["plugins"] if p["name"] == name]
        assert plugin["distribution"] == f"tai-provider-{name}"
        assert plugin["providers"] == [name]
        assert plugin["status"] == "loaded"


def test_the_table_counts_them(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("plugins", cwd=tmp_path, env=isolated_env)
    assert f"Providers (17): {', '.join(PROVIDERS)}" in result.stdout
    assert result.stderr == ""


def test_one_provider_can_be_switched_off(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("-p", "no:deepseek", "plugins", "--json", cwd=tmp_path, env=isolated_env)
    document = json.loads(result.stdout)
    assert "deepseek" not in document["providers"]
    assert len(document["providers"]) == 16


def test_providers_fulfil_the_contract(providers) -> None:
    for name, provider in providers.items():
        assert provider.name == name and provider.description
        assert isinstance(provider.types, tuple) and isinstance(provider.prefixes, tuple)
        assert callable(provider.spec) and callable(provider.stream)
    assert providers["ollama"].prefixes == ("ollama",)
    assert providers["replay"].prefixes == ("replay",)
    assert set(providers["gemini"].short_names) == {"flash", "gemini-flash", "gemini", "pro",
                                                    "gemini-pro"}  # fmt: skip
