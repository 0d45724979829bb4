"""What several kinds share: the session-tree parameters and the command sets."""

from __future__ import annotations

from tai_core import Param

#: ``parent``/``name``: where a block's node goes in the session tree, and its name.
TREE_PARAMS: tuple[Param, ...] = (
    Param("parent", "Name of the session-tree node this block belongs under."),
    Param("name", "A name for this block's session-tree node (letters, digits, _ . : -)."),
)

#: The code-writing commands: Go and Python goal loops, any-text generation.
CODE_COMMANDS: frozenset[str] = frozenset({"go", "py", "any"})
#: The commands of the Go kinds (``go-src``, ``go-test``): Go goal loops, and any-text
#: generation (a Go module below a directory that is not one).
GO_COMMANDS: frozenset[str] = frozenset({"go", "any"})
#: The commands of the Python kinds (``py-src``, ``pytest``): Python goal loops, and
#: any-text generation.
PY_COMMANDS: frozenset[str] = frozenset({"py", "any"})


def body_lines(body: str) -> list[str]:
    """The non-empty, stripped lines of a body."""
    return [line.strip() for line in body.splitlines() if line.strip()]
