"""The opening line and header grammar, and the Han-script table behind delimiters."""

from __future__ import annotations

import itertools

import pytest

from tai_core.blocks._han import HAN_RANGES, is_han
from tai_core.blocks._header import HeaderError, Opening, parse_header, parse_opening

# --- Han table ---------------------------------------------------------------------------


def test_han_range_edges() -> None:
    for first, last in HAN_RANGES:
        assert is_han(chr(first))
        assert is_han(chr(last))
        assert is_han(chr((first + last) // 2))
    assert tuple(sorted(HAN_RANGES)) == HAN_RANGES
    for (_, last), (first, _) in itertools.pairwise(HAN_RANGES):
        assert last < first
        if first - last > 1:
            assert not is_han(chr(last + 1))
            assert not is_han(chr(first - 1))


@pytest.mark.parametrize(
    "char", ["甲", "龘", "々", "\u3007", "㐀", "𠀀", "𪜀", "𰀀", "𲎯", "⺀", "⼀"]
)
def test_han_characters(char: str) -> None:
    assert is_han(char)


@pytest.mark.parametrize(
    "char", ["a", " ", "ア", "あ", "한", "〆", "\u2e9a", "\u2ff0", "\U000323b0", "\x00", "é"]
)
def test_not_han_characters(char: str) -> None:
    assert not is_han(char)


# --- header grammar ----------------------------------------------------------------------


def test_bare_kind_and_empty_parens_are_the_same() -> None:
    assert parse_header("shell") == ("shell", {})
    assert parse_header("shell()") == ("shell", {})
    assert parse_header("shell ( )") == ("shell", {})
    assert parse_header("a.b:c-d_9") == ("a.b:c-d_9", {})


def test_quoted_values_of_both_kinds() -> None:
    kind, params = parse_header("""change(path="a b.go", op='re place', q="it's", s='say "hi"')""")
    assert kind == "change"
    assert params == {"path": "a b.go", "op": "re place", "q": "it's", "s": 'say "hi"'}


@pytest.mark.parametrize("quote", ['"', "'"])
def test_all_escapes(quote: str) -> None:
    raw = r"a\nb\tc\rd\\e\"f\'g"
    _, params = parse_header(f"k(v={quote}{raw}{quote})")
    assert params["v"] == "a\nb\tc\rd\\e\"f'g"


def test_unknown_escape_is_kept_as_written() -> None:
    _, params = parse_header(r'k(v="a\db\x\u00e9\\")')
    assert params["v"] == r"a\db\x\u00e9" + "\\"


def test_empty_quoted_value() -> None:
    assert parse_header("k(a='', b=\"\")") == ("k", {"a": "", "b": ""})


def test_separators_commas_and_whitespace() -> None:
    expected = {"a": "1", "b": "2", "c": "3", "d": "4"}
    assert parse_header("k(a=1,b=2,c=3,d=4)")[1] == expected
    assert parse_header("k( a = 1 , b\t=\t2 ,, c=3\td=4 ,)")[1] == expected
    assert parse_header('k(,a="1"b="2" c=3,d=4)')[1] == expected


def test_bare_values_stop_at_whitespace_comma_paren() -> None:
    _, params = parse_header('k(path=src/main.go mode=0644,x=a=b y="q" z=it\'s)')
    assert params == {"path": "src/main.go", "mode": "0644", "x": "a=b", "y": "q", "z": "it's"}


def test_duplicate_parameter_last_value_wins_first_position_kept() -> None:
    _, params = parse_header("k(a=1, b=2, a=3)")
    assert list(params.items()) == [("a", "3"), ("b", "2")]


@pytest.mark.parametrize(
    ("header", "kind", "detail"),
    [
        ('shell(op="x', "shell", 'unterminated quoted value for parameter "op"'),
        ("shell(op='x", "shell", 'unterminated quoted value for parameter "op"'),
        ('shell(op="x\\"', "shell", 'unterminated quoted value for parameter "op"'),
        ("shell(op=x", "shell", "missing ')'"),
        ("shell(", "shell", "missing ')'"),
        ("shell(op=x) junk", "shell", "unexpected text after ')'"),
        ("shell(op=x)(", "shell", "unexpected text after ')'"),
        ("shell junk", "shell", 'unexpected text after kind "shell"'),
        ("sh$ell", "sh", "invalid character '$' in kind name"),
        ("shé(a=1)", "sh", "invalid character 'é' in kind name"),
        ("(a=1)", "", "expected a kind name"),
        ("$x", "", "expected a kind name"),
        ("shell(op=)", "shell", 'missing value for parameter "op"'),
        ("shell(op=, b=1)", "shell", 'missing value for parameter "op"'),
        ("shell(op= ", "shell", 'missing value for parameter "op"'),
        ("shell(op)", "shell", 'expected "=" after parameter name "op"'),
        ("shell(op 1)", "shell", 'expected "=" after parameter name "op"'),
        ("shell(o$p=1)", "shell", "invalid character '$' in parameter name"),
        ("shell(=1)", "shell", "invalid character '=' where a parameter name belongs"),
    ],
)
def test_malformed_headers(header: str, kind: str, detail: str) -> None:
    with pytest.raises(HeaderError) as caught:
        parse_header(header)
    assert caught.value.kind == kind
    assert detail in caught.value.detail
    assert "at column" in caught.value.detail


def test_error_column_is_in_the_opening_line() -> None:
    opening = parse_opening('<<甲乙 shell(op="x')
    assert opening is not None
    # The opening quote is the 15th character of the line.
    assert opening.error == 'unterminated quoted value for parameter "op" opened at column 15'
    with pytest.raises(HeaderError, match=r"at column 5$"):
        parse_header("k(a=)")


# --- opening line ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "<<EOF",
        "<<甲",
        "<<甲 乙",
        "<<甲乙丙",
        "<<甲乙丙 shell",
        "<<ab",
        "<<",
        "<<  ",
        "<<甲a",
        "<<甲乙)",
    ],
)
def test_not_a_two_han_token_is_prose(line: str) -> None:
    assert parse_opening(line) is None


@pytest.mark.parametrize("line", ["x<<甲乙", " <<甲乙", "甲乙", "< <甲乙"])
def test_line_not_starting_with_double_angle_is_prose(line: str) -> None:
    assert parse_opening(line) is None


def test_kindless_opening() -> None:
    assert parse_opening("<<甲乙") == Opening("甲乙")
    assert parse_opening("<<甲乙  \t\r") == Opening("甲乙")
    assert parse_opening("<<  龘靐") == Opening("龘靐")


def test_opening_with_header() -> None:
    assert parse_opening("<<甲乙 shell") == Opening("甲乙", "shell")
    assert parse_opening("<< 龘靐 x") == Opening("龘靐", "x")
    assert parse_opening("<<甲乙\tchange(path=a.go)  \r") == Opening(
        "甲乙", "change", {"path": "a.go"}
    )
    assert parse_opening("<<㐀𠀀 k") == Opening("㐀𠀀", "k")


def test_malformed_opening_keeps_delimiter_and_kind_prefix() -> None:
    opening = parse_opening("<<甲乙 change(path=a.go")
    assert opening is not None
    assert (opening.delimiter, opening.kind) == ("甲乙", "change")
    assert opening.error is not None
    assert "missing ')'" in opening.error
    # Parameters directly after the delimiter: the header has no kind.
    direct = parse_opening("<<甲乙(x=1)")
    assert direct is not None
    assert (direct.delimiter, direct.kind) == ("甲乙", "")
    assert direct.error is not None
    assert "expected a kind name" in direct.error
