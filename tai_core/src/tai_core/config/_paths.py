"""Where tai's files are: the configuration files that apply to a directory, and tai's
per-user directories (configuration, cache, data).

Computed on strings with ``os.path``, not ``pathlib``: the launch cache
(:mod:`tai_core.cli._launch`) checks the configuration files before it answers
``tai --help`` from its cache, and ``pathlib`` (with ``re``, ``fnmatch`` and
``urllib.parse`` behind it) would cost it more than everything else it does. The public
functions return :class:`~pathlib.Path` objects as the rest of tai expects; the string
forms (``*_str``) are for the launch.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: see tai_core._lazy
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

#: File names looked for in each configuration directory, in this order.
FILE_NAMES: tuple[str, ...] = ("tai.toml", ".tai.toml")

#: The project's standing instructions, read by every later run: ``AGENTS.md`` (its
#: instructions to the model) and the ``.tai`` directory (its agent commands and skills).
#: A model must not write them — that would be a prompt injected into every run after —
#: so the sandbox protects them as it protects the configuration files.
INSTRUCTIONS_FILE = "AGENTS.md"
PROJECT_DIR = ".tai"

#: The launch cache's directory in tai's cache directory: the answers to ``tai --help``,
#: ``--version`` and ``tai plugins``, printed later without a check of their content
#: beyond printability, so the sandbox keeps it read-only like the helper programs.
LAUNCH_DIR = "launch"


class _PlatformDir:
    """Where one kind of per-user directory lives on each platform."""

    __slots__ = ("mac", "windows_default", "windows_variable", "xdg_default", "xdg_variable")

    def __init__(self, windows_variable: str, windows_default: tuple[str, ...],
                 mac: tuple[str, ...], xdg_variable: str, xdg_default: str) -> None:  # fmt: skip
        self.windows_variable = windows_variable
        self.windows_default = windows_default
        self.mac = mac
        self.xdg_variable = xdg_variable
        self.xdg_default = xdg_default


_CONFIG = _PlatformDir("APPDATA", ("AppData", "Roaming"), ("Library", "Application Support"),
                       "XDG_CONFIG_HOME", ".config")  # fmt: skip
_CACHE = _PlatformDir("LOCALAPPDATA", ("AppData", "Local"), ("Library", "Caches"),
                      "XDG_CACHE_HOME", ".cache")  # fmt: skip
_DATA = _PlatformDir("LOCALAPPDATA", ("AppData", "Local"), ("Library", "Application Support"),
                     "XDG_DATA_HOME", ".local/share")  # fmt: skip


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def _tai_dir(kind: _PlatformDir, env: Mapping[str, str]) -> str:
    home = env.get("HOME") or os.path.expanduser("~")
    if sys.platform == "win32":
        base = env.get(kind.windows_variable) or os.path.join(home, *kind.windows_default)
    elif sys.platform == "darwin":
        base = os.path.join(home, *kind.mac)
    else:
        base = env.get(kind.xdg_variable) or os.path.join(home, kind.xdg_default)
    return os.path.join(base, "tai")


def user_config_dir_str(environ: Mapping[str, str] | None = None) -> str:
    """:func:`user_config_dir` as a string."""
    env = _environ(environ)
    return env.get("TAI_CONFIG_DIR") or _tai_dir(_CONFIG, env)


def user_cache_dir_str(environ: Mapping[str, str] | None = None) -> str:
    """:func:`user_cache_dir` as a string."""
    return _tai_dir(_CACHE, _environ(environ))


#: The user's declarations in the configuration directory: agent commands and skills.
DECLARATION_DIRS = ("agents", "skills")


def declaration_files_str(cwd: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """The files of the declarations that apply in ``cwd`` (the user's ``agents/`` and
    ``skills/``, each project directory's ``.tai/``), sorted: what plugins register from
    depends on them, so the launch cache's fingerprint does too."""
    roots = [os.path.join(user_config_dir_str(environ), name) for name in DECLARATION_DIRS]
    roots += [os.path.join(d, PROJECT_DIR) for d in project_directories_str(cwd)]
    files: list[str] = []
    for root in roots:
        for directory, _, names in os.walk(root):
            files += [os.path.join(directory, name) for name in names]
    return sorted(files)


def go_module_root_str(start: str) -> str | None:
    """:func:`go_module_root` on strings."""
    directory = start
    while True:
        if os.path.isfile(os.path.join(directory, "go.mod")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def config_directories_str(cwd: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """:func:`config_directories` on strings (``cwd`` resolved by the caller)."""
    candidates = [cwd, go_module_root_str(cwd), user_config_dir_str(environ), "/etc/tai"]
    directories: list[str] = []
    for directory in candidates:
        real = os.path.realpath(directory) if directory is not None else None
        if real is not None and real not in directories:
            directories.append(real)
    return directories


def config_files_str(cwd: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """The configuration files that apply to the resolved directory ``cwd``, nearest
    first: every name that exists, a directory or a broken link too, so that reading it
    names it (it would otherwise be ignored, or fail later under another name)."""
    return [
        os.path.join(directory, name)
        for directory in config_directories_str(cwd, environ)
        for name in FILE_NAMES
        if os.path.lexists(os.path.join(directory, name))
    ]


def user_config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """tai's directory in the user's config directory (``TAI_CONFIG_DIR`` overrides).

    Follows the platform's convention as the original (Go's ``os.UserConfigDir``) does:
    ``$XDG_CONFIG_HOME`` or ``~/.config`` on Linux and BSD, ``~/Library/Application
    Support`` on macOS, ``%AppData%`` on Windows.
    """
    from pathlib import Path

    return Path(user_config_dir_str(environ))


def user_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """tai's directory in the user's cache directory (tools tai installs, such as goimports):
    ``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
    ``%LocalAppData%`` on Windows."""
    from pathlib import Path

    return Path(user_cache_dir_str(environ))


def user_data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """tai's directory for what it writes itself — records, sessions, keys — apart from the
    configuration the user writes (``TAI_DATA_DIR`` overrides): ``$XDG_DATA_HOME`` or
    ``~/.local/share`` on Linux, ``~/Library/Application Support`` on macOS,
    ``%LocalAppData%`` on Windows.

    Kept apart because the configuration directory is read-only inside the sandbox and
    this one is writable: tai never loads configuration, plugins or programs from here.
    """
    from pathlib import Path

    env = _environ(environ)
    if env.get("TAI_DATA_DIR"):
        return Path(env["TAI_DATA_DIR"])
    base = Path(_tai_dir(_DATA, env))
    # On macOS the config and data conventions share a folder: keep the data beside it.
    return base.with_name("tai-data") if sys.platform == "darwin" else base


def go_module_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding a ``go.mod``."""
    from pathlib import Path

    found = go_module_root_str(str(start))
    return None if found is None else Path(found)


def project_directories_str(cwd: str) -> list[str]:
    """:func:`project_directories` on strings (``cwd`` resolved by the caller)."""
    chain = [cwd]
    while os.path.dirname(chain[-1]) != chain[-1]:
        chain.append(os.path.dirname(chain[-1]))
    for depth, directory in enumerate(chain):
        if os.path.exists(os.path.join(directory, ".git")):
            return list(reversed(chain[: depth + 1]))
    return [cwd]


def project_directories(cwd: Path) -> list[Path]:
    """The directories whose project files apply in ``cwd`` (``AGENTS.md``, ``.tai/``):
    from the repository's root (the nearest directory at or above ``cwd`` that holds
    ``.git``) down to ``cwd``, root first; outside a repository, ``cwd`` alone — a
    directory above it, a home directory say, belongs to no project."""
    from pathlib import Path

    return [Path(directory) for directory in project_directories_str(str(cwd.resolve()))]


def config_directories(cwd: Path, environ: Mapping[str, str] | None = None) -> list[Path]:
    """The directories searched for configuration files, nearest first, without repeats:
    the working directory, the Go module root (when different), the user config
    directory, ``/etc/tai``."""
    from pathlib import Path

    return [Path(directory) for directory in config_directories_str(str(cwd), environ)]


def config_files(cwd: Path, environ: Mapping[str, str] | None = None) -> list[Path]:
    """The configuration files that apply to the resolved directory ``cwd``, nearest
    first."""
    from pathlib import Path

    return [Path(file) for file in config_files_str(str(cwd), environ)]
