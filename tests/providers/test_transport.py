"""The fake server's own answers, and proxies as the shared client applies them."""

from __future__ import annotations

import attrs
import httpx

from tai_core.models import TextDelta
from tests.servers import FakeModelServer, Reply

from .conftest import ask, drain


def test_an_unscripted_request_is_a_clear_500(openai_server) -> None:
    answer = httpx.post(f"{openai_server.base_url}/chat/completions", json={"stream": True})
    assert answer.status_code == 500
    assert "no scripted reply for request #1" in answer.json()["error"]["message"]


def test_unknown_paths_are_404_and_not_scripted(openai_server) -> None:
    openai_server.script(Reply(text="kept"))
    assert httpx.post(f"{openai_server.root_url}/nowhere", json={}).status_code == 404
    assert openai_server.pending == 1


def test_a_completion_without_streaming(openai_server) -> None:
    openai_server.script(Reply(text="whole", thoughts="t", usage={"input": 5, "output": 2}))
    body = {"model": "m", "messages": []}
    answer = httpx.post(f"{openai_server.base_url}/chat/completions", json=body).json()
    assert answer["choices"][0]["message"] == {
        "role": "assistant",
        "content": "whole",
        "reasoning_content": "t",
    }
    assert answer["usage"]["prompt_tokens"] == 5


def test_the_configured_proxy_carries_the_call(resolve, providers) -> None:
    # The fake server doubles as a plain HTTP proxy: it answers absolute-URI requests.
    with FakeModelServer() as proxy:
        proxy.script(Reply(text="via proxy", chunks=1))
        generator = {"name": "m", "type": "openai", "model": "x", "api_key": "k"}
        spec = resolve("m", [{**generator, "base_url": "http://model.test/v1"}],
                       proxy=proxy.root_url)  # fmt: skip
        events, error = drain(providers["openai"].stream(spec, ask()))
        assert error is None and TextDelta("via proxy") in events
        assert proxy.requests[0].path == "http://model.test/v1/chat/completions"


def test_environment_proxies_apply_unless_no_proxy(resolve, providers, monkeypatch) -> None:
    with FakeModelServer() as proxy, FakeModelServer() as direct:
        monkeypatch.setenv("HTTP_PROXY", proxy.root_url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        proxy.script(Reply(text="proxied", chunks=1))
        direct.script(Reply(text="direct", chunks=1))
        generator = {"name": "m", "type": "openai", "model": "x", "api_key": "k"}
        spec = resolve("m", [{**generator, "base_url": direct.base_url}])
        assert TextDelta("proxied") in drain(providers["openai"].stream(spec, ask()))[0]
        unproxied = attrs.evolve(spec, no_proxy=True)
        assert TextDelta("direct") in drain(providers["openai"].stream(unproxied, ask()))[0]
        assert len(proxy.requests) == len(direct.requests) == 1
