"""Finding, reading, checking and merging the configuration files.

Files are read nearest first (``_paths`` finds them): the working directory, the Go
module root (when different), the user config directory, ``/etc/tai``. The nearest file's
scalar wins, lists concatenate (nearest first), tables merge key by key by the same rules;
flags override all of it later. Every file is checked against the closed schema before
merging, so an error always names the one file and key at fault. TOML is read with the
standard library's ``tomllib``, imported only when a file exists (start-up stays light when
none does).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs

from tai_core._nearest import aside, did_you_mean
from tai_core._printable import printable
from tai_core.config._paths import config_files
from tai_core.config._schema import (
    ALIASES,
    CONFIG_SCHEMA,
    OPEN,
    Bounded,
    OneOf,
    Schema,
    WebAddress,
)

_LIST_TYPES = ("strs", "str|strs", "tables")

T = TypeVar("T")
R = TypeVar("R")


class ConfigError(Exception):
    """A configuration file that cannot be used; the message names the file and key.

    Every problem of the files is found before one is raised, so that a user mends them
    all at once: :attr:`problems` holds each (one line, ``FILE:LINE: …``), the message
    is the first of them and how many more there are."""

    def __init__(self, *problems: str) -> None:
        self.problems: tuple[str, ...] = problems
        more = len(problems) - 1
        super().__init__(problems[0] + (f" (and {more} more)" if more > 0 else ""))

    @classmethod
    def of(cls, errors: list[ConfigError]) -> ConfigError:
        """One error with the problems of ``errors``, in their order."""
        return cls(*(problem for error in errors for problem in error.problems))


def _collected(items: Iterable[T], check: Callable[[T], R]) -> list[R]:
    """``check`` of each of ``items``; the problems of all that fail raised as one."""
    results: list[R] = []
    errors: list[ConfigError] = []
    for item in items:
        try:
            results.append(check(item))
        except ConfigError as error:
            errors.append(error)
    if errors:
        raise ConfigError.of(errors)
    return results


@attrs.frozen
class Config:
    """The merged configuration and the files it came from (nearest first)."""

    values: Mapping[str, Any] = attrs.Factory(dict)
    files: tuple[Path, ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default`` when no file sets it."""
        return self.values.get(key, default)


