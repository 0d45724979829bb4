"""Glob patterns as ``.gitignore`` spells them, turned into regular expressions.

One translation serves every place tai matches paths by pattern — ``protected_paths`` and
the built-in protected names of the store, ``secret_files`` and the secret names, the Go
provider's ``-ignore`` — so a pattern means the same everywhere: ``*`` and ``?`` stay
inside one path segment, ``**/`` spans any number of directories, ``**`` anything, and
``[…]`` is a character class (``[!…]``/``[^…]`` negated, never matching ``/``). Anchoring,
``!`` negation and a trailing ``/`` are the callers' business: they differ in what a match
means. Hand-written because tai-core takes no dependency for it (pathspec is tai-blocks'),
and because these callers match one pattern against one path, where a compiled regular
expression is the cheap way.
"""

from __future__ import annotations

import re


def _class(pattern: str, start: int) -> tuple[str, int] | None:
    """The regular expression of the ``[…]`` class at ``start`` and the index after it."""
    first = start + 1
    negated = pattern[first : first + 1] in ("!", "^")
    first += negated
    end = pattern.find("]", first + 1)  # a "]" right after the opening is literal
    if end < 0:
        return None
    inner = pattern[first:end].replace("\\", "\\\\")
    return f"[{'^/' if negated else ''}{inner}]", end + 1


def glob_to_regex(pattern: str) -> str:
    """The regular expression (unanchored text) of one glob ``pattern``."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        elif pattern[index] == "[" and (found := _class(pattern, index)) is not None:
            out.append(found[0])
            index = found[1]
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return "".join(out)
