"""The block-format exam of ``tai ping``: three made-up blocks the model must write back.

Why made-up kinds: a model that knows tai's kinds could write them from habit; invented
kinds, names and words can only be copied, so the exam measures the format and nothing
else. Why a tricky value: quoting is where models fail (an unescaped quote, a real newline
in a header), so one value holds a double quote, an apostrophe, a backslash, a tab, a
newline or a space. The specs are listed exactly as the opening lines must be written —
``kind(name="escaped", …)``, names sorted — and the answer is graded with the parser tai
runs on every reply: exactly three blocks, matching positionally in kind, parameters and
trimmed body.
"""

from __future__ import annotations

import json
import random
import string

import attrs

from tai_core.blocks import Block, BlockParseError, parse_blocks

#: The characters one parameter value is made tricky with.
TRICKY_CHARACTERS: tuple[str, ...] = ('"', "'", "\\", "\t", "\n", " ")
#: Blocks in one exam.
EXAM_SIZE = 3


def quote(value: str) -> str:
    """``value`` as a double-quoted header value (``\\"``, ``\\\\``, ``\\n``, ``\\t`` escaped)."""
    return json.dumps(value, ensure_ascii=False)


@attrs.frozen
class ExamBlock:
    """One block the model must write: ``params`` sorted by name."""

    kind: str
    params: tuple[tuple[str, str], ...]
    body: str

    def header(self) -> str:
        """The opening line's header, exactly as the model must write it."""
        params = ", ".join(f"{name}={quote(value)}" for name, value in self.params)
        return f"{self.kind}({params})"


def _word(rng: random.Random, shortest: int, longest: int) -> str:
    return "".join(rng.choices(string.ascii_lowercase, k=rng.randint(shortest, longest)))


def _distinct(rng: random.Random, count: int, shortest: int, longest: int) -> list[str]:
    words: list[str] = []
    while len(words) < count:
        word = _word(rng, shortest, longest)
        if word not in words:
            words.append(word)
    return words


def make_exam(rng: random.Random) -> tuple[ExamBlock, ...]:
    """Three blocks of distinct kinds (3 to 8 lowercase letters), each with 1 to 3 parameters
    (names of 3 to 6 letters, values of 3 to 8) and a body of 2 or 3 words; one value, in one
    block, has a tricky character in its middle."""
    kinds = _distinct(rng, EXAM_SIZE, 3, 8)
    blocks: list[list[tuple[str, str]]] = [
        [(name, _word(rng, 3, 8)) for name in sorted(_distinct(rng, rng.randint(1, 3), 3, 6))]
        for _ in kinds
    ]
    params = rng.choice(blocks)
    index = rng.randrange(len(params))
    name, value = params[index]
    cut = rng.randint(1, len(value) - 1)
    params[index] = (name, value[:cut] + rng.choice(TRICKY_CHARACTERS) + value[cut:])
    return tuple(
        ExamBlock(kind, tuple(block), " ".join(_word(rng, 3, 8) for _ in range(rng.randint(2, 3))))
        for kind, block in zip(kinds, blocks, strict=True)
    )


def exam_prompt(exam: tuple[ExamBlock, ...]) -> str:
    """The user prompt: the blocks to write and the rules of the exam."""
    listed = "\n\n".join(
        f"Block {number}\n  kind and parameters: {block.header()}\n  body: {block.body}"
        for number, block in enumerate(exam, start=1)
    )
    return f"""\
This is a check of the block format. Write exactly the {len(exam)} blocks below, in this \
order, and nothing else.

{listed}

Rules:
- Write the kind and parameters after the delimiter exactly as given: the same kind, the \
same parameter names in the same order, each value in double quotes with its escapes \
exactly as shown (they stand for the value's special characters and must stay escapes).
- The body of each block is exactly the words given, on one line.
- Choose a different two-Chinese-character delimiter for every block.
- Write no text before, between or after the blocks."""


def _shown(kind: str, params: dict[str, str], body: str) -> str:
    return ExamBlock(kind, tuple(params.items()), body).header() + f" body {quote(body)}"


def grade(exam: tuple[ExamBlock, ...], reply: str) -> str | None:
    """``None`` when ``reply`` passes the exam; otherwise one line saying what differs."""
    results = parse_blocks(reply)
    blocks = [result for result in results if isinstance(result, Block)]
    if len(blocks) != len(exam):
        errors = [result for result in results if isinstance(result, BlockParseError)]
        found = f"expected {len(exam)} blocks, found {len(blocks)}"
        if errors:
            first = errors[0]
            found += f" ({first.reason} block at line {first.line}: {first.detail})"
        return found
    for number, (want, got) in enumerate(zip(exam, blocks, strict=True), start=1):
        found = (got.kind, dict(got.params), got.body.strip())
        if found != (want.kind, dict(want.params), want.body):
            return (
                f"block {number}: expected {_shown(want.kind, dict(want.params), want.body)}, "
                f"found {_shown(*found)}"
            )
    return None
