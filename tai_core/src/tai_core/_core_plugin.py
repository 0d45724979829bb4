"""The core's own plugin, ``tai-core``: registered like any other, never blockable.

It carries the default block hooks (a kind validates and runs itself; the programs blocks
start lose tai's secrets from their environment, :mod:`tai_core.blocks._environment`), the
name rules of secret files (``tai_secret_file``: never blockable, so a file named like a
secret is withheld whatever else is installed) and the core's commands (``tai plugins``,
``tai parse``, ``tai next``, ``tai ai``, ``tai ping``, ``tai record``, ``tai sessions``,
``tai serve``), added through ``tai_register_commands`` exactly as a third party would add
one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from tai_core.blocks._environment import block_environment
from tai_core.blocks._hooks import tai_run_block, tai_validate_block
from tai_core.cli._parse_command import parse_command
from tai_core.cli._plugins_command import plugins_command
from tai_core.commands.ai import ai_command
from tai_core.commands.code import code_command
from tai_core.commands.next import next_command
from tai_core.commands.ping import ping_command
from tai_core.commands.record import record_command
from tai_core.commands.serve import serve_command
from tai_core.commands.sessions import sessions_command
from tai_core.context._secrets import secret_name
from tai_core.plugins._markers import hookimpl

__all__ = [
    "tai_block_process",
    "tai_register_commands",
    "tai_run_block",
    "tai_secret_file",
    "tai_validate_block",
]


@hookimpl(tryfirst=True)
def tai_secret_file(path: str, config: Mapping[str, Any]) -> str | None:
    """Withhold files by name (answered before any content scan, which it spares)."""
    return secret_name(path, config)


@hookimpl
def tai_register_commands(cli: click.Group) -> None:
    """Add the core's commands."""
    cli.add_command(plugins_command)
    cli.add_command(parse_command)
    cli.add_command(next_command)
    cli.add_command(code_command)
    cli.add_command(ai_command)
    cli.add_command(ping_command)
    cli.add_command(record_command)
    cli.add_command(sessions_command)
    cli.add_command(serve_command)


@hookimpl
def tai_block_process(argv: list[str], env: dict[str, str], config: Mapping[str, Any]) -> None:
    """Remove secrets from the environment of a block's program (``shell_environment``)."""
    del argv
    block_environment(env, config)
