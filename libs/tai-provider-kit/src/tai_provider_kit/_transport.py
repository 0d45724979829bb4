"""HTTP/1.1 for the model calls: h11's protocol over asyncio's streams, connections kept.

Why not httpx here: a model call is on the path of every start, and httpx costs about a
quarter of ``tai next``'s time to its request (~100 ms and 130 modules on these machines:
its HTTP/2 stack, a synchronous twin of every class, anyio under asyncio) for one
streamed POST that uses none of that. h11 is the HTTP/1.1 state machine httpx itself
speaks through (framing, chunked bodies, keep-alive, ``CONNECT``); this module adds only
what sits around it: connecting (TLS with :mod:`._tls`'s context, proxies), timeouts,
same-origin redirects and a pool of idle connections per event loop. httpx stays the
client of ``ingest``'s web fetches, which need what it adds.

Proxies: the generator's ``proxy`` for every call, else — when the environment is trusted
— ``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY`` minus ``NO_PROXY``, read by the standard
library's own rules (:func:`urllib.request.getproxies_environment`, imported only when
such a variable is set). An ``http://`` target goes through an HTTP proxy in absolute
form; an ``https://`` one through a ``CONNECT`` tunnel. A redirect to another origin is
refused rather than followed: it would carry the API key to another host.

Timeouts are ``asyncio.timeout`` scopes, never ``asyncio.wait_for``: Python 3.11's
``wait_for`` drops a cancellation that lands in the loop step where the awaited read
completes, so a turn cancelled just as bytes arrived waited the whole read timeout.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import ssl
import time
import weakref
import zlib
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import SplitResult, unquote, urljoin, urlsplit

import attrs
import h11

#: Seconds an idle connection is kept for the next call.
KEEP_IDLE = 15.0
#: Idle connections kept per origin.
MAX_IDLE = 4
#: Same-origin redirects followed before giving up.
MAX_REDIRECTS = 5
#: Bytes read at a time.
CHUNK = 65536
_DEFAULT_PORTS = {"http": 80, "https": 443}
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class TransportError(Exception):
    """A call that failed below HTTP: the subclass says how."""


class ConnectFailed(TransportError):
    """The connection (or its TLS, or the proxy's tunnel) could not be made."""


class UnknownHost(ConnectFailed):
    """The host name does not exist (the resolver says so, not that it could not ask):
    asking again will not help, unlike a refused or timed-out connection."""


class BadCertificate(ConnectFailed):
    """The server's TLS certificate does not check (untrusted, expired, another name):
    asking again will not help."""


class ConnectTimedOut(TransportError):
    """Making the connection took longer than its time-out."""


class Stalled(TransportError):
    """No data came within the read time-out."""


class Cut(TransportError):
    """The peer broke HTTP: closed mid-message, or sent what is not HTTP/1.1."""


class NetworkFailed(TransportError):
    """The connection failed while in use."""


class Refused(TransportError):
    """The call cannot be made as asked (a scheme, a proxy's refusal, a redirect to
    another origin): trying again changes nothing."""


@attrs.frozen
class Settings:
    """How a call is made: ``tls`` gives the TLS context (asked for only when needed),
    ``proxy`` is the generator's, ``trust_env`` lets the environment name one."""

    tls: Callable[[], ssl.SSLContext]
    proxy: str | None = None
    trust_env: bool = True
    #: Seconds to open a connection (TCP, a proxy's tunnel, TLS).
    connect_timeout: float = 15.0
    #: Seconds a read (or the request's sending) may wait for the other side.
    read_timeout: float = 120.0


def _origin(url: SplitResult) -> tuple[str, str, int]:
    scheme = url.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise Refused(f"unsupported URL scheme {url.scheme!r} (http or https)")
    if not url.hostname:
        raise Refused("the URL has no host")
    return scheme, url.hostname, url.port or _DEFAULT_PORTS[scheme]


def _authority(host: str, port: int, scheme: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return shown if port == _DEFAULT_PORTS[scheme] else f"{shown}:{port}"


def proxy_for(url: SplitResult, proxy: str | None, trust_env: bool) -> str | None:
    """The proxy a call to ``url`` goes through: ``proxy`` when given, else the
    environment's (when trusted), else none."""
    if proxy:
        return proxy
    if not trust_env or not any(name.lower().endswith("_proxy") for name in os.environ):
        return None
    import urllib.request  # ~15 ms: only when a proxy variable is set

    proxies = urllib.request.getproxies_environment()
    chosen = proxies.get(url.scheme.lower()) or proxies.get("all")
    if not chosen or urllib.request.proxy_bypass_environment(url.hostname or "", proxies):
        return None
    return chosen


class _Connection:
    """One HTTP/1.1 connection and its h11 state."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.h11 = h11.Connection(h11.CLIENT)
        self.idle_since = time.monotonic()

    async def send(self, *events: Any, timeout: float) -> None:
        for event in events:
            data = self.h11.send(event)
            if data:
                self.writer.write(data)
        try:
            async with asyncio.timeout(timeout):
                await self.writer.drain()
        except TimeoutError:
            raise Stalled(f"the request could not be sent in {timeout:g} s") from None
        except OSError as error:
            raise NetworkFailed(str(error) or type(error).__name__) from error

    async def next_event(self, timeout: float) -> Any:
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as error:
                raise Cut(str(error)) from None
            if event is not h11.NEED_DATA:
                return event
            try:
                async with asyncio.timeout(timeout):
                    data = await self.reader.read(CHUNK)
            except TimeoutError:
                raise Stalled(f"no data for {timeout:g} s") from None
            except OSError as error:
                raise NetworkFailed(str(error) or type(error).__name__) from error
            self.h11.receive_data(data)

    @property
    def reusable(self) -> bool:
        return self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE

    def close(self) -> None:
        self.writer.close()

    def stale(self) -> bool:
        return (
            time.monotonic() - self.idle_since > KEEP_IDLE
            or self.reader.at_eof()
            or self.writer.is_closing()
        )


class Response:
    """A response whose body is read as it comes (``aiter_bytes``) or whole (``aread``)."""

    def __init__(
        self, head: h11.Response, connection: _Connection, read_timeout: float,
        release: Callable[[_Connection], None],
    ) -> None:  # fmt: skip
        self.status_code = head.status_code
        headers: dict[str, str] = {}
        for name, value in head.headers:
            key, text = name.decode("latin-1").lower(), value.decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
        self.headers = headers
        self._connection = connection
        self._timeout = read_timeout
        self._release = release
        self._done = False
        encoding = headers.get("content-encoding", "identity").strip().lower()
        if encoding in ("gzip", "x-gzip"):
            self._decoder: Any = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._decoder = zlib.decompressobj()
        elif encoding in ("", "identity"):
            self._decoder = None
        else:
            raise Refused(f"the response is encoded as {encoding!r}, which tai cannot read")

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive (decompressed)."""
        while not self._done:
            event = await self._connection.next_event(self._timeout)
            if isinstance(event, h11.Data):
                data = bytes(event.data)
                if self._decoder is not None:
                    try:
                        data = self._decoder.decompress(data)
                    except zlib.error as error:
                        raise Cut(f"the compressed body is damaged: {error}") from None
                if data:
                    yield data
            elif isinstance(event, h11.EndOfMessage):
                if self._decoder is not None and (tail := self._decoder.flush()):
                    yield tail
                self._done = True
                self._release(self._connection)
            else:  # ConnectionClosed without an end: h11 says so as an error first
                raise Cut("the connection closed before the response ended")

    async def aread(self) -> bytes:
        """The whole body."""
        return b"".join([data async for data in self.aiter_bytes()])

    def close(self) -> None:
        """Drop the connection unless the body was read to its end (then it was kept)."""
        if not self._done:
            self._connection.close()


ClientKey = tuple[str, str, int, str | None]
_IDLE: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[ClientKey, list[_Connection]]]
_IDLE = weakref.WeakKeyDictionary()


def _idle(key: ClientKey) -> list[_Connection]:
    return _IDLE.setdefault(asyncio.get_running_loop(), {}).setdefault(key, [])


def _release_to(key: ClientKey) -> Callable[[_Connection], None]:
    def release(connection: _Connection) -> None:
        idle = _idle(key)
        if connection.reusable and len(idle) < MAX_IDLE:
            connection.h11.start_next_cycle()
            connection.idle_since = time.monotonic()
            idle.append(connection)
        else:
            connection.close()

    return release


async def _open(key: ClientKey, settings: Settings) -> _Connection:
    """A new connection to ``key``'s origin (through its proxy), TLS set up for ``https``."""
    timeout = settings.connect_timeout
    try:
        async with asyncio.timeout(timeout):
            return await _connect(key, settings.tls, timeout)
    except TimeoutError:
        raise ConnectTimedOut(f"no connection within {timeout:g} s") from None
    except ssl.SSLCertVerificationError as error:
        raise BadCertificate(str(error)) from error
    except OSError as error:  # refused, unreachable, the resolver not answering
        raise ConnectFailed(str(error) or type(error).__name__) from error
    except (Stalled, Cut, NetworkFailed) as error:  # the proxy's part of the way
        raise ConnectFailed(str(error)) from error


#: The resolver's answers that a name does not exist (glibc has two; others have one).
_NO_SUCH_NAME = frozenset(
    code for code in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None)) if code is not None
)


