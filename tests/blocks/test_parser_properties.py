"""Properties of the block parser over generated replies and generated chunkings.

Three claims are checked: the whole-text parse agrees with a plain line-by-line reading of
the format (written here independently of the parser's find-based scan); feeding any split
of a reply gives the same results as parsing it whole, each one returned early being final;
and a block rendered from any kind, parameters and body reads back as itself.
"""

from __future__ import annotations

import itertools

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tai_core.blocks._header import parse_opening
from tai_core.blocks._model import Block, BlockParseError
from tai_core.blocks._parser import BlockParser, clip_error_content, parse_blocks

DELIMITERS = ("甲乙", "丙丁", "龘靐")


# --- a line-by-line reference reading ----------------------------------------------------


def split_lines(text: str) -> list[tuple[int, str, int]]:
    """(start, line without its newline, offset after the newline) for every line."""
    lines = []
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        after = len(text) if end < 0 else end + 1
        lines.append((start, text[start:after].removesuffix("\n"), after))
        start = after
    return lines


def reference(text: str) -> list[Block | BlockParseError]:
    lines = split_lines(text)
    results: list[Block | BlockParseError] = []
    index = 0
    while index < len(lines):
        start, line, after = lines[index]
        opening = parse_opening(line)
        if opening is None:
            index += 1
            continue
        delimiter = opening.delimiter
        if opening.error is not None:
            results.append(
                BlockParseError(
                    "malformed",
                    opening.kind,
                    delimiter,
                    index + 1,
                    start,
                    opening.error,
                    clip_error_content(line.removesuffix("\r")),
                )
            )
            index += 1
            continue
        depth, hints, close = 1, [], index + 1
        while close < len(lines):
            body_line = lines[close][1]
            stripped = body_line.strip()
            nested = parse_opening(body_line)
            if stripped == delimiter:
                depth -= 1
                if not depth:
                    break
            elif nested is not None and nested.error is None and nested.delimiter == delimiter:
                depth += 1
            elif stripped.startswith(delimiter) or stripped.endswith(delimiter):
                hints.append(f'line {close + 1}: "{body_line.rstrip()}"')
            close += 1
        if close < len(lines):
            body = text[after : lines[close][0]].strip()
            end = lines[close][2]
            block = Block(opening.kind, delimiter, opening.params, body, index + 1, start, end)
            results.append(block)
            index = close + 1
        else:
            detail = f'has no matching closing line "{delimiter}"'
            content = clip_error_content(text[start:])
            error = BlockParseError(
                "unclosed", opening.kind, delimiter, index + 1, start, detail, content
            )
            results.append(attrs.evolve(error, hints=tuple(hints[:10])))
            index += 1
    return results


# --- generated replies -------------------------------------------------------------------

#: Pieces of prose lines: multi-byte text, stray "<<" and Han characters, quotes, "\r".
WORDS = st.sampled_from(
    [
        "func",
        "x := 1",
        "é",
        "😀",
        "€",
        "<<",
        "<<EOF",
        "<<甲",
        "甲",
        "乙",
        "丙丁",
        " ",
        "\t",
        "\r",
        "()",
        '"',
        "\\",
        "x<<甲乙",
        "a",
        "龘",
    ]
)
PROSE_LINE = st.lists(WORDS, max_size=6).map("".join)
VALUE = st.text(alphabet=st.sampled_from("ab \"'\\\n\t\r,)(=é甲"), max_size=6)
NAME = st.sampled_from(["shell", "change", "a.b:c-d_9", "path", "op", "x"])
QUOTE_MARK = st.sampled_from(['"', "'"])
EOL = st.sampled_from(["\n", "\r\n", " \n", "\t\r\n"])


def quote(value: str, mark: str) -> str:
    escaped = value.replace("\\", "\\\\").replace(mark, "\\" + mark)
    return mark + escaped.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r") + mark


@st.composite
def headers(draw: st.DrawFn) -> tuple[str, str, dict[str, str]]:
    """(header text, kind, params) for a valid header, possibly empty (kindless)."""
    if draw(st.booleans()):
        return "", "", {}
    kind = draw(NAME)
    pairs = draw(st.lists(st.tuples(NAME, VALUE), max_size=3))
    if not pairs and draw(st.booleans()):
        return " " + kind, kind, {}
    rendered = []
    for name, value in pairs:
        if value and all(c not in value for c in " \t\r\n,)\"'\\"):
            rendered.append(f"{name}={value}")
        else:
            rendered.append(f"{name}={quote(value, draw(QUOTE_MARK))}")
    separator = draw(st.sampled_from([", ", ",", " ", " , "]))
    return f" {kind}({separator.join(rendered)})", kind, dict(pairs)


