"""Providers served through litellm: Azure OpenAI, AWS Bedrock, and any litellm model.

* ``azure``: ``model`` is the deployment; the endpoint is the generator's ``base_url`` or
  tai.toml's ``azure_endpoint``, the API version its ``api_version`` or tai.toml's
  ``azure_api_version`` (default ``2024-05-01-preview``), the key ``azure_api_key`` or
  ``AZURE_API_KEY``.
* ``bedrock``: ``model`` is a Bedrock model or inference-profile id, called through the
  Converse API. A Bedrock API key (``aws_bedrock_api_key``, ``AWS_BEDROCK_API_KEY``) is
  sent as a bearer token; without one, AWS's usual credentials sign the request. The
  region is litellm's (``AWS_REGION``), or ``extra_arguments = {aws_region_name = …}``.
* ``litellm``: ``model`` is any litellm model string (``anthropic/claude-sonnet-4-5``);
  the key is the generator's ``api_key``, else tai.toml's ``<prefix>_api_key``
  (``anthropic_api_key``), else whatever litellm reads from the environment.

The calls themselves are :mod:`tai_provider_kit._litellm_wire`, imported on first use.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from tai_provider_kit._base import ProviderBase

if TYPE_CHECKING:
    from tai_core.models import GenerationRequest, ModelSpec, StreamEvent


@attrs.define(kw_only=True, eq=False)
class LitellmProvider(ProviderBase):
    """A provider whose calls go through ``litellm.acompletion``."""

    #: Put before the spec's model to make litellm's model string (``azure/``).
    route: str = ""
    #: tai.toml's key of the API version, and the version when none is configured.
    api_version_key: str | None = None
    default_api_version: str | None = None
    #: Pass ``reasoning_effort`` although litellm cannot tell the model takes it.
    allow_effort: bool = False
    #: Without a key of its own, use tai.toml's ``<prefix>_api_key`` of the model string.
    key_by_prefix: bool = False

    def spec(
        self,
        name: str,
        fields: Mapping[str, Any],
        config: Mapping[str, Any],
        environ: Mapping[str, str],
    ) -> ModelSpec:
        """As :meth:`ProviderBase.spec`, plus the API version and the prefix's key."""
        spec = super().spec(name, fields, config, environ)
        changes: dict[str, Any] = {}
        if spec.api_version is None and self.default_api_version is not None:
            configured = config.get(self.api_version_key) if self.api_version_key else None
            changes["api_version"] = configured or self.default_api_version
        if spec.api_key is None and self.key_by_prefix and "/" in spec.model:
            prefix_key = config.get(f"{spec.model.split('/', 1)[0]}_api_key")
            if prefix_key:
                changes["api_key"] = str(prefix_key)
        return attrs.evolve(spec, **changes) if changes else spec

    def stream(self, spec: ModelSpec, request: GenerationRequest) -> AsyncIterator[StreamEvent]:
        """Stream ``request`` through litellm (imported now, if not yet)."""
        from tai_provider_kit import _litellm_wire

        return _litellm_wire.stream(spec, request, self.route, allow_effort=self.allow_effort)
