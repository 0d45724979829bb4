"""The ``go-test`` kind: ``go test`` with the block's arguments, pass or fail fed back.

No shell: each body line is split as a shell would split words (so ``-run ^TestX$`` may
share a line), an empty body tests ``./...``. The run reuses the shell kind's runner — its
own process group, killed at ``go_test_timeout`` seconds (120 by default), the head and
tail of each stream kept — and ``-exec``/``-toolexec`` are refused: they run arbitrary
programs, which is the shell kind's business and its policy's.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from tai_block_kit.common import GO_COMMANDS, TREE_PARAMS
from tai_core import Block, BlockKind, BlockResult, RunContext, hookimpl

#: Seconds ``go test`` may run unless ``go_test_timeout`` says otherwise.
DEFAULT_TIMEOUT = 120.0
_REFUSED = ("-exec", "-toolexec", "--exec", "--toolexec")


def split_arguments(body: str) -> list[str]:
    """The arguments of ``go test`` a body gives (``./...`` when it gives none); raises
    ``ValueError`` for unbalanced quotes and for ``-exec``/``-toolexec``."""
    args = [word for line in body.splitlines() for word in shlex.split(line)]
    for arg in args:
        if arg.split("=", 1)[0] in _REFUSED:
            raise ValueError(f"{arg.split('=', 1)[0]} is not allowed in go-test blocks")
    return args or ["./..."]


class GoTestKind(BlockKind):
    """Run ``go test`` in the working directory."""

    name = "go-test"
    params = TREE_PARAMS
    triggers_round = True
    runs_programs = True
    max_rounds = 10
    commands = GO_COMMANDS
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

    def execute(self, block: Block, context: RunContext) -> BlockResult:
        """Run ``go test`` with the block's arguments in the working directory."""
        import shutil

        from tai_block_kit.run import run_captured

        try:
            args = split_arguments(block.body)
        except ValueError as error:
            return BlockResult(kind=self.name, ok=False, text=f"go-test block refused: {error}\n")
        head = f"Working directory: {context.cwd}\nGo test command: go test {shlex.join(args)}\n\n"
        go = shutil.which("go")
        if go is None:
            return BlockResult(kind=self.name, ok=False, text=f"{head}Error: go is not on PATH\n")
        timeout = float(context.config.get("go_test_timeout") or DEFAULT_TIMEOUT)
        finished = run_captured(
            [go, "test", *args], context.cwd, timeout, context=context,
            what=f"go test {shlex.join(args)}",
        )  # fmt: skip
        if finished.timed_out:
            status = f"Tests failed: timed out after {timeout:g} s (the process group was killed)"
        elif finished.code:
            status = f"Tests failed with error: exit status {finished.code}"
        else:
            status = "Tests passed."
        text = f"{head}{status}\nStdout:\n{finished.stdout}\nStderr:\n{finished.stderr}"
        ok = finished.code == 0 and not finished.timed_out
        return BlockResult(kind=self.name, ok=ok, text=text)


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the go-test kind."""
    register(GoTestKind())
