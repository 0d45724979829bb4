"""What edits by declaration share, in Go and Python: the operations, the failure, and
the one message for a name the file does not declare.

Both languages fail the same way where the original tool silently did nothing: a MODIFY
or DELETE of a name the file lacks names the closest names the file does declare (by
spelling, and by the last part: ``invoke`` finds ``Command.invoke``), so the retry can
aim at a real declaration.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

#: The operations that insert a body next to a target (or at ``BEGIN``/``END``).
ADD_OPS = ("ADD_BEFORE", "ADD_AFTER")
#: The operations on a declaration.
DECL_OPS = ("MODIFY", *ADD_OPS, "DELETE")
#: The targets that are places in a file rather than declarations.
EDGES = ("BEGIN", "END")
#: At most this many names are listed when none is close to the one asked for.
_LISTED = 12


class EditError(Exception):
    """An edit that cannot be carried out; ``modified`` is the text it produced when that
    text was the problem (for the error log)."""

    def __init__(self, reason: str, modified: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.modified = modified


def not_found(key: str, names: Sequence[str]) -> EditError:
    """The error for a target ``key`` among the declared ``names`` (qualified, in file
    order): the closest names, else the names the file declares."""
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.6)
    close += [n for n in dict.fromkeys(names) if n.endswith("." + key) and n not in close]
    if close:
        hint = "closest: " + ", ".join(close)
    elif names:
        more = ", …" if len(names) > _LISTED else ""
        hint = "the file declares " + ", ".join(names[:_LISTED]) + more
    else:
        hint = "the file declares nothing"
    return EditError(f"no declaration named {key}; {hint}")
