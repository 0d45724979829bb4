"""What a command line runs: program names, options, and the wrappers looked through.

``sudo rm -rf /`` runs ``rm``; so do ``env``, ``nice``, ``timeout``, ``xargs`` … with
their own options before it. :func:`unwrap` peels one wrapper at a time, knowing which of
its options take a value, so the rules (``_rules``) always see the program that runs;
``xargs`` adds its input as arguments only known when the command runs, and wrappers that
hand a string to a shell (``watch``, ``su -c``, ``flock -c``, ``env -S``) become
``sh -c`` so the string is parsed again.
"""

from __future__ import annotations

import posixpath
import shlex
import urllib.parse
from collections.abc import Sequence
from typing import NamedTuple

from tai_sandbox._syntax import descendants, node_text, parse
from tai_sandbox._words import DYNAMIC

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish"})
#: Interpreter -> (flags whose value is code, flags that take another value).
INTERPRETERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "python": (frozenset({"-c"}), frozenset({"-W", "-X", "-m"})),
    "node": (frozenset({"-e", "--eval", "-p", "--print"}), frozenset({"-r", "--require"})),
    "nodejs": (frozenset({"-e", "--eval", "-p", "--print"}), frozenset({"-r", "--require"})),
    "perl": (frozenset({"-e", "-E"}), frozenset({"-I", "-M", "-m"})),
    "ruby": (frozenset({"-e"}), frozenset({"-r", "-I"})),
    "php": (frozenset({"-r"}), frozenset({"-f", "-d", "-c"})),
}
#: Interpreter -> flags whose value names the module or script file that runs.
SCRIPT_FLAGS: dict[str, frozenset[str]] = {"python": frozenset({"-m"}), "php": frozenset({"-f"})}
DOWNLOADERS = frozenset({"curl", "wget", "wget2", "fetch", "aria2c", "http", "https", "xh"})


def program(name: str) -> str:
    """The program's name as the rules know it: ``/usr/bin/python3.11`` -> ``python``."""
    base = posixpath.basename(name)
    trimmed = base.rstrip("0123456789.")
    return trimmed if trimmed in INTERPRETERS else base


def skip_options(
    args: Sequence[str],
    short_values: str = "",
    long_values: frozenset[str] = frozenset(),
    long_flags: frozenset[str] = frozenset(),
    short_optional: str = "",
) -> int:
    """Index of the first operand (the wrapped command) after the options of a wrapper.

    A long option takes the next argument (unless given ``--name=value``) when its name is
    an abbreviation of one in ``long_values``, as getopt reads it, and not one of
    ``long_flags`` (options without a value whose name starts another's: sudo's
    ``--login``, ``--login-class``). A letter of ``short_optional`` takes the rest of its
    bundle as its value, and never the next argument (xargs ``-eEND``, ``-iR``)."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            return index + 1
        if arg.startswith("--") and len(arg) > 2:
            name = arg[2:]
            takes = name not in long_flags and any(o.startswith(name) for o in long_values)
            index += 2 if "=" not in arg and takes else 1
        elif arg.startswith("-") and len(arg) > 1:
            letters = short_values + short_optional
            takes = next((i for i, char in enumerate(arg[1:], 1) if char in letters), None)
            index += 2 if takes == len(arg) - 1 and arg[-1] in short_values else 1
        else:
            return index
    return index


def split_arguments(args: Sequence[str], short_values: str = "") -> tuple[list[str], list[str]]:
    """``(options, operands)`` of a command's arguments."""
    options: list[str] = []
    operands: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            operands.extend(args[index + 1 :])
            break
        if arg.startswith("-") and len(arg) > 1 and DYNAMIC not in arg:
            options.append(arg)
            if not arg.startswith("--") and arg[-1] in short_values and index + 1 < len(args):
                index += 1
        else:
            operands.append(arg)
        index += 1
    return options, operands


