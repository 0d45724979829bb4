"""One bounded HTTP GET for ingest's ``<fetch>``: text only, limited in size and time."""

from __future__ import annotations

import time
from collections.abc import Mapping
from urllib.parse import urlsplit

from tai_text._text import SNIFF_BYTES

_TEXT_SUBTYPES = ("json", "xml", "javascript", "ecmascript", "yaml", "toml", "csv", "markdown")


def _is_text_type(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind.endswith(_TEXT_SUBTYPES)


def fetch(
    url: str, headers: Mapping[str, str], *, max_bytes: int, timeout: float
) -> tuple[bool, str]:
    """``(ok, text)``: the page's text (cut at ``max_bytes`` with a note), or an
    ``[error: …]`` line. ``timeout`` bounds the whole transfer, not only each read."""
    import httpx

    scheme = urlsplit(url).scheme
    if scheme not in ("http", "https"):
        return False, f"[error: only http and https addresses are fetched, not {url!r}]"
    deadline = time.monotonic() + timeout
    late = f"[error: timed out after {timeout:g} s]"
    chunks: list[bytes] = []
    size = 0
    try:
        with (
            httpx.Client(timeout=timeout, follow_redirects=True, headers=dict(headers)) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code >= 400:
                return False, f"[error: HTTP {response.status_code} {response.reason_phrase}]"
            content_type = response.headers.get("content-type", "")
            if content_type and not _is_text_type(content_type):
                return False, f"[error: the content is {content_type}, not text; not included]"
            for chunk in response.iter_bytes():
                if time.monotonic() > deadline:
                    return False, late
                chunks.append(chunk)
                size += len(chunk)
                if size > max_bytes:
                    break
            encoding = response.encoding or "utf-8"
    except httpx.TimeoutException:
        return False, late
    except httpx.HTTPError as error:
        return False, f"[error: {type(error).__name__}: {error}]"
    data = b"".join(chunks)
    if b"\0" in data[:SNIFF_BYTES]:
        return False, "[error: the content is binary, not text; not included]"
    text = data[:max_bytes].decode(encoding, errors="replace")
    if size > max_bytes:
        text += f"\n[cut: only the first {max_bytes} bytes are included]"
    return True, text
