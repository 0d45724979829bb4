"""``tai web`` as a real process, driven by a real HTTP and WebSocket client (aiohttp's):
the token, the Origin and Host checks, the event stream, the commands, several clients of
one session and a client that catches up."""

from __future__ import annotations

import asyncio
import signal
import socket
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.servers import FakeModelServer, Reply
from tests.web._web import Socket, WebProcess, configure_web


@pytest.fixture
def web(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> Iterator[WebProcess]:
    configure_web(tmp_path, openai_server)
    process = WebProcess(tmp_path, isolated_env)
    try:
        yield process
    finally:
        process.kill()


def run(scenario: Callable[[aiohttp.ClientSession], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        # unsafe: aiohttp keeps no cookies of IP addresses otherwise (browsers do)
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as client:
            return await scenario(client)

    return asyncio.run(asyncio.wait_for(main(), 60))


async def connect(client: aiohttp.ClientSession, web: WebProcess, **headers: str) -> Socket:
    socket = await client.ws_connect(f"{web.base}/ws?token={web.token}", headers=headers)
    return Socket(socket)


def test_a_request_without_the_token_is_refused(web: WebProcess) -> None:
    async def scenario(client: aiohttp.ClientSession) -> None:
        for path in ("/", "/static/app.js", "/ws", "/?token=wrong", "/ws?token=" + web.token[:-1]):
            async with client.get(web.base + path, allow_redirects=False) as response:
                assert response.status == 401, path
        async with client.get(web.url, allow_redirects=False) as response:
            assert response.status == 303 and response.headers["Location"] == "/"
            cookie = response.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        async with client.get(web.base + "/") as page:  # the cookie now
            assert page.status == 200
            assert "script-src 'self'" in page.headers["Content-Security-Policy"]
            assert '<script type="module" src="/static/app.js">' in await page.text()
        async with client.get(web.base + "/static/tree.js") as script:
            assert script.status == 200 and script.content_type == "text/javascript"
        for missing in ("/static/x.js", "/static/..%2f_server.py", "/static/index.html"):
            async with client.get(web.base + missing) as response:
                assert response.status == 404, missing

    run(scenario)


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "http://evil.example"}, {"Origin": "null"}, {"Host": "evil.example:80"}],
)
def test_a_foreign_origin_or_host_is_refused(web: WebProcess, headers: dict[str, str]) -> None:
    async def scenario(client: aiohttp.ClientSession) -> None:
        async with client.get(web.url, headers=headers, allow_redirects=False) as response:
            assert response.status == 403
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await connect(client, web, **headers)
        assert refused.value.status == 403
        own = await connect(client, web, Origin=web.base)  # the page's own origin
        assert (await own.until("hello"))["live"] == []

    run(scenario)


