"""The ``shell-policy`` plugin: which shell commands a model may run.

Two rules, in this order. Destructive patterns are always refused — recursive deletion of
``/``, ``~``, a system directory, the working directory or a parent of it; creating
filesystems; writing to raw devices; recursive ``chmod``/``chown`` of system paths; fork
bombs; shutting down; force-pushes; code piped from a download (or from any command) into
a shell; writes to protected paths (``.git/hooks``, ``.git/config``, …) — also when hidden
behind quoting, variables, ``$(…)``, ``eval``, ``sh -c`` or a wrapper (see ``_words``,
``_analysis``, ``_commands`` and ``_rules``). Then, when ``allowed_shell_commands`` is
configured, the listed commands run, each matched as a whole command (token by token,
so spacing does not matter but every word does). Whatever else remains is the approval
mode's (``_approval``: ``-approve auto|ask|never``): by default only the listed commands run
when there is a list, and any other program, contained by the sandbox, when there is none.

The decision is ``tai_shell_policy``; shell blocks are refused by it in a ``tryfirst``
``tai_run_block`` (in the reference's shape), so the ``shell`` kind only ever runs
commands the policy allowed; ``tai policy check`` shows a decision to users writing their
allowlist. tree-sitter is imported on the first decision, never at start-up.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import click

from tai_core import hookimpl
from tai_core.config import ConfigError, load_config
from tai_core.plugins import PluginHookError
from tai_sandbox._approval import FLAG, MODES, approval, choose, mode_of
from tai_sandbox.paths import WritableSet, resolve, writable_set


@cache
def _guard(cwd: str, protected_paths: tuple[str, ...]) -> WritableSet:
    return writable_set(Path(cwd), {"protected_paths": list(protected_paths)}, go_dirs=())


@cache
def _tokens(command: str) -> tuple[str, ...]:
    from tai_sandbox._syntax import leaves, parse

    root, source = parse(command.strip())
    return tuple(token for token in leaves(root, source) if token)


def decide(
    command: str,
    cwd: str | os.PathLike[str],
    config: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    ask: Callable[[str], bool] | None = None,
) -> tuple[bool, str]:
    """``(allowed, reason)`` for ``command`` run in ``cwd`` under ``config``, with the
    environment ``environ`` (default: this process's, where ``HOME`` comes from); a
    command neither refused nor listed is the approval mode's (``_approval``), which may
    ``ask`` the user."""

    text = command.strip()
    if not text:
        return False, "the command is empty"
    here = str(Path(cwd).resolve())
    guard = _guard(here, tuple(config.get("protected_paths", [])))

    def protection(path: str, base: str | None) -> str | None:
        # The words are expanded already: a leading ~ left in a path is a literal name,
        # so the path is joined to its directory before resolve (which expands ~).
        return None if base is None else guard.protected(resolve(Path(base, path), Path(base)))

    reason = _analysed(text, here, os.environ if environ is None else environ, protection)
    if reason:
        return False, reason
    allowed = list(config.get("allowed_shell_commands") or [])
    if allowed and _tokens(text) in {_tokens(entry) for entry in allowed}:
        return True, "it is listed in allowed_shell_commands"
    return approval(text, allowed, mode_of(config), ask)


def _analysed(
    text: str,
    cwd: str,
    environ: Mapping[str, str],
    protection: Callable[[str, str | None], str | None],
) -> str | None:
    """Why ``text`` is refused, or ``None``. A failure of the analysis itself is a
    refusal too: a command the policy could not finish looking at is not one it has seen."""
    from tai_sandbox._analysis import Analysis

    try:
        return Analysis(cwd, environ, protection).check(text)
    except RecursionError:
        return "the command is nested too deeply to check"
    except Exception as error:  # noqa: BLE001 - any failure must refuse, never escape
        return f"the policy could not analyse the command ({type(error).__name__}: {error})"


@cache
def _config(cwd: str) -> Mapping[str, Any]:
    return load_config(Path(cwd)).values


@hookimpl
def tai_shell_policy(
    command: str, cwd: str, ask: Callable[[str], bool] | None = None
) -> tuple[bool, str]:
    """The policy's decision, with the configuration that applies in ``cwd``."""
    try:
        config = _config(str(Path(cwd).resolve()))
    except ConfigError as error:
        return False, f"the configuration cannot be read: {error}"
    return decide(command, cwd, config, ask=ask)


@click.group("policy")
def policy_command() -> None:
    """The shell policy: which commands a model's shell blocks may run."""


@policy_command.command(
    "check", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}
)
@click.argument("words", nargs=-1, required=True, type=click.UNPROCESSED, metavar="COMMAND...")
@click.pass_obj
def check_command(app: Any, words: tuple[str, ...]) -> None:
    """Say whether COMMAND would run as a shell block here, and why: one quoted argument
    (tai policy check 'ls -la | wc -l'), or the words of a simple command (tai policy
    check ls -la), quoted back together as the shell would read them.

    Exit status 0 when it would run, 1 when it would be refused.
    """
    import shlex

    command = words[0] if len(words) == 1 else shlex.join(words)
    try:
        answer = app.host.pm.hook.tai_shell_policy(command=command, cwd=str(Path.cwd()), ask=None)
    except PluginHookError as error:  # as a shell block: a policy that cannot answer refuses
        answer = (False, str(error))
    allowed, reason = answer or (False, "no installed plugin decides on shell commands")
    click.echo(f"{'allowed' if allowed else 'refused'}: {reason}")
    sys.exit(0 if allowed else 1)


@hookimpl
def tai_register_commands(cli: click.Group) -> None:
    """Add ``tai policy`` and ``-approve``."""
    cli.add_command(policy_command)
    cli.params.append(
        click.Option(
            [FLAG, f"-{FLAG}"], type=click.Choice(MODES), expose_value=False, callback=choose,
            metavar="|".join(MODES),
            help="Which shell commands run unasked: auto (what the policy allows), ask (the "
            "user approves each one not in allowed_shell_commands), never (only those).",
        )
    )  # fmt: skip
