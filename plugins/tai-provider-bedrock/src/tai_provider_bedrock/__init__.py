"""The ``bedrock`` provider: AWS Bedrock (Converse API).

Called through litellm. One object (:data:`bedrock`) whose plugin the entry point
``bedrock`` names; litellm is this distribution's dependency and is imported on the first
call (:mod:`tai_provider_kit.via_litellm`).
"""

from tai_provider_kit.via_litellm import LitellmProvider

bedrock = LitellmProvider(
    name="bedrock",
    types=("bedrock",),
    description="AWS Bedrock, Converse API (through litellm; API key or AWS credentials)",
    key_config="aws_bedrock_api_key",
    key_env=("AWS_BEDROCK_API_KEY",),
    needs_key=False,
    route="bedrock/converse/",
)
