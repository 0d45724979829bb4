"""The TLS context of the HTTP clients, built ahead on a thread of its own.

Building one costs ~50 ms at every start — the certificate bundle parsed and loaded — the
largest single cost between tai's start and its first request, and OpenSSL does that work
without holding the interpreter's lock. So a provider that speaks HTTP itself starts it
when its model is resolved (:func:`prepare`), before the context is collected, and the
client takes it at the first call (:func:`tls_context`): on a second core the two
overlap. One context per trust setting and process; a forked child builds its own (a
thread does not survive a fork). Certificates are found as httpx would find them: the
``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` of a trusted environment, else certifi's bundle.
"""

from __future__ import annotations

import os
import ssl
import threading


class _Build(threading.Thread):
    """One context being built; ``join`` then read ``context`` or ``error``."""

    def __init__(self, trust_env: bool) -> None:
        super().__init__(name="tai-tls", daemon=True)
        self.trust_env = trust_env
        self.context: ssl.SSLContext | None = None
        self.error: Exception | None = None

    def run(self) -> None:
        try:
            self.context = _create(self.trust_env)
        except Exception as error:  # noqa: BLE001 - raised again where the context is taken
            self.error = error


_builds: dict[bool, _Build] = {}
_lock = threading.Lock()


def _forget() -> None:
    """In a forked child: the builds were the parent's threads, which did not come along."""
    _builds.clear()


os.register_at_fork(after_in_child=_forget)


def _create(trust_env: bool) -> ssl.SSLContext:
    if trust_env and os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    if trust_env and os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


def prepare(trust_env: bool) -> None:
    """Start building the context of clients that do (or do not) trust the environment."""
    with _lock:
        if trust_env not in _builds:
            _builds[trust_env] = build = _Build(trust_env)
            build.start()


def tls_context(trust_env: bool) -> ssl.SSLContext:
    """The context, waiting for its build (started now when it was not); a failure of the
    build (an unreadable ``SSL_CERT_FILE``) is raised here."""
    prepare(trust_env)
    build = _builds[trust_env]
    build.join()
    if build.error is not None:
        raise build.error
    assert build.context is not None
    return build.context
