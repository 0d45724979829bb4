"""The light object every provider of this distribution is: contract facts, no weight.

Each provider object carries its plugin (``.plugin``), and each entry point names one
(``deepseek = "tai_provider_kit.openai_compatible:deepseek.plugin"``), so ``-p no:deepseek``
switches off exactly DeepSeek. Loading a plugin creates only these small objects;
:meth:`ProviderBase.spec` and the subclasses' ``stream`` import what they need (the model
contract, the HTTP transport, litellm) on first use, which keeps ``tai --help`` and ``tai plugins``
free of them (``tests/test_startup.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

import attrs

from tai_core.plugins import hookimpl

if TYPE_CHECKING:
    from tai_core.models import GenerationRequest, ModelSpec, StreamEvent


class ProviderPlugin:
    """The plugin that registers one provider.

    A separate object rather than the provider itself because pluggy inspects every name
    ``dir(plugin)`` lists when it registers a plugin: for a provider's fifty-odd names
    that cost ~0.5 ms per provider at every start-up; this object lists only its hook.
    """

    __slots__ = ("provider",)

    def __init__(self, provider: ProviderBase) -> None:
        self.provider = provider

    def __dir__(self) -> list[str]:
        return ["tai_register_providers", "tai_prepare_isolation"]

    def __repr__(self) -> str:
        return f"<plugin of provider {self.provider.name!r}>"

    @hookimpl
    def tai_register_providers(self, register: Callable[[Any], None]) -> None:
        """Register the provider."""
        register(self.provider)

    @hookimpl
    def tai_prepare_isolation(self, session: bool) -> None:
        """Import the provider's protocol (:attr:`ProviderBase.protocol`) before the sandbox
        is entered, for a command that runs a session: its first call imports it anyway,
        and what importing compiles (h11's patterns and dataclasses, ~10 ms) is kept for
        the next start only out here (``tai_core.cli._kept_code``); inside, the launch
        directory is read-only."""
        if session and self.provider.protocol:
            import_module(self.provider.protocol)


@attrs.define(kw_only=True, eq=False)
class ProviderBase:
    """Name, types and defaults of one provider; ``spec`` fills a :class:`ModelSpec`."""

    name: str
    types: tuple[str, ...]
    description: str
    prefixes: tuple[str, ...] = ()
    short_names: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)
    #: Where the service lives when neither the generator nor tai.toml says.
    default_base_url: str | None = None
    #: The tai.toml key that overrides the default base URL; with no default, required.
    base_url_key: str | None = None
    #: The tai.toml key of the API key and the environment variables that may hold it.
    key_config: str | None = None
    key_env: tuple[str, ...] = ()
    #: False for services that work without a key (local servers, AWS credentials).
    needs_key: bool = True
    #: True for providers whose calls go through :mod:`tai_provider_kit._http`: resolving
    #: one of their models starts building the TLS context (:mod:`tai_provider_kit._tls`).
    speaks_http: bool = False
    #: The module of the protocol :meth:`stream` speaks, imported before the sandbox is
    #: entered (:meth:`ProviderPlugin.tai_prepare_isolation`); none for a provider whose
    #: protocol is not worth it there (litellm's import takes a second).
    protocol: str | None = None
    #: What the entry point names: the plugin registering this provider.
    plugin: ProviderPlugin = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        self.plugin = ProviderPlugin(self)

    @property
    def known_models(self) -> tuple[str, ...]:
        """The models the bundled table knows of this provider (read only when asked:
        a name tai does not know is looked up here to suggest ``PREFIX:MODEL``)."""
        from tai_provider_kit._data import known_models

        return known_models(self.name)

    def spec(
        self,
        name: str,
        fields: Mapping[str, Any],
        config: Mapping[str, Any],
        environ: Mapping[str, str],
    ) -> ModelSpec:
        """The spec of model ``name``: generator ``fields`` over this provider's defaults
        and the bundled facts of the model."""
        from tai_provider_kit._spec import build_spec

        spec = build_spec(self, name, fields, config, environ)
        if self.speaks_http and not (spec.base_url or "").lower().startswith("http://"):
            from tai_provider_kit._tls import prepare  # a local http:// model needs no TLS

            prepare(trust_env=not spec.no_proxy)
        return spec

    def stream(self, spec: ModelSpec, request: GenerationRequest) -> AsyncIterator[StreamEvent]:
        """Send ``request``; each provider family speaks its own protocol."""
        raise NotImplementedError(f"provider {self.name} cannot stream")
