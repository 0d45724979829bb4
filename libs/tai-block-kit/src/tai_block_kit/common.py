"""What several kinds share: the session-tree parameters, the command sets, when a
language's kinds are worth offering, and the answer of a kind that fetches source by name
from a context's snapshot."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from tai_core import BlockResult, Param

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
#: Where the Go kinds are not even announced as disabled (``omitted_in``): Python goal
#: loops, which have kinds of their own for source and tests.
NOT_GO: frozenset[str] = PY_COMMANDS - GO_COMMANDS
#: Where the Python kinds are not announced: Go goal loops.
NOT_PY: frozenset[str] = GO_COMMANDS - PY_COMMANDS
#: The command of any-text runs: where a directory is neither a Go module nor a Python
#: project, so a language's kinds have a meaning only where its files are shown.
ANY_TEXT = "any"
#: The files that show Go (a module below an any-text run's directory).
GO_FILES: tuple[str, ...] = (".go", "go.mod", "go.work")
#: The files that show Python.
PY_FILES: tuple[str, ...] = (".py", ".pyi", "pyproject.toml")


class LanguageKind:
    """What a language's kinds (``go-src``, ``go-test``, ``py-src``, ``pytest``) share:
    in an any-text run they are offered only when the prompt shows one of the language's
    files (:attr:`language_files`, by how a path ends) — a directory of notes gets no
    section about Go tests. Mixed in before :class:`tai_core.BlockKind`."""

    language_files: ClassVar[tuple[str, ...]] = ()

    def offered(self, command: str, files: Sequence[str]) -> bool:
        """Always in the language's own goal loop; in an any-text run only with one of its
        files shown."""
        return command != ANY_TEXT or any(path.endswith(self.language_files) for path in files)


def body_lines(body: str) -> list[str]:
    """The non-empty, stripped lines of a body."""
    return [line.strip() for line in body.splitlines() if line.strip()]


def fetched_source(
    kind: str,
    body: str,
    snapshot: Callable[[], Any],
    answer: Callable[[Any, list[str]], str],
    empty_hint: str,
) -> BlockResult:
    """The result of a source-fetching block (``go-src``, ``py-src``): each non-empty line
    of ``body`` answered by ``answer(load, names)`` from ``snapshot()`` (the context's
    last load); a load that fails is handed to ``answer`` as the error; an empty body gets
    ``empty_hint``."""
    from tai_core.context import ContextError

    names = body_lines(body)
    if not names:
        return BlockResult(kind=kind, ok=False, text=empty_hint)
    try:
        loaded = snapshot()
    except ContextError as error:
        return BlockResult(kind=kind, ok=False, text=answer(error, names))
    return BlockResult(kind=kind, ok=True, text=answer(loaded, names))
