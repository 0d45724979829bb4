"""What the variables of one script can hold, and the directories its commands run in.

The policy ignores the order of statements: every value a script gives a variable
(``X=…``, ``for X in …``, ``unset X``) counts in every word, and every directory it changes
to (``cd``, ``pushd``) counts for every relative path. A value can depend on another
assignment or another ``cd`` (``Y=/; X=$Y``, ``X=/etc; cd $X``, ``cd a; cd b``), so the
collection runs again in the scope collected so far, until nothing changes; what still
grows after :data:`ROUNDS` rounds (``X=a$X``) is only known when the command runs.

What the policy cannot see through makes the values it could set unknown, never empty:
``read``/``mapfile``/``getopts``/``printf -v`` targets, namerefs (``declare -n``), the
positional parameters after ``set --`` or ``shift``, and every variable once code is
``source``d from a file. The code ``eval`` runs is collected like the script's own (text
only the run knows is refused by eval's rule).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import attrs

from tai_sandbox import _commands, _danger
from tai_sandbox._syntax import descendants, node_text, parse
from tai_sandbox._words import DYNAMIC, Expander, Scope

if TYPE_CHECKING:
    from tree_sitter import Node

#: How often the collection runs again before what still changes is given up as unknown.
ROUNDS = 8
_TARGETS = frozenset({"read", "mapfile", "readarray", "getopts"})
#: Variables bash (or what it runs) reads without a ``$`` in the text: ``~`` and ``cd``
#: read HOME, splitting IFS, ``cd`` CDPATH, ``mktemp`` TMPDIR … Their value from before an
#: assignment always counts.
_IMPLICIT = frozenset(
    {"HOME", "IFS", "PWD", "OLDPWD", "CDPATH", "PATH", "TMPDIR", "ENV", "BASH_ENV",
     "SHELLOPTS", "BASHOPTS", "GLOBIGNORE", "POSIXLY_CORRECT"}
)  # fmt: skip
#: Where a command may run more than once.
_REPEATING = frozenset(
    {"for_statement", "c_style_for_statement", "while_statement", "function_definition"}
)


def script_scope(root: Node, source: bytes, base: Scope) -> Scope:
    """The scope the words of the script ``root`` are expanded in, given ``base`` (the
    parent's variables, the script's positional parameters and directories)."""
    scope = base
    for _ in range(ROUNDS):
        collected = _Collection(base)
        collected.script(root, Expander(source, scope), evaluated=False)
        grown = collected.scope()
        if grown == scope:
            return scope
        previous, scope = scope, grown
    changing = {n: None for n, v in scope.variables.items() if previous.variables.get(n) != v}
    dirs = scope.dirs if scope.dirs == previous.dirs else (*scope.dirs, None)
    return attrs.evolve(scope, variables={**scope.variables, **changing}, dirs=dirs)


class _Collection:
    """The assignments and directory changes of one round."""

    def __init__(self, base: Scope) -> None:
        self.base = base
        self.found: dict[str, set[str] | None] = {}
        self.dirs: list[str | None] = list(base.dirs)
        self.positional = base.positional
        self.opaque = base.opaque
        #: Variables the script sets before anything can read them (see _defines).
        self.defined: set[str] = set()

    def add(self, name: str, values: list[str] | None) -> None:
        if values is None or self.found.get(name, set()) is None:
            self.found[name] = None
        else:
            self.found.setdefault(name, set()).update(values)  # type: ignore[union-attr]

    def scope(self) -> Scope:
        variables = dict(self.base.variables)
        for name, values in self.found.items():
            prior = frozenset() if name in self.defined else self.base.values(name)
            variables[name] = None if values is None or prior is None else frozenset(values | prior)
        dirs = tuple(dict.fromkeys(self.dirs))
        return Scope(variables, self.positional, dirs, self.base.environ, opaque=self.opaque)

    def script(self, root: Node, expander: Expander, evaluated: bool) -> None:
        for node in descendants(root):
            if node.type == "variable_assignment":
                self._assignment(node, expander, evaluated)
            elif node.type == "declaration_command":
                self._declaration(node, expander.source)
            elif node.type == "for_statement":
                variable = node.child_by_field_name("variable")
                values = node.children_by_field_name("value")
                if variable is not None:
                    fields = [f for v in values for fs in expander.expand(v) for f in fs]
                    self.add(node_text(variable, expander.source), fields if values else None)
            elif node.type == "unset_command":  # its own node, not a command
                words = [node_text(c, expander.source) for c in node.named_children]
                if "-f" not in words:  # unset -f removes functions
                    for word in words:
                        if not word.startswith("-"):
                            self.add(word, [""])
            elif node.type == "command":
                self._command(node, expander)

    def _assignment(self, node: Node, expander: Expander, evaluated: bool) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None:
            return
        key = node_text(name.child_by_field_name("name") or name, expander.source)
        if name.type == "subscript" or any(c.type == "+=" for c in node.children):
            self.add(key, None)
        elif value is None:
            self.add(key, [""])
        elif value.type == "array":
            self.add(key, None)
        else:
            self.add(key, [" ".join(fields) for fields in expander.expand(value)])
            readable = key in self.base.environ or key in _IMPLICIT
            if not evaluated and not readable and _defines(node, value, key, expander.source):
                self.defined.add(key)

    def _declaration(self, node: Node, source: bytes) -> None:
        """``declare -n X=HOME``: ``$X`` is ``$HOME``, whatever is assigned to it later."""
        words = [node_text(c, source) for c in node.children]
        options = [w for w in words[1:] if w[:1] == "-"]  # +n takes the attribute away
        if words[:1] != ["export"] and any("n" in option for option in options):
            for child in node.named_children:
                assigned = child.type == "variable_assignment"
                name = child.child_by_field_name("name") if assigned else child
                if name is not None and name.type == "variable_name":
                    self.add(node_text(name, source), None)

    def _command(self, node: Node, expander: Expander) -> None:
        """What a command changes, for every argument vector its words stand for (so
        that ``\\cd /etc`` and ``"cd" /etc`` are ``cd /etc``)."""
        name = node.child_by_field_name("name")
        if name is None:
            return
        for argv in expander.argvs([name, *node.children_by_field_name("argument")]):
            if argv:
                self._effects(argv[0], list(argv[1:]), node, expander)

    def _effects(self, command: str, args: list[str], node: Node, expander: Expander) -> None:
        if command in _TARGETS:
            for arg in args:
                if not arg.startswith("-"):
                    self.add(arg, None)
        elif command == "printf":
            for target in _printf_targets(args):
                self.add(target, None)
        elif command in ("cd", "pushd", "popd"):
            self._directories(command, node, args, expander.scope)
        elif command in (".", "source"):
            self.opaque = True  # a file's code may assign anything
        elif command == "eval":
            text = " ".join(args)  # text only the run knows is refused by eval's rule
            if DYNAMIC not in text:
                root, source = parse(text)
                self.script(root, Expander(source, expander.scope), evaluated=True)
        elif command == "shift" or (command == "set" and _sets_parameters(args)):
            self.positional = None

    def _directories(self, command: str, node: Node, targets: list[str], scope: Scope) -> None:
        """A relative ``cd`` is taken from every directory an earlier one may have led to
        (earlier in the text: a ``cd`` in a loop or a function may repeat, so where a
        relative one there leads is only known when the command runs)."""
        if not targets:
            homes = scope.values("HOME") if command == "cd" else None
            self.dirs.extend(sorted(homes) if homes is not None else [None])
        repeats = any(a.type in _REPEATING for a in _ancestors(node))
        for target in targets:
            if DYNAMIC in target or target == "-" or (repeats and not target.startswith("/")):
                self.dirs.append(None)
                continue
            bases = list(self.dirs)
            if command != "popd" and target.partition("/")[0] not in ("", ".", ".."):
                bases += _cdpath(scope, bases)  # cd etc with CDPATH=/ is cd /etc
            self.dirs.extend(_danger.absolute(target, base) for base in bases)


def _cdpath(scope: Scope, dirs: list[str | None]) -> list[str | None]:
    """The directories ``$CDPATH`` gives a relative ``cd`` to look in (its entries, each
    from every directory the script may be in; ``None`` when it is only known at run
    time)."""
    values = scope.values("CDPATH")
    if values is None:
        return [None]
    entries = {entry for value in values for entry in value.split(":") if entry}
    return [
        None if DYNAMIC in entry else _danger.absolute(entry, base)  # CDPATH=$(pwd)
        for entry in sorted(entries)
        for base in dirs
    ]


def _defines(assignment: Node, value: Node, name: str, source: bytes) -> bool:
    """Whether ``assignment`` gives ``name`` its value before anything can read it: a
    statement of its own at the top of the script (``X=build`` or ``export X=build``, not
    in a list, a loop, a condition or a function) with no mention of the name before it in
    the text (in a word, a string, code for ``eval``, a function body, a comment) or in its
    own value. What the variable held before then counts nowhere: after
    ``X=build``, ``$X/out`` is ``build/out`` only. (Only for a variable the environment
    does not hold and bash does not read by itself: nothing else can have read it.)
    ``value`` is the assignment's value (an empty one, ``X=``, is no definition)."""
    statement = assignment.parent
    if statement is not None and statement.type == "declaration_command":
        statement = statement.parent
    if statement is None or statement.type != "program":
        return False
    text = source[: assignment.start_byte] + source[value.start_byte : value.end_byte]
    mention = rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])"
    return not re.search(mention, text.decode(errors="replace"))


def _ancestors(node: Node) -> Iterator[Node]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _printf_targets(args: list[str]) -> Iterator[str]:
    """The variables ``printf -v VAR`` (or ``-vVAR``) assigns."""
    for index, arg in enumerate(args):
        if arg == "--" or not arg.startswith("-"):
            return
        if arg.startswith("-v"):
            target = arg[2:] or (args[index + 1] if index + 1 < len(args) else "")
            if target:
                yield target


def _sets_parameters(args: list[str]) -> bool:
    """Whether ``set ARGS`` gives the script new positional parameters (``set -- a``,
    ``set a``, ``set --`` that unsets them), not only options (``set -e``,
    ``set -euo pipefail``): set reads its options as the shell does."""
    start = _commands.shell_call(args).operands
    return start < len(args) or args[start - 1 : start] == ["--"]
