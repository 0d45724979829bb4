"""The ``change`` kind: edits to files, applied to an in-memory store while the reply streams.

Change blocks are the one streaming kind: each is applied as soon as it is parsed, to an
overlay that reaches the disk only when the whole round succeeds. Validation here is what
can be known from the header alone (an operation that needs ``find`` has one, an operation
that needs a body has one); whether the target exists is known only when applying.
"""

from __future__ import annotations

from collections.abc import Callable

from tai_blocks.kinds._common import CODE_COMMANDS
from tai_core import Block, BlockKind, Param, hookimpl

GO_OPS = ("MODIFY", "ADD_BEFORE", "ADD_AFTER", "DELETE")
FILE_OPS = ("WRITE", "RENAME")
TEXT_OPS = ("REPLACE", "INSERT_BEFORE", "INSERT_AFTER")
OPS = GO_OPS + FILE_OPS + TEXT_OPS

_NEEDS_TARGET = frozenset({*GO_OPS, "RENAME"})
_NEEDS_BODY = frozenset({"MODIFY", "ADD_BEFORE", "ADD_AFTER", "WRITE", *TEXT_OPS})


class ChangeKind(BlockKind):
    """Edit, create, delete or rename a file."""

    name = "change"
    params = (
        Param("op", "The operation.", required=True, choices=OPS),
        Param(
            "target",
            "Go: the declaration (F, T, T.M, *T.M, package, import, BEGIN, END); "
            "RENAME: the new path; DELETE of a whole file: *.",
        ),
        Param(
            "file-path",
            "The file to change (absolute, or relative to the working directory).",
            required=True,
        ),
        Param("find", "REPLACE / INSERT_BEFORE / INSERT_AFTER: text that occurs exactly once."),
    )
    streams = True
    triggers_round = False
    commands = CODE_COMMANDS
    prompt_section = """\
# change blocks

Edit files with `change` blocks. Parameters: `op` (required), `file-path` (required),
`target`, `find`. One entity per block; prefer a precise operation to rewriting a file.

Go files, by declaration (`target` names a function `F`, a method `T.M` or `*T.M`, a type,
a constant or a variable; or `package`, `import`, `BEGIN`, `END`):
- MODIFY replaces the declaration with the body (doc comment included).
- ADD_BEFORE / ADD_AFTER insert the body before or after the declaration.
- DELETE removes the declaration; with `target="*"` it deletes the whole file.
The body is Go source; the declaration keyword may be left out. The result must parse; it
is formatted with gofmt and goimports.

Any file:
- WRITE replaces (or creates) the whole file with the body.
- RENAME moves `file-path` to `target`.
- REPLACE swaps `find` for the body; INSERT_BEFORE / INSERT_AFTER put the body before or
  after `find`. `find` must occur exactly once in the file.

Changes are applied after a round succeeds, all together; a failing block fails the round
and you will be told which block failed and why."""
    restatement = (
        "change blocks: op and file-path always; target for Go declarations and RENAME; "
        "find (occurring exactly once) for REPLACE and INSERT_*."
    )
    disabled_notice = (
        "files cannot be changed now; describe the edit in prose instead of writing a block."
    )

    def check_body(self, block: Block) -> list[str]:
        op = block.params.get("op", "")
        problems = []
        if op in _NEEDS_TARGET and not block.params.get("target"):
            problems.append(f"change op {op} needs a target")
        if op in TEXT_OPS and not block.params.get("find"):
            problems.append(f"change op {op} needs find (text occurring exactly once)")
        if op not in TEXT_OPS and "find" in block.params:
            problems.append(f"change op {op} takes no find; only REPLACE and INSERT_* do")
        if op in _NEEDS_BODY and not block.body:
            problems.append(f"change op {op} needs a body")
        return problems


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the change kind."""
    register(ChangeKind())