async def _stream(host: str, port: int, context: ssl.SSLContext | None) -> _Connection:
    """A connection to ``host``, with TLS when ``context`` is given (the name checked)."""
    try:
        reader, writer = await asyncio.open_connection(
            host, port, ssl=context, server_hostname=host if context else None
        )
    except socket.gaierror as error:
        if error.errno in _NO_SUCH_NAME:
            raise UnknownHost(f"{host} is not a known host name ({error.strerror})") from error
        raise
    return _Connection(reader, writer)


async def _connect(
    key: ClientKey, tls: Callable[[], ssl.SSLContext], timeout: float
) -> _Connection:
    scheme, host, port, proxy = key
    if proxy is None:
        return await _stream(host, port, tls() if scheme == "https" else None)
    through = urlsplit(proxy)
    try:
        proxy_scheme, proxy_host, proxy_port = _origin(through)
    except Refused as error:  # socks5://, a typo: say whose scheme it is
        raise Refused(f"the proxy {through.scheme}://{through.hostname or ''}: {error}") from None
    connection = await _stream(proxy_host, proxy_port, tls() if proxy_scheme == "https" else None)
    if scheme == "http":
        return connection  # the requests go to the proxy in absolute form
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"  # with its port
    await connection.send(
        h11.Request(method="CONNECT", target=target, headers=[("Host", target),
                                                              *_proxy_auth(through)]),
        h11.EndOfMessage(), timeout=timeout,
    )  # fmt: skip
    answer = await connection.next_event(timeout)
    while isinstance(answer, h11.InformationalResponse):
        answer = await connection.next_event(timeout)
    if not isinstance(answer, h11.Response) or not 200 <= answer.status_code < 300:
        connection.close()
        status = getattr(answer, "status_code", "no answer")
        raise Refused(f"the proxy {proxy_host}:{proxy_port} refused the tunnel ({status})")
    if connection.h11.trailing_data[0]:
        connection.close()
        raise Cut("the proxy sent data before the tunnel was open")
    await connection.writer.start_tls(tls(), server_hostname=host)
    return _Connection(connection.reader, connection.writer)  # HTTP starts afresh inside


