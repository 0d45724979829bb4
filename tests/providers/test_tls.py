"""The clients' TLS context, built ahead on a thread (``tai_provider_kit._tls``): resolving
a model of a provider that speaks HTTP starts it, the first call takes it, a failure of
the build is the caller's, and a forked child builds its own."""

from __future__ import annotations

import os
import ssl
from pathlib import Path

import pytest

from tai_provider_kit import _tls


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_tls, "_builds", {})


def test_resolving_a_model_starts_the_build(resolve, providers) -> None:
    spec = resolve("openai:gpt-4o", environ={"OPENAI_API_KEY": "k"})
    assert not spec.no_proxy and set(_tls._builds) == {True}
    context = _tls.tls_context(True)
    assert context is _tls.tls_context(True)
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def test_a_provider_that_does_not_speak_http_starts_nothing(resolve, tmp_path: Path) -> None:
    transcript = tmp_path / "t.replay"
    transcript.write_text("@@@ reply\nhi\n")
    resolve(f"replay:{transcript}")
    assert _tls._builds == {}


def test_an_unreadable_certificate_file_fails_where_the_context_is_taken(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    _tls.prepare(True)
    with pytest.raises(OSError):
        _tls.tls_context(True)
    assert _tls.tls_context(False).verify_mode == ssl.CERT_REQUIRED  # not trusted: certifi


def test_a_forked_child_builds_its_own() -> None:
    # the parent's build has ended before the fork: a fork while the building thread holds
    # a lock (OpenSSL's, an import's) leaves that lock held for good in the child
    assert _tls.tls_context(True).check_hostname
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        os.close(reader)
        ok = _tls._builds == {} and _tls.tls_context(True).check_hostname
        os.write(writer, b"1" if ok else b"0")
        os._exit(0)
    os.close(writer)
    answer = os.read(reader, 1)
    os.waitpid(child, 0)
    assert answer == b"1"
