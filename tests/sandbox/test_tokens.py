"""The tokenizer the shell policy reads other languages' one-liners with: strings and
their escapes, command quotes, comments, calls and their literal arguments, forks in loops.
Each expectation was read and agreed with, not copied blind: together they are the
tokenizer's contract (tai_sandbox._tokens)."""

from __future__ import annotations

import pytest

from tai_sandbox._tokens import token_facts, tokenize

# language, code, tokens, strings, argument vectors, calls (name, args), commands, fork loop
CASES = [
    (
        "perl",
        'system "rm -rf /" # gone',
        [("id", "system"), ("str", "rm -rf /")],
        ["rm -rf /"],
        [],
        [("system", ("rm -rf /",))],
        [],
        False,
    ),
    (
        "perl",
        "print `ls`; qx(rm -r x); %x{id}; qx|a|",
        [
            ("id", "print"),
            ("cmd", "ls"),
            ("punct", ";"),
            ("cmd", "rm -r x"),
            ("punct", ";"),
            ("cmd", "id"),
            ("punct", ";"),
            ("cmd", "a"),
        ],
        [],
        [],
        [],
        ["ls", "rm -r x", "id", "a"],
        False,
    ),
    (
        "ruby",
        "FileUtils.rm_rf dir; `rm $x`",
        [
            ("id", "FileUtils"),
            ("punct", "."),
            ("id", "rm_rf"),
            ("id", "dir"),
            ("punct", ";"),
            ("cmd", "rm $x"),
        ],
        [],
        [],
        [("rm_rf", (None,))],
        [None],
        False,
    ),
    (
        "ruby",
        '"#{x}" ; %x[rm -rf #{d}]',
        [("str", "#{x}"), ("punct", ";"), ("cmd", "rm -rf #{d}")],
        ["#{x}"],
        [],
        [],
        [None],
        False,
    ),
    (
        "node",
        "a # b\nc",
        [("id", "a"), ("punct", "#"), ("id", "b"), ("punct", "\n"), ("id", "c")],
        [],
        [],
        [],
        [],
        False,
    ),
    ("node", "x=`rm`", [("id", "x"), ("punct", "="), ("str", "rm")], ["rm"], [], [], [], False),
    (
        "python",
        'f("a\\nb", \'c\\td\', "e\\0", "\\q")',
        [
            ("id", "f"),
            ("punct", "("),
            ("str", "a\nb"),
            ("punct", ","),
            ("str", "c\td"),
            ("punct", ","),
            ("str", "e\x00"),
            ("punct", ","),
            ("str", "q"),
            ("punct", ")"),
        ],
        ["a\nb", "c\td", "e\x00", "q"],
        [("a\nb", "c\td", "e\x00", "q")],
        [("f", ("a\nb", "c\td", "e\x00", "q"))],
        [],
        False,
    ),
    (
        "python",
        'x = 1 # comment\ny("tail',
        [
            ("id", "x"),
            ("punct", "="),
            ("id", "1"),
            ("punct", "\n"),
            ("id", "y"),
            ("punct", "("),
            ("str", "tail"),
        ],
        ["tail"],
        [],
        [("y", ("tail",))],  # a line ends a call: 1 is no call of y
        [],
        False,
    ),
    (
        "php",
        "#{not a comment}\\n\\tz",
        [
            ("punct", "#"),
            ("punct", "{"),
            ("id", "not"),
            ("id", "a"),
            ("id", "comment"),
            ("punct", "}"),
            ("id", "z"),
        ],
        [],
        [],
        [("not", (None,)), ("a", (None,))],
        [],
        False,
    ),
    (
        "python",
        'rmtree("/home", ["a", "b"], g(h), ["c", x])',
        [
            ("id", "rmtree"),
            ("punct", "("),
            ("str", "/home"),
            ("punct", ","),
            ("punct", "["),
            ("str", "a"),
            ("punct", ","),
            ("str", "b"),
            ("punct", "]"),
            ("punct", ","),
            ("id", "g"),
            ("punct", "("),
            ("id", "h"),
            ("punct", ")"),
            ("punct", ","),
            ("punct", "["),
            ("str", "c"),
            ("punct", ","),
            ("id", "x"),
            ("punct", "]"),
            ("punct", ")"),
        ],
        ["/home", "a", "b", "c"],
        [("/home", "a", "b")],
        [("rmtree", ("/home", ("a", "b"), None, None)), ("g", (None,))],
        [],
        False,
    ),
    (
        "python",
        'run(["rm", "-rf", "/"]); os.fork() while',
        [
            ("id", "run"),
            ("punct", "("),
            ("punct", "["),
            ("str", "rm"),
            ("punct", ","),
            ("str", "-rf"),
            ("punct", ","),
            ("str", "/"),
            ("punct", "]"),
            ("punct", ")"),
            ("punct", ";"),
            ("id", "os"),
            ("punct", "."),
            ("id", "fork"),
            ("punct", "("),
            ("punct", ")"),
            ("id", "while"),
        ],
        ["rm", "-rf", "/"],
        [("rm", "-rf", "/")],
        [("run", (("rm", "-rf", "/"),)), ("fork", ())],
        [],
        True,
    ),
    (
        "perl",
        "fork while 1",
        [("id", "fork"), ("id", "while"), ("id", "1")],
        [],
        [],
        [("fork", ()), ("while", (None,))],
        [],
        True,
    ),
    (
        "perl",
        "fork; sleep",
        [("id", "fork"), ("punct", ";"), ("id", "sleep")],
        [],
        [],
        [],
        [],
        False,
    ),
    (
        "python",
        'a("x"), b "y", c d, e $f',
        [
            ("id", "a"),
            ("punct", "("),
            ("str", "x"),
            ("punct", ")"),
            ("punct", ","),
            ("id", "b"),
            ("str", "y"),
            ("punct", ","),
            ("id", "c"),
            ("id", "d"),
            ("punct", ","),
            ("id", "e"),
            ("punct", "$"),
            ("id", "f"),
        ],
        ["x", "y"],
        [],
        [("a", ("x",)), ("b", ("y", None, None)), ("c", (None, None)), ("e", (None,))],
        [],
        False,
    ),
    (
        "python",
        'f(("a", "b"), ["c"], {"d": 1})',
        [
            ("id", "f"),
            ("punct", "("),
            ("punct", "("),
            ("str", "a"),
            ("punct", ","),
            ("str", "b"),
            ("punct", ")"),
            ("punct", ","),
            ("punct", "["),
            ("str", "c"),
            ("punct", "]"),
            ("punct", ","),
            ("punct", "{"),
            ("str", "d"),
            ("punct", ":"),
            ("id", "1"),
            ("punct", "}"),
            ("punct", ")"),
        ],
        ["a", "b", "c", "d"],
        [("a", "b")],
        [("f", (None, ("c",), None))],
        [],
        False,
    ),
    (
        "python",
        'unterminated("abc',
        [("id", "unterminated"), ("punct", "("), ("str", "abc")],
        ["abc"],
        [],
        [("unterminated", ("abc",))],
        [],
        False,
    ),
    ("perl", "print qx", [("id", "print"), ("id", "qx")], [], [], [("print", (None,))], [], False),
    ("ruby", "print %x", [("id", "print"), ("punct", "%"), ("id", "x")], [], [], [], [], False),
    (
        "perl",
        'x "a\\"b" "c\\\\"',
        [("id", "x"), ("str", 'a"b'), ("str", "c\\")],
        ['a"b', "c\\"],
        [('a"b', "c\\")],
        [("x", (None,))],  # two literals side by side are one argument (Ruby joins them)
        [],
        False,
    ),
    (
        "perl",
        'x "end\\',
        [("id", "x"), ("str", "end\\")],
        ["end\\"],
        [],
        [("x", ("end\\",))],
        [],
        False,
    ),
]


