"""The ``go`` context provider plugin: staged context for Go modules and workspaces.

Registered through ``tai_register_context_providers`` under the entry point ``go``. The
work happens in :mod:`tai_go._collect`, imported when a collection runs, so
loading the plugin costs nothing at start-up. In a Go module the plugin also builds its
documentation helper before the sandbox starts (``tai_prepare_isolation``;
:mod:`tai_go._godoc`), since inside it the helper directory is read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tai_core import hookimpl
from tai_core.context import ContextPart, ContextRequest


class GoContextProvider:
    """Context for a Go module or workspace: the focus as documentation, the context
    packages at the levels the budget allows (see :mod:`tai_go`)."""

    name = "go"
    description = "Go modules: focus packages as go doc outlines, context within a token budget"

    def applies(self, cwd: Path) -> bool:
        """True inside a Go module or workspace (``go.mod`` or ``go.work`` at or above)."""
        folder = cwd.resolve()
        return any(
            (d / "go.mod").is_file() or (d / "go.work").is_file() for d in (folder, *folder.parents)
        )

    def collect(self, request: ContextRequest) -> tuple[ContextPart, ...]:
        """The parts of ``request``, ordered by ``(tier, key)``; the load is kept for
        ``go-src`` (:func:`tai_go.snapshot`)."""
        from tai_go._collect import collect

        return collect(request)


#: The provider object the plugin registers.
PROVIDER = GoContextProvider()


@hookimpl
def tai_register_context_providers(register: Callable[[Any], None]) -> None:
    """Register the Go context provider."""
    register(PROVIDER)


@hookimpl
def tai_prepare_isolation(cwd: str, config: Mapping[str, Any]) -> None:
    """In a Go module or workspace, build the documentation helper now if it is missing
    (inside the sandbox it could not be; without it ``go doc`` runs per package)."""
    folder = Path(cwd)
    if not PROVIDER.applies(folder):
        return
    from tai_go._godoc import prepare

    prepare(folder, (config.get("go") or {}).get("envs", ()))