def _proxy_auth(proxy: SplitResult) -> list[tuple[str, str]]:
    if proxy.username is None:
        return []
    pair = f"{unquote(proxy.username)}:{unquote(proxy.password or '')}".encode()
    return [("Proxy-Authorization", "Basic " + base64.b64encode(pair).decode("ascii"))]


async def _connection(key: ClientKey, settings: Settings) -> tuple[_Connection, bool]:
    """An idle connection for ``key`` (``True``: reused) or a new one."""
    idle = _idle(key)
    while idle:
        connection = idle.pop()
        if not connection.stale():
            return connection, True
        connection.close()
    return await _open(key, settings), False


@asynccontextmanager
async def stream(
    url: str, headers: Mapping[str, str], body: bytes, settings: Settings
) -> AsyncIterator[Response]:
    """POST ``body`` to ``url`` and give the response to read as it streams (its status
    whatever it is); same-origin redirects are followed. :class:`TransportError` when the
    call fails below HTTP, also while the caller reads."""
    for _ in range(MAX_REDIRECTS + 1):
        response = await _post(url, headers, body, settings)
        location = response.headers.get("location")
        if response.status_code not in _REDIRECTS or not location:
            break
        await response.aread()
        target = urljoin(url, location)
        if _origin(urlsplit(target)) != _origin(urlsplit(url)):
            raise Refused(f"the server redirected to another origin ({target}): set base_url "
                          "to it if it is meant")  # fmt: skip
        url = target
    else:
        raise Refused(f"more than {MAX_REDIRECTS} redirects")
    try:
        yield response
    finally:
        response.close()  # left unread (an error, a cancel): not reused


async def _post(url: str, headers: Mapping[str, str], body: bytes, settings: Settings) -> Response:
    parts = urlsplit(url)
    scheme, host, port = _origin(parts)
    via = proxy_for(parts, settings.proxy, settings.trust_env)
    read_timeout = settings.read_timeout
    key: ClientKey = (scheme, host, port, via)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    target = url if via is not None and scheme == "http" else path
    sent = [
        ("Host", _authority(host, port, scheme)), ("User-Agent", "tai"),
        ("Content-Length", str(len(body))),
        *headers.items(),
        *(_proxy_auth(urlsplit(via)) if via is not None and scheme == "http" else []),
    ]  # fmt: skip
    for attempt in (1, 2):
        connection, reused = await _connection(key, settings)
        try:
            await connection.send(
                h11.Request(method="POST", target=target, headers=sent), h11.Data(data=body),
                h11.EndOfMessage(), timeout=read_timeout,
            )  # fmt: skip
            head = await connection.next_event(read_timeout)
            while isinstance(head, h11.InformationalResponse):
                head = await connection.next_event(read_timeout)
        except (Cut, NetworkFailed):
            connection.close()
            if reused and attempt == 1:
                continue  # the server had closed the idle connection: once more, anew
            raise
        except BaseException:
            connection.close()
            raise
        if not isinstance(head, h11.Response):
            connection.close()
            raise Cut("the connection closed before a response")
        try:
            return Response(head, connection, read_timeout, _release_to(key))
        except Refused:
            connection.close()
            raise
    raise AssertionError("unreachable")  # pragma: no cover
