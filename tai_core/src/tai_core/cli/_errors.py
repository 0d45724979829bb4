"""How a ``tai`` command line ends: its exit status, and the one line it leaves on stderr
when it fails.

Every failure is one line that starts ``tai: error:``, whichever part of tai (or click)
found it, with what helps the user on the same line: the option as it was typed and the
nearest ones, the nearest command names, the quotes a task left unquoted needs. The exit
statuses are documented: :data:`USAGE` for a command line tai cannot read, :data:`FAILURE`
for a command that ran and failed, 130 for Ctrl-C (:mod:`._interrupt`; and 0 for success).
click runs the command in non-standalone mode so that tai, not click, words the failure;
a command's return value is never taken for its exit status (click's own rule).
"""

from __future__ import annotations

import contextlib
import itertools
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple, NoReturn

import click

from tai_core._nearest import aside, did_you_mean, nearest, offer
from tai_core.commands._options import TaskNotQuoted
from tai_core.plugins._failures import PluginHookError

#: Exit status of a command line tai cannot read (an unknown option, a missing value).
USAGE = 2
#: Exit status of a command that ran and failed.
FAILURE = 1


def fail(message: str, status: int = FAILURE) -> NoReturn:
    """End tai with ``message`` on stderr and exit ``status``."""
    click.echo(f"tai: error: {message}", err=True)
    sys.exit(status)


class CommandLine(NamedTuple):
    """A command line as tai reads it: ``command`` (the ``tai`` group, or the default
    command standing for it) with ``args``; ``commands`` are tai's command names (for the
    nearest ones), ``help_command`` the help of ``command`` itself, ``help_options`` the
    spellings that ask for it (the default command, run alone, is no child of the group
    that would give it the group's), ``tai`` the group, whose own options given after a
    command's name are named as tai's."""

    command: click.Command
    args: Sequence[str]
    commands: Iterable[str] = ()
    help_command: str = "tai --help"
    help_options: Sequence[str] = ("--help",)
    tai: click.Group | None = None


def run(line: CommandLine, obj: object) -> NoReturn:
    """Run ``line`` with the context object ``obj`` and exit with its status."""
    command = line.command
    with (
        _ending(line),
        command.make_context(
            "tai", list(line.args), obj=obj, help_option_names=list(line.help_options)
        ) as context,
    ):
        command.invoke(context)
    sys.exit(0)


def check(line: CommandLine, obj: object) -> None:
    """Read ``line`` as :func:`run` would, down to the named command's own options and
    words, running nothing: a command line tai cannot use ends here with the line
    :func:`run` would print, before anything is prepared for the run (the sandbox is not
    entered, the session's modules are not imported)."""
    command, args, help_options = line.command, list(line.args), list(line.help_options)
    with _ending(line):
        if not isinstance(command, click.Group):
            command.make_context("tai", args, obj=obj, help_option_names=help_options)
            return
        # the group's own options, then the named command's, as click's run reads them
        context = click.Context(command, info_name="tai", obj=obj, help_option_names=help_options)
        with context.scope(cleanup=False):
            rest = click.Command.parse_args(command, context, args)
        if rest:
            name, named, words = command.resolve_command(context, rest)
            if named is not None and name is not None:
                named.make_context(name, words, parent=context)


@contextlib.contextmanager
def _ending(line: CommandLine) -> Iterator[None]:
    """End tai with its status and one line for whatever the command of ``line`` raises in
    the block."""
    try:
        yield
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.exceptions.NoArgsIsHelpError as error:
        click.echo(error.format_message(), err=True)  # a group alone: its help, and why
        fail(_command_missing(error.ctx), USAGE)
    except TaskNotQuoted as error:
        fail(_task_hint(error, line.commands), USAGE)
    except click.UsageError as error:
        where = _help_of(line.command, error, line.args, line.help_command)
        fail(_usage(error, line.args, where, line.tai), USAGE)
    except click.ClickException as error:
        fail(error.format_message(), error.exit_code or FAILURE)
    except (click.Abort, KeyboardInterrupt, EOFError):
        from tai_core.cli._interrupt import end

        end()
    except BrokenPipeError:
        sys.exit(FAILURE)  # the reader went away (tai plugins | head): nothing to say
    except PluginHookError as error:  # a plugin failed where no rule catches it: one line
        fail(str(error), FAILURE)


