"""The requests of an ingest block: ``<file>``, ``<glob>`` and ``<fetch>``.

The body is read as XML fragments inside one root element. Each request's target is its
text or, as in the original's ``request-context`` blocks, its attribute (``path``,
``pattern``, ``addr``). ``<fetch>`` takes the optional headers ``user-agent``,
``referer`` and ``cookie`` as attributes or as sub-elements::

    <fetch user-agent="tai">https://example.org/a?b=1&c=2</fetch>
    <fetch>https://example.org/<cookie>session=1</cookie></fetch>

A bare ``&`` (common in URLs) is read as ``&amp;``. Every request answers with one
``<context>`` element (its content, or an ``[error: …]`` line); a body that is not
well-formed answers ``[ingest parse error: …]`` alone.

Secret files (``tai_secret_file``) are never read out: ``<file>`` of one is refused with
the reason (judged by its name, its real path when it is a link, and its content), and
``<glob>`` lists it by name with the mark :data:`WITHHELD_MARK`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tai_core.context import hook_check, judged
from tai_core.plugins import PluginHookError
from tai_core.store import shown_path as shown_path_text
from tai_text._fetch import fetch
from tai_text._text import decode_text, read_data
from tai_text._walk import Ignores, PatternError, Walker, shown_path

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

    from tai_core import RunContext

#: Defaults of the configuration keys ``ingest_max_bytes`` and ``ingest_timeout``.
DEFAULT_MAX_BYTES = 1_000_000
DEFAULT_TIMEOUT = 20.0
#: Most entries a ``<glob>`` lists.
MAX_GLOB_ENTRIES = 500
#: What follows the name of a secret file in a ``<glob>`` listing.
WITHHELD_MARK = " (withheld: secret)"

_HEADERS = ("user-agent", "referer", "cookie")
_TARGET_ATTRIBUTE = {"file": "path", "glob": "pattern", "fetch": "addr"}
_BARE_AMPERSAND = re.compile(r"&(?!(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#x[0-9A-Fa-f]+);)")


class Refused(Exception):
    """A request that is not served; the message says why."""


def _parse(body: str) -> list[Element]:
    from xml.etree.ElementTree import fromstring

    return list(fromstring(f"<ingest>{_BARE_AMPERSAND.sub('&amp;', body)}</ingest>"))


def _target(request: Element) -> str:
    attribute = _TARGET_ATTRIBUTE.get(request.tag, "")
    return (request.get(attribute) or request.text or "").strip()


def _project_file(name: str, context: RunContext) -> tuple[Path, str]:
    """The file ``name`` names inside the project, and its path relative to the project."""
    root = context.cwd
    if not name:
        raise Refused("no path given")
    real_root = root.resolve()
    path = Path(os.path.normpath(root / name))
    if not path.is_relative_to(root) and path.is_relative_to(real_root):
        path = root / path.relative_to(real_root)  # the project named by its real path
    if not path.is_relative_to(root):
        where = "is outside the project" if Path(name).is_absolute() else "leads outside it"
        raise Refused(f"{name} {where} ({root}); only project files are read")
    real = path.resolve()
    if not real.is_relative_to(real_root):
        raise Refused(f"{name} is a symbolic link leading outside the project (to {real})")
    relative = path.relative_to(root).as_posix()
    try:
        answer = context.hook.tai_path_policy(path=relative, operation="read")
    except PluginHookError as error:  # a policy that cannot answer refuses
        raise Refused(f"{name}: {error}") from None
    if answer is not None and not answer[0]:
        raise Refused(f"{name}: {answer[1]}")
    if real.is_dir():
        raise Refused(f"{name} is a directory; list it with <glob>{relative}/**</glob>")
    if not real.is_file():
        raise Refused(f"no such file: {name}")
    return real, relative


def _file(name: str, context: RunContext, max_bytes: int) -> str:
    path, relative = _project_file(name, context)
    secret = hook_check(context.hook, context.config)
    real = shown_path(path, context.cwd.resolve())
    reason = judged(secret, relative, real)
    try:
        data = None if reason else read_data(path)
    except OSError as error:
        raise Refused(f"{name}: {error.strerror}") from None
    text = None if data is None else decode_text(data)
    if not reason and data is not None and text is not None:
        reason = secret(relative, data)
    if reason:
        raise Refused(f"{name} is withheld as a secret ({reason}); its content is never sent")
    if data is not None and text is None:  # no NUL in its head: text, in another encoding
        raise Refused(f"{name} is not UTF-8 text ({len(data)} bytes); content omitted")
    if text is None:
        raise Refused(f"{name} is binary ({path.stat().st_size} bytes); content omitted")
    data = text.encode("utf-8")
    if len(data) > max_bytes:
        cut = data[:max_bytes].decode("utf-8", errors="ignore")
        return f"{cut}\n[cut: only the first {max_bytes} bytes are included]"
    return text


def _glob(pattern: str, context: RunContext) -> str:
    walker = Walker(context.cwd, Ignores(context.cwd))
    try:
        found = walker.expand(pattern)
    except PatternError as error:
        raise Refused(str(error)) from None
    secret = hook_check(context.hook, context.config)
    real_root = context.cwd.resolve()
    names = [
        item.shown
        + (
            WITHHELD_MARK
            if judged(secret, item.shown, shown_path(item.path.resolve(), real_root))
            else ""
        )
        for item in found[:MAX_GLOB_ENTRIES]
    ]
    if len(found) > MAX_GLOB_ENTRIES:
        more = len(found) - MAX_GLOB_ENTRIES
        names.append(f"[… {more} more not listed; narrow the pattern]")
    return "\n".join(names)


def _fetch(request: Element, config: Mapping[str, Any]) -> tuple[bool, str]:
    headers = {}
    for header in _HEADERS:
        child = request.find(header)
        value = request.get(header) or (child.text if child is not None else None)
        if value:
            headers[header] = value.strip()
    return fetch(
        _target(request),
        headers,
        max_bytes=int(config.get("ingest_max_bytes", DEFAULT_MAX_BYTES)),
        timeout=float(config.get("ingest_timeout", DEFAULT_TIMEOUT)),
    )


def _answer(request: Element, context: RunContext) -> tuple[bool, str]:
    target = _target(request)
    try:
        if request.tag == "file":
            max_bytes = int(context.config.get("ingest_max_bytes", DEFAULT_MAX_BYTES))
            return True, _file(target, context, max_bytes)
        if request.tag == "glob":
            return True, _glob(target, context)
        if request.tag == "fetch":
            return _fetch(request, context.config)
    except Refused as refusal:
        return False, f"[error: {refusal}]"
    except OSError as error:  # a name or path too long for the file system, a loop of links
        return False, f"[error: {shown_path_text(target)}: {error.strerror}]"
    return False, f"[error: unknown request <{request.tag}>; use <file>, <glob> or <fetch>]"


def _quote(value: str) -> str:
    """``value`` as the text of a double-quoted XML attribute."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")


def _element(request: Element, content: str) -> str:
    attribute = _TARGET_ATTRIBUTE.get(request.tag)
    where = f' {attribute}="{_quote(_target(request))}"' if attribute else ""
    return f'<context type="{_quote(request.tag)}"{where}>\n{content}\n</context>\n\n'


def run_ingest(body: str, context: RunContext) -> tuple[bool, str]:
    """``(ok, text)`` for an ingest block's ``body``: every request's ``<context>``
    element in order; ``ok`` is false when a request failed or the body is malformed."""
    from xml.etree.ElementTree import ParseError

    try:
        requests = _parse(body)
    except ParseError as error:
        return False, f"[ingest parse error: {error}]"
    ok = True
    parts = []
    for request in requests:
        served, content = _answer(request, context)
        ok = ok and served
        parts.append(_element(request, content.removesuffix("\n")))
    return ok, "".join(parts)
