"""The console script: answers that have not changed since the last run come from a cache.

``tai --help``, ``tai --version`` and ``tai plugins [--json]`` print what the installed
plugins register, and working that out means importing click, pluggy, attrs and every
plugin: about ten times the bare interpreter's start. Their answer changes only when what
it was computed from changes, so the launch keeps each answer in tai's cache directory
(``launch/``) beside a fingerprint of its inputs, and prints it again, importing nothing
but this module and the configuration's path finder, while the fingerprint still holds.

The fingerprint — recomputed at every launch, so a stale answer is never printed:

* the interpreter (its path and version) and ``sys.path``, with each entry's mtime
  (installing or removing a distribution changes its directory);
* every module file outside the standard library that the answer was computed with —
  tai, its dependencies, each plugin's code, an editable checkout's sources — by mtime
  and size;
* the configuration files that apply to the working directory (``disabled_plugins``),
  found exactly as :func:`tai_core.config.load_config` finds them, and the declaration
  files plugins register from (agent commands, skills: the user's and the project's
  ``.tai/``);
* tai's environment variables (``TAI_*``), ``HOME`` and ``XDG_CONFIG_HOME``, and the
  terminal width the help is wrapped to.

An answer is stored only from a run that exited 0 and wrote nothing on stderr (a plugin
that fails to load warns at every run), and only when it is printable text: a cached
answer is printed without further checks, so a planted file must not carry escape
sequences to the terminal (and the files are the launch directory's, read-only in the
sandbox and read only when the user's alone: :mod:`tai_core.config._launch_files`).
``TAI_TRACE_PLUGINS=1`` (traces go to stderr) and ``TAI_NO_LAUNCH_CACHE=1`` bypass the
cache. A cache that cannot be read or written costs nothing but the full run: it is never
an error.

A full run keeps two more files there: what a start compiles at run time — attrs' and
dataclasses' generated methods, regular expressions (:mod:`tai_core.cli._kept_code`) — and
the installed distributions' entry points, so that the next start takes them instead of
compiling and reading them again; the same two variables turn them off.
"""

from __future__ import annotations

import os
import sys

from tai_core.cli import _quick_exit as quick_exit
from tai_core.cli import _startup_gc as startup_gc
from tai_core.cli._interrupt import interruptible
from tai_core.config._launch_files import launch_file, read_launch_file, write_launch_file
from tai_core.config._paths import config_files_str, declaration_files_str

TYPE_CHECKING = False  # not typing's: see tai_core._lazy
if TYPE_CHECKING:
    import io
    from collections.abc import Sequence

#: The command lines answered from the cache, each with the name its answer is kept under.
ANSWERS: dict[tuple[str, ...], str] = {
    ("--help",): "help",
    ("-h",): "help",
    ("-help",): "help",
    ("--version",): "version",
    ("plugins",): "plugins",
    ("plugins", "--json"): "plugins-json",
}

#: Bumped whenever the fingerprint's shape changes, so old files are never matched.
FORMAT = 1

#: Variables that turn the cache off (the second traces hook calls to stderr).
_BYPASS = ("TAI_NO_LAUNCH_CACHE", "TAI_TRACE_PLUGINS")


def launch() -> None:
    """Run ``tai`` with the process's arguments: from the cache when it can answer. A
    Ctrl-C at any point ends it with one line and status 130 (:mod:`._interrupt`); the
    process then ends without the interpreter's teardown (:mod:`._quick_exit`). Start-up
    runs without the cyclic garbage collector (:mod:`._startup_gc`)."""
    quick_exit.arm()
    startup_gc.pause()
    try:
        interruptible(_launch)
    except SystemExit as ended:
        quick_exit.ending(ended.code)
        raise
    except BaseException:
        quick_exit.ending(1)  # Python prints the traceback
        raise
    quick_exit.ending(0)


def _launch() -> None:
    args = tuple(sys.argv[1:])
    name = ANSWERS.get(args)
    bypass = any(os.environ.get(var, "") not in ("", "0") for var in _BYPASS)
    if name is None or bypass:
        if not bypass:
            _keep_between_starts()
        from tai_core.cli._main import main

        main(args)
        return
    path = launch_file(name, "json")
    answer = _cached_answer(path)
    if answer is not None:
        _print(answer)
        return
    _answer_and_keep(args, path)