def test_sessions_over_the_socket_and_a_late_client_catches_up(
    web: WebProcess, openai_server: FakeModelServer
) -> None:
    openai_server.script(
        Reply(text="First answer, in pieces.", thoughts="Thinking it over.", chunks=5),
        Reply(text="A long answer that never", fault="stall"),
    )

    async def scenario(client: aiohttp.ClientSession) -> tuple[Socket, Socket, Socket]:
        first, second = await connect(client, web), await connect(client, web)
        await first.until("caught_up")
        await second.until("caught_up")
        await first.send(type="start", session_id="s1", memory=False)
        await first.until("session_started", session_id="s1")
        await first.send(type="submit", session_id="s1", text="hello")
        await first.until("run_finished", session_id="s1")
        await second.until("run_finished", session_id="s1")  # the other client saw it too
        await second.send(type="submit", session_id="s1", text="more")  # from the other one
        await first.until("text_received", session_id="s1")
        await first.send(type="not json")
        assert (await first.until("notice", level="error"))["message"].startswith("unknown")
        late = await connect(client, web)  # connects mid-turn: catches up, then follows
        await second.send(type="cancel", session_id="s1")
        for each in (first, second, late):
            await each.until("run_cancelled", session_id="s1")
        return first, second, late

    first, second, late = run(scenario)

    def of_s1(socket: Socket) -> list[dict[str, Any]]:
        return [e for e in socket.seen if e.get("session_id") == "s1"]

    def sequence(socket: Socket) -> list[str]:  # merged pieces differ with a client's speed
        merged = ("text_received", "thought_received", "tree_changed")
        return [e["type"] for e in of_s1(socket) if e["type"] not in merged]

    assert sequence(first) == sequence(second)
    text = "".join(e["text"] for e in of_s1(first) if e["type"] == "text_received")
    assert text == "".join(e["text"] for e in of_s1(second) if e["type"] == "text_received")
    assert text == "First answer, in pieces.A long a"  # the stall: half of it
    caught = late.seen[: [e["type"] for e in late.seen].index("caught_up")]
    assert caught[0] == {"type": "hello", "live": ["s1"], "commands": caught[0]["commands"]}
    kinds = [e["type"] for e in caught[1:]]
    assert kinds[0] == "session_started" and "run_finished" in kinds
    assert kinds.count("tree_changed") == 1  # the newest tree, whole
    assert kinds.count("text_received") <= 2  # one piece per round and attempt
    caught_text = "".join(e["text"] for e in caught if e["type"] == "text_received")
    thoughts = [e["text"] for e in caught if e["type"] == "thought_received"]
    assert thoughts == ["Thinking it over."]
    later = "".join(e["text"] for e in late.seen[len(caught) :] if e["type"] == "text_received")
    assert caught_text + later == text  # nothing lost, nothing twice
    nodes = [n["name"] for e in caught if e["type"] == "tree_changed" for n in e["nodes"]]
    sent = {n["name"] for e in of_s1(first) if e["type"] == "tree_changed" for n in e["nodes"]}
    assert sent <= set(nodes) | {n["name"] for e in late.seen if e["type"] == "tree_changed"
                                 for n in e["nodes"]}  # fmt: skip


def test_kept_sessions_are_listed_loaded_exported_and_deleted(
    web: WebProcess, openai_server: FakeModelServer, tmp_path: Path
) -> None:
    openai_server.script(Reply(text="Kept."))

    async def scenario(client: aiohttp.ClientSession) -> list[dict[str, Any]]:
        page = await connect(client, web)
        await page.send(type="start", session_id="k1", memory=False)
        await page.send(type="submit", session_id="k1", text="keep this")
        await page.until("run_finished", session_id="k1")
        await page.send(type="close", session_id="k1")
        await page.until("session_closed", session_id="k1")
        await page.send(type="list")
        (listed,) = (await page.until("sessions_listed"))["sessions"]
        await page.send(type="load", session_id="k1")
        await page.until("session_loaded", session_id="k1")
        tree = await page.until("tree_changed", session_id="k1")  # the loaded tree, whole
        await page.send(type="export", session_id="k1", path=str(tmp_path / "k1.jsonl"))
        await page.until("session_exported", session_id="k1")
        await page.send(type="delete", session_id="k1")
        await page.until("session_deleted", session_id="k1")
        return [listed, tree]

    listed, tree = run(scenario)
    assert (listed["id"], listed["messages"]) == ("k1", 2)
    assert [n["body"] for n in tree["nodes"] if n["kind"] == "user-input"] == ["keep this"]
    assert (tmp_path / "k1.jsonl").read_text().count("keep this") >= 1


def test_ctrl_c_stops_it_with_130(web: WebProcess) -> None:
    status, stderr = web.stop(signal.SIGINT)
    assert status == 130, stderr


def test_other_interfaces_only_with_host_and_a_warning(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    configure_web(tmp_path, openai_server)
    process = WebProcess(tmp_path, isolated_env, "-host", "0.0.0.0", "-port", "0")
    try:
        status, stderr = process.stop(signal.SIGTERM)
    finally:
        process.kill()
    assert status == 0
    assert "tai: warning: listening on 0.0.0.0:" in stderr
    assert process.base.startswith("http://127.0.0.1:")


def test_a_taken_port_is_one_error(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    from tests.conftest import run_tai

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_tai("web", "-port", str(port), cwd=tmp_path, env=isolated_env)
    assert result.returncode == 1
    assert result.stderr.startswith(f"tai: error: cannot listen on 127.0.0.1:{port}: ")
    assert "Traceback" not in result.stderr
