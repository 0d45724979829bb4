"""The ``tai`` entry point: configuration, plugins, then the command line.

Plugins must be loaded before click parses the command line, because plugins add
commands. So the few things that decide which plugins load — ``-p no:NAME`` before the
sub-command, ``disabled_plugins`` in the configuration, the ``TAI_*`` variables — are
read first, by hand; click then parses everything (and documents ``-p`` in ``--help``).
Expected failures (bad configuration, a fatal plugin error, a bad ``-p``) end in one line
on stderr and exit status 2, never a traceback. Before a command that runs model output,
the ``tai_enter_isolation`` hook moves the run into the sandbox a plugin provides: after
plugins load (the sandbox is one) and before anything starts threads. It fails closed: when
the sandbox cannot be set up, or no plugin provides one, nothing runs (``TAI_NO_SANDBOX=1``
or ``-no-sandbox`` run without it on purpose). What must be ready before the sandbox hides
or freezes it happens first — helper programs installed (``tai_prepare_isolation``), the
journal key read — and a flush a killed tai left half done is ended only inside, under the
same rules as any flush.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import attrs
import click

from tai_core.app import AppContext
from tai_core.config import Config, ConfigError, load_config
from tai_core.plugins import PluginHost, PluginLoadError, default_options

#: The command run when none is named (registered by the core plugin).
DEFAULT_COMMAND = "code"

#: The commands that run what a model asks for (``None``: the default command); tai
#: enters isolation (``tai_enter_isolation``) before running them.
ISOLATED_COMMANDS: frozenset[str | None] = frozenset({None, "code", "ai", "next", "patch", "serve"})

#: The modules every run of those commands (but ``patch``, which runs no session) imports,
#: imported before the sandbox is entered, where the code compiled for their classes and
#: patterns can still be kept (``_kept_code``): inside, the launch cache is read-only. One
#: left out is only compiled at every start.
SESSION_MODULES = (
    "tai_core.commands._session",
    "tai_core.commands._assemble",
    "tai_core.commands._reload",
    "tai_core.context._compose",
    "tai_core.store._paths",
)

#: The commands that run while a configuration file cannot be used (they warn of it and
#: use no file's settings), as ``--help`` and ``--version`` do: they show what is installed
#: and what tai recorded, and undo a run — what a user needs while mending the file.
MENDING_COMMANDS: frozenset[str | None] = frozenset({"plugins", "sessions", "undo", "checkpoints"})

#: The spellings of help, for every command.
HELP_OPTIONS = ("-h", "-help", "--help")
_HELP_AND_VERSION = frozenset({*HELP_OPTIONS, "--version"})


def _asks_help(args: Sequence[str]) -> bool:
    """Whether ``args`` ask for help or the version (before any ``--``)."""
    return bool(_HELP_AND_VERSION & set(itertools.takewhile(lambda arg: arg != "--", args)))


class PluginArgumentError(Exception):
    """A ``-p`` value tai cannot act on."""


def _plugin_values(args: Sequence[str]) -> list[str]:
    """The values of ``-p``/``--plugin`` given before the sub-command."""
    values: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("-p", "--plugin"):
            if index + 1 >= len(args):
                raise PluginArgumentError(f"{arg} needs a value: -p no:NAME")
            values.append(args[index + 1])
            index += 2
            continue
        if arg.startswith("--plugin="):
            values.append(arg.removeprefix("--plugin="))
        elif arg.startswith("-pno:"):
            values.append(arg[2:])
        elif not arg.startswith("-") or arg == "--":
            break
        index += 1
    return values


def blocked_plugins(args: Sequence[str]) -> list[str]:
    """The plugin names blocked with ``-p no:NAME`` on the command line ``args``."""
    blocked = []
    for value in _plugin_values(args):
        if not value.startswith("no:") or not value.removeprefix("no:"):
            raise PluginArgumentError(
                f"-p {value}: only -p no:NAME (do not load plugin NAME) is supported; "
                "plugins are installed as packages"
            )
        blocked.append(value.removeprefix("no:"))
    return blocked


def _plugin_option(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> None:
    """Already acted on before parsing; validated again here for ``--help`` users."""
    del ctx, param
    try:
        blocked_plugins([arg for item in value for arg in ("-p", item)])
    except PluginArgumentError as error:
        raise click.BadParameter(str(error)) from None


def make_group() -> click.Group:
    """A fresh ``tai`` command group, without commands (plugins add them)."""

    @click.group(context_settings={"help_option_names": list(HELP_OPTIONS)})
    @click.option(
        "-p",
        "--plugin",
        "plugins",
        multiple=True,
        metavar="no:NAME",
        expose_value=False,
        callback=_plugin_option,
        help="Do not load the plugin NAME (repeatable). See `tai plugins` for names.",
    )
    @click.version_option(package_name="tai-core", prog_name="tai")
    def tai() -> None:
        """tai sends staged context to a language model and applies its answer.

        The main job: tai -model NAME chat "TASK" — the default command (tai code) on
        the working directory; `tai chat --help` lists its options.

        Plugins add block kinds, providers, context providers and commands; `tai plugins`
        lists what is installed. Environment: TAI_LOAD_PLUGINS=a,b loads only those
        plugins, TAI_STRICT_PLUGINS=1 makes a broken plugin fatal, TAI_TRACE_PLUGINS=1
        traces every hook call to stderr, TAI_CONFIG_DIR moves the user configuration,
        TAI_DATA_DIR tai's data (sessions, undo checkpoints).

        Exit status: 0 done, 1 a command failed, 2 a command line or configuration tai
        cannot use, 130 interrupted.
        """

    return tai


def _fail(*messages: str) -> NoReturn:
    """End tai with each of ``messages`` on a line of its own (exit status 2)."""
    from tai_core.cli._errors import USAGE, fail

    for message in messages[:-1]:
        click.echo(f"tai: error: {message}", err=True)
    fail(messages[-1], USAGE)


def _config(args: Sequence[str], cwd: Path) -> Config:
    """The configuration of ``cwd``; for ``--help`` and ``--version`` one that cannot be
    used is only warned of (and no file's settings apply): neither runs anything, and
    both must work while the user mends the file."""
    try:
        return load_config(cwd)
    except ConfigError as error:
        if not _asks_help(args):
            raise
        _warn_unused(error)
        return Config()


def _warn_unused(error: ConfigError) -> None:
    more = len(error.problems) - 1
    also = f"and {more} more; " if more else ""
    _warn(f"{error.problems[0]} ({also}its settings are ignored here)")


def _mending(args: Sequence[str], error: ConfigError) -> tuple[click.Group, AppContext]:
    """The command line without the configuration that cannot be used, warned of, for a
    command of :data:`MENDING_COMMANDS`; for any other, the end, with every problem."""
    group, app = _build(args, Config())
    if isolated_command(group, args)[1] not in MENDING_COMMANDS:
        _fail(*error.problems)
    _warn_unused(error)
    return group, app


def build(args: Sequence[str], cwd: Path | None = None) -> tuple[click.Group, AppContext]:
    """The command line with every plugin's commands, and the context for ``args``."""
    return _build(args, _config(args, cwd or Path.cwd()))


def _build(args: Sequence[str], config: Config) -> tuple[click.Group, AppContext]:
    blocked = [*blocked_plugins(args), *config.get("disabled_plugins", [])]
    from tai_core import _core_plugin

    group = make_group()
    host = PluginHost(default_options(blocked), cli=group, core=_core_plugin)
    host.load_entry_points()
    host.configure(config)
    return group, AppContext(host=host, config=config)


def isolated_command(group: click.Group, args: Sequence[str]) -> tuple[bool, str | None]:
    """Whether ``args`` run a command of :data:`ISOLATED_COMMANDS` (not its help), and
    which (``None``: the group itself)."""
    if _asks_help(args):
        return False, None
    context = click.Context(group, info_name="tai", resilient_parsing=True)
    try:
        rest = click.Command.parse_args(group, context, list(args))
    except click.ClickException:
        return False, None  # click reports it when it parses for real; nothing runs
    if not rest:
        return group.invoke_without_command, None
    return rest[0] in ISOLATED_COMMANDS, rest[0]


#: The store's journal directory (``tai_core.store.JOURNAL_DIR``), named here so that a
#: start with nothing to recover costs one ``stat`` and no import of the store.
JOURNAL_DIR = ".tai-journal"


def _recover_interrupted_flush(cwd: Path) -> None:
    """Complete or roll back a flush that a killed tai left half done in ``cwd``."""
    if not (cwd / JOURNAL_DIR).is_dir():
        return
    from tai_core.store import StoreError, recover

    try:
        messages = recover(cwd).messages()
    except StoreError as error:
        messages = [f"an interrupted flush was not ended: {error}"]
    for message in messages:
        click.echo(f"tai: {message}", err=True)


def _warn(line: str) -> None:
    click.echo(f"tai: warning: {line}", err=True)


def _isolate(app: AppContext, args: Sequence[str], command: str | None) -> AppContext:
    """Prepare, then enter isolation (failing closed); the context with what is in force."""
    import os
    from importlib import import_module

    from tai_core.cli import _kept_code
    from tai_core.plugins import IsolationError, PluginHookError
    from tai_core.plugins._observe import observe
    from tai_core.store import StoreError
    from tai_core.store._key import journal_key

    session = command != "patch"
    for module in SESSION_MODULES if session else ():
        import_module(module)
    cwd, hook = str(Path.cwd()), app.host.pm.hook
    # a failure to prepare is not fatal
    observe(hook.tai_prepare_isolation, _warn, cwd=cwd, config=app.config.values,
            session=session)  # fmt: skip
    _kept_code.save()  # after what the plugins prepared: their classes are kept too
    try:
        journal_key()
    except StoreError as error:
        click.echo(f"tai: warning: {error}", err=True)
    try:
        isolation = hook.tai_enter_isolation(argv=args, cwd=cwd, config=app.config.values)
    except (IsolationError, PluginHookError) as error:  # either way nothing runs
        _fail(str(error))
    if isolation is None and os.environ.get("TAI_NO_SANDBOX", "") in ("", "0"):
        _fail(
            "no sandbox: no plugin provides one (tai-sandbox is not installed or is "
            "disabled), so model output is not run; set TAI_NO_SANDBOX=1 to run it "
            "without a sandbox on purpose"
        )
    return attrs.evolve(app, isolation=isolation)


def _global_options(group: click.Group) -> dict[str, bool]:
    """The group's own option names, each with whether it takes a value."""
    names: dict[str, bool] = {}
    for param in group.params:
        if isinstance(param, click.Option):
            for name in (*param.opts, *param.secondary_opts):
                names[name] = not (param.is_flag or param.count)
    return names


def with_default_command(group: click.Group, args: list[str]) -> list[str]:
    """``args`` with the default command's name inserted when none is named: ``tai -model
    m chat "x"`` runs ``tai code -model m chat "x"`` (the group's own options stay first;
    ``tai`` alone and ``tai --help`` keep showing the help)."""
    options = _global_options(group)
    index = 0
    while index < len(args):
        arg = args[index]
        name = arg.split("=", 1)[0]
        if arg in group.commands or arg in _HELP_AND_VERSION:
            return args
        if name in options:
            index += 2 if options[name] and "=" not in arg else 1
        elif arg.startswith("-pno:"):
            index += 1
        else:
            return [*args[:index], DEFAULT_COMMAND, *args[index:]]
    return args


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``tai`` with ``argv`` (default: the process's arguments)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            group, app = build(args)
        except ConfigError as error:  # every problem of the files, each on its line
            group, app = _mending(args, error)
    except (PluginLoadError, PluginArgumentError) as error:
        _fail(str(error))
    implied = False
    if DEFAULT_COMMAND in group.commands:
        named = with_default_command(group, args)
        implied, args = named != args, named
    app.host.warn_failures()
    from tai_core.cli import _errors

    target: click.Command = group
    target_args, help_command = args, "tai --help"
    if implied:
        # the group is never run: its own options (-p, -approve MODE) are read here, and
        # the default command stands for tai itself: its help and errors say tai, not tai code
        _errors.check_options(group, args[: args.index(DEFAULT_COMMAND)], app)
        from tai_core.commands._lazy_command import real_command

        target = real_command(group.commands[DEFAULT_COMMAND])
        target_args, help_command = args[args.index(DEFAULT_COMMAND) + 1 :], "tai chat --help"
    line = _errors.CommandLine(target, target_args, sorted(group.commands), help_command,
                               HELP_OPTIONS, group)  # fmt: skip
    isolated, command = isolated_command(group, args)
    if isolated:  # a command line tai cannot use ends before the sandbox is entered
        _errors.check(line, app)
        app = _isolate(app, args, command)
        _recover_interrupted_flush(Path.cwd())
    from tai_core.cli import _startup_gc

    _startup_gc.resume()  # start-up is over: the command runs with the collector on
    _errors.run(line, app)
