"""pluggy's plugin manager, quicker to register a module (see :class:`Manager`)."""

from __future__ import annotations

from types import FunctionType, MethodType, ModuleType
from typing import Any

import pluggy


class Manager(pluggy.PluginManager):
    """pluggy's manager, quicker to register a module.

    pluggy looks at each of a plugin's names through :func:`inspect.getattr_static` (so
    that properties and other descriptors never run), which costs half of loading tai's
    forty plugins, nearly all of it on the names a module imports. A module's name is
    looked up in its namespace, which is what ``getattr_static`` finds for a module: a
    value pluggy would pass over (it takes only functions, bound methods, static and
    class methods) and a function without tai's mark are passed over here at once;
    anything else, and every plugin that is not a module, goes through pluggy's own
    discovery. Overriding ``parse_hookimpl_opts`` is pluggy's documented way to change
    discovery (pytest does)."""

    def parse_hookimpl_opts(self, plugin: object, name: str) -> Any:
        """The hook implementation options of ``plugin``'s ``name``, or ``None``."""
        if isinstance(plugin, ModuleType):
            value = plugin.__dict__.get(name)
            if isinstance(value, FunctionType):
                if f"{self.project_name}_impl" not in value.__dict__:
                    return None
            elif not isinstance(value, (MethodType, staticmethod, classmethod)):
                return None
        return super().parse_hookimpl_opts(plugin, name)  # type: ignore[arg-type]