_WRAPPERS: dict[str, tuple[str, frozenset[str]]] = {
    "sudo": (
        "aCcDghpRrTtUu",
        frozenset(
            {
                "auth-type",
                "close-from",
                "login-class",
                "chdir",
                "group",
                "host",
                "prompt",
                "chroot",
                "role",
                "type",
                "command-timeout",
                "other-user",
                "user",
            }
        ),
    ),
    "doas": ("auC", frozenset()),  # -a style: OpenBSD's doas(1), OpenDoas with BSD auth
    "nice": ("n", frozenset({"adjustment"})),
    "nohup": ("", frozenset()),
    "setsid": ("", frozenset()),
    "time": ("fo", frozenset({"format", "output"})),
    "builtin": ("", frozenset()),
    "exec": ("a", frozenset()),
    "stdbuf": ("ioe", frozenset({"input", "output", "error"})),
    "ionice": ("cnpPu", frozenset({"class", "classdata"})),
    "unbuffer": ("", frozenset()),
    "chrt": ("TPD", frozenset({"sched-runtime", "sched-period", "sched-deadline"})),
    "taskset": ("", frozenset()),
    # strace 6 (its getopt string and --help): the long ones that take a value
    "strace": (
        "abeEIoOpPsSuUX",
        frozenset(
            {
                "abbrev",
                "attach",
                "columns",
                "const-print-style",
                "decode-pids",
                "detach-on",
                "env",
                "fault",
                "inject",
                "interruptible",
                "kvm",
                "output",
                "raw",
                "read",
                "signal",
                "status",
                "string-limit",
                "summary-columns",
                "summary-sort-by",
                "summary-syscall-overhead",
                "trace",
                "trace-path",
                "user",
                "verbose",
                "write",
            }
        ),
    ),
    # ltrace 0.7.3 (its getopt string; X in older ones): -S is a flag
    "ltrace": (
        "aADeFlnopsuwxX",
        frozenset({"align", "config", "debug", "indent", "library", "output", "where"}),
    ),
    "catchsegv": ("", frozenset()),
}

#: Long options without a value whose name starts one that takes a value: getopt reads the
#: whole name as that option (sudo's --login, --login-class; strace's --summary and its
#: --summary-columns …).
_LONG_FLAGS = {"sudo": frozenset({"login"}), "strace": frozenset({"summary"})}


def unwrap(argv: Sequence[str]) -> tuple[str, ...] | None:
    """The command a wrapper runs (``()`` for none), or ``None`` when ``argv`` is not a
    wrapper. Wrappers that run a string through a shell give ``("sh", "-c", string)``."""
    name, args = program(argv[0]), list(argv[1:])
    if name == "env":
        return _env(args)
    if name in _WRAPPERS:
        short, long = _WRAPPERS[name]
        start = skip_options(args, short, long, _LONG_FLAGS.get(name, frozenset()))
        if name in ("chrt", "taskset") and start < len(args):
            start += 1  # the priority or the CPU mask
        while name == "sudo" and start < len(args) and "=" in args[start]:
            start += 1
        return tuple(args[start:])
    if name == "command":
        if {"-v", "-V"} & set(args):
            return ()
        return tuple(args[skip_options(args) :])
    if name == "timeout":
        start = skip_options(args, "sk", frozenset({"signal", "kill-after"}))
        return tuple(args[start + 1 :])
    if name in ("watch", "flock", "su", "script", "busybox"):
        return _string_runner(name, args)
    if name == "xargs":
        return _xargs(args)
    return None


#: GNU env's options that take a value (coreutils 9 ``env --help``); no option without one
#: starts as one of these does, so an abbreviation of them is one of them.
_ENV_VALUES = ("u", "C", "S", "unset", "chdir", "split-string")


def _env_long(name: str) -> str:
    """The long option of ``env`` taking a value that ``--name`` names, as getopt reads an
    abbreviation (the only one it starts); ``""`` for another option."""
    matches = [option for option in _ENV_VALUES[3:] if option.startswith(name)]
    return matches[0] if len(matches) == 1 else ""


