"""The words of a command as the shell policy expands them (tai_sandbox._words.Expander),
checked against bash itself: for each case, bash prints the fields it passes to a command
(``printf '%s\\0'``) with the same variables, positional parameters and directory, and the
policy's alternatives must hold what bash passed — and be only that when nothing is left
open. Where the policy cannot know a value (``read``, another command's output), the field
holds ``DYNAMIC`` instead; those cases have their own expectations."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tai_sandbox._syntax import parse
from tai_sandbox._words import DYNAMIC, MAX_ALTERNATIVES, Expander, Scope, TooComplex

if TYPE_CHECKING:
    from tree_sitter import Node

HOME = "/home/u"


def first_command(node: Node) -> Node | None:
    if node.type == "command":
        return node
    for child in node.children:
        found = first_command(child)
        if found is not None:
            return found
    return None


def policy_argvs(
    words: str, variables: dict[str, str], positional: tuple[str, ...], cwd: Path
) -> list[tuple[str, ...]]:
    root, source = parse(f"cmd {words}")
    command = first_command(root)
    arguments = command.children_by_field_name("argument")
    values = {name: frozenset({value}) for name, value in variables.items()}
    scope = Scope(values, ("sh", *positional), (str(cwd),), {"HOME": HOME, "PATH": "/bin"})
    return Expander(source, scope).argvs(arguments)


def bash_argv(
    words: str, variables: dict[str, str], positional: tuple[str, ...], cwd: Path
) -> tuple[str, ...]:
    assignments = "".join(f"{name}={shlex.quote(value)}; " for name, value in variables.items())
    script = f"{assignments}printf '%s\\0' start {words}"  # start: no words is no field
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script, "sh", *positional],
        cwd=cwd, env={"HOME": HOME, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        capture_output=True, check=True,
    )  # fmt: skip
    return tuple(done.stdout.decode().split("\0")[1:-1])


#: (words, variables, positional parameters, whether the policy's answer is that one only)
CASES = [
    # quoting
    ("a 'b c' \"d e\"", {}, (), True),
    (r'"a\$b" "a\`b" "a\"b" "a\\b" "a\qb"', {}, (), True),
    ('"a\\\nb"', {}, (), True),
    (r"a\ b a\\b a\qb", {}, (), True),
    ("''", {}, (), True),
    ('"" x', {}, (), True),
    (r"$'\x41\x4a' $'\101' $'\u00e9' $'a\tb' $'\cA' $'\e'", {}, (), True),
    (r"$'\0101' $'\x4' $'\xZ'", {}, (), True),
    ('"$x" $x', {"x": "a  b"}, (), True),
    ("$x", {"x": " lead  and trail "}, (), True),
    ('a"$x"b', {"x": "1 2"}, (), True),
    ("a$x", {"x": "1 2"}, (), True),
    ("$x$y", {"x": "a ", "y": " b"}, (), True),
    ("$empty x", {"empty": ""}, (), True),
    ('"$empty" x', {"empty": ""}, (), True),
    ("$x", {"x": "a:b", "IFS": ":"}, (), True),
    # parameters
    ('"$1" "$2" "$3"', {}, ("p 1", "p2"), True),
    ("$1", {}, ("p  1",), True),
    ('"$@"', {}, ("a b", "c"), True),
    ('"x$@y"', {}, ("a b", "c"), True),
    ('"$@"', {}, (), True),
    ('"x$@"', {}, (), True),
    ("$@", {}, ("a b", "c"), True),
    ('"$*" $#', {}, ("a b", "c"), True),
    ("$#", {}, (), True),
    ("${x:-dflt} ${y:-dflt}", {"x": "set"}, (), False),
    ("${x-dflt}", {"x": ""}, (), False),
    ("${x:=dflt}", {}, (), False),
    ("${x}", {"x": "v"}, (), True),
    ('" $#" "  $1" x" $_x"', {"_x": "u"}, ("p",), True),
    ("${y=dflt}", {}, (), False),
    ('"${y:-a b}"', {}, (), False),
    # tilde
    ("~ ~/x ~+ ~+/y", {}, (), True),
    ("~root ~root/x", {}, (), True),
    ("a~ '~' \"~\" x~", {}, (), True),
    ("~no-such-user-here", {}, (), True),
    # braces
    ("{a,b}c x{1,2}{3,4}", {}, (), True),
    ("{a,{b,c}}d", {}, (), True),
    ("{a} {} a{}b {a,b", {}, (), True),
    ("'{a,b}' \"{a,b}\" \\{a,b\\}", {}, (), True),
    ("{a,b}$x", {"x": "1 2"}, (), True),
    ("{a,{b,c},d}e", {}, (), True),
    ("{a,b}" * 8, {}, (), True),  # as many fields as a word may have
    # sequence expressions
    ("{1..3} a{1..3}b {a..c} {01..10..3} {1..3}{a,b} x{a,b}{1..2}", {}, (), True),
    ("{-01..2} {+01..3} {5..1} {-3..-5} {a..e..2} {1..3..0} {1..3..-1} {W..Y}", {}, (), True),
    ("{1..a} {1..3..} {aa..b} {1...3} '{1..2}' {1..2\\}", {}, (), True),
    # line continuations: gone before bash reads a word, but not in single quotes
    ("a\\\nb $H\\\nome \"d\\\ne\" 'q\\\nr' $'s\\\nt' x\\\\", {"Home": "/x"}, (), True),
    # translated strings; text tree-sitter leaves between a string's parts
    ('$"abc" x$"a"y $"a$x" "$" $ a$ "a$"', {"x": "v"}, (), True),
    ('" " "*\na" "x\n" "a*\n$x"', {"x": "v"}, (), True),
    # escapes
    ('"a\\Xb" ' + r"$'\X41' $'\1X' $'\xX' $'\u00e9a' $'\U000000e9a' $'\cAb'", {}, (), True),
    # command substitution the policy can compute
    ("$(echo hi) \"$(echo a  b)\" $(echo a  b)", {}, (), True),
    ("$(printf %s x)y", {}, (), True),
    ("$(echo -n x) `echo y`", {}, (), True),
    ("\"$(echo 'cm0gLXJm' | base64 -d)\"", {}, (), True),
    ("$(echo ab | rev)", {}, (), True),
    ("\"$(echo 'a ')\"x $(echo -e 'r\\0m') $'a\\0b'c", {}, (), True),
    ("$(printf %b 'r\\x6d') $(printf '%s\\n' a b) \"$(printf '%s\\n' a b)\"", {}, (), True),
    ("$(echo -e 'r\\0155') $(echo -e 'rm\\cx') $(printf 'r\\155')", {}, (), True),
]  # fmt: skip


@pytest.mark.parametrize(("words", "variables", "positional", "only"), CASES)
def test_the_policy_expands_words_as_bash_does(
    words: str,
    variables: dict[str, str],
    positional: tuple[str, ...],
    only: bool,
    tmp_path: Path,
) -> None:
    alternatives = policy_argvs(words, variables, positional, tmp_path)
    real = bash_argv(words, variables, positional, tmp_path)
    assert real in alternatives
    if only:
        assert alternatives == [real]


@pytest.mark.parametrize(
    ("words", "variables", "expected"),
    [
        ("$unknown_read", {"known": "k"}, [(DYNAMIC,)]),
        ('"$(cat f)"', {}, [(DYNAMIC,)]),
        ("~-", {}, [(DYNAMIC,)]),
        ("a$(cat f)b", {}, [(f"a{DYNAMIC}b",)]),
        ("$$ $! $? $-", {}, [(DYNAMIC,) * 4]),
        ("${#x}", {"x": "four"}, [(DYNAMIC,)]),
        ("$(printf '%d-' 1 2)", {}, [(DYNAMIC,)]),
        ("x{Z..a}", {}, [(f"x{DYNAMIC}",)]),  # [ \\ ] ^ _ ` are read again by bash
        ("{1..1000}", {}, [(DYNAMIC,)]),  # more terms than the policy examines
    ],
)
def test_what_only_the_run_knows_is_left_open(
    words: str, variables: dict[str, str], expected: list[tuple[str, ...]], tmp_path: Path
) -> None:
    scope_values = {name: frozenset({v}) for name, v in variables.items()}
    scope_values["unknown_read"] = None  # type: ignore[assignment]
    root, source = parse(f"cmd {words}")
    arguments = first_command(root).children_by_field_name("argument")
    scope = Scope(scope_values, ("sh",), (str(tmp_path),), {"HOME": HOME})
    assert Expander(source, scope).argvs(arguments) == expected


def alternatives(words: str, variables: dict[str, frozenset[str]]) -> list[tuple[str, ...]]:
    root, source = parse(f"cmd {words}")
    arguments = first_command(root).children_by_field_name("argument")
    scope = Scope(variables, ("sh",), ("/w",), {"HOME": HOME})
    return Expander(source, scope).argvs(arguments)


#: ``2 ** DOUBLINGS`` is the most alternatives (or fields) the policy examines.
DOUBLINGS = MAX_ALTERNATIVES.bit_length() - 1
TWO = {"x": frozenset({"a", "b"})}


def test_the_limit_is_a_power_of_two() -> None:
    assert 2**DOUBLINGS == MAX_ALTERNATIVES  # the cases below reach it exactly


def test_a_word_has_as_many_fields_as_the_policy_examines_not_more() -> None:
    assert len(alternatives("{a,b}" * DOUBLINGS, {})[0]) == MAX_ALTERNATIVES
    with pytest.raises(TooComplex):
        alternatives("{a,b}" * (DOUBLINGS + 1), {})


def test_a_sequence_has_as_many_terms_as_the_policy_examines_not_more() -> None:
    assert len(alternatives(f"{{1..{MAX_ALTERNATIVES}}}", {})[0]) == MAX_ALTERNATIVES
    assert alternatives(f"{{1..{MAX_ALTERNATIVES + 1}}}", {}) == [(DYNAMIC,)]


def test_a_word_stands_for_as_many_values_as_the_policy_examines_not_more() -> None:
    assert len(alternatives("$x" * DOUBLINGS, TWO)) == MAX_ALTERNATIVES
    with pytest.raises(TooComplex):
        alternatives("$x" * (DOUBLINGS + 1), TWO)


def test_a_command_stands_for_as_many_commands_as_the_policy_examines_not_more() -> None:
    half = "$x" * (DOUBLINGS // 2)
    assert len(alternatives(f"{half} {half}", TWO)) == MAX_ALTERNATIVES
    with pytest.raises(TooComplex):
        alternatives(f"{half} {half} $x", TWO)


@pytest.mark.parametrize("tmpdir", [None, frozenset({"/a", "/b"})])
def test_mktemp_in_a_directory_only_the_run_knows_is_left_open(
    tmpdir: frozenset[str] | None,
) -> None:
    assert alternatives("$(mktemp)", {"TMPDIR": tmpdir}) == [(DYNAMIC,)]  # type: ignore[dict-item]


def test_mktemp_prints_a_name_in_tmpdir() -> None:
    name = ("/t/tmp.XXXXXXXXXX",)
    assert alternatives('$(mktemp -d) "$(mktemp)"', {"TMPDIR": frozenset({"/t"})}) == [name * 2]


def test_bytes_that_are_not_utf8_are_read_as_replacement_characters() -> None:
    # what a command holds when its text came from bytes (surrogate escapes): the policy
    # reads each such byte as U+FFFD wherever it stands
    words = 'a\udcffb "\udcff " "*\n\udcff" "\udcff$x\udcfe"'
    expected = ("a\ufffdb", "\ufffd ", "*\n\ufffd", "\ufffdv\ufffd")
    assert alternatives(words, {"x": frozenset({"v"})}) == [expected]


def test_a_default_value_is_one_more_value() -> None:
    assert alternatives("${x:-}y", {"x": frozenset({"set"})}) == [("y",), ("sety",)]
    assert alternatives('"${y:-a b}"', {}) == [("",), ("a b",)]


def test_an_unknown_ifs_leaves_an_unquoted_value_to_the_run() -> None:
    """Any character may split it then (``IFS=$(printf X)``: ``/tmp/aX/`` is ``/tmp/a``
    and ``/``); a quoted value and an empty one stay as they are."""
    for ifs in (None, frozenset({DYNAMIC}), frozenset({" ", DYNAMIC})):
        unknown = {"IFS": ifs, "x": frozenset({"a,b c"}), "e": frozenset({""})}
        assert alternatives("$x", unknown) == [(DYNAMIC,)]  # type: ignore[arg-type]
        assert alternatives("p$x", unknown) == [(f"p{DYNAMIC}",)]  # type: ignore[arg-type]
        assert alternatives('"$x"', unknown) == [("a,b c",)]  # type: ignore[arg-type]
        assert alternatives("$e", unknown) == [()]  # type: ignore[arg-type]
