"""A pytest plugin of every pytest run of a mutation run (scripts/mutation.py): empties
tai's memoised functions when a session starts.

mutmut runs the clean tests in its own process and then forks one worker per mutant from
it, so whatever ``functools.cache`` remembered from the clean run is remembered in every
worker: a mutant of a function called only through a cached one (``policy._tokens`` over
``_words.leaves``) was never run and survived, whatever the tests said. A session of a
worker starts from empty caches instead, as a process of its own would.
"""

from __future__ import annotations

import sys

import pytest

#: The prefixes of tai's own packages (tai_core, tai_sandbox, tai_kind_shell, …).
_PREFIX = "tai"


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    for name, module in list(sys.modules.items()):
        if module is None or not name.partition(".")[0].startswith(_PREFIX):
            continue
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and getattr(value, "__module__", None) == name:
                clear()