def _env(args: list[str]) -> tuple[str, ...]:
    """The command ``env`` runs (see :func:`_env_call`)."""
    return _env_call(args)[1]


def _env_call(args: list[str]) -> tuple[str | None, tuple[str, ...]]:
    """The directory ``env`` runs its command in (``-C DIR``; ``None``: its own) and the
    command, read as GNU env reads its arguments: options (``-i -0 -v``, ``-u NAME``,
    ``-C DIR``, ``-S STRING``, bundled, the value attached or next; long ones abbreviated,
    the value after ``=`` or next) up to the first other word or ``--``; then ``-``, then
    ``NAME=VALUE`` words. A split string (``-S``) and the words after it are read again as
    env's arguments, through a shell: ``sh -c 'env STRING WORD…'``."""
    index, directory = 0, None
    while index < len(args):
        arg, following = args[index], args[index + 1 : index + 2]
        if arg == "--":
            index += 1
            break
        if arg.startswith("--"):
            name, equals, value = arg[2:].partition("=")
            option = _env_long(name)
        elif arg.startswith("-") and len(arg) > 1:
            spot = next((i for i, char in enumerate(arg[1:], 1) if char in "uCS"), len(arg))
            option, equals = arg[spot : spot + 1], "=" if arg[spot + 1 :] else ""
            value = arg[spot + 1 :]
        else:
            break
        if option in _ENV_VALUES and not equals:
            value, index = (following or [""])[0], index + 1
        index += 1
        if option in ("C", "chdir"):
            directory = value
        if option in ("S", "split-string"):
            words = ["env", _env_words(value), *map(shlex.quote, args[index:])]
            return directory, ("sh", "-c", " ".join(words))
    if args[index : index + 1] == ["-"]:
        index += 1
    while index < len(args) and "=" in args[index]:
        index += 1
    return directory, tuple(args[index:])


def run_directory(argv: Sequence[str]) -> str | None:
    """The directory the wrapper ``argv`` runs its command in when it changes it
    (``env -C DIR``, ``env --chdir=DIR``, ``sudo -D DIR``, ``sudo --chdir=DIR``), else
    ``None``: relative paths of the command are relative to it."""
    name, args = program(argv[0]), list(argv[1:])
    if name == "env":
        return _env_call(args)[0]
    if name == "sudo":
        short, long = _WRAPPERS[name]
        options = args[: skip_options(args, short, long)]
        return _option_value(options, "D", ("chdir",), short, long)
    return None


def _env_words(string: str) -> str:
    """A split string of ``env -S`` as shell words: ``\\_`` separates words outside double
    quotes and is a space inside them, a space both ways for a shell."""
    return string.replace("\\_", " ")


def _option_value(
    args: Sequence[str],
    letter: str,
    names: tuple[str, ...],
    short_values: str,
    long_values: frozenset[str],
) -> str | None:
    """The value of option ``-letter`` or ``--name`` (abbreviated too) as getopt reads
    ``args`` with options anywhere before ``--`` (``-c s``, ``-cs``, ``-qc s``,
    ``--command=s``, ``--comm s``), the last one given; ``None`` without one."""
    found = None
    index = 0
    while index < len(args) and args[index] != "--":
        arg, following = args[index], args[index + 1] if index + 1 < len(args) else None
        index += 1
        if arg.startswith("--"):
            name, equals, value = arg[2:].partition("=")
            if not equals and any(option.startswith(name) for option in long_values):
                value, index = following or "", index + 1
            if any(option.startswith(name) for option in names):
                found = value
        elif arg.startswith("-"):
            spot = next((i for i, char in enumerate(arg) if i and char in short_values), None)
            if spot is None:
                continue
            value = arg[spot + 1 :] or following or ""
            index += 0 if arg[spot + 1 :] else 1
            found = value if arg[spot] == letter else found
    return found


