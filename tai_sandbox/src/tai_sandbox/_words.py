"""Shell text as the policy sees it: a bash syntax tree, and what each word can become.

Parsing is tree-sitter-bash's, never regular expressions over the text. This module turns
the words of the tree into the strings bash would hand to a program — backslash escapes,
quotes, ANSI-C strings, brace expansion, tilde expansion, parameter expansion with the
variables the script assigns (and the environment's), field splitting on ``IFS``, and the
command substitutions whose output is known without running anything (``echo``,
``printf``, ``base64 -d``, ``xxd -r -p``, ``rev``, ``cat``) — keeping every possibility: a
variable assigned twice gives a word two values, and a part only known when the command
runs (another command's output, a loop counter) is marked :data:`DYNAMIC`. The rules then
check every value, so ``X=/; rm -rf $X`` and ``$(echo rm) -rf /`` are the same command as
``rm -rf /``.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import math
import re
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from tree_sitter import Node

#: Marks the part of a value that is only known when the command runs.
DYNAMIC = "\x00"
#: Where ``$@`` ends one parameter and starts the next: a field break, quoted or not.
FIELD_BREAK = "\x1e"
#: Most values one word or command line may stand for; beyond, the text is refused.
MAX_ALTERNATIVES = 256
_DEFAULT_IFS = " \t\n"
_ANSI_ESCAPES = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


class TooComplex(Exception):
    """The text stands for more alternatives than the policy examines."""


@cache
def _parser() -> object:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


#: The trees of the latest parses, kept alive while their nodes are walked: a node read
#: after its tree is freed crashes the interpreter (py-tree-sitter issue 472, a
#: use-after-free in 0.26 seen here under fuzzing), so the walk never relies on the
#: binding to keep a tree alive.
_LIVE_TREES: deque[object] = deque(maxlen=256)


#: Characters beyond the Basic Multilingual Plane: tree-sitter-bash 0.25 reads memory it
#: does not own on some of them (a crash of the whole process, found by fuzzing here).
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def parse(text: str) -> tuple[Node, bytes]:
    """The syntax tree of ``text`` (its root node) and the bytes it indexes.

    Characters beyond U+FFFF are parsed as U+FFFD: bash gives no meaning to any character
    outside ASCII (each is part of a word), so the tree, and every decision made on it, is
    the same, and the parser never sees the characters that crash it.
    """
    source = _ASTRAL.sub("\ufffd", text).encode(errors="surrogateescape")
    tree = _parser().parse(source)  # type: ignore[attr-defined]
    _LIVE_TREES.append(tree)
    return tree.root_node, source


def node_text(node: Node, source: bytes) -> str:
    """The source text of ``node``."""
    return source[node.start_byte : node.end_byte].decode(errors="replace")


def leaves(node: Node, source: bytes) -> Iterator[str]:
    """The texts of the leaf tokens under ``node``, in order."""
    if node.child_count == 0:
        yield node_text(node, source).strip()
    for child in node.children:
        yield from leaves(child, source)


def decode_ansi_c(text: str) -> str:
    """The value of the body of a ``$'…'`` string (also ``echo -e``'s escapes)."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        index += 1
        if char != "\\" or index >= len(text):
            out.append(char)
            continue
        code = text[index]
        index += 1
        if code in _ANSI_ESCAPES:
            out.append(_ANSI_ESCAPES[code])
        elif code in "xuU01234567":
            digits, base, width = (
                ("01234567", 8, 3) if code.isdigit() else ("0123456789abcdefABCDEF", 16, 0)
            )
            width = width or {"x": 2, "u": 4, "U": 8}[code]
            start = index - 1 if code.isdigit() else index
            end = start
            while end < len(text) and end - start < width and text[end] in digits:
                end += 1
            out.append(chr(int(text[start:end], base)) if end > start else "\\" + code)
            index = end
        elif code == "c" and index < len(text):
            out.append(chr(ord(text[index]) & 0x1F))
            index += 1
        else:
            out.append("\\" + code)
    return "".join(out)


@attrs.frozen
class Scope:
    """What the words of one script can refer to."""

    #: Variable -> its possible values (``None``: only known when the command runs).
    variables: Mapping[str, frozenset[str] | None]
    #: ``$0``, ``$1`` … (``None``: unknown, as inside a function body).
    positional: tuple[str, ...] | None
    #: The directories relative paths may be relative to (``None``: unknown).
    dirs: tuple[str | None, ...]
    #: The environment of the command (``HOME`` and unassigned variables come from it).
    environ: Mapping[str, str] = attrs.field(repr=False)

    def values(self, name: str) -> frozenset[str] | None:
        """The possible values of ``$name``."""
        if name.isdigit() or name in "@*#":
            if self.positional is None:
                return None
            if name.isdigit():
                index = int(name)
                return frozenset({self.positional[index] if index < len(self.positional) else ""})
            if name == "#":
                return frozenset({str(max(len(self.positional) - 1, 0))})
            if name == "@":  # one field per parameter, even quoted
                return frozenset({FIELD_BREAK.join(self.positional[1:])})
            return frozenset({" ".join(self.positional[1:])})
        if name in self.variables:
            return self.variables[name]
        if name == "PWD":  # the directory the command runs in, however the script got there
            return None if None in self.dirs else frozenset(d for d in self.dirs if d)
        if name == "OLDPWD":
            return None
        if not name.replace("_", "a").isalnum():
            return None  # $? $$ $! $- : only known when the command runs
        return frozenset({self.environ.get(name, "")})

    @property
    def home(self) -> str:
        """``$HOME``."""
        return self.environ.get("HOME") or str(Path.home())


@attrs.frozen
class _Var:
    name: str
    quoted: bool
    extra: tuple[str, ...] = ()


@attrs.frozen
class _Value:
    """A value known in full (a substitution the policy evaluated)."""

    text: str
    quoted: bool


# An atom: an unquoted character (str of length 1, open to brace expansion and
# splitting), a quoted literal (tuple ``("q", text)``), a variable, a known value, or
# DYNAMIC-only (``None``).
_Atom = str | tuple[str, str] | _Var | _Value | None


def _unquoted(text: str) -> list[_Atom]:
    atoms: list[_Atom] = []
    escaped = False
    for char in text:
        if escaped:
            atoms.append(("q", char) if char != "\n" else ("q", ""))
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            atoms.append(char)
    return atoms


def _double_quoted(text: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(text):
        if text[index] == "\\" and index + 1 < len(text) and text[index + 1] in '$`"\\\n':
            out.append("" if text[index + 1] == "\n" else text[index + 1])
            index += 2
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


class Expander:
    """Turns words of one script into their possible values, under a :class:`Scope`."""

    def __init__(self, source: bytes, scope: Scope) -> None:
        self.source = source
        self.scope = scope

    # -- atoms --------------------------------------------------------------------------

    def _atoms(self, node: Node, quoted: bool) -> list[_Atom]:
        kind = node.type
        text = node_text(node, self.source)
        if kind in ("command_name", "concatenation"):
            return [atom for child in node.children for atom in self._atoms(child, quoted)]
        if kind in ("word", "number", "brace_expression"):
            return [("q", text)] if quoted else _unquoted(text)
        if kind in ("string", "translated_string"):
            return self._string(node)
        if kind == "raw_string":
            return [("q", text[1:-1])]
        if kind == "ansi_c_string":
            return [("q", decode_ansi_c(text[2:-1]))]
        if kind in ("simple_expansion", "expansion"):
            lead = text[: text.index("$")]
            return ([("q", lead)] if lead else []) + [self._expansion(node, quoted)]
        if kind == "command_substitution":
            value = static_output(node, self)
            return [None] if value is None else [_Value(value.rstrip("\n"), quoted)]
        return [None]

    def _string(self, node: Node) -> list[_Atom]:
        atoms: list[_Atom] = []
        position = node.start_byte + 1
        end = node.end_byte - 1
        for child in node.children:
            if child.type in ('"', '$"') or child.start_byte < position:
                continue
            gap = self.source[position : child.start_byte].decode(errors="replace")
            atoms.append(("q", _double_quoted(gap)))
            if child.type == "string_content":
                atoms.append(("q", _double_quoted(node_text(child, self.source))))
            else:
                atoms.extend(self._atoms(child, quoted=True))
            position = child.end_byte
        atoms.append(("q", _double_quoted(self.source[position:end].decode(errors="replace"))))
        return atoms

    def _expansion(self, node: Node, quoted: bool) -> _Atom:
        names = [c for c in node.children if c.type in ("variable_name", "special_variable_name")]
        if len(names) != 1:
            return None
        name = node_text(names[0], self.source)
        rest = [c for c in node.children if c.type not in ("$", "${", "}") and c != names[0]]
        if not rest:
            return _Var(name, quoted)
        operator = node_text(rest[0], self.source)
        if operator not in (":-", "-", ":=", "="):
            return None
        extra: list[str] = []
        for word in rest[1:]:
            for fields in self.expand(word):
                extra.append(" ".join(fields))
        return _Var(name, quoted, tuple(extra) or ("",))

    # -- values -------------------------------------------------------------------------

    def expand(self, node: Node) -> list[list[str]]:
        """The possible field lists of one word (brace expansion and splitting may turn a
        word into several fields, or none; a value the policy knows several of makes
        several lists)."""
        parts = []  # brace expansion makes fields side by side, each with its alternatives
        for atoms in _braces(self._atoms(node, quoted=False)):
            parts.append(list(self._fields(_tilde(atoms, self.scope.home))))
            if math.prod(len(part) for part in parts) > MAX_ALTERNATIVES:
                raise TooComplex
        combinations = itertools.product(*parts)
        return [[field for fields in chosen for field in fields] for chosen in combinations]

    def argvs(self, words: Sequence[Node]) -> list[tuple[str, ...]]:
        """The possible argument vectors of a command made of ``words``."""
        choices = [self.expand(word) for word in words]
        count = 1
        for options in choices:
            count *= max(len(options), 1)
        if count > MAX_ALTERNATIVES:
            raise TooComplex
        return [
            tuple(field for fields in combination for field in fields)
            for combination in itertools.product(*choices)
        ]

    def _ifs(self) -> list[str]:
        values = self.scope.variables.get("IFS", frozenset({_DEFAULT_IFS}))
        return sorted(values) if values is not None else [_DEFAULT_IFS, ",;:|/=-+.@"]

    def _fields(self, atoms: list[_Atom]) -> Iterator[list[str]]:
        variables = [atom for atom in atoms if isinstance(atom, _Var)]
        options = []
        for var in variables:
            known = self.scope.values(var.name)
            options.append(sorted((known or frozenset({DYNAMIC})) | set(var.extra)))
        for ifs in self._ifs():
            for chosen in itertools.product(*options):
                values = dict(zip(map(id, variables), chosen, strict=True))
                yield _split(atoms, values, ifs)


def _split(atoms: list[_Atom], values: Mapping[int, str], ifs: str) -> list[str]:
    if _no_parameters(atoms, values):
        return []  # "$@" without parameters is no field at all, quoted or not
    fields: list[str] = []
    current: list[str] = []
    started = False
    for atom in atoms:
        if isinstance(atom, str):
            current.append(atom)
            started = True
            continue
        if atom is None:
            current.append(DYNAMIC)
            started = True
            continue
        if isinstance(atom, tuple):
            current.append(atom[1])
            started = True
            continue
        value = values[id(atom)] if isinstance(atom, _Var) else atom.text
        if atom.quoted and FIELD_BREAK in value:  # "$@": the parameters stay apart
            first, *others = value.split(FIELD_BREAK)
            current.append(first)
            for other in others:
                fields.append("".join(current))
                current = [other]
            started = True
            continue
        if atom.quoted or not value:
            current.append(value)
            started = started or atom.quoted
            continue
        for char in value:
            if char in ifs or char == FIELD_BREAK:
                if started:
                    fields.append("".join(current))
                current, started = [], False
            else:
                current.append(char)
                started = True
    if started:
        fields.append("".join(current))
    return fields


def _no_parameters(atoms: list[_Atom], values: Mapping[int, str]) -> bool:
    """Whether the word is ``"$@"`` (with empty quotes around it at most) and there are no
    positional parameters."""
    ats = [a for a in atoms if isinstance(a, _Var) and a.name == "@" and not values[id(a)]]
    rest = [a for a in atoms if a not in ats and a != ("q", "")]
    return bool(ats) and not rest


def _braces(atoms: list[_Atom]) -> list[list[_Atom]]:
    """Brace expansion (``a{b,c}`` -> ``ab ac``) over unquoted characters."""
    depth, start = 0, -1
    for index, atom in enumerate(atoms):
        if atom == "{":
            if depth == 0:
                start = index
            depth += 1
        elif atom == "}" and depth:
            depth -= 1
            if depth:
                continue
            parts: list[list[_Atom]] = [[]]
            level = 0
            for inner in atoms[start + 1 : index]:
                level += (inner == "{") - (inner == "}")
                if inner == "," and level == 0:
                    parts.append([])
                else:
                    parts[-1].append(inner)
            head, tail = atoms[:start], atoms[index + 1 :]
            if len(parts) == 1:
                return [atoms[: index + 1] + rest for rest in _braces(tail)]
            expanded = [result for part in parts for result in _braces([*head, *part, *tail])]
            if len(expanded) > MAX_ALTERNATIVES:
                raise TooComplex
            return expanded
    return [atoms]


def _tilde(atoms: list[_Atom], home: str) -> list[_Atom]:
    if not atoms or atoms[0] != "~":
        return atoms
    end = 1
    while end < len(atoms) and isinstance(atoms[end], str) and atoms[end] != "/":
        end += 1
    user = "".join(str(atom) for atom in atoms[1:end])
    if user in ("+", "-"):  # ~+ is $PWD, ~- is $OLDPWD
        return [_Var("PWD" if user == "+" else "OLDPWD", quoted=True), *atoms[end:]]
    try:
        expanded = home if not user else str(Path("~" + user).expanduser())
    except RuntimeError:  # no such user: the word stays as written
        return atoms
    return [("q", expanded), *atoms[end:]]


# -- output known without running anything ---------------------------------------------


def _echo(args: Sequence[str]) -> str:
    newline, escapes = True, False
    while args and args[0][:1] == "-" and len(args[0]) > 1 and set(args[0][1:]) <= set("neE"):
        newline = newline and "n" not in args[0]
        escapes = "e" in args[0] or (escapes and "E" not in args[0])
        args = args[1:]
    text = " ".join(args)
    return (decode_ansi_c(text) if escapes else text) + ("\n" if newline else "")


def _filter(argv: Sequence[str], stdin: str | None) -> str | None:
    """The output of ``argv`` given ``stdin``, when the policy can know it."""
    name, args = PurePosixPath(argv[0]).name, list(argv[1:])
    if name == "echo":
        return _echo(args)
    if name == "printf" and args:
        body = decode_ansi_c(args[0])
        if "%" not in body:
            return body
        if body.rstrip("\n") in ("%s", "%b"):
            return "".join(args[1:]) + body[2:]
        return None
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


def _mktemp(args: Sequence[str], scope: Scope) -> str | None:
    """The name ``mktemp`` prints: a fresh path, the template's X's kept (they stand for
    whatever mktemp picks), in ``-p DIR``/``--tmpdir=DIR``, ``$TMPDIR`` or ``/tmp``; a
    template with a slash and no directory option is a path of its own."""
    tmpdirs = scope.values("TMPDIR")
    if tmpdirs is None or len(tmpdirs) != 1:
        return None
    directory: str | None = None
    template, index = "tmp.XXXXXXXXXX", 0
    while index < len(args):
        arg = args[index]
        if arg in ("-p", "--suffix") and index + 1 < len(args):
            directory = args[index + 1] if arg == "-p" else directory
            index += 1
        elif arg.startswith("--tmpdir"):
            directory = arg.partition("=")[2]
        elif arg.startswith("-p"):
            directory = arg[2:]
        elif arg == "-t" or (arg.startswith("-") and "t" in arg and not arg.startswith("--")):
            directory = directory or ""
        elif not arg.startswith("-"):
            template = arg
        index += 1
    if directory is None and "/" in template:
        return template + "\n"
    base = directory or next(iter(tmpdirs)) or "/tmp"
    return f"{base.rstrip('/')}/{PurePosixPath(template).name}\n"


def static_output(node: Node, expander: Expander) -> str | None:
    """What a command substitution, pipeline or command writes to its standard output,
    when it only prints text given in the command itself; ``None`` otherwise."""
    statements = [c for c in node.named_children if c.type != "comment"]
    if node.type == "command_substitution":
        return static_output(statements[0], expander) if len(statements) == 1 else None
    return pipeline_output(statements if node.type == "pipeline" else [node], expander)


def pipeline_output(commands: Sequence[Node], expander: Expander) -> str | None:
    """What the pipeline of ``commands`` writes, when the policy can know it."""
    text: str | None = None
    for command in commands:
        name = command.child_by_field_name("name") if command.type == "command" else None
        if name is None:
            return None
        argvs = expander.argvs([name, *command.children_by_field_name("argument")])
        if len(argvs) != 1 or not argvs[0] or any(DYNAMIC in field for field in argvs[0]):
            return None
        argv = argvs[0]
        fresh = PurePosixPath(argv[0]).name == "mktemp" and text is None
        text = _mktemp(argv[1:], expander.scope) if fresh else _filter(argv, text)
        if text is None:
            return None
    return text