def _command_missing(context: click.Context | None) -> str:
    """``tai policy needs a command: check; see tai policy --help`` (``tai`` alone: a task
    or a command)."""
    path = context.command_path if context is not None else "tai"
    group = context.command if context is not None else None
    names = ", ".join(sorted(group.commands)) if isinstance(group, click.Group) else ""
    wanted = 'a task (tai chat "…") or a command' if path == "tai" else "a command"
    return f"{path} needs {wanted}{': ' + names if names else ''}; see {path} --help"


def check_options(group: click.Group, args: Sequence[str], obj: object) -> None:
    """Read the group's own options ``args`` as its run would (their values checked, their
    callbacks called), ending tai with one line when one is wrong. For the default command,
    which runs without the group: the parse that decides isolation forgives mistakes
    (``resilient_parsing``), so ``-approve nevr`` was otherwise never refused, and the run
    went on under the configured mode."""
    if not args:
        return  # nothing to read (and a group given no words would print its help)
    try:
        with click.Context(group, info_name="tai", obj=obj) as context:
            click.Command.parse_args(group, context, list(args))
    except click.UsageError as error:
        fail(_usage(error, args, "tai --help"), USAGE)


def _option_that_took_chat(context: click.Context | None) -> str | None:
    """The option (as tai spells it) whose value is the word ``chat``, if one is."""
    if context is None:
        return None
    for param in context.command.params:
        if isinstance(param, click.Option) and context.params.get(param.name or "") == "chat":
            return param.opts[0]
    return None


def _task_hint(error: TaskNotQuoted, commands: Iterable[str]) -> str:
    """The line that tells the user what to type instead of the command line ``error``
    could not read: the command line as typed (its options kept) with the task quoted."""
    word = error.words[error.index]
    path = error.ctx.command_path if error.ctx is not None else "tai"
    chats = [i for i, w in enumerate(error.words[: error.index]) if w == "chat"]
    task = " ".join(error.words[chats[-1] + 1 :] if chats else error.words)
    typed = _typed_before(error.words, path)
    if chats:
        return f'unexpected {word!r}: the task is one argument, so quote it: {typed} chat "{task}"'
    took = _option_that_took_chat(error.ctx)
    if took is not None:  # tai -model chat "fix it": the option's value is missing
        return (f'{took} took the word chat as its value: give it one first: {path} {took} '
                f'VALUE chat "{task}"')  # fmt: skip
    if path == "tai" and word in commands:  # tai -model m next …: flags before the command
        return (f"{word!r} must come before its flags: tai {word} [flags] chat \"…\" (only "
                "tai's own options, such as -p, -approve or -no-sandbox, go before the "
                f"command); see tai {word} --help")  # fmt: skip
    if path == "tai" and error.index == 0 and word in _OPTIONS_NOT_COMMANDS:
        return f"tai has no command {word!r}: {_OPTIONS_NOT_COMMANDS[word]}"
    rest = " ".join(error.words[error.index + 1 :])
    if path == "tai" and error.index == 0 and _is_agent_command(error.ctx, word):
        text = f' "{rest}"' if rest else ""  # tai plan add dark mode: a mode of tai ai
        return (f"tai has no command {word!r}: /{word} is an agent command, a mode of the "
                f"chat: tai ai -agent {word}{text} (or /{word} in tai ai)")  # fmt: skip
    near = aside(did_you_mean(word, commands, str, 3)) if path == "tai" else ""
    if near:
        return f"unknown command {word!r}{near}; see tai --help"
    if rest and nearest(word, ["chat"]):  # tai chta fix it
        return f'unexpected {word!r} (did you mean chat?): {typed} chat "{rest}"'
    return f'unexpected {word!r}: the task follows the word chat: {typed} chat "{task}"'


def _is_agent_command(context: click.Context | None, word: str) -> bool:
    """Whether ``word`` names an agent command users may invoke (``/plan`` of ``tai ai``),
    as the plugins of the run in ``context`` declare them."""
    from tai_core.plugins._agent_commands import invocable

    host = getattr(context.obj, "host", None) if context is not None else None
    return host is not None and invocable(host.declared("agent_commands"), word) is not None


#: The shell's words for what tai's sub-commands call otherwise, offered when a command
#: line uses them and nothing is near: ``tai sessions rm ID`` means ``delete``.
_SHELL_VERBS = {"rm": "delete", "remove": "delete", "del": "delete", "ls": "list",
                "cat": "show", "view": "show"}  # fmt: skip

#: Words tried as commands that are options of tai, with what to type instead.
_OPTIONS_NOT_COMMANDS = {
    "help": "tai --help lists the commands, tai COMMAND --help the options of each",
    "version": "tai --version gives it",
}