def _flags(arg: str, short_values: str) -> str:
    """The letters of a bundle of short options up to the first that takes a value."""
    letters = arg[1:] if arg.startswith("-") and not arg.startswith("--") else ""
    spot = next((i for i, char in enumerate(letters) if char in short_values), len(letters))
    return letters[: spot + 1]


def _string_runner(name: str, args: list[str]) -> tuple[str, ...]:
    """The command of ``busybox``, ``watch`` (a shell string of its operands, or them as
    they are with ``-x``/``--exec``), ``flock`` (after the lock file, ``-c`` there) and of
    ``su -c``, ``script -c`` (the value however given)."""
    if name == "busybox":
        return tuple(args)
    if name == "watch":
        start = skip_options(args, "nq", frozenset({"interval", "equexit"}))
        if any(
            "x" in _flags(arg, "nq") or arg in ("--ex", "--exe", "--exec") for arg in args[:start]
        ):
            return tuple(args[start:])
        return ("sh", "-c", " ".join(args[start:]))
    if name == "flock":
        start = skip_options(args, "wE", frozenset({"timeout", "wait", "conflict-exit-code"}))
        if args[start + 1 : start + 2] in (["-c"], ["--command"]):
            return ("sh", "-c", *args[start + 2 : start + 3])
        return tuple(args[start + 1 :])
    if name == "su":
        command = _option_value(
            args, "c", ("command", "session-command"), "cgGsw",
            frozenset({"command", "session-command", "group", "supp-group", "shell",
                       "whitelist-environment"}),
        )  # fmt: skip
    else:
        command = _option_value(
            args, "c", ("command",), "cEIOBTmo",
            frozenset({"command", "echo", "log-in", "log-out", "log-io", "log-timing",
                       "logging-format", "output-limit"}),
        )  # fmt: skip
    return () if command is None else ("sh", "-c", command)


#: xargs's long options that take a value (--eof, --replace and --max-lines take one only
#: after =).
_XARGS_VALUES = frozenset(
    {"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"}
)


def _replace(options: Sequence[str]) -> str | None:
    """The string ``xargs`` replaces by its input in the command, the last one given:
    ``-I R``, ``-IR`` (bundled too: ``-0I R``), ``--replace=R``, and ``{}`` for ``-i``,
    ``--replace`` (abbreviated too) without a value; ``-iR`` is ``R``."""
    replace = None
    index = 0
    while index < len(options):
        arg, following = options[index], options[index + 1 : index + 2]
        index += 1
        if arg.startswith("--"):
            name, equals, value = arg[2:].partition("=")
            replace = (value if equals else "{}") if "replace".startswith(name) else replace
            index += 0 if equals or not any(o.startswith(name) for o in _XARGS_VALUES) else 1
            continue
        flags = _flags(arg, "adEILnPsiel")
        rest = arg[len(flags) + 1 :]
        if flags.endswith("I"):
            replace = rest or next(iter(following), None)
        elif flags.endswith("i"):
            replace = rest or "{}"
        index += 1 if flags[-1:] in tuple("adEILnPs") and not rest else 0
    return replace


def _xargs(args: list[str]) -> tuple[str, ...]:
    """The command ``xargs`` runs, its input arguments as run-time values."""
    start = skip_options(args, "adEILnPs", _XARGS_VALUES, short_optional="eil")
    command = args[start:] or ["echo"]
    replace = _replace(args[:start])
    if replace is None:
        return (*command, DYNAMIC)
    return tuple(arg.replace(replace, DYNAMIC) for arg in command)


class ShellCall(NamedTuple):
    """A shell's arguments as it reads them (bash, dash and the others alike)."""

    #: ``-c``: the first operand is the code it runs (bundled too: ``-xc``; ``+c`` counts).
    command: bool
    #: ``-s``: it reads code from its input, the operands are ``$1``… (``-xs`` too; dash
    #: reads it even with ``-c``).
    stdin: bool
    #: Where the operands start: after the options, the word each ``o`` or ``O`` of an
    #: option takes (``-o pipefail``, ``-xo errexit``, ``-oO errexit extglob``), the file of
    #: ``--rcfile`` or ``--init-file``, and a ``-`` or ``--`` that ends them.
    operands: int
    #: An option is only known when the command runs (it may be ``-c``, or take a word).
    dynamic: bool


