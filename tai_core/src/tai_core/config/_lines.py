"""Where in a TOML file a key is set: the line a configuration error points to.

``tomllib`` keeps no positions, and a message that says only "tai.toml: key
'plugins.note.max'" leaves the user searching a long file. This finds the line by reading
the file's structure line by line — table headers (``[a.b]``, ``[[a]]`` counted per
array), dotted and quoted keys — which is all a configuration file uses. A key set inside
an inline table (``note = { max = 3 }``) is found at the line of the nearest enclosing key
it can see. Used only when there is an error to show.
"""

from __future__ import annotations

import re
from pathlib import Path

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_SEGMENT_TEXT = r"[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'"
_KEY = re.compile(rf"^\s*((?:{_SEGMENT_TEXT})(?:\s*\.\s*(?:{_SEGMENT_TEXT}))*)\s*=")
_SEGMENT = re.compile(_SEGMENT_TEXT)


def _segments(dotted: str) -> list[str]:
    return [part.strip("\"'") for part in _SEGMENT.findall(dotted)]


def _target(key: str) -> list[str]:
    """``generators[1].model`` -> ``["generators[1]", "model"]``."""
    return [part for part in re.split(r"\.(?![^\[]*\])", key) if part]


def line_of(text: str, key: str) -> int | None:
    """The line (1-based) of ``text`` where ``key`` (dotted, with ``[index]`` for an
    array of tables: ``generators[1].model``) is set, or where its nearest enclosing key
    or table is; ``None`` when none of it is in ``text``."""
    target = _target(key)
    arrays: dict[str, int] = {}
    table: list[str] = []
    best: tuple[int, int] | None = None  # (matched segments, line)
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            names = _segments(header.group(2))
            if header.group(1) == "[[":
                path = ".".join(names)
                arrays[path] = arrays.get(path, -1) + 1
                names = [*names[:-1], f"{names[-1]}[{arrays[path]}]"]
            table = names
            full = table
        else:
            found = _KEY.match(line)
            if not found:
                continue
            full = [*table, *_segments(found.group(1))]
        matched = _common(full, target)
        if matched == len(full) and (best is None or matched > best[0]):
            best = (matched, number)
            if matched == len(target):
                return number
    return best[1] if best else None


def _common(path: list[str], target: list[str]) -> int:
    count = 0
    for mine, wanted in zip(path, target, strict=False):
        if mine != wanted:
            break
        count += 1
    return count


def located(path: Path, key: str, text: str | None = None) -> str | None:
    """``path:LINE`` of the line of the file ``path`` (its ``text``, when already read) that
    sets ``key``, or ``None`` when the file cannot be read or does not set it."""
    if text is None:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    line = line_of(text, key)
    return None if line is None else f"{path}:{line}"
