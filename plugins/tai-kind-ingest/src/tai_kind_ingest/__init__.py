"""The ``ingest`` kind: files, globs and URLs fetched into the next round as tagged content."""

from __future__ import annotations

import re
from collections.abc import Callable

from tai_block_kit.common import CODE_COMMANDS, TREE_PARAMS
from tai_core import Block, BlockKind, BlockResult, RunContext, hookimpl

_REQUEST = re.compile(r"<(file|glob|fetch)\b[^>]*>.*?</\1>|<(file|glob|fetch)\b[^>]*/>", re.S)


class IngestKind(BlockKind):
    """Fetch files, glob matches or web pages."""

    name = "ingest"
    params = TREE_PARAMS
    triggers_round = True
    max_rounds = 20
    commands = CODE_COMMANDS
    prompt_section = """\
# ingest blocks

Fetch content you need with an `ingest` block. Its body holds requests, one per line:
- `<file>path/to/file</file>` — a file inside the project (relative or absolute);
- `<glob>pattern/**/*.md</glob>` — the list of project files matching a pattern;
- `<fetch>https://example.org/page</fetch>` — a web page, text only (size and time are
  limited; optional attributes `user-agent`, `referer`, `cookie`).
Each result arrives in the next message inside `<context>` tags, errors included."""
    restatement = "ingest blocks: <file>, <glob> or <fetch> requests; content arrives next."
    disabled_notice = "files cannot be fetched now; use the context given and say what is missing."

    def check_body(self, block: Block) -> list[str]:
        if not _REQUEST.search(block.body):
            return ["an ingest block needs at least one <file>, <glob> or <fetch> request"]
        return []

    def execute(self, block: Block, context: RunContext) -> BlockResult:
        """Serve every request of the body; the joined ``<context>`` elements are fed
        back (see :mod:`tai_text._ingest` for the request forms)."""
        from tai_text._ingest import run_ingest

        ok, text = run_ingest(block.body, context)
        return BlockResult(kind=self.name, ok=ok, text=text)


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the ingest kind."""
    register(IngestKind())
