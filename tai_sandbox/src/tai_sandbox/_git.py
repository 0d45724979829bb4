"""The rules for git: force-pushes, its configuration, and the programs it runs.

git runs other programs in many places: an alias starting with ``!``, the pager, the
editor, the ssh command, credential helpers, diff and merge drivers, clean/smudge filters,
the fsmonitor hook, ``--upload-pack``/``--receive-pack``/``--exec``, ``rebase --exec``,
``bisect run``, ``submodule foreach``, ``filter-branch``'s filters. Each of these values
is shell code and checked as such (a value only known at run time is refused).
Configuration given on the command line (``-c``, ``--config-env``, ``GIT_CONFIG_KEY_n``)
that loads code or configuration from elsewhere — ``core.hooksPath``, ``include.path``,
``includeIf.*`` — is refused outright: nothing here can see what it loads.

What destroys what no checkpoint holds is refused too: force-pushes (shared history),
``git stash drop``/``clear`` and ``git branch -D`` (history that lives only in ``.git``,
which checkpoints never include), and ``git clean`` with ``-x``/``-X`` (ignored files,
which checkpoints leave out: ``.env``, local builds). What only changes the working tree
— ``git checkout -- .``, ``git restore .``, ``git reset --hard``, ``git clean -fd`` — is
allowed: a checkpoint precedes every round of shell blocks, so ``tai undo`` brings the
files back (and inside the sandbox ``.git`` is read-only, so the index and refs cannot
move at all).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator

from tai_sandbox._commands import split_arguments
from tai_sandbox._danger import Checker, check_written, shown
from tai_sandbox._words import DYNAMIC, Scope

#: Keys (lower case, ``*`` for a subsection) whose value is a command git runs.
_PROGRAM_KEYS = (
    "core.fsmonitor", "core.pager", "pager.*", "core.editor", "sequence.editor",
    "core.sshcommand", "core.askpass", "core.gitproxy", "credential.helper",
    "credential.*.helper", "diff.external", "diff.*.textconv", "diff.*.command",
    "filter.*.clean", "filter.*.smudge", "filter.*.process", "gpg.program", "gpg.*.program",
    "merge.*.driver", "uploadpack.packobjectshook", "remote.*.uploadpack",
    "remote.*.receivepack", "difftool.*.cmd", "mergetool.*.cmd", "web.browser",
    "browser.*.cmd", "man.*.cmd", "sendemail.smtpserver",
)  # fmt: skip
#: Keys that load code or configuration from somewhere the policy cannot see.
_LOADING_KEYS = ("core.hookspath", "include.path", "includeif.*")
_CONFIG_KEY = re.compile(r"GIT_CONFIG_KEY_(\d+)")
#: Environment variables whose value is a command git runs.
_PROGRAM_VARIABLES = (
    "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER",
    "GIT_ASKPASS", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND",
)  # fmt: skip
#: Options of subcommands whose value is a command: (subcommands, options).
_PROGRAM_OPTIONS = (
    (("clone",), ("-u",)),
    (("clone", "fetch", "pull", "ls-remote", "submodule"), ("--upload-pack",)),
    (("push", "send-pack"), ("--receive-pack", "--exec")),
    (("archive", "ls-remote"), ("--exec", "--remote-exec")),
    (("rebase",), ("--exec", "-x")),
    (("difftool",), ("--extcmd", "-x")),
    (("grep",), ("--open-files-in-pager", "-O")),
    (("filter-branch",), ("--tree-filter", "--index-filter", "--msg-filter", "--env-filter",
                          "--commit-filter", "--parent-filter", "--tag-name-filter")),
)  # fmt: skip


def _matches(key: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(key, pattern) for pattern in patterns)


def _run(checker: Checker, what: str, command: str, scope: Scope) -> None:
    """Check ``command``, which ``what`` runs as shell code."""
    if DYNAMIC in command:
        checker.refuse(f"{what} runs {shown(command)}, a command only known when it runs")
    checker.script(command, scope, ("sh",))


def check_setting(checker: Checker, key: str, value: str, scope: Scope, where: str) -> None:
    """Refuse a configuration setting given to git that runs or loads what cannot be seen,
    and check the commands it names as shell code."""
    lowered = key.lower()
    if DYNAMIC in key:
        checker.refuse(f"git {where} sets {shown(key)}, a setting only known when it runs")
    if _matches(lowered, _LOADING_KEYS):
        checker.refuse(f"git {where} {key} loads hooks or configuration from elsewhere")
    if lowered.startswith("alias."):
        command = value[1:] if value.startswith("!") else f"git {value}"
    elif _matches(lowered, _PROGRAM_KEYS):
        # core.fsmonitor=true is a boolean, and as shell code just as harmless
        command = value.removeprefix("!")
    else:
        return
    _run(checker, f"git {where} {key}", command, scope)


def _settings(args: list[str], scope: Scope) -> Iterator[tuple[str, str, str]]:
    """``(key, value, where)`` of each setting given before the subcommand or in the
    environment (``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``)."""
    for index, arg in enumerate(args):
        if arg == "-c" and index + 1 < len(args):
            key, _, value = args[index + 1].partition("=")
            yield key, value, "-c"
        elif arg.startswith("--config-env"):
            setting = arg.partition("=")[2] if "=" in arg else args[index + 1 : index + 2]
            key, _, variable = "".join(setting).partition("=")
            values = scope.values(variable) if variable else frozenset({""})
            for value in sorted(values or {DYNAMIC}):
                yield key, value, "--config-env"
    named = (*scope.variables, *scope.environ)
    numbers = sorted({int(m[1]) for name in named if (m := _CONFIG_KEY.fullmatch(name))})
    for number in numbers:  # git reads as many as GIT_CONFIG_COUNT says: any number
        keys = scope.values(f"GIT_CONFIG_KEY_{number}") or frozenset({DYNAMIC})
        values = scope.values(f"GIT_CONFIG_VALUE_{number}") or frozenset({DYNAMIC})
        for key in keys:  # an empty key sets nothing a rule knows
            for value in values:
                yield key, value, "GIT_CONFIG_KEY"


def _option_values(rest: list[str], options: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    for index, arg in enumerate(rest):
        for option in options:
            if arg == option and index + 1 < len(rest):
                yield option, rest[index + 1]
            elif arg.startswith(option + "=") and option.startswith("--"):
                yield option, arg.partition("=")[2]


def _runners(checker: Checker, command: str, rest: list[str], scope: Scope) -> None:
    """Check the commands a git subcommand runs."""
    for commands, options in _PROGRAM_OPTIONS:
        if command in commands:
            for option, value in _option_values(rest, options):
                _run(checker, f"git {command} {option}", value, scope)
    if command == "bisect" and rest[:1] == ["run"] and rest[1:]:
        checker.run(rest[1:], scope)
    if command == "submodule" and "foreach" in rest:
        body = [arg for arg in rest[rest.index("foreach") + 1 :] if arg != "--recursive"]
        _run(checker, "git submodule foreach", " ".join(body), scope)
    if command == "clone":
        for option, value in _option_values(rest, ("-c", "--config")):
            key, _, setting = value.partition("=")
            check_setting(checker, key, setting, scope, f"clone {option}")
    if any(arg.startswith("ext::") for arg in rest):
        checker.refuse(f"git {command} uses an ext:: remote, which runs a command")


def _push(checker: Checker, name: str, rest: list[str]) -> None:
    for arg in rest:
        force = arg in ("--force", "--mirror", "--force-if-includes") or arg.startswith(
            "--force-with-lease"
        )
        short = arg.startswith("-") and not arg.startswith("--") and "f" in arg[1:]
        if force or short or (arg.startswith("+") and len(arg) > 1):
            checker.refuse(f"{name} push {arg} is a force-push, which rewrites shared history")


def _short_flags(rest: list[str]) -> set[str]:
    """The letters of the short options in ``rest`` (``-fdx`` gives ``f``, ``d``, ``x``)."""
    return {char for arg in rest if arg[:1] == "-" and arg[1:2] != "-" for char in arg[1:]}


def _history(checker: Checker, name: str, command: str, rest: list[str]) -> None:
    """Refuse what destroys history or files that no checkpoint holds."""
    short = _short_flags(rest)
    if command == "stash" and rest[:1] in (["drop"], ["clear"]):
        checker.refuse(f"{name} stash {rest[0]} destroys stashed work, which lives only in .git")
    elif command == "branch":
        deletes = "d" in short or "--delete" in rest
        forced = "f" in short or "--force" in rest
        if "D" in short or (deletes and forced):
            checker.refuse(f"{name} branch -D deletes a branch with its unmerged commits")
    elif command == "clean":
        dry = "n" in short or "--dry-run" in rest
        if not dry and {"x", "X"} & short:
            checker.refuse(f"{name} clean -x deletes ignored files, which checkpoints do not keep")


def _config(checker: Checker, name: str, rest: list[str], scope: Scope) -> None:
    options, operands = split_arguments(rest)
    elsewhere = {"--global", "--system", "--file", "-f", "--blob"} & set(options)
    writes = {"--add", "--unset", "--unset-all", "--replace-all", "--rename-section",
              "--remove-section", "--edit", "-e"} & set(options)  # fmt: skip
    reads = any(o.startswith(("--get", "--list", "-l", "--show")) for o in options)
    verb = operands[0] if operands else ""
    if not elsewhere and (
        writes
        or verb == "edit"  # set, unset, rename-section, remove-section: two operands or more
        or (not reads and verb not in ("get", "list") and len(operands) >= 2)
    ):
        check_written(checker, ".git/config", scope, f"{name} config")


def git(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    """The rule for ``git``: force-pushes, writes to the repository's configuration, and
    every command git would run on the way."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        if args[index].startswith("--exec-path="):
            checker.refuse(f"{name} --exec-path runs git's commands from elsewhere")
        takes = args[index] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace")
        index += 2 if takes or args[index] == "--config-env" else 1
    for key, value, where in _settings(args[:index], scope):
        check_setting(checker, key, value, scope, where)
    for variable in _PROGRAM_VARIABLES:
        assigned = scope.variables.get(variable, frozenset())
        for value in {DYNAMIC} if assigned is None else assigned:  # "" runs nothing
            _run(checker, f"{name} with {variable}", value, scope)
    command, rest = (args[index], args[index + 1 :]) if index < len(args) else ("", [])
    if command == "push":
        _push(checker, name, rest)
    elif command == "config":
        _config(checker, name, rest, scope)
    _history(checker, name, command, rest)
    _runners(checker, command, rest, scope)
