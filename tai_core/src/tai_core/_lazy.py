"""Package namespaces whose names are imported on first use (PEP 562).

``from tai_core import hookimpl`` is how every plugin starts, and ``tai --help`` answered
from the launch cache imports ``tai_core.cli``: neither may pay for attrs, pluggy and
click when it does not use them. A package that re-exports its modules' names does so
through :func:`lazy_exports`: the package module stays nearly empty, and the first access
of a name imports the module that defines it and keeps the value in the package's
namespace (later accesses are plain attribute reads). Type checkers and readers see the
same names through an ``if TYPE_CHECKING:`` import block beside the call, where
``TYPE_CHECKING`` is a module constant ``False`` (type checkers treat it as true): importing
``typing`` would pull in ``re``, ``collections`` and ``functools``, most of what such a
package would otherwise cost.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any


def lazy_exports(
    package: str, sources: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, which exports the names listed
    under each module of ``sources`` (module name -> names it defines)."""
    owner = {name: module for module, names in sources.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = owner.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *owner})

    return __getattr__, __dir__
