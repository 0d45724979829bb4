"""Formatting the Go files a round changed, once, when the round's changes are finished.

Formatting is batched per round instead of per block for two reasons. goimports drops
imports that are unused *at that moment*: run after each block, it would drop the import
a model adds in one block for the function it adds in the next, and then have to guess it
back. And each run is a process start: once per file per round costs far less than once
per block. Files are formatted in parallel, each by goimports reading the text on its
standard input with ``-srcdir`` set to the file's real path, so imports of the module's
own packages resolve as they would for the file on disk.
"""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tai_core.store import FileStore

#: Longest time one goimports run may take (it may scan the module cache).
TIMEOUT = 120.0
#: Texts already formatted, by file: a store finished before it is flushed (or a retried
#: round) formats each text once. Bounded; emptied when full.
_formatted: dict[tuple[str, str], str] = {}
_FORMATTED_MAX = 1024


class FormatError(Exception):
    """goimports refused a file: ``path`` (a store key), the tool's message."""

    def __init__(self, path: str, message: str, text: str | None = None) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message
        self.text = text


def _goimports(tool: Path, root: Path, key: str, text: str, env: dict[str, str]) -> str:
    full = root / key
    # The file itself when it exists; for a new file its directory (the package it joins).
    srcdir = full if full.exists() or not full.parent.is_dir() else full.parent
    try:
        result = subprocess.run(
            [str(tool), "-srcdir", str(srcdir)],
            input=text.encode("utf-8", "surrogateescape"),
            cwd=root,
            env=env,
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise FormatError(key, f"goimports could not run: {error}", text) from None
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace")
        for name in (f"{srcdir}{os.sep}<standard input>", "<standard input>"):
            message = message.replace(name, key)
        raise FormatError(key, "goimports: " + "; ".join(message.split("\n")).strip("; "), text)
    return result.stdout.decode("utf-8", "surrogateescape")


def go_files_to_format(store: FileStore) -> list[str]:
    """The Go files with pending new content."""
    return sorted(
        key
        for key, text in store.overlay.items()
        if key.endswith(".go") and text is not None and text != store.base[key].text
    )


def format_go(store: FileStore) -> FileStore:
    """``store`` with every pending Go file formatted by goimports.

    Raises :class:`FormatError` for the first file (in path order) goimports refuses, and
    ``ToolError`` when goimports cannot be had.
    """
    from tai_changes.goimports import goimports_binary, tool_env

    keys = go_files_to_format(store)
    if not keys:
        return store
    root = store.root
    texts = {key: store.overlay[key] or "" for key in keys}
    todo = [key for key in keys if (str(root / key), texts[key]) not in _formatted]
    if todo:
        tool = goimports_binary()
        env = tool_env()
        with ThreadPoolExecutor(max_workers=min(len(todo), os.cpu_count() or 1)) as pool:
            futures = {
                key: pool.submit(_goimports, tool, root, key, texts[key], env) for key in todo
            }
        if len(_formatted) + len(todo) > _FORMATTED_MAX:
            _formatted.clear()
        for key in todo:
            formatted = futures[key].result()
            _formatted[str(root / key), texts[key]] = formatted
            _formatted[str(root / key), formatted] = formatted
    for key in keys:
        formatted = _formatted[str(root / key), texts[key]]
        if formatted != texts[key]:
            store = store.write(key, formatted)
    return store
