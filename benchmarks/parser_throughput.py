"""Throughput of the incremental block parser on realistic replies fed in 64-byte chunks.

Streams arrive in small chunks, so what matters is the cost per chunk and that the total
stays linear in the reply's size: the 8 MB reply must take about 8 times the 1 MB one.
Targets: at least 20 MB/s on 8 MB, 8 MB / 1 MB time at most 10x. Baseline, alternated
with the parser: the same chunks gathered and the joined reply searched once for its
blocks with one regular expression — finding the blocks without streaming, validation
or any of the parser's bookkeeping. 5 rounds after a warm-up round; medians (min-max),
the ratio to the baseline round by round. Prints one line; run with
``uv run python benchmarks/parser_throughput.py``.
"""

from __future__ import annotations

import random
import re
import sys
import time
from pathlib import Path

from tai_core.blocks._model import Block
from tai_core.blocks._parser import BlockParser

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import finish
from _timing import alternate, ratio

CHUNK = 64
RUNS = 5
TARGET = "20 MB/s, 10x"
NAIVE = re.compile(r"<<(\S+) [^\n]*\n.*?\n\1\n", re.DOTALL)
MEGABYTE = 1_000_000

PROSE = [
    "The handler now checks the context before it writes the response.",
    "I also renamed the helper so that its purpose is clearer to callers.",
    "This keeps the retry loop bounded; see the comment above `backoff`.",
    "Next, the tests: 表 and 列 names stay as they were in the schema.",
    "Run `go test ./...` afterwards; it should pass on the first try.",
]
GO_LINES = [
    "\tif err != nil {",
    '\t\treturn fmt.Errorf("open %s: %w", path, err)',
    "\t}",
    "\tfor i, item := range items {",
    "\t\ttotal += item.Price * float64(item.Count) // 合计",
    '\t\tlog.Printf("item %d: %v", i, item)',
    "\tdefer f.Close()",
    "\tctx, cancel := context.WithTimeout(ctx, 5*time.Second)",
    "\tdefer cancel()",
    "\tbuf := make([]byte, 0, 64<<10)",
    '\tresp, err := http.Get("https://example.invalid/api")',
    "\treturn result, nil",
]


def go_function(rng: random.Random, lines: int) -> str:
    name = f"Handle{rng.randrange(10_000)}"
    body = "\n".join(rng.choice(GO_LINES) for _ in range(lines))
    return f"func {name}(ctx context.Context, items []Item) (Result, error) {{\n{body}\n}}\n"


def change_block(rng: random.Random, lines: int) -> str:
    path = f"internal/svc{rng.randrange(100)}/handler.go"
    code = "".join(go_function(rng, 12) for _ in range(max(1, lines // 14)))
    return f'<<甲乙 change(path="{path}", op=replace)\n{code}甲乙\n'


def build_reply(size: int, seed: int) -> tuple[str, int]:
    """A reply of about ``size`` UTF-8 bytes, and the number of blocks it holds."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = blocks = 0
    while total < size:
        prose = " ".join(rng.choice(PROSE) for _ in range(rng.randint(1, 6))) + "\n\n"
        lines = 3_000 if rng.random() < 0.05 else rng.randint(10, 120)
        part = prose + change_block(rng, lines) + "\n"
        parts.append(part)
        total += len(part.encode())
        blocks += 1
    return "".join(parts), blocks


def feed_seconds(chunks: list[str], blocks: int) -> float:
    start = time.perf_counter()
    parser = BlockParser()
    results = []
    for chunk in chunks:
        results += parser.feed(chunk)
    results += parser.finish()
    elapsed = time.perf_counter() - start
    assert len(results) == blocks and all(isinstance(r, Block) for r in results)
    return elapsed


def naive_seconds(chunks: list[str], blocks: int) -> float:
    start = time.perf_counter()
    gathered = []
    for chunk in chunks:
        gathered.append(chunk)
    found = sum(1 for _ in NAIVE.finditer("".join(gathered)))
    elapsed = time.perf_counter() - start
    assert found == blocks, (found, blocks)
    return elapsed


def chunked(size: int) -> tuple[list[str], int, int]:
    """The reply of about ``size`` bytes in chunks, its blocks and its bytes."""
    text, blocks = build_reply(size, seed=size)
    return [text[at : at + CHUNK] for at in range(0, len(text), CHUNK)], blocks, len(text.encode())


def main() -> None:
    big, big_blocks, big_bytes = chunked(8 * MEGABYTE)
    small, small_blocks, _ = chunked(MEGABYTE)
    times = alternate(
        {
            "8 MB": lambda: feed_seconds(big, big_blocks),
            "8 MB naive": lambda: naive_seconds(big, big_blocks),
            "1 MB": lambda: feed_seconds(small, small_blocks),
        },
        RUNS,
    )
    parse, naive = times["8 MB"], times["8 MB naive"]
    rate = big_bytes / MEGABYTE / parse.median
    growth = ratio(parse, times["1 MB"])
    finish(
        f"parser: 8 MB in {CHUNK}-byte chunks {parse.text('s', 2)} = {rate:.1f} MB/s = "
        f"{ratio(parse, naive).text('x', 1)} one regex search of the joined reply "
        f"({naive.text('s', 2)}); 1 MB {times['1 MB'].text('s', 3)}; 8 MB / 1 MB "
        f"{growth.text('x', 1)}; medians (min-max) of {RUNS} alternated rounds "
        "(targets: >=20 MB/s, ratio <=10x)",
        {">= 20 MB/s": rate >= 20, "8 MB / 1 MB <= 10x": growth.median <= 10},
    )


if __name__ == "__main__":
    main()
