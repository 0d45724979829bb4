"""Azure, Bedrock and any litellm model, through litellm, against the fake server.

litellm is imported by the first test that streams: 4 s alone, up to 13 s beside the
other tests, once per test process. Every test here pays it somewhere, so all of them are
slow (the quick set leaves them out; CI runs them).
"""

from __future__ import annotations

import os
from urllib.parse import unquote

import pytest

from tai_core.models import Finish, TextDelta, ThoughtDelta, Usage
from tests.servers import Reply

from .conftest import ask, drain

pytestmark = [
    pytest.mark.slow,
    # litellm's own use of pydantic, not ours.
    pytest.mark.filterwarnings("ignore:Accessing the 'model_:DeprecationWarning"),
]

SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0"


def test_azure_deployment_path_version_and_key(providers, resolve, azure_server) -> None:
    azure_server.script(Reply(text="from azure", thoughts="hm", usage={"input": 50, "output": 9}))
    spec = resolve(
        "az",
        [{"name": "az", "type": "azure", "model": "my-gpt"}],
        azure_endpoint=azure_server.base_url,
        azure_api_key="azure-key",
        azure_api_version="2025-01-01-preview",
    )
    request = ask(reasoning_effort="medium", headers={"X-Trace": "t1"}, temperature=0.0)
    events, error = drain(providers["azure"].stream(spec, request))
    assert error is None
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "from azure"
    assert "".join(e.text for e in events if isinstance(e, ThoughtDelta)) == "hm"
    assert events[-2:] == [Usage(input=50, output=9), Finish("stop")]
    (seen,) = azure_server.requests
    assert seen.path == "/openai/deployments/my-gpt/chat/completions?api-version=2025-01-01-preview"
    assert seen.headers["api-key"] == "azure-key"
    assert seen.headers["x-trace"] == "t1"
    assert seen.body["reasoning_effort"] == "medium"
    assert seen.body["temperature"] == 0.0
    assert seen.body["messages"][0] == {"role": "system", "content": "be brief"}


def test_bedrock_converse_stream(providers, resolve, bedrock_server, monkeypatch) -> None:
    monkeypatch.setenv("AWS_REGION", "ap-northeast-1")
    counts = {"input": 1000, "cache_read": 800, "output": 40}
    bedrock_server.script(Reply(text="from bedrock", thoughts="reasoning", usage=counts))
    generator = {
        "name": "b",
        "type": "bedrock",
        "model": SONNET,
        "base_url": bedrock_server.base_url,
    }
    spec = resolve("b", [generator], environ={"AWS_BEDROCK_API_KEY": "bedrock-key"})
    assert spec.context_tokens == 200_000 and spec.prices.cache_read == 0.3
    events, error = drain(providers["bedrock"].stream(spec, ask(max_output_tokens=256)))
    assert error is None
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "from bedrock"
    assert "".join(e.text for e in events if isinstance(e, ThoughtDelta)) == "reasoning"
    (usage,) = [e for e in events if isinstance(e, Usage)]
    assert (usage.input, usage.cache_read, usage.output) == (1000, 800, 40)
    assert events[-1] == Finish("stop")
    (seen,) = bedrock_server.requests
    assert unquote(seen.path) == f"/model/{SONNET}/converse-stream"
    assert seen.headers["authorization"] == "Bearer bedrock-key"
    assert seen.body["system"] == [{"text": "be brief"}]
    assert seen.body["messages"] == [{"role": "user", "content": [{"text": "hello"}]}]
    assert seen.body["inferenceConfig"]["maxTokens"] == 256


def test_any_litellm_model_string(providers, resolve, openai_server) -> None:
    openai_server.script(Reply(text="generic", usage={"input": 30, "output": 3, "cache_read": 10}))
    generator = {
        "name": "l",
        "type": "litellm",
        "model": "openai/some-model",
        "base_url": openai_server.base_url,
        "extra_arguments": {"seed": 3},
    }
    spec = resolve("l", [generator], openai_api_key="from-config")
    assert spec.api_key == "from-config"
    events, error = drain(providers["litellm"].stream(spec, ask()))
    assert (
        error is None and "".join(e.text for e in events if isinstance(e, TextDelta)) == "generic"
    )
    assert Usage(input=30, cache_read=10, output=3) in events
    (seen,) = openai_server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer from-config"
    assert seen.body["model"] == "some-model" and seen.body["seed"] == 3


@pytest.fixture
def azure_spec(resolve, azure_server):
    generator = {"name": "az", "type": "azure", "model": "d", "read_timeout": 0.5}
    return resolve("az", [generator], azure_endpoint=azure_server.base_url, azure_api_key="k")


@pytest.mark.parametrize(
    ("status", "retryable"), [("429", True), ("500", True), ("401", False), ("400", False)]
)
def test_litellm_status_errors(providers, azure_spec, azure_server, status, retryable) -> None:
    azure_server.script(Reply(fault=status, message="the provider's words", retry_after="4"))
    events, error = drain(providers["azure"].stream(azure_spec, ask()))
    assert events == []
    assert str(error) == f"azure d: {status} the provider's words"
    assert error.retryable is retryable
    assert error.retry_after == (4.0 if status == "429" else None)
    assert len(azure_server.requests) == 1  # litellm's own retries are off


@pytest.mark.parametrize("fault", ["drop", "badjson", "stall"])
def test_litellm_faults_mid_stream(providers, azure_spec, azure_server, fault) -> None:
    azure_server.script(Reply(text="abcdefgh", chunks=4, fault=fault))
    events, error = drain(providers["azure"].stream(azure_spec, ask()))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "abcd"
    assert error.retryable
    if fault == "stall":
        assert "the stream stalled: no data for 0.5 s" in str(error)


def test_litellm_is_offline_and_quiet(providers, azure_spec, azure_server, capfd) -> None:
    azure_server.script(Reply(text="ok"))
    drain(providers["azure"].stream(azure_spec, ask()))
    import litellm

    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
    assert os.environ["LITELLM_OFFLINE_MODE"] == "true"
    assert litellm.suppress_debug_info is True
    out, err = capfd.readouterr()
    assert out == "" and err == ""
