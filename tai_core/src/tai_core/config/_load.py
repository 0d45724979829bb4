"""Finding, reading, checking and merging the configuration files.

Files are read nearest first: the working directory, the Go module root (when different),
the user config directory, ``/etc/tai``. The nearest file's scalar wins, lists
concatenate (nearest first), tables merge key by key by the same rules; flags override
all of it later. Every file is checked against the closed schema before merging, so an
error always names the one file and key at fault. TOML is read with the standard
library's ``tomllib``, imported only when a file exists (start-up stays light when none
does).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from tai_core.config._schema import ALIASES, CONFIG_SCHEMA, Bounded, Schema

#: File names looked for in each configuration directory, in this order.
FILE_NAMES: tuple[str, ...] = ("tai.toml", ".tai.toml")

_LIST_TYPES = ("strs", "str|strs", "tables")


class ConfigError(Exception):
    """A configuration file that cannot be used; the message names the file and key."""


@attrs.frozen
class Config:
    """The merged configuration and the files it came from (nearest first)."""

    values: Mapping[str, Any] = attrs.Factory(dict)
    files: tuple[Path, ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default`` when no file sets it."""
        return self.values.get(key, default)


@attrs.frozen
class _PlatformDir:
    """Where one kind of per-user directory lives on each platform."""

    windows_variable: str
    windows_default: tuple[str, ...]
    mac: tuple[str, ...]
    xdg_variable: str
    xdg_default: str


_CONFIG = _PlatformDir("APPDATA", ("AppData", "Roaming"), ("Library", "Application Support"),
                       "XDG_CONFIG_HOME", ".config")  # fmt: skip
_CACHE = _PlatformDir("LOCALAPPDATA", ("AppData", "Local"), ("Library", "Caches"),
                      "XDG_CACHE_HOME", ".cache")  # fmt: skip
_DATA = _PlatformDir("LOCALAPPDATA", ("AppData", "Local"), ("Library", "Application Support"),
                     "XDG_DATA_HOME", ".local/share")  # fmt: skip


def _tai_dir(kind: _PlatformDir, env: Mapping[str, str]) -> Path:
    home = Path(env.get("HOME") or Path.home())
    if sys.platform == "win32":
        base = Path(env.get(kind.windows_variable) or home.joinpath(*kind.windows_default))
    elif sys.platform == "darwin":
        base = home.joinpath(*kind.mac)
    else:
        base = Path(env.get(kind.xdg_variable) or home / kind.xdg_default)
    return base / "tai"


def user_config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """tai's directory in the user's config directory (``TAI_CONFIG_DIR`` overrides).

    Follows the platform's convention as the original (Go's ``os.UserConfigDir``) does:
    ``$XDG_CONFIG_HOME`` or ``~/.config`` on Linux and BSD, ``~/Library/Application
    Support`` on macOS, ``%AppData%`` on Windows.
    """
    env = os.environ if environ is None else environ
    if env.get("TAI_CONFIG_DIR"):
        return Path(env["TAI_CONFIG_DIR"])
    return _tai_dir(_CONFIG, env)


def user_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """tai's directory in the user's cache directory (tools tai installs, such as goimports):
    ``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
    ``%LocalAppData%`` on Windows."""
    return _tai_dir(_CACHE, os.environ if environ is None else environ)


def user_data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """tai's directory for what it writes itself — records, sessions, keys — apart from the
    configuration the user writes (``TAI_DATA_DIR`` overrides): ``$XDG_DATA_HOME`` or
    ``~/.local/share`` on Linux, ``~/Library/Application Support`` on macOS,
    ``%LocalAppData%`` on Windows.

    Kept apart because the configuration directory is read-only inside the sandbox and
    this one is writable: tai never loads configuration, plugins or programs from here.
    """
    env = os.environ if environ is None else environ
    if env.get("TAI_DATA_DIR"):
        return Path(env["TAI_DATA_DIR"])
    base = _tai_dir(_DATA, env)
    # On macOS the config and data conventions share a folder: keep the data beside it.
    return base.with_name("tai-data") if sys.platform == "darwin" else base


