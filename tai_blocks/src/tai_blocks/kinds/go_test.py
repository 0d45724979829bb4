"""The ``go-test`` kind: ``go test`` with the block's arguments, pass or fail fed back."""

from __future__ import annotations

from collections.abc import Callable

from tai_blocks.kinds._common import CODE_COMMANDS, TREE_PARAMS
from tai_core import BlockKind, hookimpl


class GoTestKind(BlockKind):
    """Run ``go test`` in the working directory."""

    name = "go-test"
    params = TREE_PARAMS
    triggers_round = True
    max_rounds = 10
    commands = CODE_COMMANDS
    prompt_section = """\
# go-test blocks

Run Go tests with a `go-test` block. The body holds the arguments of `go test`, one per
line (for example `-run`, `^TestParse$`, `./internal/parse`); an empty body tests `./...`.
The command runs in the working directory after your changes of this round are written;
use package paths relative to it or absolute. Passing or failing, the output arrives in
the next message; target the tests you need with `-run` to keep it short. Still end your
reply with a summary block."""
    restatement = "go-test blocks: arguments of go test, one per line; results arrive next."
    disabled_notice = "tests cannot be run now; state which tests should be run and why."


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the go-test kind."""
    register(GoTestKind())
