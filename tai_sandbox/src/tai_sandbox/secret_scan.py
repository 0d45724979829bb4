"""The ``secrets`` plugin: withhold files whose content holds a credential.

Names catch most secret files (the core's rules); this plugin catches the rest — a
``config.yaml`` or a test fixture with an AWS key, a script with a GitHub token — by
scanning the bytes that are about to be sent (``tai_secret_file`` with ``data``). It is a
policy (what may leave the machine), so it lives beside the other policies, and it is its
own plugin: ``-p no:secrets`` turns content scanning off and leaves the name rules on.

Why detect-secrets, and only some of its plugins. detect-secrets (Yelp) is the maintained
detector with a precise pattern per credential format; writing our own would mean
maintaining that list. Its default set is wrong for this use, measured on 400 kB of
ordinary Python source (this repository's): ``scan_file`` with the default plugins and
filters takes about 2 s (its per-line filter machinery), and its noisy plugins flag code
that holds no secret — the keyword plugin withheld tai's own configuration schema (it
names ``api_key``), the high-entropy-string plugins flag quoted hashes (lock files,
checksums, test vectors), and a withheld source file is a file the model cannot work on.
So only the plugins that match a credential's *format* are used — private-key headers,
AWS access keys, GitHub, GitLab, Slack, Stripe, OpenAI, PyPI, npm, SendGrid, Twilio,
Discord and Azure storage keys, JSON web tokens, and passwords in URLs
(``scheme://user:password@host``) — each regular expression run over the whole text (no
per-line filters). That costs about 35 ms per 400 kB after an import of about 160 ms,
paid once per process and only when a file is scanned (never at start-up). Left out as
too slow for what they catch (each costs 10 to 70 ms per 400 kB): IBM Cloud, Artifactory,
Mailchimp, Telegram; left out as noisy: keyword, high-entropy strings, IP addresses.
``go.sum``, ``uv.lock`` and ``package-lock.json`` hold hashes, never a credential format,
so they are sent.

A line that carries detect-secrets' own marker ``pragma: allowlist secret`` (or follows a
``pragma: allowlist nextline secret`` line) is not a finding: the escape hatch for a
fixture that looks like a key and is not. Results are cached by the content's digest, so
goal loops that collect the same files again scan nothing twice, and kept across runs,
signed (:mod:`._verdicts`), so an unchanged project is not scanned at all.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from functools import cache
from typing import Any

from tai_core import hookimpl

#: The detect-secrets plugins used: ``(module, class)`` under ``detect_secrets.plugins``.
PLUGINS = (
    ("private_key", "PrivateKeyDetector"),
    ("aws", "AWSKeyDetector"),
    ("github_token", "GitHubTokenDetector"),
    ("gitlab_token", "GitLabTokenDetector"),
    ("slack", "SlackDetector"),
    ("stripe", "StripeDetector"),
    ("openai", "OpenAIDetector"),
    ("pypi_token", "PypiTokenDetector"),
    ("npm", "NpmDetector"),
    ("sendgrid", "SendGridDetector"),
    ("twilio", "TwilioKeyDetector"),
    ("discord", "DiscordBotTokenDetector"),
    ("azure_storage_key", "AzureStorageKeyDetector"),
    ("jwt", "JwtTokenDetector"),
    ("basic_auth", "BasicAuthDetector"),
)
#: Digests of scanned contents kept (each entry is a digest and a short reason).
CACHE_ENTRIES = 8192
_cache: dict[bytes, str | None] = {}
_lock = threading.Lock()


@cache
def _detectors() -> tuple[Any, ...]:
    import importlib

    return tuple(
        getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)()
        for module, name in PLUGINS
    )


def _allowlisted(path: str, text: str, secret: str) -> bool:
    """True when every line that holds ``secret`` carries an allowlist pragma."""
    from detect_secrets.filters.allowlist import is_line_allowlisted
    from detect_secrets.util.code_snippet import get_code_snippet

    lines = text.splitlines()
    numbers = [number for number, line in enumerate(lines, 1) if secret in line]
    return bool(numbers) and all(
        is_line_allowlisted(path, lines[number - 1], get_code_snippet(lines, number))
        for number in numbers
    )


def find_secret(path: str, text: str) -> str | None:
    """The type of the first credential found in ``text`` (detect-secrets' name for it,
    e.g. ``"AWS Access Key"``), or ``None``."""
    for detector in _detectors():
        for secret in detector.analyze_string(text):
            if not _allowlisted(path, text, secret):
                return str(detector.secret_type)
    return None


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeio" else "a"


@hookimpl
def tai_secret_file(path: str, data: bytes | None, config: Mapping[str, Any]) -> str | None:
    """Why ``data`` must not be sent: the credential it holds (never its value)."""
    del config
    if not data:
        return None
    digest = hashlib.blake2b(data, digest_size=16).digest()
    with _lock:
        if digest in _cache:
            return _cache[digest]
    from tai_sandbox import _verdicts

    key = _verdicts.key_of(repr(PLUGINS), path, data)
    kept = _verdicts.recall(key)
    if kept is None:
        found = find_secret(path, data.decode("utf-8", "replace"))
        _verdicts.keep(key, found or _verdicts.CLEAN)
    else:
        found = None if kept == _verdicts.CLEAN else kept
    reason = f"holds what looks like {_article(found)} {found}" if found else None
    with _lock:
        if len(_cache) >= CACHE_ENTRIES:
            _cache.clear()
        _cache[digest] = reason
    return reason
