"""The HTTP side of ``tai web``: the guard, the page's files and the WebSocket.

Every request passes :func:`_guard` first (the rules are in the package docstring): the
``Host`` must be this server's when it listens on a loopback address (a page of another
site whose name was made to resolve to 127.0.0.1 — DNS rebinding — names its own host),
an ``Origin``, when sent, must be the server's own, and the token must come with the
request, in the URL (the first visit: it is then set as a cookie and the page reloaded
without it) or in the cookie. The WebSocket carries the wire of :mod:`tai_core.serve`:
each message from the page is one command for :class:`~tai_core.serve.Server`, each
message to it one encoded event, after a ``hello`` (the live sessions, the session
commands), the journal's catch-up and a ``caught_up`` marker.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from aiohttp import WSMsgType, web

from tai_core.serve import Encoder, Server
from tai_web._journal import Journal

#: The page's files and their types (nothing else is served).
ASSETS = {
    "index.html": "text/html",
    "app.js": "text/javascript",
    "dom.js": "text/javascript",
    "tree.js": "text/javascript",
    "chart.js": "text/javascript",
    "style.css": "text/css",
    "icon.svg": "image/svg+xml",
}
#: No inline script, nothing from elsewhere: a second wall behind ``textContent``.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class WebServer:
    """The page and the socket of ``server``'s runtime, for holders of ``token``."""

    def __init__(self, server: Server, journal: Journal, token: str, *, loopback: bool) -> None:
        self.server = server
        self.journal = journal
        self.token = token
        #: The ``Host`` values accepted (``None``: any, when listening beyond loopback).
        self.hosts: set[str] | None = set() if loopback else None
        self._sockets: set[web.WebSocketResponse] = set()
        self._files = {name: (resources.files("tai_web") / "static" / name).read_bytes()
                       for name in ASSETS}  # fmt: skip

    def listening_on(self, port: int) -> None:
        """Accept the loopback names of ``port`` as ``Host``."""
        if self.hosts is not None:
            self.hosts |= {f"{host}:{port}" for host in ("127.0.0.1", "localhost", "[::1]")}

    @property
    def cookie(self) -> str:
        return f"tai_web_{self.token[:6]}"

    def application(self) -> web.Application:
        app = web.Application(middlewares=[self._guard])
        app.router.add_get("/", self._page)
        app.router.add_get("/static/{name}", self._asset)
        app.router.add_get("/ws", self._socket)
        app.on_shutdown.append(self._close_sockets)
        return app

    async def _close_sockets(self, app: web.Application) -> None:
        for socket in list(self._sockets):
            await socket.close(code=1001, message=b"tai web stops")

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if self.hosts is not None and request.host not in self.hosts:
            raise web.HTTPForbidden(text="tai web: this server is not reached by that name\n")
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{request.host}":
            raise web.HTTPForbidden(text="tai web: requests from other sites are refused\n")
        given = request.query.get("token") or request.cookies.get(self.cookie, "")
        if not secrets.compare_digest(given.encode(), self.token.encode()):
            raise web.HTTPUnauthorized(text="tai web: open the URL tai web printed\n")
        if "token" in request.query and request.path == "/":
            response = web.HTTPSeeOther("/")  # the token leaves the address bar
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict")
            return response
        return await handler(request)

    def _file(self, name: str) -> web.Response:
        response = web.Response(body=self._files[name], content_type=ASSETS[name])
        response.headers["Content-Security-Policy"] = POLICY
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    async def _page(self, request: web.Request) -> web.Response:
        return self._file("index.html")

    async def _asset(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in ASSETS or name == "index.html":
            raise web.HTTPNotFound()
        return self._file(name)

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(heartbeat=30, max_msg_size=16 * 1024 * 1024)
        await socket.prepare(request)
        self._sockets.add(socket)
        runtime = self.server.runtime
        backlog = self.journal.catch_up()  # one step with the subscribe: nothing in between
        subscription = runtime.bus.subscribe()
        encoder = Encoder()
        hello = {"type": "hello", "live": self.journal.live(), "commands": _commands(runtime)}
        await socket.send_str(json.dumps(hello))
        for event in backlog:
            await socket.send_str(encoder.encode(event))
        await socket.send_str('{"type": "caught_up"}')
        forwarding = asyncio.get_running_loop().create_task(_forward(subscription, encoder, socket))
        try:
            async for message in socket:
                if message.type == WSMsgType.TEXT:
                    await self.server.receive(message.data)
        finally:
            self._sockets.discard(socket)
            subscription.close()
            await forwarding
        return socket


async def _forward(subscription: Any, encoder: Encoder, socket: web.WebSocketResponse) -> None:
    """The bus's events to ``socket`` until either ends."""
    async for event in subscription:
        if socket.closed:
            return
        try:
            await socket.send_str(encoder.encode(event))
        except ConnectionError:
            return


def _commands(runtime: Any) -> list[dict[str, str]]:
    """The session commands (``/NAME``) a page offers: the plugins' and the agents'."""
    extensions = runtime.extensions
    found = {name: command.description for name, (_, command) in extensions.commands.items()}
    found |= {name: agent.description for name, agent in extensions.agents.items()}
    return [{"name": name, "description": found[name]} for name in sorted(found)]
