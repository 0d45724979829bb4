"""The plugin layer: tai is built from its own hooks.

pluggy carries the registration layer (hook specs in :mod:`tai_core.hookspecs`, the
``tai`` marker); :class:`PluginHost` loads the entry points of the group ``tai`` one at a
time and keeps a :class:`Registry` of what each plugin registered. Built-in block kinds,
providers and context providers are plugins of exactly this kind, so a third party can do
whatever a built-in does, and ``-p no:NAME`` can switch any of them off.
"""

from tai_core.plugins._agent_commands import AgentCommand, agent_usage
from tai_core.plugins._entry_points import find_entry_points
from tai_core.plugins._failures import RULES, IsolationError, PluginHookError, validation_problems
from tai_core.plugins._host import (
    CORE_PLUGIN,
    ENTRY_POINT_GROUP,
    LoadOptions,
    PluginHost,
    PluginLoadError,
    PluginRecord,
    default_options,
)
from tai_core.plugins._markers import hookimpl
from tai_core.plugins._observe import observe
from tai_core.plugins._registry import CATEGORIES, RegistrationError, Registry
from tai_core.plugins._session_commands import SessionCommand

__all__ = [
    "CATEGORIES",
    "CORE_PLUGIN",
    "ENTRY_POINT_GROUP",
    "RULES",
    "AgentCommand",
    "IsolationError",
    "LoadOptions",
    "PluginHookError",
    "PluginHost",
    "PluginLoadError",
    "PluginRecord",
    "RegistrationError",
    "Registry",
    "SessionCommand",
    "agent_usage",
    "default_options",
    "find_entry_points",
    "hookimpl",
    "observe",
    "validation_problems",
]
