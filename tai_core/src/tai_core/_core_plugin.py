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

from tai_core.commands._lazy_command import LazyCommand
from tai_core.plugins._defaults import (
    tai_block_process,
    tai_run_block,
    tai_secret_file,
    tai_validate_block,
)
from tai_core.plugins._markers import hookimpl

__all__ = [
    "tai_block_process",
    "tai_register_commands",
    "tai_run_block",
    "tai_secret_file",
    "tai_validate_block",
]


#: The core's commands: name, where the command is, its first sentence (imported only
#: when the command runs: see :class:`~tai_core.commands._lazy_command.LazyCommand`).
COMMANDS = (
    ("plugins", "tai_core.commands.plugins:plugins_command",
     "List the installed plugins, what each registers, and load errors."),
    ("parse", "tai_core.commands.parse:parse_command",
     "Parse a model's REPLY (a file, or - for stdin) and check every block."),
    ("next", "tai_core.commands.next:next_command",
     "Answer a task from the context, as text (changes no files)."),
    ("code", "tai_core.commands.code:code_command",
     "The default command: goal loops in a Go module or a Python project, text-file "
     "generation elsewhere."),
    ("ai", "tai_core.commands.ai:ai_command",
     "Chat with the model interactively; it remembers what it learns about you."),
    ("ping", "tai_core.commands.ping:ping_command",
     "Check that a model answers and writes blocks correctly."),
    ("record", "tai_core.commands.record:record_command",
     "List recorded runs, print one, write its replies for replay, or analyse it."),
    ("sessions", "tai_core.commands.sessions:sessions_command",
     "List the kept sessions, newest first; show, delete or export one."),
    ("serve", "tai_core.serve._command:serve_command",
     "Serve the runtime to another program over JSON lines."),
)  # fmt: skip


@hookimpl
def tai_register_commands(cli: click.Group) -> None:
    """Add the core's commands, each imported when it runs."""
    for name, target, summary in COMMANDS:
        cli.add_command(LazyCommand(name, target, summary))
