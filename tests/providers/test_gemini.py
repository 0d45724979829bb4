"""Gemini's streamGenerateContent protocol against the fake server."""

from __future__ import annotations

import pytest

from tai_core.models import Finish, GenerationRequest, Message, TextDelta, ThoughtDelta, Usage
from tests.servers import Reply

from .conftest import ask, drain


@pytest.fixture
def spec_of(resolve, gemini_server):
    def make(**fields):
        generator = {"name": "g", "type": "gemini", "model": "models/gemini-2.5-pro"}
        generator.update(base_url=gemini_server.base_url, api_key="gk", **fields)
        return resolve("g", [generator])

    return make


@pytest.fixture
def gemini(providers):
    return providers["gemini"]


def test_thoughts_text_usage_and_finish(gemini, spec_of, gemini_server) -> None:
    counts = {"input": 900, "cache_read": 512, "output": 150, "reasoning": 100}
    gemini_server.script(Reply(text="The answer.", thoughts="Thinking...", chunks=2, usage=counts))
    events, error = drain(gemini.stream(spec_of(), ask()))
    assert error is None
    assert [e for e in events if isinstance(e, ThoughtDelta)] == [
        ThoughtDelta("Thinki"),
        ThoughtDelta("ng..."),
    ]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "The answer."
    assert events[-2] == Usage(input=900, cache_read=512, output=150, reasoning=100)
    assert events[-1] == Finish("stop")


def test_request_path_header_and_body(gemini, spec_of, gemini_server) -> None:
    gemini_server.script(Reply(text="ok"))
    request = ask("question", system="rules", headers={"X-Tag": "t"})
    drain(gemini.stream(spec_of(extra_arguments={"cachedContent": "c1"}), request))
    (seen,) = gemini_server.requests
    assert seen.path == "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    assert seen.headers["x-goog-api-key"] == "gk"
    assert seen.headers["x-tag"] == "t"
    assert seen.body["systemInstruction"] == {"parts": [{"text": "rules"}]}
    assert seen.body["contents"] == [{"role": "user", "parts": [{"text": "question"}]}]
    assert seen.body["cachedContent"] == "c1"
    assert {s["threshold"] for s in seen.body["safetySettings"]} == {"BLOCK_NONE"}
    assert len(seen.body["safetySettings"]) == 4
    # Without a configured temperature Gemini runs at 0; thoughts are always included.
    assert seen.body["generationConfig"] == {
        "temperature": 0.0,
        "maxOutputTokens": 65536,
        "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 16384},
    }


@pytest.mark.parametrize(
    ("fields", "options", "thinking"),
    [
        ({"max_thinking_tokens": 2048}, {"reasoning_effort": "high"}, {"thinkingBudget": 2048}),
        ({}, {"reasoning_effort": "low"}, {"thinkingLevel": "low"}),
        ({"reasoning_effort": "high"}, {}, {"thinkingLevel": "high"}),
        ({"max_generate_tokens": 8000}, {}, {"thinkingBudget": 2000}),
    ],
)
def test_thinking_configuration(gemini, spec_of, gemini_server, fields, options, thinking):
    gemini_server.script(Reply(text="ok"))
    drain(gemini.stream(spec_of(**fields), ask(**options)))
    config = gemini_server.requests[0].body["generationConfig"]["thinkingConfig"]
    assert config == {"includeThoughts": True, **thinking}


def test_turns_become_user_and_model_contents(gemini, spec_of, gemini_server) -> None:
    gemini_server.script(Reply(text="ok"))
    turns = (Message("user", "a"), Message("assistant", "b"), Message("user", "c"))
    request = GenerationRequest(system="", messages=turns)
    drain(gemini.stream(spec_of(temperature=0.4), request))
    body = gemini_server.requests[0].body
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    assert "systemInstruction" not in body
    assert body["generationConfig"]["temperature"] == 0.4


@pytest.mark.parametrize(
    ("finish", "word"), [("length", "length"), ("content_filter", "content_filter")]
)
def test_finish_reasons(gemini, spec_of, gemini_server, finish, word) -> None:
    gemini_server.script(Reply(text="x", finish=finish))
    events, _ = drain(gemini.stream(spec_of(), ask()))
    assert events[-1] == Finish(word)


def test_errors_carry_googles_message(gemini, spec_of, gemini_server) -> None:
    gemini_server.script(Reply(fault="429", message="Resource has been exhausted", retry_after="3"))
    _, error = drain(gemini.stream(spec_of(), ask()))
    assert str(error) == "gemini models/gemini-2.5-pro: 429 Resource has been exhausted"
    assert error.retryable and error.retry_after == 3.0


def test_an_empty_safety_stop_is_final_and_an_empty_stop_retryable(gemini, spec_of, gemini_server):
    gemini_server.script(Reply(finish="content_filter"), Reply(finish="stop"))
    _, blocked = drain(gemini.stream(spec_of(), ask()))
    _, empty = drain(gemini.stream(spec_of(), ask()))
    assert "terminal finish reason: SAFETY" in str(blocked) and not blocked.retryable
    assert "no output" in str(empty) and empty.retryable


@pytest.mark.parametrize("fault", ["drop", "truncate", "badjson", "error"])
def test_faults_mid_stream(gemini, spec_of, gemini_server, fault: str) -> None:
    gemini_server.script(Reply(text="abcd", chunks=2, fault=fault))
    events, error = drain(gemini.stream(spec_of(), ask()))
    assert events == [TextDelta("ab")]
    assert error.retryable
