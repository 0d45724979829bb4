"""The core's own plugin as the command line registers it: the defaults and the commands.

:mod:`tai_core.plugins._defaults` holds what holds with no other plugin (a kind validates
and runs itself, secret files withheld by name, secrets kept out of blocks' programs); this
module adds the core's commands (``tai plugins``, ``tai parse``, ``tai next``, ``tai
code``, ``tai ai``, ``tai ping``, ``tai record``, ``tai sessions``, ``tai serve``) through
``tai_register_commands``, exactly as a third party would add one. It sits above the
commands, the server and the plugin host, and the command line hands it to the host
(:func:`tai_core.cli.build`): the host never imports what is built on it.
"""

from __future__ import annotations

import click

from tai_core.commands.ai import ai_command
from tai_core.commands.code import code_command
from tai_core.commands.next import next_command
from tai_core.commands.parse import parse_command
from tai_core.commands.ping import ping_command
from tai_core.commands.plugins import plugins_command
from tai_core.commands.record import record_command
from tai_core.commands.sessions import sessions_command
from tai_core.plugins._defaults import (
    tai_block_process,
    tai_run_block,
    tai_secret_file,
    tai_validate_block,
)
from tai_core.plugins._markers import hookimpl
from tai_core.serve._command import serve_command

__all__ = [
    "tai_block_process",
    "tai_register_commands",
    "tai_run_block",
    "tai_secret_file",
    "tai_validate_block",
]


@hookimpl
def tai_register_commands(cli: click.Group) -> None:
    """Add the core's commands."""
    for command in (plugins_command, parse_command, next_command, code_command, ai_command,
                    ping_command, record_command, sessions_command, serve_command):  # fmt: skip
        cli.add_command(command)
