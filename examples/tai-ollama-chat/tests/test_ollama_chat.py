"""tai-ollama-chat's own tests: the provider against a local server speaking Ollama's
NDJSON chat protocol, through tai's pipeline (the testing kit's ``tai_run``)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import tai_ollama_chat

from tai_core.models import ProviderError
from tai_core.runtime import RunFailed

REPLY = [
    {"message": {"role": "assistant", "thinking": "Look at it."}, "done": False},
    {"message": {"role": "assistant", "content": "It adds "}, "done": False},
    {"message": {"role": "assistant", "content": "numbers.\n<<紫藤 summary\n- answered\n紫藤\n"},
     "done": False},
    {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop",
     "prompt_eval_count": 42, "eval_count": 7},
]  # fmt: skip


class Server:
    """A local Ollama: answers ``/api/chat`` with the scripted lines (or a status)."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []
        self.status = 200
        self.lines = REPLY
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                outer.bodies.append(json.loads(self.rfile.read(length)))
                self.send_response(outer.status)
                self.send_header("Content-Type", "application/x-ndjson")
                self.end_headers()
                if outer.status != 200:
                    self.wfile.write(b'{"error": "model \\"nope\\" not found"}')
                    return
                for line in outer.lines:
                    self.wfile.write(json.dumps(line).encode() + b"\n")
                    self.wfile.flush()

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def server() -> Iterator[Server]:
    served = Server()
    yield served
    served.httpd.shutdown()


def model(server: Server, **fields: object) -> tuple[tai_ollama_chat.OllamaChat, object]:
    provider = tai_ollama_chat.OllamaChat()
    spec = provider.spec("ollama-chat:qwen3", {"base_url": server.url, **fields}, {}, {})
    return provider, spec


def test_the_reply_streams_through_a_session(tai_plugin, tai_host, tai_project, server) -> None:
    from tai_core.testing import run_session

    tai_plugin(tai_ollama_chat, "ollama-chat")
    provider = tai_host.registry.providers["ollama-chat"]
    spec = provider.spec("ollama-chat:qwen3", {"base_url": server.url}, {}, {})
    run = run_session(tai_host, provider, "What does it do?", cwd=tai_project(), command="any",
                      spec=spec)  # fmt: skip
    assert run.finished, run.terminal
    (body,) = server.bodies
    assert body["model"] == "qwen3" and body["stream"] is True
    last = body["messages"][-1]  # the input, and the line naming its node in the session tree
    assert last["role"] == "user" and last["content"].startswith("What does it do?\n\n")
    assert body["messages"][0]["role"] == "system"
    assert run.state is not None and "It adds numbers." in run.state.messages[-1].text


def test_thoughts_usage_and_options(server) -> None:
    import asyncio

    from tai_core.models import GenerationRequest, Message, ThoughtDelta, Usage

    provider, spec = model(server, keep_alive="10m", num_ctx=8192)
    request = GenerationRequest(system="", messages=(Message("user", "hi"),), temperature=0.2)

    async def events() -> list:
        return [event async for event in provider.stream(spec, request)]

    got = asyncio.run(events())
    assert got[0] == ThoughtDelta("Look at it.")
    assert Usage(input=42, output=7) in got
    (body,) = server.bodies
    assert body["keep_alive"] == "10m"
    assert body["options"] == {"temperature": 0.2, "num_ctx": 8192}


def test_a_missing_model_is_one_fatal_line(server) -> None:
    import asyncio

    from tai_core.models import GenerationRequest, Message

    server.status = 404
    provider, spec = model(server)
    request = GenerationRequest(system="", messages=(Message("user", "hi"),))

    async def drain() -> None:
        async for _ in provider.stream(spec, request):
            pass

    with pytest.raises(ProviderError) as caught:
        asyncio.run(drain())
    assert str(caught.value) == 'ollama-chat qwen3: 404 model "nope" not found'
    assert not caught.value.retryable


def test_a_server_that_is_not_there_is_retryable(tai_plugin, tai_host, tai_project) -> None:
    from tai_core.testing import run_session

    tai_plugin(tai_ollama_chat, "ollama-chat")
    provider = tai_host.registry.providers["ollama-chat"]
    spec = provider.spec("ollama-chat:qwen3", {"base_url": "http://127.0.0.1:9"}, {}, {})
    run = run_session(tai_host, provider, "Hi.", cwd=tai_project(), command="any", spec=spec)
    assert isinstance(run.terminal, RunFailed)
    assert "ConnectError" in run.terminal.message
    assert any("retrying" in warning for warning in run.warnings)
