"""A streamed reply printed with its answers unwrapped (``tai ai``'s printer: a response
block is the answer): whatever the pieces the reply arrives in, the printed text is the
terminal UI's readable text — response blocks without their block lines, every other block
as written — a property over random chunkings; and text streams as it comes."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from tai_core.commands._answers import UnwrappedAnswers
from tai_core.tui._state import readable

REPLY = (
    "You like Go, noted.\n"
    "<<甲乙 memory\n- likes Go\n- writes CLIs\n甲乙\n"
    "<< not a block\n"
    "Here is the <<甲乙 memory inline mention.\n"
    '<<丙丁 response(name="x")\nkept\n丙丁\n'
    '<<戊己 memory(scope="user")\n<<戊己 memory\nnested\n戊己\n戊己\n'
    "tail without newline"
)
SHOWN = (
    "You like Go, noted.\n"
    "<<甲乙 memory\n- likes Go\n- writes CLIs\n甲乙\n"  # what is remembered stays in sight
    "<< not a block\n"
    "Here is the <<甲乙 memory inline mention.\n"
    "kept\n"
    '<<戊己 memory(scope="user")\n<<戊己 memory\nnested\n戊己\n戊己\n'
    "tail without newline"
)

ANSWERS = [
    REPLY,
    '<<琥珀 response(name="a", parent="user-input-1")\nThe answer\nis two lines.\n琥珀\n',
    "Before.\n<<琥珀 response\n琥珀 is a word here, not the end\n"
    "<<琥珀 response\nnested\n琥珀\n琥珀\n",
    "<<甲乙 response\nShort.\n甲乙\nAfter the answer, a command:\n<<丙丁 shell\nls\n丙丁\n",
]


def printed(pieces: list[str]) -> str:
    shown = UnwrappedAnswers(frozenset({"response"}))
    return "".join(shown.feed(piece) for piece in pieces) + shown.flush()


def cut(text: str, points: list[int]) -> list[str]:
    edges = sorted({0, len(text), *(p % (len(text) + 1) for p in points)})
    return [text[a:b] for a, b in itertools.pairwise(edges)]


def test_the_reply_whole() -> None:
    # a nested block of the same delimiter is part of the body, as the parser has it
    assert printed([REPLY]) == SHOWN


@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=40))
def test_an_answer_is_printed_without_its_block_lines_however_it_streams(points) -> None:
    assert printed(cut(REPLY, points)) == SHOWN


@given(st.sampled_from(ANSWERS), st.lists(st.integers(min_value=0, max_value=400), max_size=20))
def test_the_printer_shows_a_reply_as_the_terminal_ui_does(reply: str, points) -> None:
    assert printed(cut(reply, points)) == readable(reply)


def test_text_streams_as_it_comes_except_where_a_block_may_open() -> None:
    shown = UnwrappedAnswers(frozenset({"response"}))
    assert shown.feed("Partial answ") == "Partial answ"  # no wait for the newline
    assert shown.feed("er\n<<甲") == "er\n"  # a line that may open a block waits
    assert shown.feed("乙 memory\n- x\n") == "<<甲乙 memory\n- x\n"  # not an answer: as written


def test_an_answer_streams_except_where_its_closing_line_may_come() -> None:
    shown = UnwrappedAnswers(frozenset({"response"}))
    assert shown.feed("<<琥珀 resp") == ""
    assert shown.feed("onse\nThe ans") == "The ans"  # the body streams
    assert shown.feed("wer.\n琥") == "wer.\n"  # may be the closing line: it waits
    assert shown.feed("珀\nAfter") == "After"
    assert shown.feed("\n<<甲 response\nunclosed") == "\nunclosed"
    assert shown.flush() == ""  # nothing held back at the end
