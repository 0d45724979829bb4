"""Imported by every Python process of a mutation run (scripts/mutation.py puts this
directory first on PYTHONPATH): what a child process does while mutmut records which
tests reach which function.

mutmut's recording mode (``MUTANT_UNDER_TEST=stats``) works only in mutmut's own process.
A child started by a test would try to record into a mutmut that has no configuration
there, so by default it runs the original code. In the hits pass of the script
(``TAI_MUTATION_HITS`` names a file) every process, children and forks included, appends
instead one line per new (test, function) pair it reaches to that file; the test is the
one ``tai_mutation_hits`` names in ``TAI_MUTATION_TEST``.
"""

from __future__ import annotations

import os
from pathlib import Path

if os.environ.get("MUTANT_UNDER_TEST") == "stats":
    if os.environ.get("TAI_MUTATION_HITS"):
        import mutmut.mutation.trampoline as _trampoline

        _seen: set[tuple[str, str]] = set()

        def _record(name: str, caller: str | None = None) -> None:
            pair = (os.environ.get("TAI_MUTATION_TEST", ""), name)
            if pair not in _seen:
                _seen.add(pair)
                with Path(os.environ["TAI_MUTATION_HITS"]).open("a", encoding="utf-8") as hits:
                    hits.write(f"{pair[0]}\t{name}\n")

        _trampoline.record_trampoline_hit = _record
    else:
        os.environ["MUTANT_UNDER_TEST"] = ""
