"""Helpers for the any-text tests: trees on disk and a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

#: The pages the test server serves: path -> (content type or "", body).
PAGES: dict[str, tuple[str, bytes]] = {
    "/text": ("text/plain; charset=utf-8", "héllo\nworld\n".encode()),
    "/json": ("application/json", b'{"a": 1}'),
    "/binary": ("application/octet-stream", b"\x89PNG\r\n\x1a\n\0\0"),
    "/untyped-binary": ("", b"GIF89a\0\0\0"),
    "/big": ("text/plain", b"0123456789" * 300),
}


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path == "/slow":
            self.server.stopping.wait()  # no answer while the tests run: any timeout is hit
        if path == "/headers":
            names = ("User-Agent", "Referer", "Cookie")
            body = "".join(f"{name}: {self.headers.get(name)}\n" for name in names).encode()
            self._send(200, "text/plain", body)
        elif path in PAGES:
            self._send(200, *PAGES[path])
        else:
            self._send(404, "text/plain", b"no such page")

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        del format, args


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.stopping = threading.Event()


@pytest.fixture(scope="module")
def web() -> Iterator[str]:
    """The base address of a test server serving :data:`PAGES` (and /slow, /headers)."""
    server = _Server()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.stopping.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``files`` (relative path -> content) under ``root``; returns ``root``."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root
