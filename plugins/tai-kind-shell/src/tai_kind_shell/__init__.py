"""The ``shell`` kind: one command, run after the reply ends, its output fed back.

Off unless ``-shell`` is given or ``allowed_shell_commands`` is configured
(:func:`shell_enabled`, for the prompt builder). Whether a command may run is not this
module's decision: the sandbox distribution's policy refuses blocks before the kind sees
them (a ``tryfirst`` ``tai_run_block``), and the run itself happens inside the sandbox
when tai runs sandboxed. The kind runs what reaches it with ``sh -c`` in the working
directory, within ``shell_timeout`` seconds (the whole process group is killed at the
limit), and feeds back the status and both streams, capped, in the reference's shape.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tai_block_kit.common import CODE_COMMANDS, TREE_PARAMS
from tai_core import Block, BlockKind, BlockResult, RunContext, hookimpl
from tai_core.plugins import PluginHookError

if TYPE_CHECKING:
    from tai_block_kit.run import Finished

#: Seconds a command may run unless ``shell_timeout`` says otherwise.
DEFAULT_TIMEOUT = 30.0


def shell_enabled(config: Mapping[str, Any], shell_flag: bool | None = None) -> bool:
    """Whether shell blocks are on: a non-empty ``allowed_shell_commands`` enables them by
    itself; otherwise ``-shell`` decides (``shell_flag``; when not given, the
    configuration's ``shell``)."""
    if config.get("allowed_shell_commands"):
        return True
    return bool(config.get("shell", False) if shell_flag is None else shell_flag)


def _status(finished: Finished, timeout: float) -> str:
    if finished.timed_out:
        error = f"timed out after {timeout:g} s (its process group was killed)"
    elif finished.code < 0:
        error = f"signal: {signal.Signals(-finished.code).name}"
    elif finished.code:
        error = f"exit status {finished.code}"
    else:
        return "Command succeeded."
    return f"Command failed with error: {error}"


#: The refusal when no plugin implements ``tai_shell_policy``: commands never run unchecked.
NO_POLICY = (
    "no shell policy is installed (tai-sandbox provides one, or -p no:shell-policy switched "
    "it off), so no command may run"
)


class ShellKind(BlockKind):
    """Run one shell command in the working directory."""

    name = "shell"
    params = TREE_PARAMS
    triggers_round = True
    runs_programs = True
    max_rounds = 50
    commands = CODE_COMMANDS | {"ai"}
    prompt_section = """\
# shell blocks

Run a command with a `shell` block; the body is the command, as for `sh -c`, run in the
working directory with a time limit (30 seconds unless configured). Its exit status,
standard output and standard error arrive in the next message. Commands run in a sandbox
where only the working directory, /tmp and the toolchain caches are writable. Destructive
commands (deleting / or the working directory, force-pushes, piping a download into a
shell, writing to .git/hooks or .git/config …) are refused with the reason and never run.
Prefer a dedicated kind described here (for tests, source, files) when one fits."""
    restatement = "shell blocks: one command per block; its output arrives next message."
    disabled_notice = "commands cannot be run now; state the command in prose for the user to run."
    requires_body = "a command"

    def available(self, config: Mapping[str, Any]) -> bool:
        """On with ``-shell`` (``shell = true``) or an ``allowed_shell_commands`` list."""
        return shell_enabled(config)

    def execute(self, block: Block, context: RunContext) -> BlockResult:
        """Ask the shell policy (``tai_shell_policy``: first answer wins, none means no), then
        run the body with ``sh -c`` in the working directory; its output is the result."""
        from tai_block_kit.run import run_captured
        from tai_core.blocks import ask

        def asker(question: str) -> bool:
            return ask(context, "confirm", question, default=False) is True

        try:
            decision = context.hook.tai_shell_policy(  # no one to ask: the policy says so
                command=block.body, cwd=str(context.cwd),
                ask=asker if getattr(context, "ask", None) is not None else None,
            )  # fmt: skip
        except PluginHookError as error:  # a policy that cannot answer refuses
            decision = (False, str(error))
        allowed, reason = decision or (False, NO_POLICY)
        if not allowed:
            return BlockResult(
                kind=self.name, ok=False,
                text=f"Shell command rejected: {block.body}\n\nError: {reason}\n",
            )  # fmt: skip
        timeout = float(context.config.get("shell_timeout") or DEFAULT_TIMEOUT)
        first = block.body.strip().partition("\n")[0]
        finished = run_captured(
            ["sh", "-c", block.body], context.cwd, timeout, context=context,
            what=f"shell block {first[:60]}{'…' if len(first) > 60 else ''}",
        )  # fmt: skip
        text = f"Shell command: {block.body}\n\n{_status(finished, timeout)}\n{finished.streams()}"
        return BlockResult(kind=self.name, ok=finished.ok, text=text)


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the shell kind."""
    register(ShellKind())
