"""The ``litellm`` provider: any model litellm knows.

Called through litellm. One object (:data:`any_model`) whose plugin the entry point
``litellm`` names; litellm is this distribution's dependency and is imported on the first
call (:mod:`tai_provider_kit.via_litellm`).
"""

from tai_provider_kit.via_litellm import LitellmProvider

any_model = LitellmProvider(
    name="litellm",
    types=("litellm",),
    description="any litellm model string, e.g. anthropic/claude-sonnet-4-5 (through litellm)",
    needs_key=False,
    key_by_prefix=True,
)