def load_config(cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """Read, check and merge every configuration file that applies to ``cwd``."""
    files = config_files((cwd or Path.cwd()).resolve(), environ)
    tables = _collected(files, read_file)
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
        nowhere = isinstance(error, FileNotFoundError)  # listed, so a link to nothing
        reason = "a link that leads nowhere" if nowhere else error.strerror
        raise ConfigError(f"{path}: cannot be read: {reason}") from None
    try:
        raw = tomllib.loads(decode_utf8(data, str(path)))
    except NotUTF8Error as error:
        raise ConfigError(f"{error}; TOML files are UTF-8") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    problems: list[str] = []
    checked: dict[str, Any] = {}
    try:
        checked = _check_table(raw, CONFIG_SCHEMA, path, prefix="", aliases=ALIASES)
    except ConfigError as error:
        problems += error.problems
    try:
        _check_generator_names(raw.get("generators"), path)
    except ConfigError as error:
        problems += error.problems
    if problems:  # in the order of their lines
        raise ConfigError(*sorted(problems, key=lambda problem: _line(problem, path)))
    return checked


def _line(problem: str, path: Path) -> int:
    """The line a problem of ``path`` points to (0 when it names none)."""
    number = problem.removeprefix(f"{path}:").partition(":")[0]
    return int(number) if number.isdigit() else 0


def _check_generator_names(generators: object, path: Path) -> None:
    """Each generator of one file has a name, and another than the file's others: a
    nameless one, or the second of a name, is one ``-model`` can never select. (A nearer
    file's generator of the same name as a farther one's is the override the layering
    is for.) A ``generators`` that is not a list of tables is the schema's to report."""
    if not isinstance(generators, list):
        return
    problems: list[str] = []
    first: dict[object, int] = {}
    for index, entry in enumerate(generators):
        key = f"generators[{index}]"
        name = entry.get("name") if isinstance(entry, dict) else 0
        if not isinstance(name, str | None):
            continue  # not a table, a name not a string: the schema says what it must be
        if not name:
            problems.append(
                f'{at(path, key)}: {key} has no name: give it one (name = "…"), the '
                "name -model selects it by"
            )
        elif name in first:
            problems.append(
                f"{at(path, key + '.name')}: {key} is named {name!r} like generators"
                f"[{first[name]}] of the same file, which -model {name} always selects"
            )
        else:
            first[name] = index
    if problems:
        raise ConfigError(*problems)


def at(path: Path, key: str) -> str:
    """``path:LINE`` of the line that sets ``key`` (``path`` alone when it cannot be
    found): where a message about the key points."""
    from tai_core.config._lines import located

    return located(path, key) or str(path)


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
    if isinstance(kind, Bounded | OneOf | WebAddress):
        return kind.description
    if isinstance(kind, tuple):
        return "a list of tables" if kind[0] == "tables" else "a table"
    return names[kind]


def _shown(value: Any) -> str:
    """``value`` as the TOML that wrote it (a string quoted, cut to 40 characters, escaped
    where it does not print); a list, a table or a date by what it is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        cut = value if len(value) <= 40 else value[:39] + "…"
        return f'"{printable(cut)}"'
    if isinstance(value, list):
        return "a list"
    return "a table" if isinstance(value, dict) else "a date or time"


def _check_value(value: Any, kind: Any, path: Path, key: str) -> Any:
    def wrong() -> ConfigError:
        hint = ""
        if isinstance(kind, tuple) and kind[0] == "tables" and isinstance(value, dict):
            hint = f": each entry is written [[{key}]], with two brackets"
        return ConfigError(
            f"{at(path, key)}: key {key!r} must be {_type_name(kind)}, not {_shown(value)}{hint}"
        )

    if isinstance(kind, Bounded):
        try:
            number = _check_value(value, kind.type, path, key)
        except ConfigError:
            number = None
        if number is None or not kind.accepts(number):
            where = at(path, key)
            raise ConfigError(
                f"{where}: key {key!r} must be {kind.description}, not {_shown(value)}"
            )
        return number
    if isinstance(kind, WebAddress):
        if not isinstance(value, str) or not kind.accepts(value):
            raise ConfigError(
                f"{at(path, key)}: key {key!r} must be {kind.description}, not {_shown(value)}"
            )
        return value
    if isinstance(kind, OneOf):
        if value not in kind.choices or not isinstance(value, str):
            near = ""
            if isinstance(value, str):
                near = aside(did_you_mean(value, kind.choices, _shown))
            raise ConfigError(
                f"{at(path, key)}: key {key!r} must be {kind.description}, "
                f"not {_shown(value)}{near}"
            )
        return value
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
    return _collected(
        enumerate(value),
        lambda entry: _check_table(entry[1], schema, path, prefix=f"{key}[{entry[0]}]."),
    )


def _check_table(
    table: Mapping[str, Any],
    schema: Schema,
    path: Path,
    prefix: str,
    aliases: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    checked: dict[str, Any] = {}
    via_alias: dict[str, Any] = {}
    errors: list[ConfigError] = []
    for key, value in table.items():
        canonical = (aliases or {}).get(key, key)
        if canonical not in schema:
            if OPEN in schema:  # checked once the plugins are known (plugins/_settings.py)
                checked[key] = value
                continue
            near = aside(did_you_mean(key, [*schema, *(aliases or {})]))
            where = at(path, prefix + key)
            errors.append(ConfigError(f"{where}: unknown key {prefix + key!r}{near}"))
            continue
        target = checked if canonical == key else via_alias
        try:
            target[canonical] = _check_value(value, schema[canonical], path, prefix + key)
        except ConfigError as error:  # and the table's other keys are checked too
            errors.append(error)
    if errors:
        raise ConfigError.of(errors)
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
