"""The ``azure`` provider: Azure OpenAI deployments.

Called through litellm. One object (:data:`azure`) whose plugin the entry point ``azure``
names; litellm is this distribution's dependency and is imported on the first call
(:mod:`tai_provider_kit.via_litellm`).
"""

from tai_provider_kit.via_litellm import LitellmProvider

azure = LitellmProvider(
    name="azure",
    types=("azure",),
    description="Azure OpenAI deployments (through litellm; endpoint from azure_endpoint)",
    base_url_key="azure_endpoint",
    key_config="azure_api_key",
    key_env=("AZURE_API_KEY",),
    route="azure/",
    api_version_key="azure_api_version",
    default_api_version="2024-05-01-preview",
    allow_effort=True,
)
