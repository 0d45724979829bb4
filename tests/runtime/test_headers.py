"""Headers added by tai_before_model_call reach the model's HTTP server."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tai_core import hookimpl
from tai_core.commands._session import make_setup
from tai_core.models import resolve_model
from tai_core.runtime import TERMINAL_EVENTS, EventBus, RunFinished, Runtime, StartSession, Submit
from tests.servers import FakeModelServer, Reply


class Tag:
    __name__ = "tag"

    @hookimpl
    def tai_before_model_call(self):
        return {"headers": {"X-Tai-Tag": "run-42"}}


def test_headers_reach_the_server(host, tmp_path: Path, openai_server: FakeModelServer) -> None:
    host.register(Tag(), "tag")
    openai_server.script(Reply(text="an answer\n"))
    config = {
        "generators": [
            {"name": "local", "type": "openai", "model": "m",
             "base_url": openai_server.base_url, "api_key": "k"}
        ]
    }  # fmt: skip
    spec = resolve_model("local", config, host.registry.providers, {})
    setup = make_setup(
        host, config, (host.registry.providers[spec.provider], spec), command="next",
        system="S", require_completion=False, cwd=tmp_path,
    )  # fmt: skip

    async def scenario():
        runtime = Runtime(host.pm.hook, EventBus())
        subscription = runtime.bus.subscribe()
        runtime.handle(StartSession(setup))
        runtime.handle(Submit(setup.options.session_id, "hi"))
        async for event in subscription:
            if isinstance(event, TERMINAL_EVENTS):
                return event
        return None

    assert isinstance(asyncio.run(scenario()), RunFinished)
    (request,) = openai_server.requests
    headers = {key.lower(): value for key, value in request.headers.items()}
    assert headers["x-tai-tag"] == "run-42"
