"""The ``go-test`` kind: ``go test`` with the block's arguments, pass or fail fed back.

No shell: each body line is split as a shell would split words (so ``-run ^TestX$`` may
share a line), an empty body tests ``./...``. The run and its answer are those of every
test kind (:mod:`tai_block_kit.testrun`) — its own process group, killed at
``go_test_timeout`` seconds (120 by default), the head and tail of each stream kept — and
``-exec``/``-toolexec`` are refused: they run arbitrary programs, which is the shell kind's
business and its policy's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tai_block_kit.common import GO_COMMANDS, GO_FILES, NOT_GO, LanguageKind
from tai_block_kit.testrun import ProjectTestKind, block_arguments, run_tests, time_limit
from tai_core import BlockKind, BlockResult, RunContext, hookimpl

if TYPE_CHECKING:
    from tai_block_kit.run import Finished

#: Seconds ``go test`` may run unless ``go_test_timeout`` says otherwise.
DEFAULT_TIMEOUT = 120.0
_PROGRAMS = "it runs programs of its own choosing, which is the shell kind's business"
#: Options refused, with the reason the answer gives.
REFUSED = {name: _PROGRAMS for name in ("-exec", "-toolexec", "--exec", "--toolexec")}


def split_arguments(body: str) -> list[str]:
    """The arguments of ``go test`` a body gives (``./...`` when it gives none); raises
    ``ValueError`` for unbalanced quotes and for ``-exec``/``-toolexec``."""
    return block_arguments(body, REFUSED, "go-test") or ["./..."]


class GoTestKind(LanguageKind, ProjectTestKind):
    """Run ``go test`` in the working directory."""

    name = "go-test"
    refused = REFUSED
    commands = GO_COMMANDS
    omitted_in = NOT_GO
    language_files = GO_FILES
    prompt_section = """\
# go-test blocks

Run Go tests with a `go-test` block. The body holds the arguments of `go test`, one per
line (for example `-run`, `^TestParse$`, `./internal/parse`); an empty body tests `./...`.
The command runs in the working directory after your changes of this round are written;
use package paths relative to it or absolute. Passing or failing, the output arrives in
the next message; target the tests you need with `-run` to keep it short. Still end your
reply with a summary block."""
    restatement = "go-test blocks: arguments of go test, one per line; results arrive next."

    def split(self, body: str) -> list[str]:
        """The arguments of ``go test`` (:func:`split_arguments`)."""
        return split_arguments(body)

    def run(self, args: list[str], context: RunContext) -> BlockResult:
        """Run ``go test`` with ``args`` in the working directory."""
        import shlex
        import shutil

        head = f"Go test command: go test {shlex.join(args)}"
        go = shutil.which("go")
        if go is None:
            return BlockResult(
                kind=self.name, ok=False,
                text=f"Working directory: {context.cwd}\n{head}\n\nError: go is not on PATH\n",
            )  # fmt: skip
        return run_tests(
            self.name, [go, "test", *args], context, head=head,
            timeout=time_limit(context, "go_test_timeout", DEFAULT_TIMEOUT),
            status=_status, what=f"go test {shlex.join(args)}",
        )  # fmt: skip


def _status(finished: Finished) -> str:
    if finished.code:
        return f"Tests failed with error: exit status {finished.code}"
    return "Tests passed."


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the go-test kind."""
    register(GoTestKind())
