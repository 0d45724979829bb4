"""Commands whose module is imported only when the command runs.

``tai next`` must not pay for ``tai ai``'s runtime, ``tai serve``'s server or ``tai
record``'s database, yet every command has to be in the group before click parses, because
plugins register them (:func:`tai_core.hookspecs.tai_register_commands`). A
:class:`LazyCommand` stands in the group with the name and the one-line help ``tai --help``
lists; when the command line names it, click asks the stand-in for its context, and the
stand-in hands the request to the real command, imported from its ``module:attribute``
target then. So the help costs no command module, and a run imports its own command's
module only.
"""

from __future__ import annotations

import importlib
from functools import cached_property

import click


class LazyCommand(click.Command):
    """The stand-in for the command at ``target`` (``"package.module:attribute"``).

    :param name: the command's name on the command line.
    :param target: where the real :class:`click.Command` is, imported on first use.
    :param summary: the real command's first sentence, which ``tai --help`` shortens to
        the line it lists, as it would the real command's help (a plugin's test should
        check that the two lines match, as the core's tests do).
    """

    def __init__(self, name: str, target: str, summary: str) -> None:
        super().__init__(name, help=summary)
        self.target = target

    @cached_property
    def real(self) -> click.Command:
        """The command itself, imported now."""
        module, _, attribute = self.target.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.target} is not a click command")
        return command

    def main(self, *args: object, **kwargs: object) -> object:
        return self.real.main(*args, **kwargs)  # type: ignore[arg-type]

    def make_context(self, *args: object, **kwargs: object) -> click.Context:
        return self.real.make_context(*args, **kwargs)  # type: ignore[arg-type]


def real_command(command: click.Command) -> click.Command:
    """``command``, or the real command when it is a stand-in."""
    return command.real if isinstance(command, LazyCommand) else command
