"""The OpenAI-compatible protocol against the fake server: what is sent, what comes back."""

from __future__ import annotations

import asyncio

import attrs
import pytest

from tai_core.models import Finish, GenerationRequest, Message, TextDelta, ThoughtDelta, Usage
from tests.servers import Reply

from .conftest import ask, drain


@pytest.fixture
def spec_of(resolve, openai_server):
    """A spec of type ``kind`` pointed at the fake server."""

    def make(kind: str = "openai", **fields):
        generator = {"name": "m", "type": kind, "model": "test-model", "api_key": "sk-test"}
        generator.update(base_url=openai_server.base_url, **fields)
        return resolve("m", [generator])

    return make


def test_text_and_thoughts_stream_in_order(providers, spec_of, openai_server) -> None:
    openai_server.script(Reply(text="Hello, world.", thoughts="Let me think.", chunks=3))
    events, error = drain(providers["openai"].stream(spec_of(), ask()))
    assert error is None
    thoughts = [e.text for e in events if isinstance(e, ThoughtDelta)]
    texts = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(thoughts) == "Let me think." and len(thoughts) == 3
    assert "".join(texts) == "Hello, world." and len(texts) == 3
    assert events.index(next(e for e in events if isinstance(e, TextDelta))) == 3
    assert isinstance(events[-2], Usage)
    assert events[-1] == Finish("stop")


def test_reasoning_field_is_also_read(providers, spec_of, openai_server) -> None:
    openai_server.script(Reply(text="ok", thoughts="via reasoning", reasoning_field="reasoning"))
    events, _ = drain(providers["deepseek"].stream(spec_of("deepseek"), ask()))
    assert "".join(e.text for e in events if isinstance(e, ThoughtDelta)) == "via reasoning"


def test_usage_with_cached_and_reasoning_tokens(providers, spec_of, openai_server) -> None:
    counts = {"input": 1000, "cache_read": 600, "output": 300, "reasoning": 120}
    openai_server.script(Reply(text="ok", usage=counts))
    events, _ = drain(providers["openai"].stream(spec_of(), ask()))
    (usage,) = [e for e in events if isinstance(e, Usage)]
    assert usage == Usage(input=1000, cache_read=600, cache_write=0, output=300, reasoning=120)


@pytest.mark.parametrize("finish", ["stop", "length", "content_filter", "tool_calls"])
def test_finish_reasons(providers, spec_of, openai_server, finish: str) -> None:
    openai_server.script(Reply(text="x", finish=finish))
    events, _ = drain(providers["openai"].stream(spec_of(), ask()))
    assert events[-1] == Finish(finish)


def test_body_headers_and_extra_arguments(providers, spec_of, openai_server) -> None:
    openai_server.script(Reply(text="ok"))
    spec = spec_of(
        extra_arguments={"top_p": 0.5, "seed": 7},
        reasoning_effort="high",
        max_generate_tokens=4000,
    )
    request = ask("hi", system="sys", max_output_tokens=1000, headers={"X-Trace": "abc"})
    drain(providers["openai"].stream(spec, request))
    (seen,) = openai_server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer sk-test"
    assert seen.headers["x-trace"] == "abc"
    assert seen.body == {
        "model": "test-model",
        "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "reasoning_effort": "high",
        "max_completion_tokens": 1000,
        "top_p": 0.5,
        "seed": 7,
    }


@pytest.mark.parametrize(
    ("configured", "asked", "sent"),
    [(None, None, "absent"), (0.0, None, 0.0), (0.7, None, 0.7), (0.7, 0.0, 0.0)],
)
def test_temperature(providers, spec_of, openai_server, configured, asked, sent) -> None:
    openai_server.script(Reply(text="ok"))
    fields = {} if configured is None else {"temperature": configured}
    drain(providers["openai"].stream(spec_of(**fields), ask(temperature=asked)))
    assert openai_server.requests[0].body.get("temperature", "absent") == sent


def test_dialects_of_effort_and_output_limit(providers, spec_of, openai_server) -> None:
    openai_server.script(Reply(text="a"), Reply(text="b"))
    request = ask(max_output_tokens=500, reasoning_effort="low")
    drain(
        providers["openrouter"].stream(spec_of("openrouter", provider={"sort": "price"}), request)
    )
    drain(providers["zhipu"].stream(spec_of("zhipu", max_generate_tokens=100), request))
    routed, plain = (r.body for r in openai_server.requests)
    assert routed["reasoning"] == {"effort": "low"} and "reasoning_effort" not in routed
    assert routed["max_completion_tokens"] == 500
    assert routed["provider"] == {"sort": "price"}
    assert plain["reasoning_effort"] == "low"
    assert plain["max_tokens"] == 100 and "max_completion_tokens" not in plain


def test_turns_of_one_role_are_merged(providers, spec_of, openai_server) -> None:
    openai_server.script(Reply(text="ok"))
    turns = (Message("user", "a"), Message("user", "b"), Message("assistant", "c"))
    drain(providers["openai"].stream(spec_of(), GenerationRequest(system="", messages=turns)))
    assert openai_server.requests[0].body["messages"] == [
        {"role": "user", "content": "a\n\nb"},
        {"role": "assistant", "content": "c"},
    ]


def test_ollama_sends_no_authorization(providers, resolve, openai_server) -> None:
    openai_server.script(Reply(text="local", chunks=1))
    spec = attrs.evolve(resolve("ollama:qwen3"), base_url=openai_server.base_url)
    events, error = drain(providers["ollama"].stream(spec, ask()))
    assert error is None and TextDelta("local") in events
    assert "authorization" not in openai_server.requests[0].headers
    assert openai_server.requests[0].body["model"] == "qwen3"


def test_one_client_and_connection_serve_consecutive_calls(providers, spec_of, openai_server):
    openai_server.script(Reply(text="a"), Reply(text="b"), Reply(text="c"))
    spec = spec_of()

    async def three_calls() -> None:
        for _ in range(3):
            async for _event in providers["openai"].stream(spec, ask()):
                pass

    asyncio.run(three_calls())
    assert len({r.client_port for r in openai_server.requests}) == 1
