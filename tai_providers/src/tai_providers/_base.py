"""The light object every provider of this distribution is: contract facts, no weight.

A provider object is its own plugin: its ``tai_register_providers`` implementation
registers the object itself, and each entry point names one object (``module:object``),
so ``-p no:deepseek`` switches off exactly DeepSeek. Loading the plugin creates only this
small object; :meth:`ProviderBase.spec` and the subclasses' ``stream`` import what they
need (the model contract, httpx, litellm) on first use, which keeps ``tai --help`` and
``tai plugins`` free of them (``tests/test_startup.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from tai_core.plugins import hookimpl

if TYPE_CHECKING:
    from tai_core.models import GenerationRequest, ModelSpec, StreamEvent


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

    @hookimpl
    def tai_register_providers(self, register: Callable[[Any], None]) -> None:
        """Register this provider: the object is its own plugin."""
        register(self)

    def spec(
        self,
        name: str,
        fields: Mapping[str, Any],
        config: Mapping[str, Any],
        environ: Mapping[str, str],
    ) -> ModelSpec:
        """The spec of model ``name``: generator ``fields`` over this provider's defaults
        and the bundled facts of the model."""
        from tai_providers._spec import build_spec

        return build_spec(self, name, fields, config, environ)

    def stream(self, spec: ModelSpec, request: GenerationRequest) -> AsyncIterator[StreamEvent]:
        """Send ``request``; each provider family speaks its own protocol."""
        raise NotImplementedError(f"provider {self.name} cannot stream")