def shell_call(args: Sequence[str]) -> ShellCall:
    """How a shell reads ``args``, its arguments (its name left out)."""
    index, letters, dynamic = 0, "", False
    while index < len(args):
        arg = args[index]
        if arg in ("--", "-"):
            index += 1
            break
        if arg[:1] not in ("-", "+"):
            break
        dynamic = dynamic or DYNAMIC in arg
        if arg in ("--rcfile", "--init-file"):
            index += 2
        elif arg.startswith("--"):
            index += 1
        else:  # a lone + is skipped; +c is -c too (bash, dash)
            letters += arg[1:]
            index += 1 + arg.count("o") + arg.count("O")
    return ShellCall("c" in letters, "s" in letters, index, dynamic)


def unwrapped(argv: Sequence[str]) -> tuple[str, ...]:
    """The command ``argv`` runs, its wrappers looked through (``sudo nice bash`` runs
    ``bash``); a wrapper given no command (``env``, ``command -v x``) is itself."""
    found: tuple[str, ...] = tuple(argv)
    inner: tuple[str, ...] | None = found
    while inner:
        found, inner = inner, unwrap(inner)
    return found


#: Paths by which a program opens its own input.
STDIN_PATHS = frozenset({"/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"})


def reads_code_from_stdin(argv: Sequence[str]) -> bool:
    """True when ``argv`` (wrappers looked through) runs code it reads from its input:
    a shell or interpreter without a script or code argument, ``source /dev/stdin``, or a
    shell whose ``-c`` code runs one of those (``sh -c bash``)."""
    return stdin_reader(argv) is not None


def stdin_reader(argv: Sequence[str]) -> tuple[str, ...] | None:
    """The command that reads ``argv``'s input as code (see :func:`reads_code_from_stdin`),
    its wrappers looked through and a shell's ``-c`` code looked into (its words as
    written); ``None`` when nothing does."""
    argv = unwrapped(argv)
    if not argv:
        return None
    name = program(argv[0])
    if name in ("source", "."):
        return argv if set(argv[1:2]) & STDIN_PATHS else None
    if name in SHELLS:
        call = shell_call(argv[1:])
        operands = argv[1 + call.operands :]
        if call.stdin or (not call.command and (not operands or operands[0] in STDIN_PATHS)):
            return argv
        return _reader_in_code(operands[0]) if call.command and operands else None
    if name in INTERPRETERS:  # no script named, or - or /dev/stdin (script arguments after)
        script = _interpreter_script(name, argv[1:])
        return argv if script in ("", "-", *STDIN_PATHS) else None
    return None


def _reader_in_code(code: str) -> tuple[str, ...] | None:
    """The first command of the shell code ``code`` that reads its input as code."""
    root, source = parse(code)
    for node in descendants(root):
        name = node.child_by_field_name("name") if node.type == "command" else None
        if name is not None:
            words = [name, *node.children_by_field_name("argument")]
            found = stdin_reader([node_text(w, source).strip("\"'") for w in words])
            if found is not None:
                return found
    return None


def _url_name(url: str, name: str) -> str:
    """The file name downloader ``name`` saves ``url`` as by default (``""`` for none).
    curl (``-O``): the last part of the URL's path, ``\\`` a separator too, none when the
    path ends in ``/``. wget: the last part of the path decoded (``%20`` a space) and the
    query after it (``run.sh?v=1``, its ``/`` as ``%2F``), ``index.html`` for a path that
    ends in ``/``. The fragment (``#…``) is never sent."""
    address, _, query = url.partition("#")[0].partition("?")
    path = address.partition("://")[2].partition("/")[2]
    if name == "curl":
        return posixpath.basename(path).rpartition("\\")[2]
    query = f"?{query.replace('/', '%2F')}" if "?" in url.partition("#")[0] else ""
    return (urllib.parse.unquote(posixpath.basename(path)) or "index.html") + query


