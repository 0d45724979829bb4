"""What the kinds that run a project's tests share (``go-test``, ``pytest``).

:class:`ProjectTestKind` is their base: the contract flags they share (a session-tree node,
programs started, a round whether the tests pass or fail), the refusal of options and the
notice when the kind is off; a kind adds its command and how its exit statuses read. A
test kind takes the arguments of its test command from the block's body and feeds back
the run, pass or fail, in one shape (the reference's): a head naming where and what ran,
one status line, then both streams. The arguments are split as a shell splits words, one
line at a time, so a model may put ``-run ^TestX$`` on one line or each word on its own;
no shell runs them. Options that would take the run out of the block's control (a program
of the model's choosing, a terminal to wait for, a service to send output to) are refused
by name, alone or with ``=value``, with the reason, before anything starts: a one-line
answer the model can act on beats a run that hangs until its time limit.

The command runs through :func:`tai_block_kit.run.run_captured` — its own process group,
killed at the time limit, the head and tail of each stream kept, ``tai_block_process``
applied (secrets out of the environment, the sandbox's network cut) — in the run's own
process, which on Linux is already inside the sandbox when blocks run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from tai_block_kit.common import TREE_PARAMS
from tai_core import Block, BlockKind, BlockResult, RunContext

if TYPE_CHECKING:
    from tai_block_kit.run import Finished


def block_arguments(body: str, refused: Mapping[str, str], kind: str) -> list[str]:
    """The words of ``body``, each line split as a shell splits words; raises
    ``ValueError`` for unbalanced quotes and for an option named in ``refused`` (alone or
    as ``NAME=value``), whose value says why it is refused."""
    import shlex  # only when a block runs: plugins import this module at every start

    args = [word for line in body.splitlines() for word in shlex.split(line)]
    for arg in args:
        name = arg.split("=", 1)[0]
        if name in refused:
            raise ValueError(f"{name} is not allowed in {kind} blocks: {refused[name]}")
    return args


def refusal(kind: str, error: ValueError) -> BlockResult:
    """The failed result of a block whose arguments were refused (nothing ran)."""
    return BlockResult(kind=kind, ok=False, text=f"{kind} block refused: {error}\n")


def time_limit(context: RunContext, key: str, default: float) -> float:
    """Seconds a test run may take: the configuration's ``key``, else ``default``."""
    return float(context.config.get(key) or default)


def run_tests(
    kind: str,
    argv: Sequence[str],
    context: RunContext,
    *,
    head: str,
    timeout: float,
    status: Callable[[Finished], str],
    what: str,
    variables: Mapping[str, str] | None = None,
) -> BlockResult:
    """Run ``argv`` in the working directory within ``timeout`` seconds; the result is
    ``Working directory: …``, the lines of ``head`` (no newline at its end), an empty
    line, the status line (``status(finished)``, or the time limit's), then both streams;
    or, when the program cannot be started, why. ``ok`` only when the command exited with
    0 by itself."""
    from tai_block_kit.run import run_captured

    start = f"Working directory: {context.cwd}\n{head}\n\n"
    try:
        finished = run_captured(
            argv, context.cwd, timeout, context=context, what=what, variables=variables
        )
    except OSError as error:  # not there, not runnable, a bad interpreter line
        why = error.strerror or str(error)
        return BlockResult(
            kind=kind, ok=False, text=f"{start}Error: cannot start {argv[0]}: {why}\n"
        )
    if finished.timed_out:
        line = f"Tests failed: timed out after {timeout:g} s (the process group was killed)"
    else:
        line = status(finished)
    return BlockResult(kind=kind, ok=finished.ok, text=f"{start}{line}\n{finished.streams()}")


class ProjectTestKind(BlockKind):
    """A kind that runs a project's tests: it makes a session-tree node, starts programs
    (a checkpoint comes first), starts a round whether the tests pass or fail, and refuses
    the options in :attr:`refused` before anything runs. Subclasses set ``name``,
    ``commands``, the prompt texts and :attr:`refused`, and implement :meth:`run`."""

    params = TREE_PARAMS
    triggers_round = True
    runs_programs = True
    max_rounds = 10
    disabled_notice = "tests cannot be run now; state which tests should be run and why."
    #: Options refused, each with the reason the answer gives.
    refused: ClassVar[Mapping[str, str]] = {}

    def split(self, body: str) -> list[str]:
        """The arguments ``body`` gives (:func:`block_arguments`)."""
        return block_arguments(body, self.refused, self.name)

    def execute(self, block: Block, context: RunContext) -> BlockResult:
        """Split the arguments (a refused one answers at once), then :meth:`run`."""
        try:
            args = self.split(block.body)
        except ValueError as error:
            return refusal(self.name, error)
        return self.run(args, context)

    def run(self, args: list[str], context: RunContext) -> BlockResult:
        """Run the tests with ``args`` (see :func:`run_tests`)."""
        raise NotImplementedError
