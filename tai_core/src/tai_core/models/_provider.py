"""The contract a model provider fulfils (structural: no base class is required).

A provider turns configuration fields into a :class:`ModelSpec` (filling its defaults: base
URL, API key from config or environment, the model's context window, output limit and
prices) and streams a :class:`GenerationRequest` as provider-neutral events. Streaming is
async so a cancel reaches the socket at once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, Protocol

from tai_core.models._values import GenerationRequest, ModelSpec, StreamEvent


class Provider(Protocol):
    """A model provider as registered through ``tai_register_providers``.

    It may also have ``generator_fields``: a pydantic model of the ``[[generators]]`` keys
    of its own (a deployment, a region), checked strictly — file, line and key in every
    message — once plugins have loaded; ``spec`` finds them, checked, in ``fields``. And
    it may have ``known_models``: the model names it knows (strings, read only when a
    ``-model`` name is unknown), so that ``-model gpt-4o`` is answered "did you mean
    'openai:gpt-4o'?".
    """

    #: Unique among providers; the plugin's entry name.
    name: str
    #: The ``type`` values of ``[[generators]]`` it serves (matched case-insensitively).
    types: tuple[str, ...]
    #: One line for ``tai plugins``.
    description: str
    #: Prefixes of ``-model PREFIX:REST`` it serves (``ollama`` for ``ollama:qwen3``).
    prefixes: tuple[str, ...]
    #: Built-in model names it offers without configuration, each with its generator
    #: fields (``{"flash": {"type": "gemini", "model": "models/gemini-flash-latest"}}``).
    short_names: Mapping[str, Mapping[str, Any]]

    def spec(
        self,
        name: str,
        fields: Mapping[str, Any],
        config: Mapping[str, Any],
        environ: Mapping[str, str],
    ) -> ModelSpec:
        """The full spec of model ``name`` from its generator ``fields``; raise
        :class:`tai_core.models.ModelConfigError` when something required is missing."""
        ...

    def stream(self, spec: ModelSpec, request: GenerationRequest) -> AsyncIterator[StreamEvent]:
        """Send ``request`` and yield the reply as events, ending with a ``Finish``; raise
        :class:`tai_core.models.ProviderError` on any failure (``retryable`` set right)."""
        ...