def _print(answer: str) -> None:
    """Write ``answer`` to stdout; a reader that went away (``tai plugins | head``) ends
    tai with status 1 and nothing said, as the full run does."""
    try:
        sys.stdout.write(answer)
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the flush at exit does not fail
        sys.exit(1)


def _keep_between_starts() -> None:
    """For a full run: what it compiles at run time compiled once (:mod:`._kept_code`),
    and what the installed distributions' entry points are read once
    (:func:`tai_core.plugins._entry_points.keep_between_starts`), both kept in the launch
    directory beside the answers."""
    from tai_core.cli import _kept_code

    _kept_code.install(launch_file("code", "marshal"))  # before attrs is imported, just below
    from tai_core.plugins._entry_points import keep_between_starts

    keep_between_starts(launch_file("entry-points", "marshal"))


def _stamp(path: str) -> list[object]:
    """``path`` with its mtime and size (``None`` for both when it is gone)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return [path, None, None]
    return [path, info.st_mtime_ns, info.st_size]


def _columns() -> int:
    """The terminal width click wraps help to, as ``shutil.get_terminal_size`` finds it
    (without importing shutil)."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def fingerprint(files: Sequence[str]) -> list[object]:
    """What an answer computed with the module files ``files`` depends on, as it is now."""
    env = os.environ
    return [
        FORMAT,
        sys.executable,
        sys.version,
        _columns(),
        sorted([key, value] for key, value in env.items() if key.startswith("TAI_")),
        env.get("HOME", ""),
        env.get("XDG_CONFIG_HOME", ""),
        [_stamp(entry) for entry in sys.path],
        [_stamp(file) for file in config_files_str(os.path.realpath(os.getcwd()))],
        [_stamp(file) for file in declaration_files_str(os.path.realpath(os.getcwd()))],
        [_stamp(file) for file in files],
    ]


def _printable(text: str) -> bool:
    """True when ``text`` is lines of printable characters (no control character, so no
    escape sequence)."""
    return text.replace("\n", "").replace("\t", "").isprintable()


def _cached_answer(path: str) -> str | None:
    """The answer kept at ``path`` when its fingerprint still holds, else ``None``."""
    data = read_launch_file(path)
    if data is None:
        return None
    import json

    try:
        kept = json.loads(data.decode("utf-8"))
        files, answer = kept["files"], kept["answer"]
        holds = kept["fingerprint"] == fingerprint(files)
    except (ValueError, KeyError, TypeError):
        return None
    return answer if holds and isinstance(answer, str) and _printable(answer) else None


def _module_files() -> list[str]:
    """The files of the modules loaded now, leaving out the standard library's (but not
    what is installed in a ``site-packages`` inside it)."""
    import sysconfig

    stdlib = os.path.join(os.path.dirname(os.__file__), "")
    sites = tuple(os.path.join(sysconfig.get_path(key), "") for key in ("purelib", "platlib"))
    files = {
        module.__file__
        for module in list(sys.modules.values())
        if isinstance(getattr(module, "__file__", None), str)
    }
    return sorted(file for file in files if file.startswith(sites) or not file.startswith(stdlib))


def _answer_and_keep(args: Sequence[str], path: str) -> None:
    """Run ``tai ARGS`` in full, pass its output on, and keep the answer at ``path`` when
    it can be reused."""
    import io

    _keep_between_starts()
    from tai_core.cli._main import main

    streams = sys.stdout, sys.stderr
    captured = [io.TextIOWrapper(io.BytesIO(), encoding="utf-8") for _ in streams]
    sys.stdout, sys.stderr = captured
    status: object = 0
    try:
        main(list(args))
    except SystemExit as exit_:
        status = exit_.code
    finally:
        sys.stdout, sys.stderr = streams
        output, errors = (_text(stream) for stream in captured)
        sys.stderr.write(errors)
        _print(output)
    if status in (0, None) and not errors and _printable(output):
        _keep(path, output)
    sys.exit(status)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    return stream.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]


def _keep(path: str, answer: str) -> None:
    """Write ``answer`` with its fingerprint to ``path``; a failure is ignored (the cache
    is an optimisation: a read-only or full disk only costs the next run its speed)."""
    import contextlib
    import json

    files = _module_files()
    kept = {"fingerprint": fingerprint(files), "files": files, "answer": answer}
    with contextlib.suppress(OSError):
        write_launch_file(path, json.dumps(kept).encode("utf-8"))
