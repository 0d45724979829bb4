"""Code given to an interpreter on its command line (``python -c``, ``perl -e``, ``node -e``,
``ruby -e``, ``php -r``), read for the same destructive effects as shell code.

The code is reduced to what the rules can judge: its string literals, lists of string
literals, the calls it makes with their arguments (a literal, or unknown), and whether it
forks inside a loop. Python code is read with :mod:`ast` (names resolved through its
imports, paths built with ``os.path``/``pathlib`` evaluated); other languages — and
Python that does not parse — by a small tokenizer (:mod:`tai_sandbox._tokens`) that knows
their strings and command quotes (`` `…` ``, ``qx``, ``%x``). Then:

* a command the code runs (``os.system``, ``subprocess.*``, ``system``, ``exec*``,
  ``child_process``'s functions, backticks) is checked as shell code or as an argument
  vector; one only known when the code runs is refused;
* every other string literal that reads as a plain shell command, and every list of string
  literals, is checked too (``cmd = "rm -rf /"; os.system(cmd)``);
* deleting, ``chmod``/``chown`` and writing calls are judged by the path they are given,
  with the rules shell commands get (a recursive deletion of a path only known when the
  code runs is refused);
* a fork inside a loop is a fork bomb.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

from tai_sandbox._danger import Checker, check_written, deletion_danger, system_danger
from tai_sandbox._python import python_facts
from tai_sandbox._syntax import parse
from tai_sandbox._tokens import Call, token_facts
from tai_sandbox._words import DYNAMIC, Scope

#: Calls that run a command (names, or Python's qualified names, as patterns).
_RUNNERS = (
    "os.system", "os.popen", "os.exec*", "os.spawn*", "os.posix_spawn*", "subprocess.*",
    "pty.spawn", "asyncio.create_subprocess_*", "system", "exec", "execSync", "execFile",
    "execFileSync", "spawn", "spawnSync", "shell_exec", "passthru", "proc_open", "popen",
    "capture2", "capture2e", "capture3", "popen2", "popen3", "pcntl_exec",
)  # fmt: skip
#: Calls that delete a whole tree.
_TREE = (
    "shutil.rmtree", "os.removedirs", "*.rmtree", "rmtree", "remove_tree", "rm_rf", "rm_r",
    "remove_dir", "remove_entry", "remove_entry_secure", "rmSync", "rmdirSync", "rm",
    "removeSync", "emptyDirSync", "rimraf",
)  # fmt: skip
#: Calls that delete one file or an empty directory.
_PLAIN = ("os.remove", "os.unlink", "os.rmdir", "*.unlink", "*.rmdir", "remove", "unlink",
          "unlinkSync", "rmdir", "delete", "rm_f")  # fmt: skip
_MODES = ("os.chmod", "os.chown", "os.lchown", "shutil.chown", "*.chmod", "*.lchmod",
          "chmod", "chown", "chmodSync", "chownSync", "chmod_R", "chown_R")  # fmt: skip
_WRITERS = (
    "open", "io.open", "os.open", "*.open", "*.write_text", "*.write_bytes", "*.touch",
    "*.symlink_to", "*.hardlink_to", "shutil.copy*", "shutil.move", "os.rename",
    "os.replace", "os.symlink", "os.link", "os.truncate", "writeFileSync", "writeFile",
    "appendFileSync", "appendFile", "createWriteStream", "copyFileSync", "renameSync",
    "symlinkSync", "write", "fopen", "file_put_contents", "copy", "move", "sysopen",
    "truncate", "cp", "mv", "ln_s", "ln_sf", "install",
)  # fmt: skip
_READ_MODES = frozenset({"r", "rb", "rt", "r:utf-8", "r:UTF-8"})


def _is(call: Call, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(call.name, pattern) for pattern in patterns)


def _reads_as_shell(text: str) -> bool:
    """True for a literal that is a plain shell command: no expansion (whose value would
    be the other language's, not the shell's), and well-formed."""
    if not text.strip() or "$" in text or "`" in text or "\x00" in text:
        return False
    return not parse(text)[0].has_error


def _run(checker: Checker, what: str, call: Call, scope: Scope) -> None:
    """Check the command a running call is given."""
    first = call.args[0] if call.args else None
    if first is None or DYNAMIC in "".join(first):
        checker.refuse(f"{what} {call.name} runs a command only known when the code runs")
    if isinstance(first, str) and len(call.args) == 1:
        checker.script(first, scope, ("sh",))
    elif isinstance(first, tuple):
        checker.run(first, scope)
    else:
        checker.run([arg if isinstance(arg, str) else DYNAMIC for arg in call.args], scope)


def _deleted(call: Call) -> list[str]:
    """The paths a deleting call acts on: a method's object, or every literal it is given
    (Perl's ``unlink`` and ``rmtree`` and Ruby's ``File.delete`` take many, ``rm_rf`` a
    list), with a first argument that is not a literal as a path known only at run time."""
    if call.receiver is not None:
        return [call.receiver]
    paths = [path for arg in call.args for path in ((arg,) if isinstance(arg, str) else arg or ())]
    known = bool(call.args) and call.args[0] is not None  # Perl's unlink() deletes $_
    return paths if known else [DYNAMIC, *paths]


def _mode_paths(call: Call) -> list[str]:
    """The paths a ``chmod``/``chown`` call changes: its object, or every string it is
    given (Perl's and Ruby's take the mode and owners first, the files after them; the
    others take the path first and numbers after it)."""
    if call.receiver is not None:
        return [call.receiver]
    return [arg for arg in call.args if isinstance(arg, str)] or [DYNAMIC]


def _judge(checker: Checker, what: str, call: Call, scope: Scope) -> None:
    """Refuse a call that runs, deletes, changes modes of, or writes what it must not."""
    if _is(call, _RUNNERS):
        _run(checker, what, call, scope)
    elif _is(call, _TREE) or _is(call, _PLAIN):
        for path in _deleted(call):
            danger = deletion_danger(path, scope, checker.cwd)
            if danger and (_is(call, _TREE) or DYNAMIC not in path):
                checker.refuse(f"{what} {call.name} deletes {danger}")
            check_written(checker, path, scope, f"{what} {call.name}")
    elif _is(call, _MODES):
        for path in _mode_paths(call):
            danger = system_danger(path, scope, checker.cwd)
            if danger and (call.name.endswith("_R") or path.rstrip("/") in ("", scope.home)):
                checker.refuse(f"{what} {call.name} changes {danger}")
            check_written(checker, path, scope, f"{what} {call.name}")


def _writes(call: Call) -> bool:
    """True for a call that writes files. An ``open`` that only reads does not: one given
    nothing but the path (``os.open`` aside, whose flags are not literals), one whose modes
    are all read modes, or one whose first mode starts with ``<`` (Perl's
    ``open(F, "<", p)`` and ``open(F, "<p")``, where the path follows the mode)."""
    if not _is(call, _WRITERS):
        return False
    if not call.name.endswith("open") or call.name == "os.open":
        return True
    modes = [arg for arg in call.args[1:] if isinstance(arg, str)]
    if len(call.args) == 1 or (modes and modes[0].startswith("<")):
        return False
    return not (modes and set(modes) <= _READ_MODES)


def check_code(checker: Checker, language: str, code: str, scope: Scope) -> None:
    """Refuse ``code`` run by ``language``'s interpreter when it does what shell commands
    may not; see the module's description."""
    python = language == "python" and python_facts(code, scope.home, checker.cwd)
    facts = python or token_facts(code, language)
    what = f"the {language} code's"
    if facts.forks_in_loop:
        checker.refuse(f"the {language} code forks in a loop: a fork bomb")
    for command in facts.commands:
        if command is None or DYNAMIC in command:
            checker.refuse(f"the {language} code runs a command only known when it runs")
        checker.script(command, scope, ("sh",))
    for call in facts.calls:
        _judge(checker, what, call, scope)
    writing = any(_writes(call) for call in facts.calls)
    for text in facts.strings:
        if writing:
            check_written(checker, text.lstrip("+<>| "), scope, f"the {language} code")
        if _reads_as_shell(text):
            checker.script(text, scope, ("sh",))
    for argv in facts.argvs:
        checker.run(argv, scope)
