"""The ``tai`` command line: a click group whose commands all come from plugins.

The core's own commands are added by the core plugin through the same
``tai_register_commands`` hook third parties use; :func:`main` loads the plugins first
(see ``_main`` for why) and never shows a traceback for an expected error.
"""

from tai_core.cli._main import AppContext, build, main, make_group

__all__ = ["AppContext", "build", "main", "make_group"]
