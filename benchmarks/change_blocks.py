"""Applying change blocks: 1,000 text and 1,000 Go blocks on a generated 200-file module.

The module (160 Go files in 16 packages, 40 text files) is generated in a temporary
directory. Each block is applied in memory on its own, timed, as a streaming reply applies
it; then the round is finished (goimports on every changed Go file, in parallel) and
flushed. Targets: median at most 2 ms per text block and 20 ms per Go block (formatting is
batched per round, so it is reported apart). Baseline, alternated block by block: the
same edit as a bare string splice — the file's current text taken from the store, the
block's ``find`` text or target name located with ``str.find`` and the body spliced in
(no parsing, no validation, no formatting). Medians (min-max over the blocks), the ratio
block by block; the first 20 blocks of each kind warm up. Prints one line; run with
``uv run python benchmarks/change_blocks.py``.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import finish
from _timing import Series, ratio

from tai_changes import apply_change, finish_changes
from tai_core import Block
from tai_core.store import FileStore

GO_FILES = 160
TEXT_FILES = 40
BLOCKS = 1000
WARM_UP = 20
TARGET = "2 ms, 20 ms"


def go_file(package: int, index: int) -> str:
    parts = [f'package pkg{package}\n\nimport (\n\t"fmt"\n\t"strings"\n)\n']
    parts.append(
        f"// Limits of file {index}.\nconst (\n"
        + "".join(f"\tLimit{index}x{k} = {k * 10}\n" for k in range(6))
        + ")\n"
    )
    parts.append(f"// Item{index} is a thing.\ntype Item{index} struct {{\n\tName string\n}}\n")
    for k in range(10):
        parts.append(
            f"// Fn{index}x{k} formats a value.\nfunc Fn{index}x{k}(v int) string {{\n"
            f'\tif v > Limit{index}x{k % 6} {{\n\t\treturn strings.Repeat("x", v)\n\t}}\n'
            f'\treturn fmt.Sprintf("%d-{k}", v)\n}}\n'
        )
    parts.append(f"func (i *Item{index}) Label() string {{\n\treturn strings.ToUpper(i.Name)\n}}\n")
    return "\n".join(parts)


def text_file(index: int) -> str:
    return f"# Document {index}\n\n" + "".join(
        f"## Section {index}.{k}\n\nParagraph {k} of document {index}: old text.\n\n"
        for k in range(30)
    )


def make_module(root: Path) -> tuple[list[str], list[str]]:
    (root / "go.mod").write_text("module example.com/bench\n\ngo 1.22\n")
    go_paths, text_paths = [], []
    for index in range(GO_FILES):
        path = f"pkg{index % 16}/file{index}.go"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(go_file(index % 16, index))
        go_paths.append(path)
    for index in range(TEXT_FILES):
        path = f"docs/doc{index}.md"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text_file(index))
        text_paths.append(path)
    return go_paths, text_paths


def change(op: str, path: str, body: str = "", **params: str) -> Block:
    return Block(
        kind="change",
        delimiter="甲乙",
        params={"op": op, "file-path": path, **params},
        body=body,
        line=1,
        start=0,
        end=0,
    )


def text_blocks(rng: random.Random, paths: list[str]) -> list[Block]:
    blocks = []
    for n in range(BLOCKS):
        index = n % TEXT_FILES
        k = n // TEXT_FILES
        find = f"Paragraph {k} of document {index}: old text."
        op = rng.choice(["REPLACE", "INSERT_BEFORE", "INSERT_AFTER"])
        blocks.append(change(op, paths[index], f"New paragraph {n}.", find=find))
    return blocks


def go_blocks(rng: random.Random, paths: list[str]) -> list[Block]:
    blocks = []
    for n in range(BLOCKS):
        index = n % GO_FILES
        path = paths[index]
        # Each file gets at most one block of each kind, on distinct targets.
        k = kind = n // GO_FILES
        if kind in (0, 6):
            body = f"func Fn{index}x{k}(v int) string {{\n\treturn fmt.Sprint(v * {n})\n}}"
            blocks.append(change("MODIFY", path, body, target=f"Fn{index}x{k}"))
        elif kind == 1:
            body = f'func Added{n}() []string {{\n\treturn strings.Fields("a b {n}")\n}}'
            blocks.append(change("ADD_AFTER", path, body, target=f"Fn{index}x{k}"))
        elif kind == 2:
            blocks.append(change("MODIFY", path, str(n), target=f"Limit{index}x{k % 6}"))
        elif kind == 3:
            body = f'(i *Item{index}) Label() string {{\n\treturn i.Name + "{n}"\n}}'
            blocks.append(change("MODIFY", path, body, target=f"*Item{index}.Label"))
        elif kind == 4:
            body = f"type Extra{n} struct {{\n\tItem{index}\n\tCount int\n}}"
            blocks.append(change("ADD_BEFORE", path, body, target=f"Item{index}"))
        else:
            blocks.append(change("DELETE", path, target=f"Fn{index}x{k}"))
    rng.shuffle(blocks)
    return blocks


def splice_seconds(store: FileStore, block: Block) -> float:
    """The baseline: the same edit as a bare string splice (see the module docstring)."""
    start = time.perf_counter()
    text = store.read(block.params["file-path"]) or ""
    anchor = block.params.get("find") or block.params.get("target", "").lstrip("*")
    at = max(0, text.find(anchor))
    _ = text[:at] + block.body + text[at + len(anchor) :]
    return time.perf_counter() - start


def apply_timed(store: FileStore, blocks: list[Block]) -> tuple[FileStore, Series, Series]:
    """Apply ``blocks`` one by one, each timed beside its splice; both series after the
    warm-up blocks."""
    times, splices = [], []
    for block in blocks:
        splices.append(splice_seconds(store, block))
        start = time.perf_counter()
        store = apply_change(store, block)
        times.append(time.perf_counter() - start)
    return store, Series(tuple(times[WARM_UP:])), Series(tuple(splices[WARM_UP:]))


def main() -> None:
    rng = random.Random(4)
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        go_paths, text_paths = make_module(root)
        store = FileStore.open(root)
        store, text_s, text_splice = apply_timed(store, text_blocks(rng, text_paths))
        store, go_s, go_splice = apply_timed(store, go_blocks(rng, go_paths))
        start = time.perf_counter()
        store = finish_changes(store)
        finish_s = time.perf_counter() - start
        changed = len(store.pending())
        start = time.perf_counter()
        store.flush()
        flush_s = time.perf_counter() - start
    finish(
        f"change blocks on a 200-file module: {text_s.text('ms', 3)} per text block = "
        f"{ratio(text_s, text_splice).text('x', 0)} a bare string splice "
        f"({text_splice.text('ms', 4)}), {go_s.text('ms', 2)} per Go block = "
        f"{ratio(go_s, go_splice).text('x', 0)} ({go_splice.text('ms', 4)}); medians (min-max)"
        f" of {BLOCKS - WARM_UP} blocks each; round finish (goimports, {GO_FILES} files) "
        f"{finish_s:.2f} s, flush of {changed} files {flush_s * 1000:.0f} ms; targets <= 2 "
        "and <= 20 ms",
        {"text <= 2 ms": text_s.median <= 0.002, "Go <= 20 ms": go_s.median <= 0.02},
    )


if __name__ == "__main__":
    main()
