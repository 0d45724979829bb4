"""The fake model server: a threaded stdlib HTTP/1.1 server that plays scripted replies.

Every model request (whatever its protocol) takes the next scripted :class:`Reply`; the
path picks the wire format. Responses are chunked, one HTTP chunk per stream item, with
Nagle's algorithm off so a test sees real loopback latency, not 40 ms ACK delays.
"""

from __future__ import annotations

import json
import re
import select
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

import attrs

from tests.servers import _wire
from tests.servers._wire import Reply

_GEMINI_PATH = re.compile(r"/models/(?P<model>[^/:]+):streamGenerateContent$")
_BEDROCK_PATH = re.compile(r"/model/(?P<model>[^/]+)/converse-stream$")


@attrs.frozen
class Recorded:
    """One request the server received: ``headers`` have lower-case names; ``body`` is the
    decoded JSON (or the raw text when it is not JSON); ``client_port`` tells connections
    apart (a kept-alive connection sends several requests from one port)."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    client_port: int


class FakeModelServer:
    """Serves OpenAI, Azure, Gemini, Bedrock and Ollama's native streaming endpoints on
    127.0.0.1.

    ``base_url`` is the URL to configure for the protocol named at construction
    (``openai``: ``…/v1``; ``gemini``: ``…/v1beta``; ``azure``, ``bedrock`` and
    ``ollama`` (``/api/chat``, NDJSON): the root).
    Use as a context manager; ``script(*replies)`` queues answers, ``requests`` records
    what came in.
    """

    def __init__(self, protocol: str = "openai") -> None:
        self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self.requests: list[Recorded] = []
        self.root_url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        suffix = {"openai": "/v1", "gemini": "/v1beta", "azure": "", "bedrock": "",
                  "ollama": ""}[protocol]  # fmt: skip
        self.base_url = self.root_url + suffix

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def script(self, *replies: Reply) -> None:
        """Queue ``replies``: each following model request gets the next one."""
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        """How many scripted replies have not been asked for yet."""
        with self._lock:
            return len(self._replies)

    def _take(self, recorded: Recorded) -> Reply | None:
        with self._lock:
            self.requests.append(recorded)
            return self._replies.popleft() if self._replies else None


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: FakeModelServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet about clients that hang up (a test's timeout does so on purpose)."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    timeout = 30
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read ``requests`` instead."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace")
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw
        recorded = Recorded(
            method="POST",
            path=self.path,
            headers={name.lower(): value for name, value in self.headers.items()},
            body=body,
            client_port=self.client_address[1],
        )
        route = urlsplit(self.path).path
        owner = self.server.owner
        if gemini := _GEMINI_PATH.search(route):
            model = gemini["model"]
            self._serve(
                owner._take(recorded),
                _wire.gemini_error,
                "text/event-stream",
                lambda reply: _wire.gemini_stream(reply, model),
            )
        elif _BEDROCK_PATH.search(route):
            self._serve(
                owner._take(recorded),
                _wire.bedrock_error,
                "application/vnd.amazon.eventstream",
                _wire.bedrock_stream,
            )
        elif route.endswith("/chat/completions") and isinstance(body, dict):
            self._serve_openai(owner._take(recorded), body)
        elif route == "/api/chat" and isinstance(body, dict):
            model = str(body.get("model", ""))
            self._serve(owner._take(recorded), _wire.ollama_error, "application/x-ndjson",
                        lambda reply: _wire.ollama_stream(reply, model))  # fmt: skip
        else:
            self._json(404, {"error": {"message": f"fake model server: no endpoint {route}"}})

    # -- protocols ----------------------------------------------------------------------

    def _serve_openai(self, reply: Reply | None, body: dict[str, Any]) -> None:
        model = str(body.get("model", ""))
        if not body.get("stream") and reply is not None and reply.fault is None:
            self._json(200, _wire.openai_completion(reply, model))
            return
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        self._serve(
            reply,
            _wire.openai_error,
            "text/event-stream",
            lambda r: _wire.openai_stream(r, model, include_usage),
        )

    def _serve(
        self,
        reply: Reply | None,
        error: Callable[[int, str], dict[str, Any]],
        content_type: str,
        encode: Callable[[Reply], Iterator[bytes]],
    ) -> None:
        if reply is None:
            count = len(self.server.owner.requests)
            message = f"fake model server: no scripted reply for request #{count} ({self.path})"
            self._json(500, error(500, message))
        elif reply.fault is not None and reply.fault.isdigit():
            status = int(reply.fault)
            headers = {"Retry-After": reply.retry_after} if status == 429 else {}
            if reply.body is not None:
                self._send(status, "text/plain", reply.body.encode(), headers)
            else:
                self._json(status, error(status, reply.message), headers)
        else:
            self._stream(reply, content_type, encode(reply))

    def _stream(self, reply: Reply, content_type: str, items: Iterator[bytes]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        fault_at = max(1, len(reply.pieces()) // 2)
        for index, item in enumerate(items):
            if index == fault_at and reply.fault is not None:
                if reply.fault == "drop":
                    self.close_connection = True
                    return
                if reply.fault == "truncate":
                    break
                if reply.fault == "badjson":
                    self._chunk(b'data: {"choices": [{"delta": {"content": "x"\n\n')
                elif reply.fault == "error":
                    self._chunk(_wire.stream_error(reply.message))
                elif reply.fault == "stall":
                    self._stall()
                    return
            self._chunk(item)
        self.wfile.write(b"0\r\n\r\n")

    def _stall(self) -> None:
        """Send nothing until the client hangs up or the server stops."""
        owner = self.server.owner
        while not owner.stopping.is_set():
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if not readable:
                continue
            try:
                waiting = self.connection.recv(1, socket.MSG_PEEK)
            except ConnectionError:
                waiting = b""
            if not waiting:
                return
            owner.stopping.wait(0.05)  # the client sent more while waiting: not a hang-up

    # -- plumbing -----------------------------------------------------------------------

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
        self._send(status, "application/json", json.dumps(payload).encode(), headers or {})

    def _send(
        self, status: int, content_type: str, data: bytes, headers: Mapping[str, str]
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
