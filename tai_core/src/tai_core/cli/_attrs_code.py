"""attrs' generated methods compiled once, not at every start: the code kept like a ``.pyc``.

attrs writes the methods of each class it makes (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``) as Python source and compiles it when the class is defined, at import. That
is about half a millisecond a class, and ``tai next`` defines some 110 before its request
leaves: a sixth of its start. The console script (only it: an application that embeds
``tai_core`` keeps its attrs untouched) has attrs take the compiled code of each such
source from a file in tai's cache when the file holds it, and keeps what it compiled
there for the next start — what Python does for modules with ``__pycache__``.

What keeps it sound:

* The key is the generated source itself, compared in full, with attrs' file name for it;
  the value is what ``compile`` made of exactly that source. One part of the source
  differs from process to process: the ``hash()`` of the class's name that attrs writes
  into ``__hash__`` as a literal (string hashes are salted per process). It is taken out of
  the key, and the cached code keeps the literal of the process that compiled it, which is
  as good: a hash must be consistent within a process, and each class still has its own.
* attrs' private ``_compile_and_eval`` is replaced only when it has the signature this was
  written against (attrs 24 to 26); with any other attrs, attrs compiles as it always does.
* The file holds code that runs as tai, so it is trusted as a ``.pyc`` is: it is one of the
  launch directory's (:mod:`tai_core.config._launch_files`: read-only in the sandbox, read
  only when the user's alone, written whole), and read only by the interpreter that wrote
  it (``sys.version``: byte code changes between versions). The version of attrs does not
  matter: the key is all of the source.
* Anything wrong with it — missing, unreadable, foreign, corrupt — costs only the speed:
  attrs compiles, and the next write replaces the file. It is written by the processes
  that may write there: before the sandbox is entered (:func:`save`, from the command
  line) and at exit; inside the sandbox the write fails, and that is ignored. It keeps
  the entries of the latest starts, at most :data:`MAX_ENTRIES`, so a checkout whose
  classes change does not grow it without bound.
"""

from __future__ import annotations

import atexit
import marshal
import os
import sys
from types import CodeType
from typing import Any

from tai_core.config._launch_files import read_launch_file, write_launch_file

#: Bumped when the file's layout changes, so an old file is never read as a new one.
FORMAT = 1

#: Entries kept in the file: tai has some 180 classes of attrs, so this is every class of
#: every command several times over (a checkout whose classes change), and still a file
#: read in a millisecond or two.
MAX_ENTRIES = 600

#: The argument names of ``attr._make._compile_and_eval`` this replaces (attrs 24 to 26).
_SIGNATURE = ("script", "globs", "locs", "filename")

#: attrs' file names for the methods of a class and for its hash's type literal.
_METHODS = "<attrs generated methods "
_HASH = "<attrs generated hash "
_TYPE_HASH = "TYPE_HASH"

Key = tuple[str, str]


class _Cache:
    """The entries read from ``path`` and those compiled since, in the order last used."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.entries: dict[Key, bytes] = _read(path)
        self.used: dict[Key, bytes] = {}
        self.hits = 0
        self.misses = 0
        self.unsaved = False

    def compile(self, script: str, filename: str) -> CodeType:
        """The code of ``script``: the kept one when there is one, else newly compiled."""
        key = (_without_type_hash(script, filename), filename)
        kept = self.entries.get(key)
        code = _code(kept) if kept is not None else None
        if code is not None:
            self.hits += 1
            self.used[key] = kept
            return code
        code = compile(script, filename, "exec")
        self.misses += 1
        self.unsaved = True
        self.used[key] = marshal.dumps(code)
        return code

    def save(self) -> None:
        """Write the entries (those used last), when some were compiled since the last
        write; a failure is ignored (the sandbox, a read-only or full disk)."""
        if not self.unsaved:
            return
        from pathlib import Path  # loaded by then in every run that writes

        folder = Path(self.path).parent
        if folder.is_dir() and not os.access(folder, os.W_OK):
            return  # the sandbox's read-only view: not even the modules a write imports
        kept = {key: code for key, code in self.entries.items() if key not in self.used}
        kept.update(self.used)
        entries = dict(list(kept.items())[-MAX_ENTRIES:])
        data = marshal.dumps((FORMAT, sys.version, entries))
        try:
            write_launch_file(self.path, data)
        except OSError:
            return
        self.entries, self.unsaved = entries, False


def _code(kept: object) -> CodeType | None:
    """The code an entry holds (each is unmarshalled when used: a start needs a fraction
    of them), or ``None`` when it holds none."""
    try:
        code = marshal.loads(kept) if type(kept) is bytes else None
    except (ValueError, EOFError, TypeError):
        return None
    return code if type(code) is CodeType else None


def _without_type_hash(script: str, filename: str) -> str:
    """``script`` with the per-process literal of its class's type hash taken out."""
    if not filename.startswith(_METHODS) or not filename.endswith(">"):
        return script
    name = filename[len(_METHODS) : -1]
    base, dash, count = name.rpartition("-")  # attrs numbers a repeated name "Name-1"
    if dash and count.isdigit():
        name = base
    return script.replace(str(hash(f"{_HASH}{name}>")), _TYPE_HASH)


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


_active: _Cache | None = None


def install(path: str) -> bool:
    """Have attrs take compiled code from (and keep it in) the file at ``path``; False when
    this attrs is not one it knows how to (then nothing changes)."""
    global _active  # noqa: PLW0603 - one cache per process, installed by the console script
    if _active is not None:
        return True
    from attr import _make

    original = getattr(_make, "_compile_and_eval", None)
    code = getattr(original, "__code__", None)
    if code is None or code.co_argcount != len(_SIGNATURE):
        return False
    if code.co_varnames[: len(_SIGNATURE)] != _SIGNATURE:
        return False
    cache = _Cache(path)

    def compile_and_eval(script: str, globs: dict[str, Any] | None,
                         locs: Any = None, filename: str = "") -> None:  # fmt: skip
        eval(cache.compile(script, filename), globs, locs)

    _make._compile_and_eval = compile_and_eval  # type: ignore[assignment]
    _active = cache
    atexit.register(cache.save)
    return True


def save() -> None:
    """Write what was compiled so far, if anything (before the sandbox makes the cache
    read-only)."""
    if _active is not None:
        _active.save()


def counts() -> tuple[int, int]:
    """Classes whose code came from the file, and classes compiled, in this process."""
    return (0, 0) if _active is None else (_active.hits, _active.misses)
