"""``go-src`` symbol resolution against a load's snapshot (§5.6).

A line names a package (its import path or declared name: its documentation) or a
declaration ``[qualifier.][Type.]Name``. The qualifier is the longest prefix that is a
loaded package's path, a ``/``-suffix of one, or a declared package name; ``*`` and type
parameters (``[…]``) are ignored; a qualified miss is retried with the qualifier read as a
type name. Names compare by length and letter: a lower-case query letter matches either
case, any other character only itself. Sources come from the snapshot's bytes, parsed
with tree-sitter, with their doc comments; a spec of a grouped declaration comes alone.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

from tai_core.context import ContextError
from tai_go._load import Load, Package
from tai_go._render import code_of
from tai_staging import unit_block

#: The first line of the feedback.
HEADER = "[Requested source of the go-src symbols]\n\n"
#: What an empty block gets back.
EMPTY_HINT = (
    "The go-src block was empty: write one symbol per line — a package path or name, "
    "Name, Type.Method, pkg.Name or path/to/pkg.Type.Method.\n"
)


def _same(query: str, name: str) -> bool:
    return len(query) == len(name) and all(
        q == n or (q.islower() and q == n.lower()) for q, n in zip(query, name, strict=True)
    )


def _packages(load: Load) -> list[Package]:
    """The packages whose files are in the snapshot (standard ones only when requested)."""
    chosen = [
        p for p in load.packages.values()
        if not p.standard or any(f in load.files for f in p.go_files)
    ]  # fmt: skip
    return sorted(chosen, key=lambda p: p.path)


def _aliases(package: Package) -> Iterator[str]:
    parts = package.path.split("/")
    yield from ("/".join(parts[index:]) for index in range(len(parts)))
    yield package.name


class _Resolver:
    def __init__(self, load: Load) -> None:
        self.load = load
        self.packages = _packages(load)
        self.parsed: dict[str, list] = {}

    def declarations(self, package: Package) -> Iterator[tuple[str, str, int, int, str]]:
        """(name, file, start, end) of each declaration and grouped spec in ``package``."""
        from tai_changes._go_syntax import declarations, parse

        for file in (*package.go_files, *package.test_files):
            if file not in self.parsed:
                data = self.load.files.get(file, b"")
                self.parsed[file] = declarations(parse(data), data)
            for decl in self.parsed[file]:
                if decl.specs:
                    for spec in decl.specs:
                        yield from ((n, file, spec.start, spec.end, decl.kind) for n in spec.names)
                else:
                    yield from ((n, file, decl.start, decl.end, decl.kind) for n in decl.names)

    def find(self, query: str, packages: list[Package]) -> list[str]:
        wanted = query.split(".")
        found = []
        for package in packages:
            for name, file, start, end, _ in self.declarations(package):
                have = name.split(".")
                if len(have) == len(wanted) and all(map(_same, wanted, have)):
                    found.append(self.render(package, name, file, start, end))
        return found

    def render(self, package: Package, name: str, file: str, start: int, end: int) -> str:
        data = self.load.files.get(file, b"")
        text = data[start:end].decode("utf-8", "replace")
        line = data[:start].count(b"\n") + 1 + text[: len(text) - len(code_of(text))].count("\n")
        display = self.load.shown(file)
        title = f"{package.path}.{name}"
        if not text.endswith("\n"):
            text += "\n"
        return f"``` begin of source {title} {display}:{line}\n{text}``` end of source {title}\n\n"

    def package_docs(self, symbol: str) -> list[str]:
        exact = [p for p in self.packages if p.path == symbol]
        chosen = exact or [p for p in self.packages if p.name == symbol]
        texts = []
        for package in chosen:
            focus = package.path in self.load.focus
            try:
                doc = self.load.doc(("-all", "-cmd", *(("-u",) if focus else ())), package.path)
            except ContextError as error:
                doc = f"(go doc failed: {error})\n"
            texts.append(unit_block("source package", package.path, doc))
        return texts

    def resolve(self, symbol: str) -> str:
        found = self.package_docs(symbol)
        if found:
            return "".join(found)
        clean = re.sub(r"\[[^\]]*\]", "", symbol.replace("*", "")).strip("().")
        best = ""
        for package in self.packages:
            for alias in _aliases(package):
                if len(alias) > len(best) and clean.startswith(alias + "."):
                    best = alias
        if best:
            owners = [p for p in self.packages if best in set(_aliases(p))]
            found = self.find(clean[len(best) + 1 :], owners)
        if not found and clean.count(".") <= 1:
            found = self.find(clean, self.packages)
        return "".join(found) or self.not_found(symbol, clean)

    def not_found(self, symbol: str, clean: str) -> str:
        known = sorted(
            {f"{p.name}.{name}" for p in self.packages for name, *_ in self.declarations(p)}
        )
        tail = clean.rsplit(".", 1)[-1].lower()
        close = difflib.get_close_matches(clean, known, n=5, cutoff=0.5)
        close += [k for k in known if k.rsplit(".", 1)[-1].lower() == tail and k not in close]
        hint = f" Closest symbols: {', '.join(close[:8])}." if close else ""
        return f"Symbol {symbol} was not found in the loaded packages.{hint}\n\n"


def requested_source(load_or_error: Load | ContextError, symbols: list[str]) -> str:
    """The feedback of a go-src block naming ``symbols`` (not empty)."""
    if isinstance(load_or_error, ContextError):
        return (
            f"{HEADER}Info: the Go packages could not be loaded, so no symbol was looked up "
            f"({load_or_error}).\n"
        )
    resolver = _Resolver(load_or_error)
    blocks = [resolver.resolve(symbol) for symbol in dict.fromkeys(symbols)]
    return HEADER + "".join(dict.fromkeys(blocks))  # two names of one source: sent once
