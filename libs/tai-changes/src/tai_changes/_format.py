"""Formatting the files a round changed, once, when the round's changes are finished.

:func:`format_files` runs one formatter per file over the texts a round changed, in
parallel, formatting each text once (a store finished before it is flushed, or a retried
round, asks again); Go files get goimports here (:func:`format_go`), Python files the
project's formatter (:mod:`tai_changes._pyformat`).

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
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

from tai_core.store import FileStore

#: Longest time one goimports run may take (it may scan the module cache).
TIMEOUT = 120.0
#: Texts already formatted, by formatter and file: a store finished before it is flushed
#: (or a retried round) formats each text once. Bounded; emptied when full.
_formatted: dict[tuple[str, str, str], str] = {}
#: A formatter of one file: ``run(key, text)`` is the formatted text.
Runner = Callable[[str, str], str]
_FORMATTED_MAX = 1024


class FormatError(Exception):
    """goimports refused a file: ``path`` (a store key), the tool's message."""

    def __init__(self, path: str, message: str, text: str | None = None) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message
        self.text = text


def _goimports(tool: Path, root: Path, key: str, text: str, *, env: dict[str, str]) -> str:
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


def pending(store: FileStore, suffixes: tuple[str, ...]) -> list[str]:
    """The files ending in one of ``suffixes`` with pending new content, in path order."""
    return sorted(
        key
        for key, text in store.overlay.items()
        if key.endswith(suffixes) and text is not None and text != store.base[key].text
    )


def format_files(store: FileStore, runs: Mapping[str, tuple[str, Runner]]) -> FileStore:
    """``store`` with each file of ``runs`` formatted: ``runs`` maps a store key to the
    identity of its formatter (what the cache is keyed by) and a function of the key and
    the text that returns the formatted text. Each text is formatted once; the files are
    formatted in parallel, and the first failure in path order is raised."""
    texts = {key: store.overlay[key] or "" for key in runs}

    def slot(key: str, text: str) -> tuple[str, str, str]:
        return runs[key][0], str(store.root / key), text

    results = {key: _formatted.get(slot(key, texts[key])) for key in runs}
    todo = [key for key in sorted(runs) if results[key] is None]
    if todo:
        with ThreadPoolExecutor(max_workers=min(len(todo), os.cpu_count() or 1)) as pool:
            futures = {key: pool.submit(runs[key][1], key, texts[key]) for key in todo}
        if len(_formatted) + 2 * len(todo) > _FORMATTED_MAX:
            _formatted.clear()
        for key in todo:
            formatted = futures[key].result()
            results[key] = _formatted[slot(key, texts[key])] = formatted
            _formatted[slot(key, formatted)] = formatted
    for key in sorted(runs):
        formatted = results[key]
        if formatted is not None and formatted != texts[key]:
            store = store.write(key, formatted)
    return store


def format_go(store: FileStore) -> FileStore:
    """``store`` with every pending Go file formatted by goimports.

    Raises :class:`FormatError` for the first file (in path order) goimports refuses, and
    ``ToolError`` when goimports cannot be had.
    """
    from tai_changes.goimports import goimports_binary, tool_env

    keys = pending(store, (".go",))
    if not keys:
        return store
    tool = goimports_binary()
    run = partial(_goimports, tool, store.root, env=tool_env())
    return format_files(store, dict.fromkeys(keys, (str(tool), run)))
