"""The kit's pytest plugin (entry point ``pytest11``): fixtures for a plugin's own tests.

Each test gets its own host with the installed plugins loaded; what a test registers is
unregistered after it (the pattern llm's plugin tests follow), so tests do not leak into
each other. Nothing heavy is imported before a fixture is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tai_core.plugins import PluginHost
    from tai_core.testing import Fault, Reply, ScriptedModel, SessionRun

__all__ = ["tai_host", "tai_model", "tai_plugin", "tai_project", "tai_run"]


@pytest.fixture
def tai_host() -> PluginHost:
    """A plugin host with every installed plugin loaded (the core's commands aside): their
    kinds in ``tai_host.registry.block_kinds`` (likewise ``providers``,
    ``context_providers``), each plugin's record from ``tai_host.record(NAME)``."""
    import io

    from tai_core.plugins import LoadOptions, PluginHost

    host = PluginHost(LoadOptions(), stderr=io.StringIO())
    host.load_entry_points()
    return host


@pytest.fixture
def tai_plugin(tai_host: PluginHost) -> Iterator[Callable[..., Any]]:
    """``tai_plugin(plugin, name=None)`` registers ``plugin`` (a module or an object with
    hook implementations) on ``tai_host`` for this test; its record. A plugin that fails to
    register fails the test with its load error; a name already loaded (an installed
    plugin: ``tai_host`` has it) fails the test saying so."""
    registered: list[str] = []

    def register(plugin: object, name: str | None = None) -> Any:
        chosen = name or getattr(plugin, "__name__", type(plugin).__name__)
        if tai_host.pm.has_plugin(chosen):
            pytest.fail(
                f"a plugin named {chosen!r} is loaded already (an installed plugin: tai_host "
                f"loads it; use tai_host.registry, or give this one another name)"
            )
        record = tai_host.register(plugin, chosen)
        registered.append(chosen)
        if record.status != "loaded":
            pytest.fail(f"plugin {chosen!r} did not register: {record.error}")
        return record

    yield register
    for name in reversed(registered):
        tai_host.unregister(name)


@pytest.fixture
def tai_model() -> Callable[..., ScriptedModel]:
    """``tai_model(*replies)``: a :class:`~tai_core.testing.ScriptedModel` answering with
    ``replies`` (strings, :class:`~tai_core.testing.Reply` or
    :class:`~tai_core.testing.Fault`)."""
    from tai_core.testing import ScriptedModel

    def make(*replies: str | Reply | Fault, **options: Any) -> ScriptedModel:
        return ScriptedModel(*replies, **options)

    return make


@pytest.fixture
def tai_project(tmp_path: Path) -> Callable[..., Path]:
    """``tai_project(files, config=None)``: a project directory under the test's temporary
    directory holding ``files`` (relative path -> text) and the ``tai.toml`` ``config``."""
    from tai_core.testing import project

    def make(files: dict[str, str] | None = None, config: str | None = None) -> Path:
        return project(tmp_path / "project", files or {}, config)

    return make


@pytest.fixture
def tai_run(tai_host: PluginHost, tmp_path: Path) -> Callable[..., SessionRun]:
    """``tai_run(model, task, cwd=None, **options)``: :func:`tai_core.testing.run_session`
    on ``tai_host`` (``cwd`` defaults to the test's project directory; ``config``, unless
    given, is the project's ``tai.toml``, as ``tai_project(files, config)`` wrote it)."""
    from tai_core.config import load_config
    from tai_core.testing import run_session

    def run(model: ScriptedModel, task: str, cwd: Path | None = None, **options: Any) -> SessionRun:
        folder = cwd or tmp_path / "project"
        folder.mkdir(parents=True, exist_ok=True)
        if "config" not in options:  # the project's own, without the user's configuration
            alone = {"TAI_CONFIG_DIR": str(tmp_path / "no-user-configuration")}
            options["config"] = dict(load_config(folder, alone).values)
        return run_session(tai_host, model, task, cwd=folder, **options)

    return run
