"""The Go context: staged, doc-first, prefix-stable — and the snapshot go-src reads.

*Staged context.* The first request is an outline, not the code: each focus package
enters as its ``go doc -all -cmd -u`` surface (every declaration with its doc comment,
unexported ones included), the full text of its theory constants, the names of its test
functions and files. The model pulls implementation source with ``go-src`` blocks
naming symbols it can see, and other files with ``ingest``; nothing is unreachable and no
token is spent on code the task never reads (``all_src`` sends the full source instead).
Context packages get a visibility level — invisible, short doc, doc, code, all — within a
token budget derived from the focus documentation only (the rule every language shares:
:mod:`tai_staging`).

*Prefix stability.* Parts are placed by ``(tier, key)``: files of modules outside the
project first, the project's context next, its focus last, and inside a tier by a key
built from stable facts (git change counts, import distance, paths — never discovery
order or timing). Token counts are a deterministic estimate. So the same inputs give the
same bytes, and editing a focus file leaves every earlier part byte-identical: the model
provider's prompt cache keeps the prefix.

*Why ``go list``, ``go doc``'s own libraries, and tree-sitter.* The ``go`` command is
the one authority on build constraints, modules, workspaces and what documentation
looks like; re-implementing them would drift. ``go list -json -deps -test`` loads the
package graph in one call. The documentation is ``go doc``'s, byte for byte, cached by
the content of the package's files (:mod:`._gocmd`), but rendered for all packages in
one process: a small helper in Go, built with the user's toolchain from go/build,
go/doc and go/format — what ``go doc`` itself is made of — fed the snapshot's bytes
(:mod:`._godoc`, :mod:`._docsession`); where there is no helper, or it declines a
package, ``go doc`` runs per package in parallel threads. What ``go`` does not give —
test function names, theory constants, a declaration's exact source for ``go-src`` —
comes from tree-sitter-go, the parser the change blocks already use: it reads code that
does not compile.

*The model's window is a ceiling, partial loads are normal.* The request says how many
tokens the parts may hold (``max_tokens``); when the usual levels exceed it, context
packages are left out first and focus packages lowered largest first, by sizes and paths
alone, so the same inputs give the same reductions, and an outline part names them
(:mod:`tai_staging`). A package ``go list`` cannot load is named with its error and the
rest loads — a real module often has one broken corner, and refusing the whole context
for it leaves the model nothing to fix it with; only a ``go list`` that fails outright
is an error.

*Secrets never enter the snapshot.* Every file a load reads is judged by the
``tai_secret_file`` hook (by name; the project's own files by content too) before it
joins the snapshot, so no part, theory constant or ``go-src`` answer can show it, and a
package with a secret Go file shows a note instead of its ``go doc`` (which prints
constants with their values). Withheld files are named in the prompt's closing list.

*Why the snapshot.* ``go-src`` must answer from the tree as the model saw it before its
round's changes (the reply's edits are applied in memory while it streams, and the disk
changes only when the round succeeds). A load reads every file of its packages once;
that snapshot renders the parts and is kept per working directory for the process
(:func:`snapshot`), replaced by the next ``collect``.

Modules: :mod:`.provider` (the plugin), :mod:`._collect` (parts), :mod:`._load` (loading
and the snapshot), :mod:`._gocmd` (running ``go``), :mod:`._godoc` and
:mod:`._docsession` (the documentation helper: building it, running it; its Go source
in ``godoc/``), :mod:`._select` (filters and order), :mod:`._render` (marker texts),
:mod:`._symbols` (``go-src`` resolution).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tai_go._load import Load


def snapshot(cwd: Path, config: Mapping[str, Any]) -> Load:
    """The last load of ``cwd`` in this process (taken by the provider's ``collect``), or
    a fresh load of the default focus when none was made; raises
    :class:`tai_core.context.ContextError` when loading fails."""
    from tai_go._load import last_load, load

    return last_load(cwd) or load(cwd, (), (), config)