@pytest.mark.parametrize(
    ("language", "code", "tokens", "strings", "argvs", "calls", "commands", "forks"), CASES
)
def test_tokens_and_facts(language, code, tokens, strings, argvs, calls, commands, forks) -> None:
    assert tokenize(code, language) == tokens
    facts = token_facts(code, language)
    assert facts.strings == strings
    assert facts.argvs == argvs
    assert [(call.name, call.args) for call in facts.calls] == calls
    assert facts.commands == commands
    assert facts.forks_in_loop is forks


def test_a_command_quote_opener_at_the_very_end_is_a_name() -> None:
    from tai_sandbox.policy import decide

    allowed, reason = decide("perl -e 'print qx'", "/", {})
    assert allowed, reason


@pytest.mark.parametrize(
    ("language", "code", "tokens"),
    [
        ("perl", "print qx(", [("id", "print"), ("cmd", "")]),  # an opener as the last char
        ("perl", "qxXlsX", [("id", "qxXlsX")]),  # qx and a letter is a name
        ("python", "_f(x)", [("id", "_f"), ("punct", "("), ("id", "x"), ("punct", ")")]),
        ("python", "X", [("id", "X")]),
        ("perl", "# a\nb\nc", [("punct", "\n"), ("id", "b"), ("punct", "\n"), ("id", "c")]),
        ("perl", "a\n# b\nc", [("id", "a"), ("punct", "\n"), ("punct", "\n"), ("id", "c")]),
        ("php", "`ls`", [("cmd", "ls")]),
        ("ruby", "`ls`", [("cmd", "ls")]),
        ("node", "`ls`", [("str", "ls")]),  # a template literal
        ("perl", 'x "a\\"', [("id", "x"), ("str", 'a"')]),  # an escaped closer at the end
    ],
)
def test_tokens(language: str, code: str, tokens: list[tuple[str, str]]) -> None:
    assert tokenize(code, language) == tokens


@pytest.mark.parametrize(
    ("code", "calls", "argvs"),
    [
        ('f([[1]], "a")', [("f", (None, "a"))], []),  # nested brackets are one argument
        ('system "ls"; x "y"', [("system", ("ls",)), ("x", ("y",))], []),
        ('system(["rm", "rm"], "-rf", "/")', [("system", (("rm", "rm"), "-rf", "/"))],
         [("rm", "rm", "-rf", "/")]),  # Ruby's [program, argv0]: brackets join the run
    ],
)  # fmt: skip
def test_calls_and_argument_vectors(code: str, calls: list, argvs: list) -> None:
    facts = token_facts(code, "ruby")
    assert [(call.name, call.args) for call in facts.calls] == calls
    assert facts.argvs == argvs
