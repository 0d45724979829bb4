"""The ``tai`` command line: a click group whose commands all come from plugins.

The core's own commands are added by the core plugin through the same
``tai_register_commands`` hook third parties use; :func:`main` loads the plugins first
(see ``_main`` for why) and never shows a traceback for an expected error. The console
script is :func:`launch`, which answers ``tai --help``, ``--version`` and ``tai plugins``
from the launch cache when nothing they depend on has changed (``_launch``) and otherwise
runs :func:`main`; the names here are imported on first use, so the launch costs no click.
A plugin adds a command whose module is heavy as a :class:`LazyCommand`, imported only
when it runs.
"""

from tai_core._lazy import lazy_exports

TYPE_CHECKING = False  # not typing's: see tai_core._lazy
if TYPE_CHECKING:
    from tai_core.app import AppContext
    from tai_core.cli._launch import launch
    from tai_core.cli._main import build, main, make_group
    from tai_core.commands._lazy_command import LazyCommand

__all__ = ["AppContext", "LazyCommand", "build", "launch", "main", "make_group"]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "tai_core.cli._launch": ["launch"],
        "tai_core.commands._lazy_command": ["LazyCommand"],
        "tai_core.app": ["AppContext"],
        "tai_core.cli._main": ["build", "main", "make_group"],
    },
)