def go_module_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding a ``go.mod``."""
    for directory in (start, *start.parents):
        if (directory / "go.mod").is_file():
            return directory
    return None


def config_directories(cwd: Path, environ: Mapping[str, str] | None = None) -> list[Path]:
    """The directories searched for configuration files, nearest first, without repeats."""
    candidates = [cwd, go_module_root(cwd), user_config_dir(environ), Path("/etc/tai")]
    directories: list[Path] = []
    for directory in candidates:
        if directory is not None and directory.resolve() not in directories:
            directories.append(directory.resolve())
    return directories


def load_config(cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """Read, check and merge every configuration file that applies to ``cwd``."""
    files = [
        directory / name
        for directory in config_directories((cwd or Path.cwd()).resolve(), environ)
        for name in FILE_NAMES
        if (directory / name).is_file()
    ]
    tables = [read_file(path) for path in files]
    merged: dict[str, Any] = {}
    for table in tables:
        merged = _merge(merged, table, CONFIG_SCHEMA)
    return Config(values=merged, files=tuple(files))


def read_file(path: Path) -> dict[str, Any]:
    """One configuration file, checked against the schema, aliases resolved."""
    import tomllib

    from tai_core.textfile import NotUTF8Error, decode_utf8

    try:
        data = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read: {error.strerror}") from None
    try:
        raw = tomllib.loads(decode_utf8(data, str(path)))
    except NotUTF8Error as error:
        raise ConfigError(f"{error}; TOML files are UTF-8") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    return _check_table(raw, CONFIG_SCHEMA, path, prefix="", aliases=ALIASES)


def _type_name(kind: Any) -> str:
    names = {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "true or false",
        "strs": "a list of strings",
        "str|strs": "a string or a list of strings",
        "map": "a table",
    }
    if isinstance(kind, Bounded):
        return kind.description
    if isinstance(kind, tuple):
        return "a list of tables" if kind[0] == "tables" else "a table"
    return names[kind]


def _check_value(value: Any, kind: Any, path: Path, key: str) -> Any:
    def wrong() -> ConfigError:
        return ConfigError(
            f"{path}: key {key!r} must be {_type_name(kind)}, not {type(value).__name__}"
        )

    if isinstance(kind, Bounded):
        try:
            number = _check_value(value, kind.type, path, key)
        except ConfigError:
            number = None
        if number is None or not kind.accepts(number):
            # The wrong type is named by its type, a value out of range by itself.
            shown = type(value).__name__ if number is None else repr(value)
            raise ConfigError(f"{path}: key {key!r} must be {kind.description}, not {shown}")
        return number
    if kind is bool:
        if not isinstance(value, bool):
            raise wrong()
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise wrong()
        return value
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise wrong()
        return float(value)
    if kind is str:
        if not isinstance(value, str):
            raise wrong()
        return value
    if kind == "map":
        if not isinstance(value, dict):
            raise wrong()
        return value
    if kind in ("strs", "str|strs"):
        if kind == "str|strs" and isinstance(value, str):
            return [value]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise wrong()
        return list(value)
    container, schema = kind
    if container == "table":
        if not isinstance(value, dict):
            raise wrong()
        return _check_table(value, schema, path, prefix=f"{key}.")
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise wrong()
    return [
        _check_table(item, schema, path, prefix=f"{key}[{index}].")
        for index, item in enumerate(value)
    ]


def _check_table(
    table: Mapping[str, Any],
    schema: Schema,
    path: Path,
    prefix: str,
    aliases: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    checked: dict[str, Any] = {}
    via_alias: dict[str, Any] = {}
    for key, value in table.items():
        canonical = (aliases or {}).get(key, key)
        if canonical not in schema:
            raise ConfigError(f"{path}: unknown key {prefix + key!r}")
        target = checked if canonical == key else via_alias
        target[canonical] = _check_value(value, schema[canonical], path, prefix + key)
    return {**via_alias, **checked}


def _merge(near: dict[str, Any], far: Mapping[str, Any], schema: Schema) -> dict[str, Any]:
    """``near`` (already merged, nearer files) with ``far`` (a farther file) under it."""
    merged = dict(near)
    for key, value in far.items():
        kind = schema[key]
        if key not in merged:
            merged[key] = value
        elif kind in _LIST_TYPES or (isinstance(kind, tuple) and kind[0] == "tables"):
            merged[key] = [*merged[key], *value]
        elif isinstance(kind, tuple):
            merged[key] = _merge(merged[key], value, kind[1])
        elif kind == "map":
            merged[key] = {**value, **merged[key]}
    return merged
