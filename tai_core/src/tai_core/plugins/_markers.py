"""The marker plugins use to implement hooks: ``@tai_core.hookimpl``."""

import pluggy

#: Decorates a plugin's hook implementations (project name ``tai``).
hookimpl = pluggy.HookimplMarker("tai")
