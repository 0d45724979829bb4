"""What code in another language does, as far as the policy reads it: a small tokenizer.

It knows the languages' strings (``'…'``, ``"…"``, and in Perl, Ruby and PHP the command
quotes `` `…` ``, ``qx(…)``, ``%x(…)``), identifiers and punctuation, nothing more, and
from those finds the calls (a name followed by arguments: ``rmtree("/home")``,
``system "rm -rf /"``, ``FileUtils.rm_rf dir``), lists of string literals, and a fork
beside a loop keyword. An argument that is not a single literal is unknown.
"""

from __future__ import annotations

import attrs

#: A call's argument: a string literal, a list of them, or ``None`` (unknown).
Value = str | tuple[str, ...] | None
_CLOSERS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_ESCAPES = {"n": "\n", "t": "\t", "0": "\x00"}
_LOOPS = frozenset({"while", "for", "until", "loop", "times", "each", "foreach", "do"})
_OPENING, _CLOSING = frozenset("([{"), frozenset(")]}")


@attrs.frozen
class Call:
    """A call: the function's name (qualified for Python), arguments, and the path of
    the object it is called on (``Path("x").unlink()``), if known."""

    name: str
    args: tuple[Value, ...]
    receiver: str | None = None


@attrs.define
class Facts:
    """What the rules judge code by."""

    strings: list[str] = attrs.Factory(list)
    argvs: list[tuple[str, ...]] = attrs.Factory(list)
    calls: list[Call] = attrs.Factory(list)
    #: Commands the code runs through command quotes (``None``: interpolated).
    commands: list[str | None] = attrs.Factory(list)
    forks_in_loop: bool = False


def _quoted(code: str, start: int, closer: str) -> tuple[str, int]:
    """The text of a quoted literal starting after ``start`` up to ``closer``, and the
    index after it (an unterminated literal runs to the end)."""
    out: list[str] = []
    index = start
    while index < len(code) and code[index] != closer:
        if code[index] == "\\" and index + 1 < len(code):
            index += 1
            out.append(_ESCAPES.get(code[index], code[index]))
        else:
            out.append(code[index])
        index += 1
    return "".join(out), index + 1


def tokenize(code: str, language: str) -> list[tuple[str, str]]:
    """``(kind, text)`` tokens: ``str``, ``cmd`` (a command quote), ``id`` or ``punct``."""
    commands_quote = language in ("perl", "ruby", "php")
    tokens: list[tuple[str, str]] = []
    index = 0
    while index < len(code):
        char = code[index]
        ahead = code[index + 1 : index + 2]
        if char == "\n":
            tokens.append(("punct", char))  # ends a call without parentheses
            index += 1
        elif char.isspace() or (char == "\\" and ahead in ("n", "t")):
            index += 2 if char == "\\" else 1
        elif char == "#" and language != "node" and ahead != "{":
            index = code.find("\n", index) if "\n" in code[index:] else len(code)
        elif char in "'\"" or (char == "`"):
            text, index = _quoted(code, index + 1, char)
            tokens.append(("cmd" if char == "`" and commands_quote else "str", text))
        elif (
            commands_quote
            and code.startswith(("qx", "%x"), index)
            and index + 2 < len(code)
            and code[index + 2] in "({[</|!'\""
        ):
            opener = code[index + 2]
            text, index = _quoted(code, index + 3, _CLOSERS.get(opener, opener))
            tokens.append(("cmd", text))
        elif char.isalnum() or char == "_":
            end = index
            while end < len(code) and (code[end].isalnum() or code[end] == "_"):
                end += 1
            tokens.append(("id", code[index:end]))
            index = end
        else:
            tokens.append(("punct", char))
            index += 1
    return tokens


#: Tokens that end the arguments of a call without parentheses (``chmod 0755, $f or die``).
_BARE_ENDS = frozenset(
    ("id", word) for word in ("or", "and", "if", "unless", "while", "until", "do", "then")
) | frozenset(("punct", p) for p in ("|", "&", "}", "]", ")", "\n"))


def _arguments(tokens: list[tuple[str, str]], start: int) -> tuple[Value, ...]:
    """The arguments of a call whose list starts at ``tokens[start]`` (``(`` or the first
    argument of a call without parentheses)."""
    bare = tokens[start] != ("punct", "(")  # Perl's and Ruby's calls without parentheses
    args: list[list[tuple[str, str]]] = [[]]
    depth = 0
    for token in tokens[start if bare else start + 1 :]:
        if bare and depth == 0 and (token in _BARE_ENDS or token == ("punct", ";")):
            break
        if token[0] == "punct" and token[1] in _OPENING:
            depth += 1
        elif token[0] == "punct" and token[1] in _CLOSING:
            if depth == 0:
                break
            depth -= 1
        if token == ("punct", ",") and depth == 0:
            args.append([])
        else:
            args[-1].append(token)
    return tuple(_value(arg) for arg in args if arg)


def _value(tokens: list[tuple[str, str]]) -> Value:
    if len(tokens) == 1 and tokens[0][0] == "str":
        return tokens[0][1]
    inner = [token for token in tokens[1:-1] if token != ("punct", ",")]
    if tokens[:1] == [("punct", "[")] and inner and all(kind == "str" for kind, _ in inner):
        return tuple(text for _, text in inner)
    return None


def _string_runs(tokens: list[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Runs of two or more string literals separated by commas: argument vectors."""
    runs: list[list[str]] = [[]]
    for kind, text in tokens:
        if kind == "str":
            runs[-1].append(text)
        elif (kind, text) not in (("punct", ","), ("punct", "["), ("punct", "]")):
            runs.append([])
    return [tuple(run) for run in runs if len(run) >= 2]


def token_facts(code: str, language: str) -> Facts:
    """The facts of ``code`` in ``language``, read by the tokenizer."""
    tokens = tokenize(code, language)
    facts = Facts()
    names = {text for kind, text in tokens if kind == "id"}
    facts.forks_in_loop = "fork" in names and bool(names & _LOOPS)
    for index, (kind, text) in enumerate(tokens):
        if kind == "str":
            facts.strings.append(text)
        elif kind == "cmd":
            facts.commands.append(None if "$" in text or "#{" in text else text)
        elif kind == "id" and index + 1 < len(tokens):
            following = tokens[index + 1]
            if following == ("punct", "(") or following[0] in ("str", "id") or following[1] == "$":
                facts.calls.append(Call(text, _arguments(tokens, index + 1)))
    facts.argvs = _string_runs(tokens)
    return facts
