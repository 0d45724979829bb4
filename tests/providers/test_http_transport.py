"""The model calls' HTTP (``tai_provider_kit._transport``, ``._sse``) against real servers on
127.0.0.1 started by each test: kept connections and a kept one the server dropped, a
gzip body, redirects (same origin followed, another origin refused), an HTTP proxy in
absolute form with its credentials, HTTPS through a ``CONNECT`` tunnel to a TLS server
with a certificate of its own, the environment's proxies and ``NO_PROXY``, faults; and
the event-stream decoder under any cut of its bytes."""

from __future__ import annotations

import asyncio
import base64
import gzip
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tai_provider_kit import _transport
from tai_provider_kit._sse import event_data

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Served:
    """An asyncio server on 127.0.0.1 (in the test's loop) and the connections it took."""

    def __init__(
        self, handler: Handler, context: ssl.SSLContext | None = None, host: str = "127.0.0.1"
    ) -> None:
        self.handler = handler
        self.context = context
        #: Another loopback address than 127.0.0.1 tells a client that dials the
        #: default host from one that dials the host it was given.
        self.host = host
        self.connections = 0
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        self.server: asyncio.Server | None = None
        self.port = 0

    async def __aenter__(self) -> Served:
        async def take(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.connections += 1
            try:
                await self.handler(reader, writer)
            except (ConnectionError, asyncio.IncompleteReadError):
                pass
            finally:
                writer.close()

        self.server = await asyncio.start_server(take, self.host, 0, ssl=self.context)
        self.port = int(self.server.sockets[0].getsockname()[1])
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    def url(self, path: str = "/v1/chat", scheme: str = "http") -> str:
        return f"{scheme}://{self.host}:{self.port}{path}"

    async def read_request(self, reader: asyncio.StreamReader) -> tuple[str, dict[str, str]]:
        """One request's line, headers and body (recorded)."""
        line = (await reader.readline()).decode().rstrip("\r\n")
        if not line:
            raise ConnectionError("closed")
        headers: dict[str, str] = {}
        while (raw := (await reader.readline()).decode().rstrip("\r\n")) != "":
            name, _, value = raw.partition(":")
            headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        self.requests.append((line, headers, body))
        return line, headers


def reply(status: int, body: bytes, *headers: str) -> bytes:
    head = [f"HTTP/1.1 {status} X", f"Content-Length: {len(body)}", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def answering(
    status: int, body: bytes, *headers: str, context: ssl.SSLContext | None = None,
    host: str = "127.0.0.1", after: bytes = b"",
) -> Served:  # fmt: skip
    """A server that answers each connection's first request with one reply (and
    ``after`` it in the same write)."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await served.read_request(reader)
        writer.write(reply(status, body, *headers) + after)
        await writer.drain()

    served = Served(answer, context, host)
    return served


async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    """Copy ``source`` to ``sink`` until it ends (one direction of a tunnel)."""
    while data := await source.read(65536):
        sink.write(data)
        await sink.drain()
    sink.close()


def plain_tls() -> ssl.SSLContext:
    raise AssertionError("no TLS was asked for")


async def call(
    url: str, *, tls: Callable[[], ssl.SSLContext] = plain_tls, proxy: str | None = None,
    read_timeout: float = 5.0,
) -> tuple[int, bytes]:  # fmt: skip
    settings = _transport.Settings(
        tls=tls, proxy=proxy, trust_env=False, connect_timeout=5.0, read_timeout=read_timeout
    )
    headers = {"Content-Type": "application/json"}
    async with _transport.stream(url, headers, b'{"a":1}', settings) as response:
        return response.status_code, await response.aread()


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_a_connection_is_kept_and_one_the_server_dropped_is_replaced() -> None:
    async def answer_twice_then_drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        for _ in range(2):
            await served.read_request(reader)
            writer.write(reply(200, b"ok"))
            await writer.drain()
        await served.read_request(reader)  # the third: closed unanswered, as a server does
        # whose idle time-out struck while the request was on its way

    served = Served(answer_twice_then_drop)

    async def scenario() -> None:
        async with served:
            for _ in range(4):
                assert await call(served.url()) == (200, b"ok")
            assert served.connections == 2  # the third call was sent again, anew

    run(scenario)
    assert len(served.requests) == 5
    line, headers, body = served.requests[0]
    assert line == "POST /v1/chat HTTP/1.1" and body == b'{"a":1}'
    assert headers["host"] == f"127.0.0.1:{served.port}"
    assert headers["content-type"] == "application/json" and "accept-encoding" not in headers


def test_a_gzip_body_is_read_decoded() -> None:
    served = answering(200, gzip.compress(b"hello " * 1000), "Content-Encoding: gzip",
                       host="127.0.0.2")  # fmt: skip

    async def scenario() -> None:
        async with served:
            assert await call(served.url("/v1/chat?alt=sse")) == (200, b"hello " * 1000)

    run(scenario)
    assert served.requests[0][0] == "POST /v1/chat?alt=sse HTTP/1.1"  # Gemini's query


def test_a_redirect_is_followed_within_its_origin_and_refused_to_another() -> None:
    async def redirecting(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            line, _ = await served.read_request(reader)
            if line.startswith("POST /old "):
                writer.write(reply(308, b"", "Location: /new"))
            elif line.startswith("POST /away "):
                writer.write(reply(307, b"", "Location: http://elsewhere.example/new"))
            else:
                writer.write(reply(200, b"moved"))
            await writer.drain()

    served = Served(redirecting)

    async def scenario() -> None:
        async with served:
            assert await call(served.url("/old")) == (200, b"moved")
            with pytest.raises(_transport.Refused, match="redirected to another origin"):
                await call(served.url("/away"))

    run(scenario)
    assert [line for line, _, body in served.requests if body == b'{"a":1}'] == [
        "POST /old HTTP/1.1", "POST /new HTTP/1.1", "POST /away HTTP/1.1"
    ]  # fmt: skip


def test_an_http_proxy_gets_the_absolute_url_and_the_credentials() -> None:
    served = answering(200, b"via proxy")

    async def scenario() -> None:
        async with served:
            url = "http://model.internal:8080/v1/chat?x=1"
            assert await call(url, proxy=f"http://me:s%40cret@127.0.0.1:{served.port}") == (
                200, b"via proxy"
            )  # fmt: skip

    run(scenario)
    ((line, headers, _),) = served.requests
    assert line == "POST http://model.internal:8080/v1/chat?x=1 HTTP/1.1"
    assert headers["host"] == "model.internal:8080"
    assert headers["proxy-authorization"] == "Basic " + base64.b64encode(b"me:s@cret").decode()


def self_signed(folder: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for ``name`` (an IP address or a DNS name) and its key."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    kind = "IP" if name[0].isdigit() else "DNS"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", f"/CN={name}", "-addext", f"subjectAltName={kind}:{name}",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key."""
    return self_signed(tmp_path_factory.mktemp("tls"), "127.0.0.1")


def serving(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


def test_https_goes_through_a_connect_tunnel_and_checks_the_certificate(
    certificate: tuple[Path, Path],
) -> None:
    cert, key = certificate
    server_side = serving(cert, key)
    trusting = ssl.create_default_context(cafile=str(cert))
    tunnels: list[str] = []

    async def model(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await target.read_request(reader)
        writer.write(reply(200, b"secret answer"))
        await writer.drain()

    async def tunnel(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line, _ = await proxy.read_request(reader)
        tunnels.append(line)
        host, _, port = line.split()[1].rpartition(":")
        up_reader, up_writer = await asyncio.open_connection(host, int(port))
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    target, proxy = Served(model, server_side), Served(tunnel)

    async def scenario() -> None:
        async with target, proxy:
            via = f"http://127.0.0.1:{proxy.port}"
            url = target.url(scheme="https")
            assert await call(url, tls=lambda: trusting, proxy=via) == (200, b"secret answer")
            assert await call(url, tls=lambda: trusting) == (200, b"secret answer")  # direct
            untrusted = ssl.create_default_context()  # the system's roots: not this one
            with pytest.raises(_transport.BadCertificate, match="CERTIFICATE_VERIFY_FAILED"):
                await call(url, tls=lambda: untrusted, proxy=via)

    run(scenario)
    assert tunnels[0] == f"CONNECT 127.0.0.1:{target.port} HTTP/1.1"
    assert [body for _, _, body in target.requests] == [b'{"a":1}', b'{"a":1}']


def test_a_trusted_certificate_for_another_name_is_refused(
    tmp_path: Path, certificate: tuple[Path, Path]
) -> None:
    """The name is checked, directly and through a tunnel (asyncio checks none when it is
    not given the name, whatever the context says)."""
    cert, key = self_signed(tmp_path, "elsewhere.example")
    trusting = ssl.create_default_context(cafile=str(cert))
    target = answering(200, b"never", context=serving(cert, key))

    async def tunnel(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await proxy.read_request(reader)
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target.port)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    proxy = Served(tunnel)

    async def scenario() -> None:
        async with target, proxy:
            url = target.url(scheme="https")
            with pytest.raises(_transport.BadCertificate, match="IP address mismatch"):
                await call(url, tls=lambda: trusting)
            with pytest.raises(_transport.BadCertificate, match="IP address mismatch"):
                await call(url, tls=lambda: trusting, proxy=f"http://127.0.0.1:{proxy.port}")

    run(scenario)
    assert target.requests == []


def test_an_https_proxy_is_spoken_to_over_tls(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    trusting = ssl.create_default_context(cafile=str(cert))
    proxy = answering(200, b"via a TLS proxy", context=serving(cert, key))

    async def scenario() -> None:
        async with proxy:
            via = f"https://127.0.0.1:{proxy.port}"
            assert await call("http://model.internal/v1", tls=lambda: trusting, proxy=via) == (
                200, b"via a TLS proxy"
            )  # fmt: skip

    run(scenario)
    assert proxy.requests[0][0] == "POST http://model.internal/v1 HTTP/1.1"


def test_a_proxy_refusing_the_tunnel_is_not_retried() -> None:
    proxy = answering(403, b"no")
    eager = answering(200, b"", after=b"too soon")

    async def scenario() -> None:
        async with proxy, eager:
            with pytest.raises(_transport.Refused, match=r"refused the tunnel \(403\)"):
                await call("https://[::1]:8443/v1", proxy=f"http://127.0.0.1:{proxy.port}")
            with pytest.raises(_transport.ConnectFailed, match="before the tunnel was open"):
                await call("https://model.example/v1", proxy=f"http://127.0.0.1:{eager.port}")

    run(scenario)
    ((line, headers, _),) = proxy.requests
    assert line == "CONNECT [::1]:8443 HTTP/1.1" and headers["host"] == "[::1]:8443"


def test_the_environment_names_the_proxy_unless_no_proxy_or_untrusted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    url = urlsplit("https://api.example.com/v1")
    assert _transport.proxy_for(url, None, True) is None
    monkeypatch.setenv("HTTPS_PROXY", "http://corporate:3128")
    assert _transport.proxy_for(url, None, True) == "http://corporate:3128"
    assert _transport.proxy_for(url, None, False) is None  # the generator's no_proxy
    assert _transport.proxy_for(url, "http://mine:1", False) == "http://mine:1"
    assert _transport.proxy_for(urlsplit("http://api.example.com/v1"), None, True) is None
    monkeypatch.setenv("ALL_PROXY", "http://every:1")
    assert _transport.proxy_for(urlsplit("http://api.example.com/v1"), None, True) == (
        "http://every:1"
    )
    monkeypatch.setenv("NO_PROXY", "localhost,.example.com")
    assert _transport.proxy_for(url, None, True) is None


def test_faults_are_named_by_kind() -> None:
    async def faulty(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line, _ = await served.read_request(reader)
        if "/cut" in line:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this")
            await writer.drain()
        elif "/drop" in line:
            return  # closed unanswered
        elif "/stall" in line:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nwaiting")
            await writer.drain()
            await asyncio.sleep(5)
        else:
            writer.write(b"NOT HTTP AT ALL\r\n\r\n")
            await writer.drain()

    served = Served(faulty)

    async def scenario() -> None:
        async with served:
            with pytest.raises(_transport.Cut):
                await call(served.url("/cut"))
            with pytest.raises(_transport.Stalled):
                await call(served.url("/stall"), read_timeout=0.3)
            before = served.connections
            with pytest.raises(_transport.Cut):
                await call(served.url("/drop"))
            assert served.connections == before + 1  # a new connection is not tried again
            with pytest.raises(_transport.Cut):
                await call(served.url("/garbage"))
            with pytest.raises(_transport.Refused, match="unsupported URL scheme 'ftp'"):
                await call("ftp://127.0.0.1/x")
            with pytest.raises(_transport.Refused, match="the proxy socks5://p: unsupported"):
                await call(served.url(), proxy="socks5://p:1080")
        with pytest.raises(_transport.ConnectFailed):
            await call(served.url())  # the server is gone: refused

    run(scenario)


def test_a_cancel_arriving_with_the_data_cancels_the_wait() -> None:
    """A turn cancelled in the very loop step where its response's bytes arrive ends at
    once: the bytes are not taken as the read's result with the cancellation dropped,
    which left the call waiting the whole read timeout (120 s) for a server that stalls
    (``asyncio.wait_for`` of Python 3.11 does that). The reader is asyncio's own, fed as
    its socket protocol feeds it, so the two events land in one step every time."""

    async def scenario() -> None:
        reader = asyncio.StreamReader()
        connection = _transport._Connection(reader, writer=None)  # type: ignore[arg-type]
        waiting = asyncio.create_task(connection.next_event(timeout=60))
        await asyncio.sleep(0)  # it waits for the first bytes
        reader.feed_data(b"HTTP/1.1 200 OK\r\n")  # not yet a whole head: it reads on
        waiting.cancel()
        done, _ = await asyncio.wait([waiting], timeout=2)
        assert done and waiting.cancelled()

    run(scenario)


events = st.lists(st.lists(st.text(st.characters(blacklist_categories=("Cs",),
                                                 blacklist_characters="\r\n")), min_size=1,
                           max_size=3), max_size=6)  # fmt: skip


@given(events, st.sampled_from(["\n", "\r\n", "\r"]), st.data())
def test_any_cut_of_an_event_stream_gives_the_same_events(
    sent: list[list[str]], end: str, data: st.DataObject
) -> None:
    text = "".join(
        ":comment" + end + "".join(f"data: {line}{end}" for line in lines) + "event: x" + end + end
        for lines in sent
    )
    encoded = text.encode("utf-8")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(encoded)), max_size=8)))
    pieces = [encoded[a:b] for a, b in zip([0, *cuts], [*cuts, len(encoded)], strict=True)]

    async def feed() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    async def collect() -> list[str]:
        return [item async for item in event_data(feed())]

    assert asyncio.run(collect()) == ["\n".join(lines) for lines in sent]


@pytest.mark.parametrize(
    ("pieces", "events"),
    [
        ([b"\xef\xbb", b"\xbfdata: a\n\n"], ["a"]),  # the stream's BOM, cut in two
        ([b"data: a\n\n", "\ufeffdata: b\n\n".encode()], ["a"]),  # later: part of a name
        ([b"data: caf\xe9\n\n"], ["caf\ufffd"]),  # not UTF-8: replaced, never fatal
        ([b"data: a\r"], []),  # an event the stream ends in is dropped
        ([b"data: a\r", b"\ndata: b\r\n\r\n"], ["a\nb"]),  # CR LF cut: one line end
    ],
)
def test_what_the_event_stream_decoder_makes_of(pieces: list[bytes], events: list[str]) -> None:
    async def feed() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    async def collect() -> list[str]:
        return [item async for item in event_data(feed())]

    assert asyncio.run(collect()) == events
