"""Code a start compiles, compiled once and kept for the next: like ``__pycache__`` for what
Python compiles at run time.

Three kinds of work at every start of ``tai next`` compile the same input to the same
output, and each takes a part of the start the byte code of tai's modules no longer does
(measured before this cache kept them; a start to its request was some 250 ms):

* **attrs' generated methods** — attrs writes ``__init__``, ``__repr__``, ``__eq__`` and
  ``__hash__`` of each class as Python source and compiles it: about half a millisecond a
  class, and some 110 classes (tai's, and attrs' own validators) are defined before the
  request leaves;
* **dataclasses' generated methods** — the same for the standard library's dataclasses
  (h11's events, the HTTP protocol's): ~5 ms;
* **regular expressions** — ``re`` parses a pattern and compiles it to the program its C
  engine runs, in Python, for every pattern a module compiles at import: some 70 of
  them, ~10 to 20 ms (the secret-name rules, tomllib's, logging's, gettext's, h11's).

The console script (only it: an application that embeds ``tai_core`` keeps its modules as
they are) has each take its result from a file in tai's cache when the file holds it, and
keeps what it compiled there for the next start (:mod:`._kept_sources` says how each
source is hooked).

What keeps it sound:

* The key is the whole input (the generated source with its file name, or the pattern
  with its flags), compared in full; the value is what compiling exactly that input made.
  One part of attrs' source differs between processes — the ``hash()`` of the class name
  it writes into ``__hash__`` as a literal (string hashes are salted per process): it is
  taken out of the key, and the kept code keeps the literal of the process that compiled
  it, which is as good (a hash must be consistent within a process, and each class still
  has its own).
* Each source is hooked only when it has the shape this was written against; otherwise
  it compiles as it always does.
* The file holds code that runs as tai and the programs its regular expressions run, so
  it is trusted as a ``.pyc`` is: it is one of the launch directory's
  (:mod:`tai_core.config._launch_files`: read-only in the sandbox, read only when the
  user's alone, written whole), and read only by the interpreter that wrote it
  (``sys.version``: byte code and the regular-expression engine change between versions).
* Anything wrong with it — missing, unreadable, foreign, corrupt — costs only the speed:
  the input is compiled, and the next write replaces the file. It is written by the
  processes that may write there: before the sandbox is entered (:func:`save`, from the
  command line) and at exit; inside the sandbox the write fails, and that is ignored. It
  keeps the entries of the latest starts, at most :data:`MAX_ENTRIES`, so a checkout whose
  classes change does not grow it without bound.
"""

from __future__ import annotations

import atexit
import marshal
import os
import sys
from collections.abc import Callable
from typing import Any

from tai_core.config._launch_files import read_launch_file, write_launch_file

#: Bumped when the file's layout changes, so an old file is never read as a new one.
FORMAT = 2

#: Entries kept in the file: a start of ``tai next`` uses some 250 (classes and
#: patterns), so this is every command's several times over (a checkout whose classes
#: change), and still a file read in a millisecond or two.
MAX_ENTRIES = 1500

#: What an entry is kept under: the source's kind, its input, and the input's qualifier
#: (attrs' file name, a pattern's flags).
Key = tuple[str, "str | bytes", "str | int"]


class Kept:
    """The entries read from ``path`` and those made since, in the order last used."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.entries: dict[Key, bytes] = _read(path)
        self.used: dict[Key, bytes] = {}
        self.hits: dict[str, int] = {}
        self.misses: dict[str, int] = {}
        self.unsaved = False

    def get(self, key: Key, make: Callable[[], Any], use: Callable[[Any], Any]) -> Any:
        """``use`` of the value kept under ``key`` when there is one it accepts (it raises
        :class:`ValueError` or :class:`TypeError` for one it does not), else of what
        ``make`` returns, which is kept for the next start."""
        data = self.entries.get(key)
        if data is not None:
            try:
                result = use(_loaded(data))
            except (ValueError, TypeError, RuntimeError):  # RuntimeError: invalid SRE code
                pass
            else:
                self.hits[key[0]] = self.hits.get(key[0], 0) + 1
                self.used[key] = data
                return result
        value = make()
        result = use(value)
        self.misses[key[0]] = self.misses.get(key[0], 0) + 1
        self.unsaved = True
        self.used[key] = marshal.dumps(value)
        return result

    def save(self) -> None:
        """Write the entries (those used last), when some were made since the last
        write; a failure is ignored (the sandbox, a read-only or full disk)."""
        if not self.unsaved:
            return
        from pathlib import Path  # loaded by then in every run that writes

        folder = Path(self.path).parent
        if folder.is_dir() and not os.access(folder, os.W_OK):
            return  # the sandbox's read-only view: not even the modules a write imports
        kept = {key: data for key, data in self.entries.items() if key not in self.used}
        kept.update(self.used)
        entries = dict(list(kept.items())[-MAX_ENTRIES:])
        data = marshal.dumps((FORMAT, sys.version, entries))
        try:
            write_launch_file(self.path, data)
        except OSError:
            return
        self.entries, self.unsaved = entries, False


def _loaded(data: object) -> Any:
    """What an entry holds (each is unmarshalled when used: a start needs a fraction of
    them), or ``None`` when it holds nothing readable."""
    try:
        return marshal.loads(data) if type(data) is bytes else None
    except (ValueError, EOFError, TypeError):
        return None


def _read(path: str) -> dict[Key, bytes]:
    """The entries of the file at ``path``, or none when it is not one tai may trust."""
    data = read_launch_file(path)
    try:
        kept = marshal.loads(data) if data is not None else None
    except (ValueError, EOFError, TypeError):
        return {}
    if not (isinstance(kept, tuple) and len(kept) == 3 and kept[:2] == (FORMAT, sys.version)):
        return {}
    return kept[2] if isinstance(kept[2], dict) else {}


_active: Kept | None = None


def install(path: str) -> list[str]:
    """Have attrs, dataclasses and ``re`` take what they compile from (and keep it in) the
    file at ``path``; the sources hooked (a source of a shape this does not know is left
    as it is)."""
    global _active  # noqa: PLW0603 - one file per process, installed by the console script
    if _active is not None:
        return []
    from tai_core.cli._kept_sources import hook_all

    _active = Kept(path)
    atexit.register(_active.save)
    return hook_all(_active)


def save() -> None:
    """Write what was compiled so far, if anything (before the sandbox makes the file
    read-only)."""
    if _active is not None:
        _active.save()


def counts(kind: str) -> tuple[int, int]:
    """Results of the source ``kind`` (``attrs``, ``exec``, ``re``) taken from the file, and
    those compiled, in this process."""
    if _active is None:
        return (0, 0)
    return (_active.hits.get(kind, 0), _active.misses.get(kind, 0))
