"""Which packages and files a context shows, and the key that orders them.

Filters: ``go.hidden`` drops packages (an exact path, or ``base/...`` for a subtree);
``-ignore`` exclusions drop files (a ``**`` glob on the path relative to the load
directory — or with its leading ``../`` removed —, a plain pattern also as a directory
prefix, a pattern without ``/`` also on the base name); ``-match`` keeps only files one of
its regular expressions finds in the path.

The key that orders parts inside a tier is :func:`tai_staging.sort_key`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from tai_core.patterns import glob_to_regex

#: Package categories, in priority order.
FOCUS, CONTEXT, SAME_MODULE, DIRECT_IMPORT, STDLIB, OTHER_MODULE = range(6)


def hidden(path: str, patterns: Iterable[str]) -> bool:
    """Whether ``go.hidden`` hides package ``path``."""
    for pattern in patterns:
        base = pattern.removesuffix("/...")
        if path == base or (pattern.endswith("/...") and path.startswith(base + "/")):
            return True
    return False


@lru_cache(maxsize=256)
def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile(glob_to_regex(pattern) + r"\Z")


def excluded(path: str, root: Path, patterns: Sequence[str]) -> bool:
    """Whether an exclusion pattern drops file ``path`` (absolute) of a load in ``root``."""
    relative = os.path.relpath(path, root).replace(os.sep, "/")
    names = {relative, re.sub(r"^(\.\./)+", "", relative)}
    for raw in patterns:
        pattern = raw.removeprefix("!").removeprefix("./").rstrip("/")
        if not pattern:
            continue
        for name in names:
            if _glob(pattern).match(name) or name.startswith(pattern + "/"):
                return True
        if "/" not in pattern and _glob(pattern).match(Path(path).name):
            return True
    return False
