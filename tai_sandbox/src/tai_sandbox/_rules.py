"""The destructive patterns, checked on one command's argument vector at a time.

A command reaches these rules with its words already expanded (``_words``) and its
wrappers looked through (``_commands.unwrap``: ``env``, ``sudo``, ``nice``, ``timeout``,
``xargs`` …), so each rule sees the program that will really run. Rules that hand code
to a shell (``sh -c``, ``eval``) give it back to the checker to be parsed again; code
that is only known when the command runs (``sh -c "$(curl …)"``, ``bash <(wget …)``,
``eval $x``) is refused, because nothing can be checked about it. A path a rule cares
about and cannot know (a variable set at run time) counts as dangerous: the policy
refuses what it cannot see rather than guess.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from itertools import takewhile

from tai_sandbox._code import check_code
from tai_sandbox._commands import (
    INTERPRETERS,
    SCRIPT_FLAGS,
    SHELLS,
    program,
    shell_call,
    split_arguments,
    unwrap,
)
from tai_sandbox._danger import (
    Checker,
    absolute,
    check_written,
    deletion_danger,
    raw_device,
    system_danger,
    within,
)
from tai_sandbox._git import git
from tai_sandbox._words import DYNAMIC, Scope

_FILESYSTEM_TOOLS = frozenset(
    {"mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted",
     "blkdiscard", "mkdosfs", "mkntfs", "badblocks", "zpool", "lvremove", "vgremove"}
)  # fmt: skip
_POWER = frozenset({"shutdown", "reboot", "halt", "poweroff", "killall5"})
_POWER_VERBS = frozenset(
    {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep",
     "suspend-then-hibernate", "soft-reboot", "emergency", "rescue"}
)  # fmt: skip


# -- rules ------------------------------------------------------------------------------

Rule = Callable[[Checker, str, list[str], Scope], None]


def _rm(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    options, targets = split_arguments(args)
    recursive = any(
        option in ("--recursive",)
        or (not option.startswith("--") and ("r" in option or "R" in option))
        for option in options
    )
    dynamic_flags = any(DYNAMIC in arg and not arg.startswith("/") for arg in args)
    for target in targets:
        danger = deletion_danger(target, scope, checker.cwd)
        if danger and (recursive or (dynamic_flags and DYNAMIC not in target)):
            checker.refuse(f"recursive {name} deletes {danger}")
    for target in targets:
        check_written(checker, target, scope, name)


_FIND_FILTERS = frozenset(
    {"-name", "-iname", "-path", "-ipath", "-wholename", "-regex", "-iregex", "-newer",
     "-mtime", "-mmin", "-size", "-empty", "-user", "-perm", "-type"}
)  # fmt: skip
_DELETERS = frozenset({"rm", "rmdir", "unlink", "shred"})


def _find_actions(expression: list[str]) -> list[list[str]]:
    """The commands of the ``-exec``, ``-execdir``, ``-ok`` and ``-okdir`` actions."""
    actions, index = [], 0
    while index < len(expression):
        if expression[index] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next(
                (i for i in range(index + 1, len(expression)) if expression[i] in (";", "+")),
                len(expression),
            )
            actions.append(expression[index + 1 : end])
            index = end
        index += 1
    return [action for action in actions if action]


def _deleting(argv: list[str]) -> str | None:
    """The deleting program ``argv`` runs (wrappers looked through), or ``None``."""
    inner: tuple[str, ...] | None = tuple(argv)
    while inner:
        argv, inner = list(inner), unwrap(inner)
    name = program(argv[0])  # an action is never empty (_find_actions)
    return name if name in _DELETERS else None


def _contained(root: str, scope: Scope, cwd: str) -> bool:
    """True when ``root`` is the working directory or inside it, wherever the script is."""
    fulls = [absolute(root, base) for base in scope.dirs]
    return DYNAMIC not in root and all(full and within(full, cwd) for full in fulls)


def _find(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    """``find`` deletes with ``-delete`` or a deleting ``-exec``: what it deletes is judged
    by its start directory, except that a filtered search in the working directory only
    deletes what it matches there."""
    given = list(takewhile(lambda arg: arg[:1] not in ("-", "(", "!"), args))
    roots, expression = given or ["."], args[len(given) :]
    filtered = bool(_FIND_FILTERS & set(expression))
    actions = _find_actions(expression)
    deleters = [found for found in map(_deleting, actions) if found]
    how = "-delete" if "-delete" in expression else f"-exec {deleters[0]}" if deleters else ""
    for root in roots:
        found = root
        if filtered and _contained(root, scope, checker.cwd):
            found = posixpath.join(root, "x")
        danger = deletion_danger(found, scope, checker.cwd) if how else None
        if danger:
            checker.refuse(f"{name} {how} deletes {danger}")
        if "-delete" in expression:  # what it deletes in a protected directory
            check_written(checker, found, scope, f"{name} -delete")
        for action in actions:
            checker.run([arg.replace("{}", found) for arg in action], scope)


def _trap(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    """``trap [--] HANDLER SIGNAL…``: the handler is shell code, run when the signal comes.
    The first word is read as code even when it is an option: as a command, ``-p``, ``-lp``
    or ``-`` (``trap -p EXIT``, ``trap - INT``) does nothing the rules refuse, and a word
    such as ``'-c; rm -rf ~'`` is refused whether or not the shell takes it for options."""
    if args[:1] == ["--"]:  # the next one is the handler, whatever it starts with
        args = args[1:]
    if len(args) < 2:  # a lone word is a signal to reset
        return
    if DYNAMIC in args[0]:
        checker.refuse(f"{name} runs a handler only known when the command runs")
    checker.script(args[0], scope, scope.positional)


def _shell(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    call = shell_call(args)
    if call.dynamic:
        checker.refuse(f"{name} is given an option only known when the command runs")
    rest = args[call.operands :]
    if call.command and rest:
        if DYNAMIC in rest[0]:
            checker.refuse(f"{name} -c runs shell code only known when the command runs")
        checker.script(rest[0], scope, tuple(rest[1:]) or (name,))
    elif rest and DYNAMIC in rest[0]:
        checker.refuse(f"{name} runs a script whose source is only known when the command runs")


def _eval(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    text = " ".join(args)
    if DYNAMIC in text:
        checker.refuse(f"{name} runs text only known when the command runs")
    checker.script(text, scope, scope.positional)


def _source(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    if args and DYNAMIC in args[0]:
        checker.refuse(f"{name} runs a script whose source is only known when the command runs")


def _codes(name: str, args: list[str]) -> tuple[list[tuple[str, str]], str | None]:
    """The ``(flag, code)`` pairs an interpreter is given on its command line (bundled
    flags too: ``perl -lne CODE``, ``python -Bc CODE``, ``perl -e'CODE'``), and the
    script (or ``-m`` module) it runs instead, if any."""
    code_flags, value_flags = INTERPRETERS[name]
    letters = {flag[1] for flag in code_flags if len(flag) == 2}
    valued = {flag[1] for flag in value_flags if len(flag) == 2}
    codes: list[tuple[str, str]] = []
    index = 0
    while index < len(args):
        arg, following = args[index], args[index + 1 : index + 2]
        if arg == "--" or arg in SCRIPT_FLAGS.get(name, ()):  # the one named next runs
            return codes, following[0] if following and not codes else None
        if not arg.startswith("-") and not codes:
            return codes, arg
        if not arg.startswith("-"):
            break
        if arg in value_flags:
            index += 1
        elif arg.startswith("--") and arg.partition("=")[0] in code_flags:
            flag, _, code = arg.partition("=")
            codes.append((flag, code or "".join(following)))
            index += 0 if code else 1
        elif not arg.startswith("--"):
            spot = next((i for i, c in enumerate(arg[1:], 1) if c in letters | valued), None)
            if spot is not None and arg[spot] in letters:
                attached = arg[spot + 1 :]
                inline = attached and not set(attached) <= letters
                codes.append((f"-{arg[spot]}", attached if inline else "".join(following)))
                index += 0 if inline else 1
        index += 1
    return codes, None


def _interpreter(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    """Code on an interpreter's command line is read for destructive effects (``_code``);
    code or a script only known when the command runs is refused."""
    codes, script = _codes(name, args)
    if script is not None and DYNAMIC in script:
        checker.refuse(f"{name} runs a script whose source is only known when it runs")
    for flag, code in codes:
        if DYNAMIC in code:
            checker.refuse(f"{name} {flag} runs code only known when the command runs")
    if codes:
        check_code(checker, name, "\n".join(code for _, code in codes), scope)


def _filesystem(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    del args, scope
    checker.refuse(f"{name} creates or wipes filesystems or partitions")


def _dd(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    for arg in args:
        if arg.startswith("of="):
            check_written(checker, arg.removeprefix("of="), scope, name)


#: Letters of a symbolic or octal mode: GNU chmod reads ``-w``, ``-x``, ``-Rw`` as a mode
#: (``chmod -R -w ~`` takes write permission away under the home), not as options.
_MODE_LETTERS = frozenset("rwxXstugoa0123456789=+,")


def _modes(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    options, operands = split_arguments(args)
    recursive = any(
        option == "--recursive" or (not option.startswith("--") and "R" in option)
        for option in options
    )
    moded = name == "chmod" and any(
        not option.startswith("--") and _MODE_LETTERS & set(option[1:]) for option in options
    )
    given = moded or any(o.startswith("--reference") for o in options)  # no mode operand
    targets = operands if given else operands[1:]
    for target in targets:
        danger = system_danger(target, scope, checker.cwd)
        # the root or the home itself, in any directory the script may be in
        whole = any(absolute(target, base) in ("/", scope.home) for base in scope.dirs)
        if danger and (recursive or whole):
            checker.refuse(f"{name} {'-R ' if recursive else ''}changes {danger}")
        check_written(checker, target, scope, name)


def _power(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    del scope
    if name in _POWER:
        checker.refuse(f"{name} shuts the machine down or kills every process")
    if name in ("init", "telinit") and set(args) & {"0", "6"}:
        checker.refuse(f"{name} {' '.join(args)} shuts the machine down")
    if name in ("systemctl", "loginctl") and set(args) & _POWER_VERBS:
        checker.refuse(f"{name} {' '.join(args)} shuts down, restarts or suspends the machine")
    if name == "kill" and "-1" in args[1:]:  # the first one is the signal (kill -1 1234)
        checker.refuse("kill -1 signals every process")


_WRITES: dict[str, str] = {
    "tee": "",
    "touch": "rdt",
    "mkdir": "m",
    "rmdir": "",
    "unlink": "",
    "truncate": "sr",
    "shred": "ns",
    "chattr": "",
    "setfacl": "mMxX",
    "sed": "efl",
}
_COPIES: dict[str, str] = {"cp": "tS", "install": "gmotS", "ln": "tS", "mv": "tS"}


def _writes(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    options, operands = split_arguments(args, _WRITES[name])
    if name == "sed" and not any(o.startswith(("-i", "--in-place")) for o in options):
        return
    if name == "shred":
        for operand in operands:
            device = raw_device(operand, scope)
            if device:
                checker.refuse(f"shred overwrites the device {device}")
    for operand in operands:
        check_written(checker, operand, scope, name)


def _target_directory(args: list[str], short_values: str) -> str | None:
    """The directory ``-t`` names (``-t DIR``, ``-tDIR``, ``-vt DIR``, ``--target-directory
    DIR``, ``--target=DIR`` and the other abbreviations getopt accepts, down to ``--t``: no
    other long option of ``cp``, ``mv``, ``ln`` or ``install`` starts with t), or ``None``."""
    index = 0
    while index < len(args):
        arg, following = args[index], args[index + 1 : index + 2]
        if arg == "--":
            break
        option, equals, value = arg.partition("=")
        if arg.startswith("--t") and "--target-directory".startswith(option):
            return value if equals else next(iter(following), None)
        if arg.startswith("-") and not arg.startswith("--"):
            for spot, letter in enumerate(arg[1:], 1):
                if letter == "t":
                    return arg[spot + 1 :] or next(iter(following), None)
                if letter in short_values:  # the rest, or the next argument, is its value
                    index += spot == len(arg) - 1
                    break
        index += 1
    return None


def _copies(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    operands = split_arguments(args, _COPIES[name])[1]
    target = _target_directory(args, _COPIES[name])
    sources = operands if target is not None else operands[:-1]
    destination = target if target is not None else (operands[-1] if operands else None)
    if destination is None:
        return
    written = [destination, *(posixpath.join(destination, posixpath.basename(s)) for s in sources)]
    if name == "mv":
        for source in sources:
            if deletion_danger(source, scope, checker.cwd):
                checker.refuse(f"mv moves away {deletion_danger(source, scope, checker.cwd)}")
        written += sources
    for path in written:
        check_written(checker, path, scope, name)


RULES: dict[str, Rule] = {
    "rm": _rm,
    "find": _find,
    "trap": _trap,
    "eval": _eval,
    "source": _source,
    ".": _source,
    "dd": _dd,
    "chmod": _modes,
    "chown": _modes,
    "chgrp": _modes,
    "git": git,
    **dict.fromkeys(SHELLS, _shell),
    **dict.fromkeys(INTERPRETERS, _interpreter),
    **dict.fromkeys(_FILESYSTEM_TOOLS, _filesystem),
    **dict.fromkeys((*_POWER, "init", "telinit", "systemctl", "loginctl", "kill"), _power),
    **dict.fromkeys(_WRITES, _writes),
    **dict.fromkeys(_COPIES, _copies),
}


def rule_for(name: str) -> Rule | None:
    """The rule for program ``name`` (``mkfs.ext4`` falls under ``mkfs``)."""
    if name.startswith("mkfs"):
        return _filesystem
    return RULES.get(name)
