"""The block parser on hand-written replies: blocks, errors, offsets, finality, linear work."""

from __future__ import annotations

import attrs
import pytest

from tai_core.blocks._model import Block, BlockParseError
from tai_core.blocks._parser import BlockParser, clip_error_content, parse_blocks


def only_block(text: str) -> Block:
    results = parse_blocks(text)
    assert len(results) == 1
    assert isinstance(results[0], Block)
    return results[0]


def only_error(text: str) -> BlockParseError:
    results = parse_blocks(text)
    assert len(results) == 1
    assert isinstance(results[0], BlockParseError)
    return results[0]


def test_simple_block_offsets_and_line() -> None:
    text = "Intro line\nsecond <<甲乙 not here\n<<甲乙 shell(cwd=src)\n  ls -l\n\n甲乙\nAfter.\n"
    block = only_block(text)
    start = text.index("<<甲乙 shell")
    end = text.index("After.")
    assert block == Block("shell", "甲乙", {"cwd": "src"}, "ls -l", 3, start, end)
    assert text[block.start : block.end] == "<<甲乙 shell(cwd=src)\n  ls -l\n\n甲乙\n"


def test_offsets_are_characters_not_bytes() -> None:
    text = "é😀\n<<甲乙\nx\n甲乙\n"
    block = only_block(text)
    assert (block.start, block.end, block.line) == (3, len(text), 2)


@pytest.mark.parametrize("opening", ["<<EOF", "<<甲", "<<甲乙丙", "<<ab", "<<a甲", "<<甲乙)"])
def test_not_two_han_characters_is_prose(opening: str) -> None:
    assert parse_blocks(f"{opening}\nbody\n甲乙\n") == []


def test_mid_line_double_angle_is_ignored() -> None:
    text = "run x <<甲乙 shell\nbody\n甲乙\n <<甲乙\nmore\n甲乙\n"
    assert parse_blocks(text) == []


def test_kindless_and_bare_kind() -> None:
    assert only_block("<<甲乙\nhello\n甲乙\n") == Block("", "甲乙", {}, "hello", 1, 0, 14)
    bare = only_block("<<甲乙 shell\nhello\n甲乙\n")
    assert (bare.kind, dict(bare.params)) == ("shell", {})
    assert attrs.evolve(only_block("<<甲乙 shell()\nhello\n甲乙\n"), end=bare.end) == bare


def test_spaces_after_double_angle_and_trailing_whitespace() -> None:
    block = only_block("<< 龘靐 x  \t\nbody\n  龘靐 \t\n")
    assert (block.kind, block.delimiter, block.body) == ("x", "龘靐", "body")


def test_body_is_stripped_and_keeps_inner_layout() -> None:
    block = only_block("<<甲乙 k\n\n    def f():\n        return 1\n\n\n甲乙\n")
    assert block.body == "def f():\n        return 1"


def test_empty_body() -> None:
    assert only_block("<<甲乙 k\n甲乙\n").body == ""


def test_closing_line_with_trailing_text_is_body() -> None:
    text = "<<甲乙 k\na\n甲乙 extra\nextra 甲乙\n甲乙\n"
    assert only_block(text).body == "a\n甲乙 extra\nextra 甲乙"


def test_closing_at_end_without_newline() -> None:
    text = "<<甲乙 k\nbody\n甲乙"
    assert only_block(text) == Block("k", "甲乙", {}, "body", 1, 0, len(text))
    assert only_block(text + "  \r").end == len(text) + 3


def test_crlf_line_endings() -> None:
    text = '<<甲乙 change(path="a.go")\r\nline one\r\nline two\r\n甲乙\r\nafter\r\n'
    block = only_block(text)
    assert block.body == "line one\r\nline two"
    assert block.params == {"path": "a.go"}
    assert block.end == text.index("after")


def test_crlf_malformed_content_has_no_carriage_return() -> None:
    error = only_error("<<甲乙 k(a=\r\n")
    assert error.content == "<<甲乙 k(a="


def test_same_delimiter_nesting_is_swallowed() -> None:
    text = "<<甲乙 outer\n<<甲乙 inner\nx\n甲乙\ny\n甲乙\ntail\n"
    block = only_block(text)
    assert block.kind == "outer"
    assert block.body == "<<甲乙 inner\nx\n甲乙\ny"
    assert block.end == text.index("tail")


def test_kindless_same_delimiter_nesting_counts() -> None:
    block = only_block("<<甲乙\n<<甲乙\n<< 甲乙\n甲乙\n甲乙\n甲乙\n")
    assert block.body == "<<甲乙\n<< 甲乙\n甲乙\n甲乙"


def test_malformed_or_indented_same_delimiter_opening_does_not_nest() -> None:
    text = '<<甲乙 outer\n<<甲乙 k(a="\n  <<甲乙 inner\n甲乙\n'
    assert only_block(text).body == '<<甲乙 k(a="\n  <<甲乙 inner'


