"""What each word of a command can become: the strings bash would hand to a program.

The words come from the tree of :mod:`tai_sandbox._syntax`; this module expands them as
bash does — backslash escapes, quotes, ANSI-C strings, brace and sequence expansion, tilde
expansion, parameter expansion with the variables the script assigns (and the
environment's), field splitting on ``IFS``, and the command substitutions whose output is
known without running anything (:mod:`tai_sandbox._programs`) — keeping every
possibility: a variable assigned twice gives a word two values, and a part only known when
the command runs (another command's output, a loop counter) is marked :data:`DYNAMIC`. The
rules then check every value, so ``X=/; rm -rf $X`` and ``$(echo rm) -rf /`` are the same
command as ``rm -rf /``. What a word stands for is bounded (:data:`MAX_ALTERNATIVES`):
beyond, the command is refused as too complex rather than examined in part.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import attrs

from tai_sandbox import _programs
from tai_sandbox._escapes import decode_ansi_c
from tai_sandbox._syntax import node_text

if TYPE_CHECKING:
    from tree_sitter import Node

#: Marks the part of a value that is only known when the command runs.
DYNAMIC = "\x00"
#: Where ``$@`` ends one parameter and starts the next: a field break, quoted or not.
FIELD_BREAK = "\x1e"
#: Most values one word or command line may stand for; beyond, the text is refused.
MAX_ALTERNATIVES = 256
_DEFAULT_IFS = " \t\n"
#: A variable's name (the special parameters are not names).
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class TooComplex(Exception):
    """The text stands for more alternatives than the policy examines."""


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
    #: Whether the script may have assigned any variable (it ``source``s a file, or
    #: ``eval``s text only the run knows): those it does not assign itself are unknown.
    opaque: bool = False

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
        if not _NAME.fullmatch(name) or self.opaque:
            return None  # $? $$ $! $- : only known when the command runs
        return frozenset({self.home if name == "HOME" else self.environ.get(name, "")})

    @property
    def home(self) -> str:
        """The home directory of the user the command runs as (``$HOME`` as it came)."""
        return self.environ.get("HOME") or str(Path.home())


@attrs.frozen
class _Var:
    name: str
    quoted: bool
    extra: tuple[str, ...] = ()


@attrs.frozen
class _Literal:
    """Quoted text: no brace expansion, no splitting."""

    text: str


@attrs.frozen
class _Value:
    """A value known in full (a substitution the policy evaluated)."""

    text: str
    quoted: bool


# An atom: an unquoted character (str of length 1, open to brace expansion and
# splitting), a quoted literal, a variable, a known value, or
# DYNAMIC-only (``None``).
_Atom = str | _Literal | _Var | _Value | None


#: A backslash and the character it quotes, or a character.
_ESCAPE = re.compile(r"\\(.)|(.)", re.DOTALL)
#: What a backslash quotes in double quotes (elsewhere it stands for itself there).
_DOUBLE_QUOTED_ESCAPE = re.compile(r'\\([$`"\\])')


def _unquoted(text: str) -> list[_Atom]:
    return [_Literal(quoted) if quoted else char for quoted, char in _ESCAPE.findall(text)]


def _double_quoted(text: str) -> str:
    return _DOUBLE_QUOTED_ESCAPE.sub(r"\1", text)


class Expander:
    """Turns words of one script into their possible values, under a :class:`Scope`."""

    def __init__(self, source: bytes, scope: Scope) -> None:
        self.source = source
        self.scope = scope

    # -- atoms --------------------------------------------------------------------------

    def _atoms(self, node: Node, quoted: bool) -> list[_Atom]:
        kind = node.type
        text = node_text(node, self.source)
        if kind in ("command_name", "concatenation", "translated_string"):
            return [atom for child in node.children for atom in self._atoms(child, quoted)]
        if kind == "$":
            return _dollar(node)
        if kind in ("word", "number", "brace_expression"):  # never inside "…"
            return _unquoted(text)
        if kind == "string":
            return self._string(node)
        if kind == "raw_string":
            return [_Literal(text[1:-1])]
        if kind == "ansi_c_string":
            return [_Literal(decode_ansi_c(text[2:-1]))]
        if kind in ("simple_expansion", "expansion"):
            lead = text[: text.index("$")]
            return ([_Literal(lead)] if lead else []) + [self._expansion(node, quoted)]
        if kind == "command_substitution":
            value = static_output(node, self)
            if value is None:
                return [None]
            # bash drops the NULs of a substitution's output, then its final newlines
            return [_Value(value.replace("\x00", "").rstrip("\n"), quoted)]
        return [None]

    def _string(self, node: Node) -> list[_Atom]:
        atoms: list[_Atom] = []
        position = node.start_byte + 1
        end = node.end_byte - 1
        for child in node.children:
            if child.type == '"' or child.start_byte < position:
                continue
            gap = self.source[position : child.start_byte].decode(errors="replace")
            atoms.append(_Literal(_double_quoted(gap)))
            if child.type == "string_content":
                atoms.append(_Literal(_double_quoted(node_text(child, self.source))))
            else:
                atoms.extend(self._atoms(child, quoted=True))
            position = child.end_byte
        atoms.append(_Literal(_double_quoted(self.source[position:end].decode(errors="replace"))))
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
            parts.append(list(self._fields(_tilde(atoms))))
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

    def _ifs(self) -> list[str | None]:
        """The values IFS may have; ``[None]`` when only the run knows it (then any
        character may split a value: ``IFS=$(printf X)`` makes ``$D`` of ``/tmp/aX/`` the
        two fields ``/tmp/a`` and ``/``)."""
        values = self.scope.variables.get("IFS", frozenset({_DEFAULT_IFS}))
        if values is None or any(DYNAMIC in value for value in values):
            return [None]
        return sorted(values)

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


def _dollar(node: Node) -> list[_Atom]:
    """A ``$`` tree-sitter-bash leaves alone: the start of ``$"…"`` (the string itself: no
    message catalogue translates it here; tree-sitter makes it a ``translated_string`` in
    some places only), a ``$`` bash keeps as it is (before a space, a closing quote or the
    end), or, before anything else, a part only the run knows."""
    after = node.next_sibling
    if after is None or after.start_byte > node.end_byte or after.type == '"':
        return [_Literal("$")]
    return [] if after.type == "string" else [None]


def _split(atoms: list[_Atom], values: Mapping[int, str], ifs: str | None) -> list[str]:
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
        if isinstance(atom, _Literal):
            current.append(atom.text)
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
        if ifs is None:  # split where only the run knows: the fields are its
            current.append(DYNAMIC)
            started = True
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
    rest = [a for a in atoms if a not in ats and a != _Literal("")]
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
                terms = _sequence(parts[0])
                if terms is None:
                    return [atoms[: index + 1] + rest for rest in _braces(tail)]
                parts = [list(term) for term in terms]
            expanded = [result for part in parts for result in _braces([*head, *part, *tail])]
            if len(expanded) > MAX_ALTERNATIVES:
                raise TooComplex
            return expanded
    return [atoms]


_NUMBERS = re.compile(r"([-+]?\d+)\.\.([-+]?\d+)(?:\.\.([-+]?\d+))?")
_LETTERS = re.compile(r"([a-zA-Z])\.\.([a-zA-Z])(?:\.\.([-+]?\d+))?")
_PADDED = re.compile(r"-?0\d")


def _sequence(atoms: list[_Atom]) -> list[str] | None:
    """The terms of a sequence expression (``{1..10}``, ``{a..e..2}``, ``{01..10}``), or
    ``None`` when ``atoms`` are not one. A sequence of more terms than the policy examines,
    or of other characters than letters and digits, is one term, :data:`DYNAMIC`."""
    if not all(isinstance(atom, str) for atom in atoms):
        return None
    text = "".join(atoms)  # type: ignore[arg-type]
    if numbers := _NUMBERS.fullmatch(text):
        first, last, step = int(numbers[1]), int(numbers[2]), numbers[3]
        padded = _PADDED.match(numbers[1]) or _PADDED.match(numbers[2])
        width = max(len(numbers[1]), len(numbers[2])) if padded else 0
        show = f"{{:0{width}d}}".format
    elif letters := _LETTERS.fullmatch(text):
        first, last, step = ord(letters[1]), ord(letters[2]), letters[3]
        show = chr
    else:
        return None
    stride = abs(int(step or 1)) or 1
    values = range(first, last + 1, stride) if first <= last else range(first, last - 1, -stride)
    terms = [show(value) for value in values] if len(values) <= MAX_ALTERNATIVES else []
    # between Z and a lie [ \\ ] ^ _ `, which bash reads again as shell text (a quote, a
    # command substitution): left to the run
    return terms if terms and all(term.lstrip("-").isalnum() for term in terms) else [DYNAMIC]


def _tilde(atoms: list[_Atom]) -> list[_Atom]:
    if not atoms or atoms[0] != "~":
        return atoms
    end = 1
    while end < len(atoms) and isinstance(atoms[end], str) and atoms[end] != "/":
        end += 1
    user = "".join(str(atom) for atom in atoms[1:end])
    if user in ("", "+", "-"):  # ~ is $HOME (as the script left it), ~+ $PWD, ~- $OLDPWD
        variable = {"": "HOME", "+": "PWD", "-": "OLDPWD"}[user]
        return [_Var(variable, quoted=True), *atoms[end:]]
    try:
        expanded = str(Path("~" + user).expanduser())
    except RuntimeError:  # no such user: the word stays as written
        return atoms
    return [_Literal(expanded), *atoms[end:]]


# -- output known without running anything -----------------------------------------------


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
        if PurePosixPath(argv[0]).name == "mktemp" and text is None:
            tmpdirs = expander.scope.values("TMPDIR") or frozenset()
            text = _programs.mktemp_output(argv[1:], *tmpdirs) if len(tmpdirs) == 1 else None
        else:
            text = _programs.filter_output(argv, text)
        if text is None:
            return None
    return text
