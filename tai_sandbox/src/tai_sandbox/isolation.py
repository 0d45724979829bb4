"""The ``sandbox`` plugin: tai's run in user, mount, PID, UTS and IPC namespaces.

Implements ``tai_enter_isolation`` (called by the command line before a command that runs
model output), ``tai_path_policy`` (change blocks may write only what the sandbox lets
them write), the global flag ``-no-sandbox`` and the command ``tai sandbox`` (``run`` a
command inside the sandbox tai would use here; list the writable and protected ``paths``).
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import click

from tai_core import hookimpl
from tai_core.config import user_config_dir
from tai_sandbox.paths import activate, current, existing_protected, go_writable_dirs, writable_set

#: Set inside the sandbox, so a tai started there does not enter again.
INSIDE_VARIABLE = "TAI_IN_SANDBOX"
#: ``TAI_NO_SANDBOX=1`` runs without the sandbox, as ``-no-sandbox`` does.
DISABLE_VARIABLE = "TAI_NO_SANDBOX"
NO_SANDBOX_FLAGS = ("-no-sandbox", "--no-sandbox")

_warned: list[str] = []


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.append(message)
        click.echo(f"tai: warning: {message}", err=True)


def _opted_out(argv: Sequence[str]) -> str | None:
    words = itertools.takewhile(lambda arg: arg != "--", argv)
    if any(word in NO_SANDBOX_FLAGS for word in words):
        return "-no-sandbox"
    if os.environ.get(DISABLE_VARIABLE, "").strip().lower() not in ("", "0", "false", "no"):
        return f"{DISABLE_VARIABLE}={os.environ[DISABLE_VARIABLE]}"
    return None


@hookimpl
def tai_enter_isolation(argv: Sequence[str], cwd: str, config: Mapping[str, Any]) -> str | None:
    """Enter the sandbox (see the package docstring); what is in force, or ``None``."""
    if os.environ.get(INSIDE_VARIABLE) == "1":
        return "sandbox: already inside (entered by an outer tai)"
    reason = _opted_out(argv)
    if reason:
        return f"no sandbox ({reason})"
    if sys.platform != "linux":
        return None
    writable = writable_set(Path(cwd), config)
    activate(writable)
    from tai_sandbox._mounts import build_view
    from tai_sandbox._process import SandboxUnavailable, enter

    for directory in (*go_writable_dirs(), user_config_dir()):
        directory.mkdir(parents=True, exist_ok=True)
    try:
        installation = [Path(sys.prefix), *(Path(entry) for entry in sys.path if entry)]
        view = partial(build_view, writable, existing_protected(writable), installation)
        problems = enter(view)
    except SandboxUnavailable as error:
        _warn_once(f"running without the sandbox: {error}")
        return None
    os.environ[INSIDE_VARIABLE] = "1"
    for problem in problems:
        _warn_once(f"sandbox: could not make read-only {problem}")
    return "sandbox: writable " + ", ".join(str(root) for root in writable.roots)


@hookimpl
def tai_path_policy(path: str, operation: str) -> tuple[bool, str] | None:
    """Writes only inside the writable set and never to protected paths; reads are not
    this plugin's concern."""
    if operation == "read":
        return None
    refusal = current().refusal(path)
    if refusal:
        return False, refusal
    return True, f"{path} is inside the writable directories"


@click.group("sandbox")
def sandbox_command() -> None:
    """The sandbox tai runs model output in (Linux namespaces)."""


@sandbox_command.command("run", context_settings={"ignore_unknown_options": True})
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.pass_obj
def run_command(app: Any, command: tuple[str, ...]) -> None:
    """Run COMMAND inside the sandbox tai would use here (use -- before its options).

    Shows what a model's commands can and cannot do: try writing somewhere.
    """
    isolation = app.host.pm.hook.tai_enter_isolation(
        argv=sys.argv[1:], cwd=str(Path.cwd()), config=app.config.values
    )
    click.echo(f"tai: {isolation or 'no sandbox'}", err=True)
    try:
        os.execvp(command[0], list(command))
    except OSError as error:
        raise click.ClickException(f"{command[0]}: {error.strerror}") from None


@sandbox_command.command("paths")
@click.pass_obj
def paths_command(app: Any) -> None:
    """List the writable directories and the protected paths inside them."""
    writable = writable_set(Path.cwd(), app.config.values)
    click.echo("writable:")
    for root in writable.roots:
        click.echo(f"  {root}")
    click.echo("protected (read-only inside the sandbox):")
    for path in existing_protected(writable):
        click.echo(f"  {path}")


@hookimpl
def tai_register_commands(cli: click.Group) -> None:
    """Add ``-no-sandbox`` to ``tai`` and the ``sandbox`` command."""
    cli.params.append(
        click.Option(
            list(NO_SANDBOX_FLAGS),
            is_flag=True,
            expose_value=False,
            help=f"Run model output without the sandbox (also: {DISABLE_VARIABLE}=1).",
        )
    )
    cli.add_command(sandbox_command)
