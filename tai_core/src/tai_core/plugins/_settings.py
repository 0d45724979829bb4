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

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tai_core._nearest import aside, did_you_mean
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
    from tai_core.config._lines import located

    for path in files:
        if found := located(path, key):
            return found
    return str(files[0]) if files else "tai.toml"


def checked(
    model: Any,
    table: Mapping[str, Any],
    prefix: str,
    where: Callable[[str], str],
    owner: str,
    *,
    besides: Iterable[str] = (),
) -> Any:
    """``table`` (the keys under ``prefix``) as an instance of ``model``, which ``owner``
    declared; a :class:`ConfigError` naming the place (``where(key)``: file and line) and
    the key when it is not one, with the nearest of the model's keys and of ``besides``
    (the keys the table may hold that are not the model's)."""
    from pydantic import ValidationError

    unknown = sorted(set(table) - set(model.model_fields))
    if unknown:
        key = f"{prefix}.{unknown[0]}"
        known = ", ".join(sorted(model.model_fields)) or "none"
        meant = did_you_mean(unknown[0], [*model.model_fields, *besides])
        raise ConfigError(
            f"{where(key)}: unknown key '{key}' ({meant + ' ' if meant else ''}{owner} takes: "
            f"{known})"
        )
    try:
        return model.model_validate(dict(table), strict=True)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join([prefix, *(str(part) for part in first["loc"])])
        place = where(key) if table else f"{where(prefix)} (no [{prefix}] table)"
        raise ConfigError(f"{place}: key '{key}': {first['msg']}") from None


def configure(
    host: PluginHost,
    values: Mapping[str, Any],
    files: Sequence[Path],
    warn: Callable[[str], None],
) -> None:
    """Check every ``[plugins.NAME]`` table of the merged configuration ``values`` (read
    from ``files``, nearest first) and give each plugin that declared settings its own;
    then check the generators' keys that their providers declare."""
    tables: Mapping[str, Any] = values.get("plugins") or {}
    for name, table in tables.items():
        key = f"plugins.{name}"
        if not isinstance(table, dict):
            raise ConfigError(f"{_where(files, key)}: key '{key}' must be a table")
        record = host.record(name)
        if record is None:
            near = did_you_mean(name, [r.name for r in host.records], "[plugins.{}]".format)
            meant = f"; {near}" if near else " (see tai plugins)"
            warn(f"[{key}] is set, but no plugin {name!r} is installed{meant}")
        elif record.status == "loaded" and name not in host.registry.settings:
            raise ConfigError(f"{_where(files, key)}: plugin {name!r} has no settings")
    for name, model in list(host.registry.settings.items()):
        settings = checked(model, tables.get(name) or {}, f"plugins.{name}",
                           lambda key: _where(files, key), f"plugin {name!r}")  # fmt: skip
        host.configure_plugin(name, settings)
    for index, entry in enumerate(values.get("generators") or ()):
        _check_generator(host, entry, files, index)


def _check_generator(
    host: PluginHost, entry: Mapping[str, Any], files: Sequence[Path], index: int
) -> None:
    """The keys of the ``index``-th ``[[generators]]`` entry that tai does not know,
    checked against the fields the provider serving its type declares (its
    ``generator_fields`` model); the files are read again only when it has such keys."""
    from tai_core.config._schema import ALIASES, GENERATOR_SCHEMA

    extra = {key: value for key, value in entry.items()
             if key not in GENERATOR_SCHEMA and key not in ALIASES}  # fmt: skip
    if not extra:
        return
    prefix, place = _generator_place(files, index)
    type_name = str(entry.get("type", "")).lower()
    provider = host.registry.providers.get(host.registry.provider_types.get(type_name, ""))
    model = getattr(provider, "generator_fields", None)
    common = [*GENERATOR_SCHEMA, *ALIASES]
    if model is None:
        first = sorted(extra)[0]
        key = f"{prefix}.{first}"
        meant = aside(did_you_mean(first, common))
        if provider is not None:
            whose = f"the {type_name!r} provider declares no fields of its own"
        elif type_name:
            from tai_core.models._resolve import type_meant

            near = type_meant(type_name, host.registry.providers)
            whose = f"no installed provider serves type {type_name!r}{aside(near)}"
        else:
            whose = "it has no type"
        raise ConfigError(f"{place(key)}: unknown key {key!r}{meant}: {whose}")
    checked(model, extra, prefix, place, f"the {type_name!r} provider", besides=common)


def _generator_place(files: Sequence[Path], index: int) -> tuple[str, Callable[[str], str]]:
    """The ``index``-th entry of the merged ``[[generators]]`` lists (they concatenate,
    nearest file first) as its file numbers it (``generators[N]``), and where a key of it
    is set (``file:line``)."""
    import tomllib

    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
            count = len(tomllib.loads(text).get("generators", []))
        except (OSError, ValueError):
            continue
        if index < count:
            return f"generators[{index}]", _placer(path, text)
        index -= count
    return f"generators[{index}]", lambda key: str(files[0]) if files else "tai.toml"


def _placer(path: Path, text: str) -> Callable[[str], str]:
    from tai_core.config._lines import located

    return lambda key: located(path, key, text) or str(path)