def test_different_delimiter_nesting_is_text() -> None:
    text = "<<甲乙 outer\n<<丙丁 inner\nx\n丙丁\n甲乙\n"
    block = only_block(text)
    assert block.body == "<<丙丁 inner\nx\n丙丁"


def test_unclosed_block_error() -> None:
    text = "intro\n<<甲乙 change(path=a.go)\nfoo\n甲乙 oops\n  x 甲乙\n甲乙甲乙\n<<甲乙\nbar"
    results = parse_blocks(text)
    error = results[0]
    assert isinstance(error, BlockParseError)
    assert error.reason == "unclosed"
    assert (error.kind, error.delimiter, error.line, error.start) == ("change", "甲乙", 2, 6)
    assert error.detail == 'has no matching closing line "甲乙"'
    assert error.content == text[6:]
    assert error.hints == ('line 4: "甲乙 oops"', 'line 5: "  x 甲乙"', 'line 6: "甲乙甲乙"')
    assert "line 4" in error.message()
    # The body is scanned again as text: the nested opening is itself unclosed.
    assert results[1] == BlockParseError(
        "unclosed", "", "甲乙", 7, text.index("<<甲乙\nbar"), error.detail, "<<甲乙\nbar"
    )
    assert len(results) == 2


def test_unclosed_hints_are_capped_at_ten() -> None:
    text = "<<甲乙 k\n" + "".join(f"甲乙 {i}\n" for i in range(15))
    error = only_error(text)
    assert len(error.hints) == 10
    assert error.hints[0] == 'line 2: "甲乙 0"'
    assert error.hints[-1] == 'line 11: "甲乙 9"'


def test_results_after_an_unclosed_block_still_come_out() -> None:
    text = "<<甲乙 outer\nA\n<<丙丁 inner\nB\n丙丁\n<<戊己 bad(\nC\n"
    results = parse_blocks(text)
    assert [type(r).__name__ for r in results] == ["BlockParseError", "Block", "BlockParseError"]
    first, inner, bad = results
    assert isinstance(first, BlockParseError)
    assert isinstance(bad, BlockParseError)
    assert first.reason == "unclosed"
    assert inner == Block("inner", "丙丁", {}, "B", 3, text.index("<<丙丁"), text.index("<<戊己"))
    assert (bad.reason, bad.kind, bad.line) == ("malformed", "bad", 6)


def test_malformed_header() -> None:
    text = 'x\n<<甲乙 shell(op="run\nls\n甲乙\n'
    error = only_error(text)
    assert error.reason == "malformed"
    assert (error.kind, error.delimiter, error.line, error.start) == ("shell", "甲乙", 2, 2)
    assert error.content == '<<甲乙 shell(op="run'
    assert error.detail.startswith('unterminated quoted value for parameter "op"')
    assert error.hints == ()


def test_scanning_resumes_after_malformed_line() -> None:
    text = "<<甲乙 k junk\n<<丙丁 ok\nbody\n丙丁\n"
    results = parse_blocks(text)
    assert len(results) == 2
    assert isinstance(results[0], BlockParseError)
    assert results[1] == Block("ok", "丙丁", {}, "body", 2, 12, len(text))


def test_results_in_text_order_with_line_numbers() -> None:
    text = "p\n<<甲乙 a\n1\n甲乙\nq\n<<丙丁 b\n2\n丙丁\n<<甲乙 c(\n<<甲乙\n3\n甲乙"
    results = parse_blocks(text)
    assert [r.line for r in results] == [2, 6, 9, 10]
    assert [r.start for r in results] == sorted(r.start for r in results)
    assert [r.kind for r in results] == ["a", "b", "c", ""]


# --- error content truncation ------------------------------------------------------------


def test_clip_keeps_short_content() -> None:
    assert clip_error_content("é" * 1000) == "é" * 1000
    assert clip_error_content("x" * 2000) == "x" * 2000


def split_clipped(content: str) -> tuple[str, int, str]:
    head, rest = content.split("\n...[truncated, ", 1)
    omitted, tail = rest.split(" bytes omitted]...\n", 1)
    return head, int(omitted), tail


@pytest.mark.parametrize("shift", range(4))
def test_unclosed_content_truncated_on_character_boundaries(shift: int) -> None:
    # Multi-byte characters of 2, 3 and 4 bytes straddle both cut points.
    body = "a" * shift + "é€😀" * 400
    text = "<<甲乙 k\n" + body + "\n" + "ü€😀" * 100
    error = only_error(text)
    total = len(text.encode())
    head, omitted, tail = split_clipped(error.content)
    assert "\ufffd" not in error.content
    assert text.startswith(head)
    assert text.endswith(tail)
    head_bytes, tail_bytes = len(head.encode()), len(tail.encode())
    assert 1333 - 4 < head_bytes <= 1333
    assert 667 - 4 < tail_bytes <= 667
    assert omitted == total - head_bytes - tail_bytes


