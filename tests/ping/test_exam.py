"""The ping exam: its specs follow the rules, round-trip through the parser, and grading
accepts exactly the right answer (hypothesis over seeds and mutations)."""

from __future__ import annotations

import random
import re

from hypothesis import assume, given
from hypothesis import strategies as st

from tai_core.blocks import FORMAT_SYSTEM_PROMPT, Block, parse_blocks
from tai_core.commands._ping_exam import (
    TRICKY_CHARACTERS,
    ExamBlock,
    exam_prompt,
    grade,
    make_exam,
    quote,
)

DELIMITERS = ("琥珀", "松柏", "紫藤")
seeds = st.integers(min_value=0, max_value=2**64)


def answer(exam: tuple[ExamBlock, ...], headers: list[str] | None = None) -> str:
    """A reply writing ``exam`` perfectly (or with the given opening-line headers)."""
    written = headers or [block.header() for block in exam]
    return "".join(
        f"<<{delimiter} {header}\n{block.body}\n{delimiter}\n"
        for delimiter, header, block in zip(DELIMITERS, written, exam, strict=True)
    )


@given(seeds)
def test_exam_follows_the_rules(seed: int) -> None:
    exam = make_exam(random.Random(seed))
    assert len(exam) == 3
    assert len({block.kind for block in exam}) == 3
    tricky = []
    for block in exam:
        assert re.fullmatch("[a-z]{3,8}", block.kind)
        assert 1 <= len(block.params) <= 3
        names = [name for name, _ in block.params]
        assert names == sorted(set(names))
        for name, value in block.params:
            assert re.fullmatch("[a-z]{3,6}", name)
            if not re.fullmatch("[a-z]{3,8}", value):
                tricky.append(value)
        words = block.body.split(" ")
        assert 2 <= len(words) <= 3
        assert all(re.fullmatch("[a-z]{3,8}", word) for word in words)
    (value,) = tricky
    assert sum(value.count(char) for char in TRICKY_CHARACTERS) == 1
    assert value[0].isalpha() and value[-1].isalpha()


@given(seeds)
def test_same_seed_same_exam(seed: int) -> None:
    assert make_exam(random.Random(seed)) == make_exam(random.Random(seed))


@given(seeds)
def test_rendered_specs_round_trip_through_the_parser(seed: int) -> None:
    exam = make_exam(random.Random(seed))
    blocks = parse_blocks(answer(exam))
    assert all(isinstance(block, Block) for block in blocks)
    assert [(b.kind, tuple(b.params.items()), b.body) for b in blocks] == [
        (block.kind, block.params, block.body) for block in exam
    ]
    assert grade(exam, answer(exam)) is None


@given(seeds)
def test_prompt_lists_every_header_and_body(seed: int) -> None:
    exam = make_exam(random.Random(seed))
    prompt = exam_prompt(exam)
    for number, block in enumerate(exam, start=1):
        assert f"Block {number}\n  kind and parameters: {block.header()}\n" in prompt
        assert f"  body: {block.body}" in prompt
    # The prompt shows the shape only through the headers: no delimiter to copy.
    assert not any(delimiter in prompt for delimiter in DELIMITERS)
    assert "<<" not in prompt and "<<" in FORMAT_SYSTEM_PROMPT


@given(seeds, st.sampled_from(["drop", "swap", "kind", "value", "body", "raw", "extra"]))
def test_any_mistake_fails_with_one_line(seed: int, mistake: str) -> None:
    exam = make_exam(random.Random(seed))
    headers = [block.header() for block in exam]
    blocks = list(exam)
    tricky = next(i for i, b in enumerate(exam) if any(not v.isalpha() for _, v in b.params))
    if mistake == "drop":
        reply = answer(exam)[: answer(exam).index(f"<<{DELIMITERS[2]}")]
    elif mistake == "swap":
        blocks[0], blocks[1] = blocks[1], blocks[0]
        reply = answer(tuple(blocks))
    elif mistake == "kind":
        headers[1] = "x" + headers[1]
        reply = answer(exam, headers)
    elif mistake == "value":
        name, value = exam[0].params[0]
        headers[0] = headers[0].replace(f"{name}={quote(value)}", f"{name}={quote(value + 'x')}")
        reply = answer(exam, headers)
    elif mistake == "body":
        reply = answer(exam).replace(exam[2].body, exam[2].body + " more", 1)
    elif mistake == "raw":  # a quote or a newline written unescaped breaks the header
        block = exam[tricky]
        assume(any(char in value for _, value in block.params for char in '"\n'))
        raw = ", ".join(f'{name}="{value}"' for name, value in block.params)
        headers[tricky] = f"{block.kind}({raw})"
        reply = answer(exam, headers)
    else:
        reply = answer(exam) + "<<蘭菊 more\nwords here\n蘭菊\n"
    problem = grade(exam, reply)
    assert problem is not None
    assert "\n" not in problem
    assert problem.startswith(("expected 3 blocks, found", "block "))
