"""What the store raises: one family, so a caller can tell a refused edit from a failed flush.

Every message is one line that names the path (and, for a refusal, the reason), ready to
be shown to the user or fed back to the model.
"""

from __future__ import annotations


class StoreError(Exception):
    """Anything the store refuses or cannot do."""


class ApplyError(StoreError):
    """An edit that cannot be applied to the in-memory store; the block asking for it fails.

    Kinds that edit files raise subclasses of it (the change kind's ``ChangeError``), so the
    pipeline catches one type for "this block failed, the attempt fails".
    """


class PathError(ApplyError):
    """A path the store will not touch: outside the working directory, protected, refused
    by a ``tai_path_policy`` plugin, or not a regular file."""


class ConflictError(StoreError):
    """Files changed on disk by someone else since tai read them; nothing was written.

    Not ``retryable``: another attempt by the model cannot resolve it, so a run ends on it.
    """

    #: Read by the pipeline: a failure no retry of the round can fix.
    retryable = False

    def __init__(self, root: str, paths: tuple[str, ...]) -> None:
        self.paths = paths
        names = ", ".join(paths)
        super().__init__(
            f"write conflict in {root}: {names} changed on disk since tai read "
            f"{'it' if len(paths) == 1 else 'them'}; nothing was written (re-read and retry)"
        )


class FlushError(StoreError):
    """A flush that could not be carried out (a lock held too long, an I/O error)."""