def test_clip_exact_figures_for_ascii() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(2001))
    head, omitted, tail = split_clipped(clip_error_content(text))
    assert (head, omitted, tail) == (text[:1333], 1, text[-667:])


def test_malformed_content_is_clipped() -> None:
    line = "<<甲乙 k(a=" + "€" * 1000
    error = only_error(line + "\n")
    assert error.reason == "malformed"
    assert error.content == clip_error_content(line)
    assert len(error.content.encode()) < 2100


# --- incremental feeding and finality ----------------------------------------------------


def feed_all(chunks: list[str]) -> tuple[list[list[Block | BlockParseError]], list]:
    parser = BlockParser()
    fed = [parser.feed(chunk) for chunk in chunks]
    return fed, parser.finish()


def test_block_final_once_closing_newline_arrives() -> None:
    fed, rest = feed_all(["<<甲乙 k\nbody\n甲", "乙", "\n", "after"])
    assert fed[:3] == [[], [], [Block("k", "甲乙", {}, "body", 1, 0, 15)]]
    assert fed[3] == []
    assert rest == []


def test_closing_line_without_newline_waits_for_finish() -> None:
    parser = BlockParser()
    assert parser.feed("<<甲乙 k\nbody\n甲乙") == []
    assert parser.feed(" more\n") == []
    assert parser.feed("甲乙") == []
    assert parser.finish() == [Block("k", "甲乙", {}, "body\n甲乙 more", 1, 0, 22)]


def test_malformed_final_once_its_line_is_complete() -> None:
    parser = BlockParser()
    assert parser.feed("<<甲乙 k(a=") == []
    (error,) = parser.feed("1\n")
    assert isinstance(error, BlockParseError)
    assert "missing ')'" in error.detail


def test_nothing_after_an_open_block_is_returned_early() -> None:
    parser = BlockParser()
    assert parser.feed("<<甲乙 outer\n<<丙丁 x\ny\n丙丁\n<<戊己 bad(\n") == []
    results = parser.finish()
    assert [getattr(r, "reason", "block") for r in results] == ["unclosed", "block", "malformed"]


def test_feed_after_finish_raises() -> None:
    parser = BlockParser()
    parser.finish()
    with pytest.raises(RuntimeError):
        parser.feed("x")
    with pytest.raises(RuntimeError):
        parser.finish()


def test_one_character_chunks_match_whole_parse() -> None:
    text = "p\n<<甲乙 a(x='1\\n2')\r\n<<甲乙\n1\n甲乙\n甲乙\n<<丙丁 b(\n<<戊己\n甲乙 z\nq"
    fed, rest = feed_all(list(text))
    assert [r for batch in fed for r in batch] + rest == parse_blocks(text)


# --- linear work -------------------------------------------------------------------------


class CountingParser(BlockParser):
    """Counts the characters handed to the scanner, the only place text is examined."""

    def __init__(self) -> None:
        super().__init__()
        self.scanned = 0
        self.scans = 0

    def _scan(self, text: str) -> list[Block | BlockParseError]:
        self.scanned += len(text)
        self.scans += 1
        return super()._scan(text)


def count_work(text: str, size: int) -> CountingParser:
    parser = CountingParser()
    results = []
    for at in range(0, len(text), size):
        results += parser.feed(text[at : at + size])
    results += parser.finish()
    assert results == parse_blocks(text)
    return parser


def huge_block_reply(lines: int) -> str:
    body = "".join(f"\tfmt.Println({i}) // 甲 乙 <<丙丁 note\n" for i in range(lines))
    return f"Intro.\n<<甲乙 change(path=main.go)\n{body}甲乙\nDone.\n"


@pytest.mark.parametrize("lines", [1_000, 4_000, 16_000])
def test_work_is_linear_for_a_huge_block_in_64_byte_chunks(lines: int) -> None:
    text = huge_block_reply(lines)
    parser = count_work(text, 64)
    # Every character is scanned exactly once, in at most one scan per chunk.
    assert parser.scanned == len(text)
    assert parser.scans <= -(-len(text) // 64)


def test_work_is_linear_for_one_long_line_in_tiny_chunks() -> None:
    text = "<<甲乙 k\n" + "x" * 50_000 + "\n甲乙\n"
    assert count_work(text, 1).scanned == len(text)


def test_unclosed_block_body_is_scanned_once_more_at_most() -> None:
    text = huge_block_reply(2_000).replace("\n甲乙\n", "\n")
    parser = count_work(text, 64)
    opening = text.index("<<甲乙")
    body_start = text.index("\n", opening) + 1
    assert parser.scanned == len(text) + (len(text) - body_start)
