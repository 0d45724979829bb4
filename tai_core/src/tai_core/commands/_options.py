"""The flags shared by the commands that talk to a model, in both spellings.

The original tai spells flags with one dash (``-model``); Python users expect two
(``--model``); both are accepted. The task text follows the word ``chat``
(``tai next -model m chat "explain this"``), which may be repeated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import attrs
import click

F = TypeVar("F", bound=Callable[..., Any])


@attrs.frozen
class GenerationFlags:
    """The parsed flags of a generating command."""

    model: str | None
    fast_model: str | None
    files: tuple[str, ...]
    stdin: bool
    confidential: bool
    record: bool | None
    thoughts: bool
    cli: bool
    chat: str
    #: ``-tui``: the terminal UI even where output is not a terminal.
    tui: bool = False
    #: ``-summary-language`` (``None``: the configuration's ``summary_language``).
    summary_language: str | None = None
    #: ``-summarize-thoughts`` (``None``: the configuration's ``summarize_thoughts``).
    summarize_thoughts: bool | None = None


def _flag(*names: str, **kwargs: Any) -> Callable[[F], F]:
    return click.option(*names, **kwargs)


#: The flags of the generating commands, by parameter name (``tai ai`` takes some of them).
FLAGS: dict[str, Callable[[F], F]] = {
    "model": _flag("-model", "--model", "model", metavar="NAME",
                   help="The model: a [[generators]] name of tai.toml, PREFIX:MODEL of an "
                        "installed provider (openai:gpt-4o), or a provider's built-in name "
                        "(an unknown name lists them); default: tai.toml's model."),
    "fast_model": _flag("-fast-model", "--fast-model", "fast_model", metavar="NAME",
                        help="The model for handoffs and summaries."),
    "files": _flag("-file", "--file", "files", multiple=True, metavar="PATTERN",
                   help="Add files (glob patterns) to the context, in full."),
    "stdin": _flag("-stdin", "--stdin", "stdin", is_flag=True,
                   help="Add standard input to the task."),
    "confidential": _flag("-confidential", "--confidential", "confidential", is_flag=True,
                          help="Refuse any model not marked zero_data_retention."),
    "record": _flag("-record/-no-record", "--record/--no-record", "record", default=None,
                    help="Record the run in the records database."),
    "thoughts": _flag("-thoughts/-no-thoughts", "--thoughts/--no-thoughts", "thoughts",
                      default=False, help="Show the model's reasoning (on stderr)."),
    "cli": _flag("-cli", "--cli", "cli", is_flag=True,
                 help="Plain command-line output, even on a terminal."),
    "tui": _flag("-tui", "--tui", "tui", is_flag=True,
                 help="The terminal UI (the default when output is a terminal)."),
    "summarize_thoughts": _flag("-summarize-thoughts", "--summarize-thoughts",
                                "summarize_thoughts", is_flag=True, default=None,
                                help="Show a summary of the model's reasoning every few "
                                     "seconds (by the fast model) on stderr."),
    "summary_language": _flag("-summary-language", "--summary-language", "summary_language",
                              metavar="LANGUAGE", help="The language of summary blocks."),
}  # fmt: skip


def generation_options(command: F) -> F:
    """Decorate ``command`` with the flags of a generating command and the chat words."""
    words = click.argument("words", nargs=-1, metavar='chat "TASK"', callback=_checked_words)
    decorators = [*FLAGS.values(), words]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


#: What the word ``clean`` adds to the task (``tai clean chat "…"``).
CLEANUP_PROMPT = """\
Also clean up the code this task touches, without changing what it does: remove dead code \
and duplicated logic, name things for what they are, shorten functions that do several \
things, drop needless indirection and comments that repeat the code. Keep the public \
interface unless the task says otherwise, and keep the tests passing."""


class SetupError(click.ClickException):
    """A configuration or set-up tai cannot use — a model that cannot be resolved (unknown,
    without its key, of an unknown type) —: exit status 2, as the README documents, with
    the one line that names it (no help pointer: the command line itself was read)."""

    exit_code = 2


class TaskNotQuoted(click.UsageError):
    """A word of the command line where only ``chat "TASK"`` may stand (the command line
    says what to type instead: ``tai_core.cli._errors``)."""

    def __init__(self, words: Sequence[str], index: int) -> None:
        #: The command's words after its options, as the shell split them.
        self.words = tuple(words)
        #: Where the one that may not stand there is.
        self.index = index
        super().__init__(f"unexpected {words[index]!r}", click.get_current_context(silent=True))


def _utf8(text: str, where: str) -> str:
    """``text`` when it is UTF-8; a usage error naming the byte that is not (a task in
    another encoding would reach the model as lone surrogates, refused by every API)."""
    from tai_core.textfile import NotUTF8Error, checked_utf8

    try:
        return checked_utf8(text, where)
    except NotUTF8Error as error:
        raise click.UsageError(f"{error}; give it in UTF-8") from None


def stdin_text() -> str:
    """Standard input as text (``-stdin``), refused as a usage error when not UTF-8."""
    import sys

    return _utf8(sys.stdin.buffer.read().decode("utf-8", "surrogateescape"), "standard input")


def task_of(flags: GenerationFlags) -> str:
    """The task: the ``chat`` texts, then standard input with ``-stdin`` (ignored when it is
    a terminal, as in the original; an empty one is warned of: a pipe that gave nothing is
    rarely what was meant)."""
    import sys

    if not flags.stdin or sys.stdin.isatty():
        return flags.chat
    piped = stdin_text()
    if not piped.strip():
        click.echo("tai: warning: -stdin: standard input is empty", err=True)
    return "\n\n".join(filter(None, [flags.chat, piped]))


def chat_text(words: Sequence[str]) -> str:
    """The task text of ``[clean] chat TEXT [chat TEXT …]`` (``clean`` adds
    :data:`CLEANUP_PROMPT`); a usage error for anything else (a task left unquoted, a
    mistyped command)."""
    texts: list[str] = []
    clean = False
    index = 0
    while index < len(words):
        if words[index] == "clean":
            clean = True
            index += 1
            continue
        if words[index] != "chat":
            raise TaskNotQuoted(words, index)
        if index + 1 == len(words):
            raise click.UsageError('chat needs the task text: chat "what to do"')
        texts.append(_utf8(words[index + 1], "the task"))
        index += 2
    if texts and not any(text.strip() for text in texts):  # chat "" (a variable left unset)
        raise click.UsageError('the task after chat is empty: chat "what to do"')
    return "\n\n".join(filter(None, ["\n".join(texts), CLEANUP_PROMPT if clean else ""]))


def _checked_words(context: click.Context, param: click.Parameter,
                   words: tuple[str, ...]) -> tuple[str, ...]:  # fmt: skip
    """The chat words, refused as the usage error :func:`chat_text` finds in them while
    the command line is read (before the sandbox is entered for the run)."""
    del context, param
    chat_text(words)
    return words


def parse_flags(params: dict[str, Any]) -> GenerationFlags:
    """The flags of a command invocation from click's parameters."""
    return GenerationFlags(
        model=params["model"], fast_model=params["fast_model"], files=tuple(params["files"]),
        stdin=params["stdin"], confidential=params["confidential"], record=params["record"],
        thoughts=params["thoughts"], cli=params["cli"], tui=params["tui"],
        chat=chat_text(params["words"]),
        summary_language=params["summary_language"],
        summarize_thoughts=params["summarize_thoughts"],
    )  # fmt: skip


def flag_settings(flags: GenerationFlags) -> dict[str, Any]:
    """The configuration keys the flags set (over tai.toml's)."""
    settings: dict[str, Any] = {}
    if flags.summary_language:
        settings["summary_language"] = flags.summary_language
    if flags.summarize_thoughts:
        settings["summarize_thoughts"] = True
    if flags.confidential:  # every model the run resolves later is held to it too
        settings["confidential_mode"] = True
    return settings
