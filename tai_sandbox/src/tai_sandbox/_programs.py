"""Programs whose output the shell policy knows without running them: ``echo``, ``printf``
with a plain format, the decoders a command may pipe text through (``base64 -d``,
``xxd -r -p``, ``rev``, ``cat``) and the name GNU ``mktemp`` prints. A command that builds
its text with them (``$(echo rm) -rf /``) is judged by the text it builds; a program or an
option not known here leaves the output to the run (``None``).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from tai_sandbox._escapes import ECHO, PRINTF_ARGUMENT, PRINTF_FORMAT, decode


def echo_output(args: Sequence[str]) -> str:
    """What bash's ``echo`` prints (``-n``, ``-e``, ``-E`` and their clusters)."""
    newline, escapes = True, False
    while args and args[0][:1] == "-" and len(args[0]) > 1 and set(args[0][1:]) <= set("neE"):
        newline = newline and "n" not in args[0]
        escapes = "e" in args[0] or (escapes and "E" not in args[0])
        args = args[1:]
    text, stopped = decode(" ".join(args), ECHO) if escapes else (" ".join(args), False)
    return text + ("\n" if newline and not stopped else "")


#: A conversion of a printf format (``%`` alone at the end: a format printf refuses).
_CONVERSION = re.compile(r"(%.?)", re.DOTALL)


def printf_output(args: Sequence[str]) -> str | None:
    """What bash's ``printf FORMAT [ARGUMENT...]`` prints, for formats of text, ``%%``,
    ``%s`` and ``%b``: the format is used again while arguments are left, a conversion
    without one prints nothing, and ``\\c`` in a ``%b`` argument ends all output."""
    args = args[1:] if args[:1] == ["--"] else args
    if not args or args[0].startswith("-"):
        return None  # no format, or an option (-v VAR assigns instead of printing)
    pieces = _CONVERSION.split(args[0])
    conversions = pieces[1::2]
    if not set(conversions) <= {"%%", "%s", "%b"}:
        return None
    consumes = any(conversion != "%%" for conversion in conversions)
    values = list(args[1:])
    out: list[str] = []
    while True:
        for index, piece in enumerate(pieces):
            if index % 2 == 0:
                out.append(decode(piece, PRINTF_FORMAT)[0])
            elif piece == "%%":
                out.append("%")
            elif piece == "%s":
                out.append(values.pop(0) if values else "")
            else:
                text, stopped = decode(values.pop(0) if values else "", PRINTF_ARGUMENT)
                out.append(text)
                if stopped:
                    return "".join(out)
        if not (values and consumes):
            return "".join(out)


def filter_output(argv: Sequence[str], stdin: str | None) -> str | None:
    """The output of ``argv`` given ``stdin``, when the policy can know it."""
    name, args = PurePosixPath(argv[0]).name, list(argv[1:])
    if name == "echo":
        return echo_output(args)
    if name == "printf":
        return printf_output(args)
    if stdin is None:
        return None
    try:
        if name == "base64" and {"-d", "--decode", "-D"} & set(args):
            return base64.b64decode("".join(stdin.split())).decode()
        if name == "xxd" and "-r" in args and "-p" in args:
            return bytes.fromhex("".join(stdin.split())).decode()
    except (binascii.Error, ValueError):
        return None
    if name == "rev" and not args:
        return "".join(line[::-1] + "\n" for line in stdin.splitlines())
    if name == "cat" and not args:
        return stdin
    return None


#: mktemp's long options (any unambiguous prefix names one): whether each takes no value,
#: one, or may take one after ``=``.
_MKTEMP_LONG = {
    "directory": "none", "dry-run": "none", "quiet": "none", "suffix": "one", "tmpdir": "may",
}  # fmt: skip


def mktemp_output(args: Sequence[str], tmpdir: str) -> str | None:
    """The name GNU ``mktemp`` prints given ``args`` and ``$TMPDIR`` (``""``: unset): a
    fresh path, the template's X's kept (they stand for whatever mktemp picks). With
    ``-p DIR``/``--tmpdir[=DIR]`` or without a template it is in DIR, else ``$TMPDIR``,
    else ``/tmp``; with ``-t`` in ``$TMPDIR``, else DIR, else ``/tmp``; otherwise the
    template is the path. ``None`` when mktemp would fail, or for options not known here."""
    parsed = _mktemp_arguments(args)
    if parsed is None:
        return None
    templates, directory, legacy, suffix = parsed
    if len(templates) > 1:
        return None
    template = templates[0] if templates else "tmp.XXXXXXXXXX"
    name = template.rpartition("/")[2]
    if "XXX" not in name or (suffix is not None and not name.endswith("X")):
        return None
    if legacy:
        if "/" in template:
            return None
        template = f"{(tmpdir or directory or '/tmp').rstrip('/')}/{template}"
    elif directory is not None or not templates:
        if template.startswith("/"):
            return None
        template = f"{(directory or tmpdir or '/tmp').rstrip('/')}/{template}"
    return f"{template}{suffix or ''}\n"


def _mktemp_arguments(
    args: Sequence[str],
) -> tuple[list[str], str | None, bool, str | None] | None:
    """mktemp's templates, its directory (``-p``, ``--tmpdir``: ``""`` when none is given),
    whether ``-t`` is given, and its suffix; ``None`` for an option it does not know."""
    templates: list[str] = []
    directory: str | None = None
    legacy = False
    suffix: str | None = None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--":
            templates.extend(rest)
            break
        if arg.startswith("--"):
            option, equals, value = arg[2:].partition("=")
            known = [name for name in _MKTEMP_LONG if name.startswith(option)]
            takes = _MKTEMP_LONG[known[0]] if len(known) == 1 else None
            if takes is None or (equals and takes == "none"):
                return None
            if takes == "may":
                directory = value
            elif takes == "one":
                if not equals and not rest:
                    return None
                suffix = value if equals else rest.pop(0)
            continue
        if not arg.startswith("-") or arg == "-":
            templates.append(arg)
            continue
        for position, letter in enumerate(arg[1:], 2):
            if letter == "p":
                if position == len(arg) and not rest:
                    return None
                directory = arg[position:] if position < len(arg) else rest.pop(0)
                break
            if letter == "t":
                legacy = True
            elif letter not in "dqu":
                return None
    return templates, directory, legacy, suffix
