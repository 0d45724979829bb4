"""The ``py`` context provider plugin: staged context for Python projects.

Registered through ``tai_register_context_providers`` under the entry point ``py``. It
applies in a directory at or below a ``pyproject.toml``, ``setup.cfg`` or ``setup.py``
(after ``go``: a Go module with a Python helper script stays a Go module; ``-py`` picks it
anywhere). The work happens in :mod:`tai_python._collect`, imported when a collection
runs, so loading the plugin costs nothing at start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tai_core import hookimpl
from tai_core.context import ContextPart, ContextRequest


class PythonContextProvider:
    """Context for a Python project: the focus as outlines, the modules it imports at the
    levels the budget allows (see :mod:`tai_python`)."""

    name = "py"
    description = "Python projects: focus modules as outlines, context within a token budget"

    def applies(self, cwd: Path) -> bool:
        """True inside a Python project (a project file at or above ``cwd``)."""
        from tai_python import project_root

        return project_root(cwd) is not None

    def collect(self, request: ContextRequest) -> tuple[ContextPart, ...]:
        """The parts of ``request``, ordered by ``(tier, key)``; the load is kept for
        ``py-src`` (:func:`tai_python.snapshot`)."""
        from tai_python._collect import collect

        return collect(request)


#: The provider object the plugin registers.
PROVIDER = PythonContextProvider()


@hookimpl
def tai_register_context_providers(register: Callable[[Any], None]) -> None:
    """Register the Python context provider."""
    register(PROVIDER)