MALFORMED = st.sampled_from(
    [' shell(op="x', " k(a=", " k junk", " k(a=1) z", " sh$ell", " (a=1)", " k(a='", " k("]
)


@st.composite
def blocks(draw: st.DrawFn, depth: int) -> str:
    delimiter = draw(st.sampled_from(DELIMITERS))
    header = draw(headers())[0]
    lead = draw(st.sampled_from(["", " ", "  "]))
    lines = [f"<<{lead}{delimiter}{header}{draw(EOL)}"]
    for _ in range(draw(st.integers(0, 4))):
        lines.append(draw(body_parts(delimiter, depth)))
    ending = draw(st.sampled_from(["close", "close", "padded", "none"]))
    if ending == "close":
        lines.append(delimiter + draw(EOL))
    elif ending == "padded":
        lines.append(f"  {delimiter} {draw(EOL)}")
    return "".join(lines)


def body_parts(delimiter: str, depth: int) -> st.SearchStrategy[str]:
    near_misses = st.sampled_from(
        [f"{delimiter} extra\n", f"x {delimiter}\n", f"{delimiter}{delimiter}\n", "甲乙丙\n"]
    )
    choices = [PROSE_LINE.map(lambda line: line + "\n"), near_misses]
    if depth > 0:
        choices.append(blocks(depth - 1))
    return st.one_of(*choices)


@st.composite
def replies(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(
            st.one_of(
                PROSE_LINE.map(lambda line: line + "\n"),
                blocks(2),
                st.tuples(st.sampled_from(DELIMITERS), MALFORMED, EOL).map(
                    lambda t: f"<<{t[0]}{t[1]}{t[2]}"
                ),
            ),
            max_size=6,
        )
    )
    text = "".join(parts)
    if draw(st.booleans()):
        text = text.removesuffix("\n")
    return text


@st.composite
def chunkings(draw: st.DrawFn, text: str) -> list[str]:
    if draw(st.booleans()):
        size = draw(st.integers(1, 5))
        return [text[at : at + size] for at in range(0, len(text), size)]
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


# --- properties --------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=400)
@given(replies())
def test_whole_parse_matches_line_by_line_reading(text: str) -> None:
    assert parse_blocks(text) == reference(text)


@pytest.mark.slow
@settings(max_examples=400)
@given(st.data())
def test_any_chunking_gives_the_whole_parse_and_early_results_are_final(
    data: st.DataObject,
) -> None:
    text = data.draw(replies())
    chunks = data.draw(chunkings(text))
    assert "".join(chunks) == text
    whole = parse_blocks(text)
    parser = BlockParser()
    seen: list[Block | BlockParseError] = []
    for chunk in chunks:
        seen += parser.feed(chunk)
        assert seen == whole[: len(seen)]
    assert seen + parser.finish() == whole


@given(
    delimiter=st.sampled_from(DELIMITERS),
    kind=st.from_regex(r"[A-Za-z0-9_.:-]+", fullmatch=True),
    params=st.dictionaries(
        st.from_regex(r"[A-Za-z0-9_.:-]+", fullmatch=True),
        st.text(st.characters(exclude_categories=["Cs"])),
        max_size=4,
    ),
    body=st.text(st.characters(exclude_categories=["Cs"], exclude_characters="甲乙丙丁龘靐")),
    mark=QUOTE_MARK,
    prefix=st.sampled_from(["", "Here is the change:", "a <<甲乙 b", "<<EOF", "\n\n"]),
)
def test_rendered_block_round_trips(
    delimiter: str, kind: str, params: dict[str, str], body: str, mark: str, prefix: str
) -> None:
    rendered = ", ".join(f"{name}={quote(value, mark)}" for name, value in params.items())
    text = f"{prefix}\n<<{delimiter} {kind}({rendered})\n{body}\n{delimiter}\n"
    start, line = len(prefix) + 1, prefix.count("\n") + 2
    expected = Block(kind, delimiter, params, body.strip(), line, start, len(text))
    assert parse_blocks(text) == [expected]
