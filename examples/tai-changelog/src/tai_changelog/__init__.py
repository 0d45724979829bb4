"""tai-changelog: the project's changelog, added to the context tai sends.

An example of a third-party *additive* context provider with settings: one module, one
entry point in the group ``tai``, nothing imported from tai but its public API. The
newest entries come first in a changelog, so the part keeps the file's beginning, cut at a
line boundary within ``max_bytes``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from tai_core import ContextPart, ContextRequest, hookimpl
from tai_core.context import TIER_CONTEXT


class Settings(BaseModel):
    """The ``[plugins.changelog]`` table."""

    #: The changelog's file name, relative to the working directory.
    file: str = "CHANGELOG.md"
    #: The most bytes of it sent (the newest entries: the file's beginning).
    max_bytes: int = Field(default=8000, gt=0)


class Changelog:
    """Adds the changelog to every context, wherever the project has one."""

    name = "changelog"
    description = "the project's changelog (its newest entries), added to the context"
    additive = True

    def __init__(self) -> None:
        self.settings = Settings()

    def applies(self, cwd: Path) -> bool:
        """True when the working directory has the changelog file."""
        return (cwd / self.settings.file).is_file()

    def collect(self, request: ContextRequest) -> tuple[ContextPart, ...]:
        """One part: the changelog's newest entries."""
        data = (request.cwd / self.settings.file).read_bytes()
        kept = data[: self.settings.max_bytes]
        if len(kept) < len(data):
            kept = kept[: kept.rfind(b"\n") + 1] or kept
        text = kept.decode("utf-8", errors="replace")
        left = len(data) - len(kept)
        cut = f"\n(older entries left out: {left} of {len(data)} bytes)\n" if left else ""
        return (
            ContextPart(
                TIER_CONTEXT, "changelog",
                f"``` begin of changelog {self.settings.file}\n{text}{cut}``` end of changelog",
                path=self.settings.file,
            ),
        )  # fmt: skip


PROVIDER = Changelog()


@hookimpl
def tai_register_context_providers(register: Callable[[Any], None]) -> None:
    """Register the provider."""
    register(PROVIDER)


@hookimpl
def tai_plugin_settings() -> type[Settings]:
    """The settings of ``[plugins.changelog]``."""
    return Settings


@hookimpl
def tai_configure(settings: Settings) -> None:
    """Use the checked settings."""
    PROVIDER.settings = settings
