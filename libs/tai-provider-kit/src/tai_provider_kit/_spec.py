"""From generator fields to a :class:`ModelSpec`: defaults, API keys, bundled facts.

Precedence everywhere: the generator's own field, then tai.toml's provider-wide key, then
the environment, then the provider's default — as the original resolves them. A value
that is missing and required is a :class:`ModelConfigError` naming every place it may be
set, so the user never has to guess the spelling of a key. An endpoint on this machine
(a loopback ``base_url``) needs no key: the request then goes without one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tai_core.models import ModelConfigError, ModelSpec
from tai_provider_kit._data import model_facts

if TYPE_CHECKING:
    from tai_provider_kit._base import ProviderBase

#: Seconds without data before a stream counts as stalled, unless ``read_timeout`` is set.
DEFAULT_READ_TIMEOUT = 120.0


def api_key(
    provider: ProviderBase,
    name: str,
    fields: Mapping[str, Any],
    config: Mapping[str, Any],
    environ: Mapping[str, str],
) -> str | None:
    """Generator ``api_key``, else tai.toml's ``<x>_api_key``, else ``<X>_API_KEY``."""
    if fields.get("api_key"):
        return str(fields["api_key"])
    if provider.key_config and config.get(provider.key_config):
        return str(config.get(provider.key_config))
    for variable in provider.key_env:
        if environ.get(variable):
            return environ[variable]
    if not provider.needs_key or _on_this_machine(fields.get("base_url")):
        return None  # a server on this machine (llama.cpp, vLLM, …) rarely asks for one
    places = []  # the newcomer's way first
    if provider.key_env:
        places.append(f"the environment variable {' or '.join(provider.key_env)}")
    if provider.key_config:
        places.append(f"{provider.key_config} in tai.toml")
    places.append("api_key in its [[generators]] table of tai.toml")
    raise ModelConfigError(
        f"model {name!r} ({provider.name}) has no API key: set {', '.join(places[:-1])} "
        f"or {places[-1]}"
    )


def _on_this_machine(url: object) -> bool:
    """Whether ``url`` is a loopback address (``localhost``, ``127.x``, ``::1``)."""
    if not isinstance(url, str):
        return False
    import ipaddress
    from urllib.parse import urlsplit

    try:
        host = urlsplit(url).hostname or ""
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def base_url(
    provider: ProviderBase, name: str, fields: Mapping[str, Any], config: Mapping[str, Any]
) -> str | None:
    """Generator ``base_url``, else tai.toml's endpoint key, else the provider's default."""
    if fields.get("base_url"):
        return str(fields["base_url"])
    if provider.base_url_key and config.get(provider.base_url_key):
        return str(config.get(provider.base_url_key))
    if provider.default_base_url is None and provider.base_url_key:
        raise ModelConfigError(
            f"model {name!r} ({provider.name}) has no endpoint: set base_url in its "
            f"generator or {provider.base_url_key} in tai.toml"
        )
    return provider.default_base_url


def _retry_settings(fields: Mapping[str, Any]) -> dict[str, Any]:
    """``retries`` and ``retry_delay`` where the generator sets them (ModelSpec's defaults
    else)."""
    settings: dict[str, Any] = {}
    if "retries" in fields:
        settings["retries"] = int(fields["retries"])
    if "retry_delay" in fields:
        settings["retry_delay"] = float(fields["retry_delay"])
    return settings


def build_spec(
    provider: ProviderBase,
    name: str,
    fields: Mapping[str, Any],
    config: Mapping[str, Any],
    environ: Mapping[str, str],
) -> ModelSpec:
    """The spec of ``name`` served by ``provider``."""
    model = str(fields.get("model") or "")
    if not model:
        raise ModelConfigError(
            f"model {name!r} ({provider.name}) names no model: set model in its generator"
        )
    facts = model_facts(provider.name, model)
    no_proxy = bool(fields.get("no_proxy", False))
    return ModelSpec(
        name=name,
        provider=provider.name,
        type=str(fields.get("type") or provider.types[0]),
        model=model,
        base_url=base_url(provider, name, fields, config),
        api_key=api_key(provider, name, fields, config, environ),
        context_tokens=fields.get("context_tokens", facts.context_tokens),
        max_generate_tokens=fields.get("max_generate_tokens", facts.max_output_tokens),
        temperature=fields.get("temperature"),
        reasoning_effort=fields.get("reasoning_effort"),
        zero_data_retention=bool(fields.get("zero_data_retention", facts.zero_data_retention)),
        proxy=None if no_proxy else config.get("proxy"),
        prices=facts.prices,
        extra_arguments=fields.get("extra_arguments") or {},
        read_timeout=float(fields.get("read_timeout", DEFAULT_READ_TIMEOUT)),
        api_version=fields.get("api_version"),
        max_thinking_tokens=fields.get("max_thinking_tokens"),
        no_proxy=no_proxy,
        **_retry_settings(fields),
    )
