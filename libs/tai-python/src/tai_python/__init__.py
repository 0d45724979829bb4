"""The Python context: staged, outline-first, prefix-stable — and the snapshot py-src reads.

*Staged context, as for Go.* The first request is an outline, not the code: each focus
module enters as a stub-like outline — its docstring (its theory, kept whole), ``__all__``,
classes with their bases and decorators, functions and methods with their full signatures
and docstrings, module- and class-level assignments, theory constants whole — with no
function bodies; a test module as the names of its tests and fixtures; each directory of
the focus with the names of its other files. The model pulls implementation source with
``py-src`` blocks naming what it can see, and other files with ``ingest``. The project
modules the focus imports are context at a visibility level within the token budget and
the model's window, by the rules every language shares (:mod:`tai_staging`); third-party
imports are named with the version the project's environment has installed.

*Never import the project.* Everything is read from the files' bytes by a parser,
tree-sitter-python (:mod:`._summary` says why it and not :mod:`ast`: a cold load is mostly
parsing, and it parses twice as fast): no module of the project runs, so loading has no
side effects and needs none of the project's dependencies installed. Summaries are cached
by content (:mod:`._cache`, JSON, never pickle), so an unchanged module is parsed once
across runs.

*Prefix stability.* Parts are placed by ``(tier, key)``: the project's description and
third-party imports first, context modules next, the focus last, ordered inside a tier by
git change counts, import distance and names — never discovery order or timing — so
editing a focus module's body changes no byte before the focus part.

*Secrets never enter the snapshot.* Every file is judged by the ``tai_secret_file`` hook by
name before it is read and by content after; a withheld file is in no part and no
``py-src`` answer, and is named in the prompt's closing list.

*Why the snapshot.* ``py-src`` answers from the tree as the model saw it before its round's
changes: the bytes a load read are kept per working directory for the process
(:func:`snapshot`), replaced by the next ``collect``.

Modules: :mod:`._project` (the root, the walk, module names, the snapshot),
:mod:`._summary` (a module's summary), :mod:`._syntax` (tree-sitter, text as written),
:mod:`._cache` (summaries by content),
:mod:`._outline` (rendering a summary at a level), :mod:`._imports` (the import graph,
installed versions), :mod:`._collect` (parts), :mod:`._symbols` (``py-src`` resolution).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tai_python._project import Load


#: The files that make a directory a Python project's root.
PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
#: The project's own virtual environments, at its root, in the order they are looked for.
ENVIRONMENTS = (".venv", "venv")


def project_root(cwd: Path) -> Path | None:
    """The nearest directory at or above ``cwd`` that holds a project file (here, not in
    :mod:`._project`: the provider's ``applies`` asks it on every run, and must not import
    the parser and the cache to answer)."""
    folder = cwd.resolve()
    for directory in (folder, *folder.parents):
        if any((directory / name).is_file() for name in PROJECT_FILES):
            return directory
    return None


def snapshot(cwd: Path, config: Mapping[str, Any]) -> Load:
    """The last load of ``cwd`` in this process (taken by the provider's ``collect``), or a
    fresh load of the default focus when none was made; raises
    :class:`tai_core.context.ContextError` when loading fails."""
    from tai_python._project import last_load, load

    return last_load(cwd) or load(cwd, config=config)
