"""The ``tai`` entry point: configuration, plugins, then the command line.

Plugins must be loaded before click parses the command line, because plugins add
commands. So the few things that decide which plugins load — ``-p no:NAME`` before the
sub-command, ``disabled_plugins`` in the configuration, the ``TAI_*`` variables — are
read first, by hand; click then parses everything (and documents ``-p`` in ``--help``).
Expected failures (bad configuration, a fatal plugin error, a bad ``-p``) end in one line
on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import attrs
import click

from tai_core.config import Config, ConfigError, load_config
from tai_core.plugins import PluginHost, PluginLoadError, default_options

#: Exit status of a run stopped by a usage or configuration error.
USAGE_ERROR = 2


class PluginArgumentError(Exception):
    """A ``-p`` value tai cannot act on."""


@attrs.frozen
class AppContext:
    """What every command receives as ``ctx.obj``."""

    host: PluginHost
    config: Config


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
        elif arg.startswith("-p") and not arg.startswith("--"):
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

    @click.group(context_settings={"help_option_names": ["-h", "-help", "--help"]})
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

        Plugins add block kinds, providers, context providers and commands; `tai plugins`
        lists what is installed. Environment: TAI_LOAD_PLUGINS=a,b loads only those
        plugins, TAI_STRICT_PLUGINS=1 makes a broken plugin fatal, TAI_TRACE_PLUGINS=1
        traces every hook call to stderr, TAI_CONFIG_DIR moves the user configuration.
        """

    return tai


def _fail(message: str) -> None:
    click.echo(f"tai: error: {message}", err=True)
    sys.exit(USAGE_ERROR)


def build(args: Sequence[str], cwd: Path | None = None) -> tuple[click.Group, AppContext]:
    """The command line with every plugin's commands, and the context for ``args``."""
    config = load_config(cwd or Path.cwd())
    blocked = [*blocked_plugins(args), *config.get("disabled_plugins", [])]
    group = make_group()
    host = PluginHost(default_options(blocked), cli=group)
    host.load_entry_points()
    return group, AppContext(host=host, config=config)


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``tai`` with ``argv`` (default: the process's arguments)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        group, app = build(args)
    except (ConfigError, PluginLoadError, PluginArgumentError) as error:
        _fail(str(error))
        return
    app.host.warn_failures()
    group.main(args=args, prog_name="tai", obj=app)
