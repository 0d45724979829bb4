"""The rules for git: force-pushes, its configuration, and the programs it runs."""

from __future__ import annotations

from tai_sandbox._commands import split_arguments
from tai_sandbox._danger import Checker, check_written
from tai_sandbox._words import Scope


def git(checker: Checker, name: str, args: list[str], scope: Scope) -> None:
    """The rule for ``git``: force-pushes, and writes to the repository's configuration."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        takes = args[index] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace")
        index += 2 if takes else 1
    command, rest = (args[index], args[index + 1 :]) if index < len(args) else ("", [])
    if command == "push":
        for arg in rest:
            force = arg in ("--force", "--mirror", "--force-if-includes") or arg.startswith(
                "--force-with-lease"
            )
            short = arg.startswith("-") and not arg.startswith("--") and "f" in arg[1:]
            if force or short or (arg.startswith("+") and len(arg) > 1):
                checker.refuse(f"{name} push {arg} is a force-push, which rewrites shared history")
    if command == "config":
        options, operands = split_arguments(rest)
        elsewhere = {"--global", "--system", "--file", "-f", "--blob"} & set(options)
        writes = {"--add", "--unset", "--unset-all", "--replace-all", "--rename-section",
                  "--remove-section", "--edit", "-e"} & set(options)  # fmt: skip
        reads = any(o.startswith(("--get", "--list", "-l", "--show")) for o in options)
        verb = operands[0] if operands else ""
        if not elsewhere and (
            writes
            or verb in ("set", "unset", "rename-section", "remove-section", "edit")
            or (not reads and verb not in ("get", "list") and len(operands) >= 2)
        ):
            check_written(checker, ".git/config", scope, f"{name} config")
