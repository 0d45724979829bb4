"""The working tree as a run sees it: an in-memory overlay, flushed to disk all-or-nothing.

Invariant 2 (DESIGN §4) says nothing reaches the working tree before an attempt succeeds,
and the flush of several files is crash-atomic. This package is where that holds:

* Edits go to a :class:`FileStore`, an immutable value (invariant 1): the store from before
  a round is the store to return to when the round fails, so a failed round leaves the
  overlay and the disk exactly as they were, with nothing to undo. Reads see the overlay;
  the store remembers what it read from disk (content and fingerprint) and what each file
  held when the session first touched it, so the whole run's changes stay known across
  rounds (:meth:`FileStore.changes`).
* :meth:`FileStore.flush` writes a round's edits through a journal in the working
  directory: staged temporary files, one atomic commit, renames, the journal removed last
  (:mod:`~tai_core.store._flush`). A process killed at any instant leaves every file
  wholly old or wholly new, and :func:`recover`, called when tai starts, completes or
  rolls back what it left (:mod:`~tai_core.store._journal`). A flock on the directory
  keeps two tai processes from flushing into it at once.
* A file that changed on disk since tai read it is a :class:`ConflictError`, never an
  overwrite; paths outside the working directory, protected paths and paths a
  ``tai_path_policy`` plugin refuses are a :class:`PathError` (:mod:`~tai_core.store._paths`).
* A store carries the run's ``tai_secret_file`` check, given when it is opened;
  :meth:`FileStore.withheld` says why a file must not reach the model, so an editor can
  refuse a secret file before its errors quote it (the store itself refuses nothing).
* :func:`render_diff` shows changes as a unified diff, coloured for a terminal.

The store knows files, not languages: what an edit means (a Go declaration, a text
replacement) belongs to the kinds that edit, which build on :meth:`FileStore.load` and
:meth:`FileStore.write`, raise subclasses of :class:`ApplyError`, and may attach a
finisher (:meth:`FileStore.with_finisher`) that the flush runs first — how Go files get
formatted without the pipeline knowing about Go.

The names are imported on first use (``tai_core._lazy``): the command line reads the
journal key before the sandbox starts, and a command that never flushes (``tai next``)
need not import the store for it.
"""

from tai_core._lazy import lazy_exports

TYPE_CHECKING = False  # not typing's: see tai_core._lazy
if TYPE_CHECKING:
    from tai_core.store._diff import Change, pending_diff, render_diff
    from tai_core.store._errors import (
        ApplyError,
        ConflictError,
        FlushError,
        PathError,
        StoreError,
    )
    from tai_core.store._journal import Recovery, recover
    from tai_core.store._paths import (
        BUILTIN_PROTECTED,
        JOURNAL_DIR,
        PathGuard,
        host_policy,
        shown_path,
    )
    from tai_core.store._store import FileStore, Seen

__all__ = [
    "BUILTIN_PROTECTED",
    "JOURNAL_DIR",
    "ApplyError",
    "Change",
    "ConflictError",
    "FileStore",
    "FlushError",
    "PathError",
    "PathGuard",
    "Recovery",
    "Seen",
    "StoreError",
    "host_policy",
    "pending_diff",
    "recover",
    "render_diff",
    "shown_path",
]
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "tai_core.store._diff": ["Change", "pending_diff", "render_diff"],
        "tai_core.store._errors": ["ApplyError", "ConflictError", "FlushError", "PathError",
                                   "StoreError"],
        "tai_core.store._journal": ["Recovery", "recover"],
        "tai_core.store._paths": ["BUILTIN_PROTECTED", "JOURNAL_DIR", "PathGuard",
                                  "host_policy", "shown_path"],
        "tai_core.store._store": ["FileStore", "Seen"],
    },
)  # fmt: skip
