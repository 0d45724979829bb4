"""Lines that meant a block of a known kind but missed the delimiter (tai_core.blocks.
misdelimited): said, where the parser reads them as text; the shell's own heredocs and the
bodies of real blocks are left alone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tai_core.blocks import misdelimited, parse_blocks

KINDS = frozenset({"summary", "shell", "change"})


def missed(text: str) -> list[tuple[int, str, str]]:
    blocks = [result for result in parse_blocks(text) if not hasattr(result, "reason")]
    return [(e.line, e.kind, e.delimiter) for e in misdelimited(text, KINDS, blocks)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<<EOF shell\nls\nEOF\n", [(1, "shell", "EOF")]),
        ("prose\n<<ab summary\n- x\nab\n", [(2, "summary", "ab")]),
        ('<<change(op="WRITE", file-path="a")\nx\n', [(1, "change", "")]),
        ("<<summary\n- x\n", [(1, "summary", "")]),
        ("<<山水X summary\n- x\n山水X\n", [(1, "summary", "山水X")]),
        ("<<EOF shell\r\nls\r\nEOF\r\n", [(1, "shell", "EOF")]),
        ("<<EOF\nhello\nEOF\n", []),  # a heredoc of the shell's: no kind named
        ("<<EOF cat > notes\nx\nEOF\n", []),
        ("cat <<EOF shell\nx\nEOF\n", []),  # not at the start of the line
        ("<<山水 summary\n- x\n山水\n", []),  # a block
        ("<<山水 shell\ncat > s.sh <<EOF\n<<EOF shell\nEOF\n山水\n", []),  # inside a body
        ("<<EOF frobnicate\nx\n", []),  # no kind tai knows
    ],
)
def test_a_known_kind_behind_a_wrong_delimiter_is_found(
    text: str, expected: list[tuple[int, str, str]]
) -> None:
    assert missed(text) == expected


def test_the_message_says_it_did_not_run() -> None:
    (error,) = misdelimited("<<EOF shell\nls\nEOF\n", KINDS)
    assert error.reason == "malformed" and error.content == "<<EOF shell"
    said = "the delimiter 'EOF' is not two Chinese characters, so it was read as text and did"
    assert f"{said} not run" in error.message()


PIECES = st.sampled_from(["<<", "EOF", " ", "shell", "山水", "\n", "x", "(", "\r", "\u2028"])


@given(st.lists(PIECES, max_size=30).map("".join))
def test_never_a_line_the_parser_reads_as_an_opening(text: str) -> None:
    """Whatever the text, a line reported is one the parser took for prose."""
    for error in misdelimited(text, KINDS, []):
        line = text.split("\n")[error.line - 1]
        assert line.startswith("<<")
        assert not any(getattr(r, "line", None) == error.line for r in parse_blocks(text))
