"""The ``go-src`` kind: the source of Go symbols, from the snapshot taken before the round.

Focus packages enter the first request as documentation only; this kind is how the model
pulls implementation source on demand, naming symbols it can already see. The source is
read from the snapshot of the working directory's last load (:func:`tai_go.snapshot`,
taken by the Go context provider's ``collect``), so it is the tree as the model saw it,
not as this round's changes left it; resolution is :mod:`tai_go._symbols`.
"""

from __future__ import annotations

from collections.abc import Callable

from tai_block_kit.common import (
    GO_COMMANDS,
    GO_FILES,
    NOT_GO,
    TREE_PARAMS,
    LanguageKind,
    fetched_source,
)
from tai_core import Block, BlockKind, BlockResult, RunContext, hookimpl


class GoSrcKind(LanguageKind, BlockKind):
    """Fetch the source of Go declarations or packages."""

    name = "go-src"
    params = TREE_PARAMS
    triggers_round = True
    max_rounds = 50
    commands = GO_COMMANDS
    omitted_in = NOT_GO
    language_files = GO_FILES
    prompt_section = """\
# go-src blocks

Focus packages are given as documentation; fetch the implementation before you reason
about it or change it. In a `go-src` block, write one symbol per line: a package (by
import path or name) for its documentation, or a declaration — `Name`, `Type.Method`,
`pkg.Name`, `path/to/pkg.Type.Method`. Prefer import paths when names are ambiguous. The
source (with its doc comment, file and line) arrives in the next message, as it was before
this round's changes; use the file path it gives as `file-path` in change blocks."""
    restatement = "go-src blocks: one symbol per line; source arrives next message."
    disabled_notice = "source cannot be fetched now; work from the context already given."

    def execute(self, block: Block, context: RunContext) -> BlockResult:
        """Resolve each symbol line against the snapshot; an empty body gets a usage hint."""
        from tai_go import snapshot
        from tai_go._symbols import EMPTY_HINT, requested_source

        return fetched_source(
            self.name, block.body, lambda: snapshot(context.cwd, context.config),
            requested_source, EMPTY_HINT,
        )  # fmt: skip


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the go-src kind."""
    register(GoSrcKind())
