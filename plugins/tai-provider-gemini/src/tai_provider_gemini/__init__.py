"""Google Gemini (AI Studio), with the built-in names ``flash`` and ``pro``.

One plugin: ``type = "gemini"``, key from tai.toml's ``google_api_key`` or
``GOOGLE_API_KEY``, protocol in :mod:`tai_provider_gemini._wire`. Without a configured
temperature Gemini models run at 0, as in the original. The built-in names need no
configuration at all: ``flash``/``gemini-flash`` is ``models/gemini-flash-latest``;
``gemini``/``pro``/``gemini-pro`` is ``models/gemini-pro-latest`` capped at 192Ki context
and 32Ki output tokens, at temperature 0.1.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from tai_provider_kit._base import ProviderBase

if TYPE_CHECKING:
    from tai_core.models import GenerationRequest, ModelSpec, StreamEvent

_FLASH = {"type": "gemini", "model": "models/gemini-flash-latest"}
_PRO = {
    "type": "gemini",
    "model": "models/gemini-pro-latest",
    "context_tokens": 192 * 1024,
    "max_generate_tokens": 32 * 1024,
    "temperature": 0.1,
}


@attrs.define(kw_only=True, eq=False)
class GeminiProvider(ProviderBase):
    """Gemini's ``streamGenerateContent`` API."""

    speaks_http: bool = True
    protocol: str | None = "tai_provider_gemini._wire"

    def spec(
        self,
        name: str,
        fields: Mapping[str, Any],
        config: Mapping[str, Any],
        environ: Mapping[str, str],
    ) -> ModelSpec:
        """As :meth:`ProviderBase.spec`, with temperature 0 when none is configured."""
        spec = super().spec(name, fields, config, environ)
        return spec if spec.temperature is not None else attrs.evolve(spec, temperature=0.0)

    def stream(self, spec: ModelSpec, request: GenerationRequest) -> AsyncIterator[StreamEvent]:
        """Stream ``request`` from ``streamGenerateContent``."""
        from tai_provider_gemini import _wire

        return _wire.stream(spec, request)


gemini = GeminiProvider(
    name="gemini",
    types=("gemini",),
    description="Google Gemini (generativelanguage.googleapis.com); built-ins flash, pro",
    short_names={
        "flash": _FLASH,
        "gemini-flash": _FLASH,
        "gemini": _PRO,
        "pro": _PRO,
        "gemini-pro": _PRO,
    },
    default_base_url="https://generativelanguage.googleapis.com/v1beta",
    key_config="google_api_key",
    key_env=("GOOGLE_API_KEY",),
)