def _typed_before(words: Sequence[str], path: str) -> str:
    """``tai`` with what the user typed before ``words`` (the command's name and options,
    shell-quoted), when the process's arguments end with them; else ``path``, the
    command's."""
    import shlex

    typed = sys.argv[1:]
    if words and typed[len(typed) - len(words) :] == list(words):
        return shlex.join(["tai", *typed[: len(typed) - len(words)]])
    return path


def _commands_taking(
    group: click.Group | None, option: str, but: click.Command | None
) -> list[str]:
    """How the user types the commands of ``group`` (other than ``but``) that take
    ``option``: ``tai chat`` for the default command, ``tai NAME`` for the others."""
    if group is None:
        return []
    from tai_core.commands._lazy_command import real_command
    from tai_core.commands.code import DEFAULT_COMMAND

    skip = real_command(but) if but is not None else None
    found = []
    for name, command in sorted(group.commands.items()):
        try:  # a plugin's command is imported here: one that cannot be is left out
            real = real_command(command)
        except Exception:  # noqa: BLE001 - its failure is said when it is run
            continue
        if real is not skip and option in _options(real):
            found.append("tai chat" if name == DEFAULT_COMMAND else f"tai {name}")
    return found


#: click's line for a word no parameter takes.
_EXTRA = re.compile(r"Got unexpected extra arguments? \((\S+)\)")


def _takers(command: click.Command, value: str) -> list[str]:
    """The options of ``command`` (one spelling each) that take a whole number, when
    ``value`` is one: the options a number left on its own was most likely meant for."""
    if not value.lstrip("-").isdigit():
        return []
    return [
        param.opts[0]
        for param in command.params
        if isinstance(param, click.Option) and isinstance(param.type, click.types.IntParamType)
    ]


#: An option named in both spellings, as click names one in its messages.
_BOTH_SPELLINGS = re.compile(r"'(-[\w-]+)' / '--[\w-]+'")
#: An option of one spelling, or an argument (click writes ``'[REPLY]'``), whose value is
#: wrong: named bare, as the two-spelling options are.
_VALUE_OF = re.compile(r"(Invalid value for )'(?:(-[\w-]+)|\[?([A-Z][A-Z_]*)\]?)'")

_NUMBER = r"-?[\d.]*\d"

#: click's words for a number outside an option's range, and tai's (``IntRange``,
#: ``FloatRange``): "0 is not in the range 1<=x<=100" reads as "0 is not from 1 to 100".
_RANGES = [
    (re.compile(r"is not a valid integer range"), "is not a whole number"),
    (re.compile(r"is not a valid float range"), "is not a number"),
    (re.compile(rf"is not in the range ({_NUMBER})<=x<=({_NUMBER})"), r"is not from \1 to \2"),
    (re.compile(rf"is not in the range x>=({_NUMBER})"), r"is not \1 or more"),
    (re.compile(rf"is not in the range x<=({_NUMBER})"), r"is not \1 or less"),
    (re.compile(rf"is not in the range x>({_NUMBER})"), r"is not above \1"),
    (re.compile(rf"is not in the range x<({_NUMBER})"), r"is not below \1"),
]


def _help_of(
    command: click.Command, error: click.UsageError, args: Sequence[str], help_command: str
) -> str:
    """The help to point at: that of the command the error is in. Click names it in most
    errors; one it raises while it reads an option's value (``-model`` with none) names no
    command, which is then the first word of ``args`` past the group's own options."""
    if error.ctx is not None:
        return help_command if error.ctx.parent is None else f"{error.ctx.command_path} --help"
    if not isinstance(command, click.Group):
        return help_command
    word = _first_word(command, args)
    return f"tai {word} --help" if word in command.commands else help_command


def _first_word(command: click.Command, args: Sequence[str]) -> str | None:
    """The first of ``args`` that is neither one of ``command``'s options nor the value
    of one; ``None`` when there is none before ``--``."""
    taking_values = {
        name
        for param in command.params
        if isinstance(param, click.Option) and not param.is_flag and not param.count
        for name in param.opts
    }
    words = iter(args)
    for word in words:
        if word in taking_values:
            next(words, None)  # its value
        elif word == "--":
            return None
        elif not word.startswith("-"):
            return word
    return None


