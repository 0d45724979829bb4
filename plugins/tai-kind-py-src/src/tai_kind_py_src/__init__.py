"""The ``py-src`` kind: the source of Python declarations, from the snapshot taken before
the round.

Focus modules enter the first request as outlines only; this kind is how the model pulls
implementation source on demand, naming what it can already see. The source is read from
the snapshot of the working directory's last load (:func:`tai_python.snapshot`, taken by
the Python context provider's ``collect``), so it is the tree as the model saw it, not as
this round's changes left it; resolution is :mod:`tai_python._symbols`.
"""

from __future__ import annotations

from collections.abc import Callable

from tai_block_kit.common import (
    NOT_PY,
    PY_COMMANDS,
    PY_FILES,
    TREE_PARAMS,
    LanguageKind,
    fetched_source,
)
from tai_core import Block, BlockKind, BlockResult, RunContext, hookimpl


class PySrcKind(LanguageKind, BlockKind):
    """Fetch the source of Python modules, classes, functions or methods."""

    name = "py-src"
    params = TREE_PARAMS
    triggers_round = True
    max_rounds = 50
    commands = PY_COMMANDS
    omitted_in = NOT_PY
    language_files = PY_FILES
    prompt_section = """\
# py-src blocks

Focus modules are given as outlines (signatures and docstrings, no bodies); fetch the
implementation before you reason about it or change it. In a `py-src` block, write one
name per line: a module (`pkg.mod`) for its whole source, or a declaration —
`pkg.mod.func`, `pkg.mod.Class`, `pkg.mod.Class.method`, or `Class.method` / `func` when
one module declares it. The source (with its decorators, file and lines) arrives in the
next message, as it was before this round's changes; use the file path it gives as
`file-path` in change blocks."""
    restatement = "py-src blocks: one dotted name per line; source arrives next message."
    disabled_notice = "source cannot be fetched now; work from the context already given."

    def execute(self, block: Block, context: RunContext) -> BlockResult:
        """Resolve each name line against the snapshot; an empty body gets a usage hint."""
        from tai_python import snapshot
        from tai_python._symbols import EMPTY_HINT, requested_source

        return fetched_source(
            self.name, block.body, lambda: snapshot(context.cwd, context.config),
            requested_source, EMPTY_HINT,
        )  # fmt: skip


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the py-src kind."""
    register(PySrcKind())
