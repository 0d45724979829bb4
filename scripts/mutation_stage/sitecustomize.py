"""Imported by every Python process of a mutation run (scripts/mutation.py puts this
directory first on PYTHONPATH): what a child process does while mutmut records which
tests reach which function.

mutmut's recording mode (``MUTANT_UNDER_TEST=stats``) works only in mutmut's own process.
A child started by a test would try to record into a mutmut that has no configuration
there, so by default it runs the original code. In the hits pass of the script
(``MUTATION_HITS`` names a file) every process, forks and children included, appends
instead one line per new (test, function) pair it reaches to that file; the test is the
one ``tai_mutation_hits`` names in ``MUTATION_TEST``. The file is opened when the process
starts and written through that descriptor, which a fork inherits: a process that has
entered the sandbox, where the file is out of sight, still records. (The variables do not
start with ``TAI_``: the tests' environments drop those.)
"""

from __future__ import annotations

import contextlib
import os

if os.environ.get("MUTANT_UNDER_TEST") == "stats":
    if os.environ.get("MUTATION_HITS"):
        import mutmut.mutation.trampoline as _trampoline

        _seen: set[tuple[str, str]] = set()
        try:
            _fd: int | None = os.open(
                os.environ["MUTATION_HITS"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666
            )
        except OSError:
            _fd = None

        def _record(name: str, caller: str | None = None) -> None:
            pair = (os.environ.get("MUTATION_TEST", ""), name)
            if pair not in _seen and _fd is not None:
                _seen.add(pair)
                with contextlib.suppress(OSError):
                    os.write(_fd, f"{pair[0]}\t{name}\n".encode())

        _trampoline.record_trampoline_hit = _record
    else:
        os.environ["MUTANT_UNDER_TEST"] = ""