def _usage(
    error: click.UsageError, args: Sequence[str], where: str, group: click.Group | None = None
) -> str:
    """The line for a usage error, with the help a newcomer needs (``where``); ``group``
    is tai's, whose own options a command does not take, and whose other commands may
    take an option this one does not."""
    tai_options = _options(group) if group is not None else ()
    context = error.ctx
    if isinstance(error, click.NoSuchOption):
        options = [*_options(context.command), *context.help_option_names] if context else []
        typed = _typed(error.option_name, args, options)
        own = typed.split("=", 1)[0]
        if own in tai_options:
            # a named command's path (tai ai, tai policy check); the default command's is tai
            named = context.command_path.partition(" ")[2] if context else ""
            example = f"{named} …" if named else '-model … chat "…"'
            return (
                f"{own!r} is an option of tai itself, not of a command: give it before "
                f"the command and its options (tai {own} … {example}); see tai --help"
            )
        misspelt = _misspelt_command(group, context, args)
        if misspelt:  # tai plugns --json: the command's name, not the option, is wrong
            return misspelt
        same = [name for name in options if name.startswith("--") == typed.startswith("--")]
        # tai next -max-loops 2: another command's option, named before any near one
        owners = _commands_taking(group, own, context.command if context else None)
        meant = f" ({own} is an option of {' and '.join(owners)})" if owners else ""
        meant = meant or aside(did_you_mean(own, same, str))
        near_tai = nearest(own, tai_options, n=1) if not meant else []
        if near_tai:  # tai -aprove ask: one of tai's own options, misspelt
            return (f"unknown option {typed!r} (did you mean {near_tai[0]}? an option of tai "
                    "itself, given before any command); see tai --help")  # fmt: skip
        return f"unknown option {typed!r}{meant}; see {where}"
    message = error.format_message()
    if context is not None and isinstance(context.command, click.Group):
        name = _unknown_command(message)
        if name is not None:
            names = context.command.commands
            meant = did_you_mean(name, names, str, 3)
            if not meant and _SHELL_VERBS.get(name) in names:  # tai sessions rm ID
                meant = offer([_SHELL_VERBS[name]], str)
            return f"unknown command {name!r}{aside(meant)}; see {where}"
    extra = _EXTRA.fullmatch(message.strip())
    if extra and context is not None:  # tai undo 3: the value of an option, without it
        meant = [f"{name} {extra[1]}" for name in _takers(context.command, extra[1])]
        if meant:
            return (f"unexpected {extra[1]!r} (did you mean {' or '.join(meant)}?); "
                    f"see {where}")  # fmt: skip
    message = _BOTH_SPELLINGS.sub(r"\1", message)  # '-port' / '--port': tai's spelling
    message = _VALUE_OF.sub(lambda found: found[1] + (found[2] or found[3]), message)
    for pattern, words in _RANGES:
        message = pattern.sub(words, message)
    message = message[:1].lower() + message[1:]  # as tai's own lines: "invalid value for"
    return f"{message.rstrip('.')}; see {where}"  # click's sentences end in a full stop


def _misspelt_command(
    group: click.Group | None, context: click.Context | None, args: Sequence[str]
) -> str:
    """For the default command standing for tai: ``unknown command 'plugns' (did you mean
    plugins?)`` when its first word is none of tai's commands but near one; else ``""``."""
    if group is None or context is None or context.parent is not None:
        return ""
    if context.command is group:
        return ""
    word = _first_word(context.command, args)
    if word is None or word == "chat" or word in group.commands:
        return ""
    near = aside(did_you_mean(word, group.commands, str, 3))
    return f"unknown command {word!r}{near}; see tai --help" if near else ""


def _options(command: click.Command) -> list[str]:
    """Every spelling of the options of ``command``."""
    return [
        name
        for param in command.params
        if isinstance(param, click.Option)
        for name in (*param.opts, *param.secondary_opts)
    ]


def _typed(name: str, args: Sequence[str], known: Sequence[str]) -> str:
    """The argument the user typed that click read as the unknown option ``name`` (click
    reads ``-frobnicate`` as ``-f`` with the value ``robnicate``, and ``-hlep`` as the
    flags ``-h``, ``-l``, … of which ``-l`` is unknown)."""
    words = list(itertools.takewhile(lambda arg: arg != "--", args))
    unknown = [arg for arg in words if arg.split("=", 1)[0] not in known]
    for arg in unknown:
        if arg.startswith(name):
            return arg
    if len(name) == 2 and name[0] == "-":  # one letter of a cluster of short flags
        for arg in unknown:
            if arg[:1] == "-" and arg[1:2] != "-" and name[1] in arg[2:]:
                return arg
    return name


def _unknown_command(message: str) -> str | None:
    """The name in click's ``No such command 'NAME'.``"""
    found = re.match(r"No such command '([^']*)'", message)
    return found[1] if found else None
