"""ingest's <fetch> against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core.plugins import PluginHost

from .test_ingest import ingest


def test_a_text_page_in_the_feedback_shape(host: PluginHost, tmp_path: Path, web: str) -> None:
    result = ingest(host, tmp_path, f"<fetch>{web}/text</fetch>")
    assert result.ok
    assert result.text == f'<context type="fetch" addr="{web}/text">\nhéllo\nworld\n</context>\n\n'


def test_json_is_text_and_a_bare_ampersand_is_accepted(
    host: PluginHost, tmp_path: Path, web: str
) -> None:
    result = ingest(host, tmp_path, f"<fetch>{web}/json?a=1&b=2</fetch>")
    assert result.ok
    assert f'addr="{web}/json?a=1&amp;b=2"' in result.text
    assert '\n{"a": 1}\n</context>' in result.text


def test_headers_as_attributes_or_sub_elements(host: PluginHost, tmp_path: Path, web: str) -> None:
    body = (
        f'<fetch user-agent="tai-test" referer="https://example.org/">{web}/headers</fetch>\n'
        f"<fetch addr='{web}/headers'><cookie>session=1</cookie></fetch>"
    )
    result = ingest(host, tmp_path, body)
    first, second = result.text.split("</context>\n\n")[:2]
    assert "User-Agent: tai-test\nReferer: https://example.org/\nCookie: None" in first
    assert "Referer: None\nCookie: session=1" in second


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("/binary", "[error: the content is application/octet-stream, not text; not included]"),
        ("/untyped-binary", "[error: the content is binary, not text; not included]"),
        ("/missing", "[error: HTTP 404 Not Found]"),
    ],
)
def test_binary_and_missing_pages_are_errors(
    host: PluginHost, tmp_path: Path, web: str, path: str, error: str
) -> None:
    result = ingest(host, tmp_path, f"<fetch>{web}{path}</fetch>")
    assert not result.ok
    assert result.text == f'<context type="fetch" addr="{web}{path}">\n{error}\n</context>\n\n'


def test_a_big_page_is_cut_with_a_note(host: PluginHost, tmp_path: Path, web: str) -> None:
    result = ingest(host, tmp_path, f"<fetch>{web}/big</fetch>", ingest_max_bytes=25)
    assert result.ok
    assert "\n0123456789012345678901234\n[cut: only the first 25 bytes are included]\n" in (
        result.text
    )


def test_a_slow_server_times_out(host: PluginHost, tmp_path: Path, web: str) -> None:
    result = ingest(host, tmp_path, f"<fetch>{web}/slow</fetch>", ingest_timeout=0.3)
    assert not result.ok
    assert "\n[error: timed out after 0.3 s]\n" in result.text


def test_a_refused_connection_is_an_error(
    host: PluginHost, tmp_path: Path, closed_port: int
) -> None:
    result = ingest(host, tmp_path, f"<fetch>http://127.0.0.1:{closed_port}/</fetch>")
    assert not result.ok
    assert "\n[error: ConnectError: " in result.text


@pytest.mark.parametrize("address", ["file:///etc/passwd", "ftp://example.org/x", "/etc/hosts"])
def test_only_http_and_https(host: PluginHost, tmp_path: Path, address: str) -> None:
    result = ingest(host, tmp_path, f"<fetch>{address}</fetch>")
    assert not result.ok
    assert f"[error: only http and https addresses are fetched, not '{address}']" in result.text
