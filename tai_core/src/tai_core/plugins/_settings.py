"""Plugin settings: declared as a pydantic model, written in ``[plugins.NAME]``, delivered
typed.

A plugin declares its settings with ``tai_plugin_settings`` (a model class, checked when
the plugin loads); users write them in the ``[plugins.NAME]`` table of ``tai.toml``, which
the configuration loader keeps aside (it cannot know the fields before plugins load).
:func:`configure` then checks each table as tai checks its own keys — closed (an unknown
key is an error), strict (TOML is typed: ``"3"`` is not ``3``), every message one line
naming the file, the line and the key — and hands each plugin its settings through
``tai_configure``, the defaults when the table is absent.

Why pydantic: the maintained library for exactly this — a class with typed fields and
defaults is the whole declaration, validation errors come per field with their location,
and a model gives the JSON schema ``tai plugins --json`` shows. It is imported only when a
plugin declares settings, so start-up without such a plugin does not pay for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tai_core.config import ConfigError

if TYPE_CHECKING:
    from tai_core.plugins._host import PluginHost


def settings_model(value: object) -> str | None:
    """Why ``value`` (what ``tai_plugin_settings`` returned) is not a settings model, or
    ``None`` when it is one."""
    from pydantic import BaseModel

    if isinstance(value, type) and issubclass(value, BaseModel):
        return None
    return f"tai_plugin_settings must return a pydantic model class, not {value!r:.60}"


def _where(files: Sequence[Path], key: str) -> str:
    """The file (and line) nearest the working directory that sets ``key``."""
    from tai_core.config._lines import line_of

    for path in files:
        try:
            line = line_of(path.read_text(encoding="utf-8", errors="replace"), key)
        except OSError:
            continue
        if line is not None:
            return f"{path}:{line}"
    return str(files[0]) if files else "tai.toml"


def checked(model: Any, table: Mapping[str, Any], name: str, files: Sequence[Path]) -> Any:
    """``table`` (the ``[plugins.NAME]`` table) as an instance of ``model``; a
    :class:`ConfigError` naming file, line and key when it is not one."""
    from pydantic import ValidationError

    prefix = f"plugins.{name}"
    unknown = sorted(set(table) - set(model.model_fields))
    if unknown:
        known = ", ".join(sorted(model.model_fields)) or "none"
        raise ConfigError(
            f"{_where(files, f'{prefix}.{unknown[0]}')}: unknown key '{prefix}.{unknown[0]}' "
            f"(plugin {name!r} takes: {known})"
        )
    try:
        return model.model_validate(dict(table), strict=True)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join([prefix, *(str(part) for part in first["loc"])])
        where = _where(files, key) if table else f"{_where(files, prefix)} (no [{prefix}] table)"
        raise ConfigError(f"{where}: key '{key}': {first['msg']}") from None


def configure(
    host: PluginHost,
    values: Mapping[str, Any],
    files: Sequence[Path],
    warn: Callable[[str], None],
) -> None:
    """Check every ``[plugins.NAME]`` table of the merged configuration ``values`` (read
    from ``files``, nearest first) and give each plugin that declared settings its own."""
    tables: Mapping[str, Any] = values.get("plugins") or {}
    for name, table in tables.items():
        key = f"plugins.{name}"
        if not isinstance(table, dict):
            raise ConfigError(f"{_where(files, key)}: key '{key}' must be a table")
        record = host.record(name)
        if record is None:
            warn(f"[{key}] is set, but no plugin {name!r} is installed (see tai plugins)")
        elif record.status == "loaded" and name not in host.registry.settings:
            raise ConfigError(f"{_where(files, key)}: plugin {name!r} has no settings")
    for name, model in list(host.registry.settings.items()):
        settings = checked(model, tables.get(name) or {}, name, files)
        host.configure_plugin(name, settings)
