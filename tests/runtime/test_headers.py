"""Headers added by tai_before_model_call reach the model's HTTP server."""

from __future__ import annotations

from pathlib import Path

from tai_core import hookimpl
from tai_core.runtime import RunFinished, Runtime, Submit
from tests.runtime.conftest import drive_server_session
from tests.servers import FakeModelServer, Reply


class Tag:
    __name__ = "tag"

    @hookimpl
    def tai_before_model_call(self):
        return {"headers": {"X-Tai-Tag": "run-42"}}


def test_headers_reach_the_server(host, tmp_path: Path, openai_server: FakeModelServer) -> None:
    host.register(Tag(), "tag")
    openai_server.script(Reply(text="an answer\n"))

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(Submit("s", "hi"))
        await runtime.wait("s")

    events = drive_server_session(host, openai_server, tmp_path, scenario)
    assert any(isinstance(event, RunFinished) for event in events)
    (request,) = openai_server.requests
    headers = {key.lower(): value for key, value in request.headers.items()}
    assert headers["x-tai-tag"] == "run-42"