def _short_value(arg: str, letter: str, following: Sequence[str]) -> str | None:
    """The value of ``-x`` in a bundle of short options (``-sSLo FILE``, ``-oFILE``)."""
    flags = arg[1:] if arg.startswith("-") and not arg.startswith("--") else ""
    if letter not in flags:
        return None
    attached = flags[flags.index(letter) + 1 :]
    return attached or (following[0] if following else None)


def downloaded(argv: Sequence[str]) -> list[str]:
    """The files a downloader writes (``curl -o``/``-O`` in ``--output-dir``, ``wget``'s
    ``-O``, ``-P`` and default name), as written on the command line; none for other
    programs. ``argv`` is a command: it has a program."""
    name, args = program(argv[0]), list(argv[1:])
    if name not in DOWNLOADERS:
        return []
    urls = [arg for arg in args if "://" in arg]
    outputs: list[str] = []
    remote = name in ("wget", "wget2")
    prefix = directory = ""
    for index, arg in enumerate(args):
        following = args[index + 1 : index + 2]
        long, _, value = arg.partition("=")
        if long in ("--output", "--output-document") and value:
            outputs.append(value)
        elif arg in ("--output", "--output-document") and following:
            outputs.append(following[0])
        elif long == "--directory-prefix":
            prefix = value if "=" in arg else "".join(following)
        elif arg == "--output-dir" and name == "curl":
            directory = "".join(following)
        elif arg in ("--remote-name", "--remote-name-all") and name == "curl":
            remote = True
        else:
            letter = "O" if name in ("wget", "wget2") else "o"
            output = _short_value(arg, letter, following)
            outputs += [output] if output else []
            prefix = _short_value(arg, "P", following) or prefix if remote else prefix
            remote = remote or (name == "curl" and _short_value(arg, "O", ["x"]) is not None)
    if remote and not (name != "curl" and outputs):
        names = [_url_name(url, name) for url in urls]
        outputs += [posixpath.join(prefix, found) for found in names if found]
    outputs = [output for output in outputs if output != "-"]
    return [f"{directory}/{output}" for output in outputs] if directory else outputs


def executed(argv: Sequence[str]) -> str | None:
    """The file ``argv`` runs as code: a program path, a shell's or an interpreter's
    script, a sourced file."""
    if not argv:
        return None
    name, args = program(argv[0]), list(argv[1:])
    if "/" in argv[0]:
        return argv[0]
    if name in ("source", "."):
        return args[0] if args else None
    if name in SHELLS:
        call = shell_call(args)
        if call.command or call.stdin:  # code on the command line or from the input
            return None
        return args[call.operands] if call.operands < len(args) else None
    if name not in INTERPRETERS:
        return None
    return _interpreter_script(name, args) or None  # "": it reads its input, runs no file


def _interpreter_script(name: str, args: Sequence[str]) -> str | None:
    """The script interpreter ``name`` runs, given its arguments: its first operand after
    its options (a value flag's value skipped: ``python -W ignore x.py`` runs ``x.py``),
    ``-`` or ``/dev/stdin`` for its input, ``""`` when no operand follows (it reads its
    input too); ``None`` when code on the command line or a module runs (``-c``, ``-e``,
    ``-m``)."""
    code_flags, value_flags = INTERPRETERS[name]
    index = 0  # their options start with - only: +x.py is a script (shells' +o is theirs)
    while index < len(args) and args[index].startswith("-") and args[index] != "-":
        arg = args[index]
        if arg in code_flags or arg == "-m":
            return None
        index += 2 if arg in value_flags else 1
    return args[index] if index < len(args) else ""
