"""What every command works with: the plugin host, the configuration, the isolation in force.

It lives below the command line and the commands, so that the commands take it without
importing the command line that builds it (tai_core reads as floors, each using only those
below it: ``tests/test_layers.py``).
"""

from __future__ import annotations

import attrs

from tai_core.config import Config
from tai_core.plugins import PluginHost


@attrs.frozen
class AppContext:
    """What every command receives as ``ctx.obj``."""

    host: PluginHost
    config: Config
    #: What ``tai_enter_isolation`` said is in force, when it was called.
    isolation: str | None = None
