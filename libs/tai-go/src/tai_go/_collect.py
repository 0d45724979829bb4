"""``collect``: from a load to the tiered parts of the first request (reference 5.2-5.5).

Files the load withheld as secrets are named in withheld parts (the prompt's closing
list); a package with a withheld Go file shows a note instead of its ``go doc`` text
(:meth:`~tai_go._load.Load.doc`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import tai_staging as staged
from tai_core.context import (
    TIER_CONTEXT,
    TIER_EXTERNAL,
    TIER_FILES,
    TIER_FOCUS,
    ContextError,
    ContextPart,
    ContextRequest,
    SelectionError,
    matches,
    withheld,
)
from tai_core.progress import Progress
from tai_go._load import Load, Package, load, names_nothing
from tai_go._render import focus_outline, problems_block
from tai_go._select import (
    CONTEXT,
    DIRECT_IMPORT,
    FOCUS,
    OTHER_MODULE,
    SAME_MODULE,
    STDLIB,
    excluded,
    hidden,
)
from tai_staging import (
    UNREACHED,
    Language,
    Staging,
    distances,
    file_block,
    git_counts,
    hint_part,
    sort_key,
    unit_block,
)

#: The ``go doc`` flags of each documentation level of a focus package.
FOCUS_FLAGS = {
    staged.FOCUS_FULL: ("-all", "-cmd", "-u"), staged.FOCUS_PACKAGE: ("-cmd", "-u"),
    staged.FOCUS_SHORT: ("-cmd",),
}  # fmt: skip
#: How the window rule speaks of Go.
GO = Language(
    key="go", name="Go", unit="package", focus_names=staged.FOCUS_NAMES,
    fetch_hint=(
        "A go-src block naming a package's import path returns its full documentation; "
        "naming a declaration returns its source.\n"
    ),
    narrow="-pkg PATTERN, or go.load_patterns in tai.toml",
)  # fmt: skip

_MINIMUM = {
    FOCUS: staged.DOC, CONTEXT: staged.CODE, SAME_MODULE: staged.DOC,
    DIRECT_IMPORT: staged.DOC, STDLIB: staged.INVISIBLE, OTHER_MODULE: staged.INVISIBLE,
}  # fmt: skip


class _Docs:
    """``go doc`` of the load's packages, computed once each, failures as ``None``; the
    misses of one collection all go to one documentation helper process, and a prefetch
    returns at once (the texts are waited for when first read)."""

    def __init__(self, loaded: Load, progress: Progress) -> None:
        self.load = loaded
        self.progress = progress
        self.texts: dict[tuple[str, ...], str | None] = {}
        self.errors: dict[tuple[str, ...], str] = {}
        self.pending: dict[tuple[str, ...], Future[str | ContextError]] = {}
        self.helper = loaded.helper()

    def get(self, path: str, *flags: str) -> str | None:
        key = (path, *flags)
        if key not in self.texts:
            if key not in self.pending:
                self.prefetch([key])
            result = self.pending.pop(key).result()
            if isinstance(result, ContextError):
                self.texts[key], self.errors[key] = None, str(result)
            else:
                self.texts[key] = result
        return self.texts[key]

    def prefetch(self, jobs: list[tuple[str, ...]]) -> None:
        wanted = [j for j in dict.fromkeys(jobs) if j not in self.texts and j not in self.pending]
        futures = self.load.request_docs([(job[1:], job[0]) for job in wanted], self.helper)
        for future in futures:
            future.add_done_callback(lambda _: self.progress.count("packages documented"))
        self.pending.update(zip(wanted, futures, strict=True))

    def close(self) -> None:
        self.helper.close()


class _Context(Staging):
    """One collection: the load, the request's filters and what was decided so far."""

    def __init__(
        self,
        request: ContextRequest,
        loaded: Load,
        changes: Mapping[str, int],
        progress: Progress,
    ) -> None:
        super().__init__()
        self.request = request
        self.load = loaded
        go_config = request.config.get("go") or {}
        self.hidden = tuple(go_config.get("hidden", ()))
        self.expressions = request.match_expressions()
        explicit = (*loaded.focus, *loaded.context)
        self.distance = distances(loaded.packages, loaded.focus)
        self.packages = self._reachable(explicit)
        request.check_matched(
            (f for p in self.packages.values() for f in (*p.go_files, *p.test_files,
                                                          *p.other_files)), self.keep,
        )  # fmt: skip
        #: What the focus packages import, once (``category`` asks it of every package).
        self.direct = frozenset(
            path for f in loaded.focus if f in self.packages for path in self.packages[f].imports
        )
        self.changes = {
            p.path: sum(changes.get(f, 0) for f in (*p.go_files, *p.test_files, *p.other_files))
            for p in self.packages.values()
        }
        self.docs = _Docs(loaded, progress)

    def _reachable(self, explicit: tuple[str, ...]) -> dict[str, Package]:
        packages = self.load.packages
        found = {}
        for path in distances(packages, explicit):
            package = packages.get(path)
            if package is None or hidden(path, self.hidden):
                continue
            if not package.standard or path in explicit:
                found[path] = package
        return found

    def keep(self, file: str) -> bool:
        return not excluded(file, self.load.dir, self.request.ignore) and matches(
            file, self.expressions
        )

    def display(self, file: str | Path) -> str:
        return self.load.shown(file)

    def category(self, package: Package) -> int:
        if package.path in self.load.focus:
            return FOCUS
        if package.path in self.load.context:
            return CONTEXT
        if self.root(package):
            return SAME_MODULE
        if package.path in self.direct:
            return DIRECT_IMPORT
        return STDLIB if package.standard else OTHER_MODULE

    def root(self, package: Package) -> bool:
        return package.module_dir is not None and package.module_dir in self.load.module_roots

    def tier(self, package: Package) -> int:
        if not self.root(package):
            return TIER_EXTERNAL
        return TIER_FOCUS if package.path in self.load.focus else TIER_CONTEXT

    def key(self, package: Package, file: str = "") -> str:
        changes = self.changes.get(package.path, 0) if self.root(package) else 0
        is_go = not file or file.endswith(".go")
        distance = self.distance.get(package.path, UNREACHED)
        return sort_key(changes, is_go, distance, package.path, file)

    def read_only(self, file: str | Path) -> bool:
        return not self.request.is_writable(Path(file))

    def file_parts(self, package: Package, level: int) -> list[ContextPart]:
        role = "focus file" if package.path in self.load.focus else "context file"
        files = list(package.go_files)
        if level == staged.ALL:  # test files of other modules are never sent whole
            files += [*(package.test_files if self.root(package) else ()), *package.other_files]
        parts = []
        for file in files:
            if not self.keep(file) or file in self.load.withheld:
                continue
            read_only = self.read_only(file)
            text = file_block(role, self.display(file), self.load.files.get(file, b""), read_only)
            parts.append(
                ContextPart(
                    self.tier(package),
                    self.key(package, file),
                    text,
                    self.display(file),
                    read_only,
                )
            )
        return parts

    def doc_part(self, package: Package, level: int) -> list[ContextPart]:
        flags = ("-all", "-cmd") if level == staged.DOC else ("-cmd",)
        doc = self.docs.get(package.path, *flags)
        if not doc:
            return []
        text = unit_block("context package", package.path, doc)
        return [ContextPart(self.tier(package), self.key(package), text, str(package.dir))]

    def parts_at(self, package: Package, level: int) -> list[ContextPart]:
        if level in (staged.SHORT_DOC, staged.DOC):
            return self.doc_part(package, level)
        return self.file_parts(package, level) if level else []

    def focus_parts(self, package: Package, level: int) -> list[ContextPart]:
        """A focus package's parts: its files at ``FOCUS_SOURCE``, else its outline."""
        if level == staged.FOCUS_SOURCE:
            return self.file_parts(package, staged.ALL)
        return [self.focus_part(package, level)]

    def focus_part(self, package: Package, level: int) -> ContextPart:
        files = [*package.go_files, *package.test_files, *package.other_files]
        read_only = bool(files) and self.read_only(files[0])
        flags = FOCUS_FLAGS[level]
        full = level == staged.FOCUS_FULL
        reduced = "" if full else (
            f"(Shown as its {staged.FOCUS_NAMES[level]} to fit the model's window: a go-src "
            f"block naming {package.path} returns its full documentation.)\n\n"
        )  # fmt: skip
        text = focus_outline(
            package.path,
            doc=self.docs.get(package.path, *flags),
            error=self.docs.errors.get((package.path, *flags), ""),
            sources={f: self.load.files.get(f, b"") for f in package.go_files}
            if level <= staged.FOCUS_PACKAGE else {},
            tests={f: self.load.files.get(f, b"") for f in package.test_files}
            if level <= staged.FOCUS_PACKAGE else {},
            file_names=[
                self.display(f)
                for f in files
                if (f.endswith(".go") or self.keep(f)) and f not in self.load.withheld
            ],
            read_only=read_only,
            note=reduced,
        )  # fmt: skip
        shown = self.display(package.dir)
        return ContextPart(TIER_FOCUS, self.key(package), text, shown, read_only)

    def prefetch_lower(self, focus: Sequence[Package]) -> None:
        """Start the focus packages' lower documentation levels, in one batch."""
        self.docs.prefetch(
            [(p.path, *FOCUS_FLAGS[level]) for p in focus
             for level in (staged.FOCUS_PACKAGE, staged.FOCUS_SHORT)]
        )  # fmt: skip

    def doc_parts(self, path: str, level: int) -> list[ContextPart]:
        """A ``-doc`` package's documentation part (none when invisible)."""
        if level == staged.INVISIBLE:
            return []
        try:
            doc = self.load.doc(("-all", "-cmd"), path, self.docs.helper)
        except ContextError as error:
            if not names_nothing(str(error)):
                raise
            first = str(error).split("; ", 1)[0].removesuffix(" in any of:")
            first = first.removeprefix("go doc: ").removeprefix("doc: ")
            raise SelectionError(f"-doc {path}: {first}") from None
        text = unit_block("documentation of package", path, doc)
        return [ContextPart(TIER_FILES, f"~doc {path}", text, path)]


def _markdown_part(context: _Context) -> list[ContextPart]:
    loaded = context.load
    roots = sorted({*(r for r in loaded.module_roots if r == loaded.cwd), *loaded.workspace})
    parts = []
    for root in roots:
        names = sorted(
            path.name for path in root.iterdir()
            if path.name.lower().endswith(".md") and not path.name.startswith("_")
            and path.is_file() and context.keep(str(path))
        )  # fmt: skip
        if not names:
            continue
        listing = "".join(f"- {context.display(root / n)}\n" for n in names)
        text = unit_block(
            "module markdown files", context.display(root) if root != loaded.cwd else ".",
            f"{listing}(fetch them with ingest blocks)\n",
        )  # fmt: skip
        key = sort_key(0, False, 0, "", str(root))
        parts.append(ContextPart(TIER_CONTEXT, key, text, str(root)))
    return parts


def _withheld_parts(context: _Context) -> list[ContextPart]:
    """A withheld part for each secret file of the packages the context reaches."""
    reasons = context.load.withheld
    return [
        withheld(context.display(file), reasons[file])
        for package in context.packages.values()
        for file in package.withheld
    ]


def _problem_parts(context: _Context) -> list[ContextPart]:
    """The packages that failed to load, closing the focus tier (a fix changes nothing
    before it)."""
    problems = context.load.problems
    if not problems:
        return []
    names = ", ".join(sorted(problems)[:3]) + (" …" if len(problems) > 3 else "")
    notice = f"{len(problems)} Go package(s) failed to load and are named to the model: {names}"
    text = problems_block(problems)
    return [ContextPart(TIER_FOCUS, "~ load problems", text, "", notice=notice)]


def collect(request: ContextRequest) -> tuple[ContextPart, ...]:
    """The parts of a Go project's first request (see :mod:`tai_go`), within
    ``request.max_tokens`` when it is set (:mod:`._window`)."""
    with Progress("collecting the Go context") as progress:
        with ThreadPoolExecutor(1) as pool:
            changes = pool.submit(git_counts, request.cwd)
            loaded = load(
                request.cwd, request.focus, request.context, request.config, request.secret
            )
            progress.count("packages loaded", len(loaded.packages))
            context = _Context(request, loaded, changes.result(), progress)
        try:
            return _parts(context)
        finally:
            context.docs.close()


def _parts(context: _Context) -> tuple[ContextPart, ...]:
    request, loaded = context.request, context.load
    ordered = sorted(
        context.packages.values(),
        key=lambda p: (context.category(p), context.distance.get(p.path, UNREACHED), p.path),
    )
    focus = [p for p in ordered if p.path in loaded.focus]
    others = [p for p in ordered if p.path not in loaded.focus]
    top = staged.FOCUS_SOURCE if request.all_src else staged.FOCUS_FULL
    jobs: list[tuple[str, ...]] = (
        [] if request.all_src else [(p.path, *FOCUS_FLAGS[top]) for p in focus]
    )
    jobs += [
        (p.path, "-all", "-cmd") for p in others if _MINIMUM[context.category(p)] == staged.DOC
    ]
    context.docs.prefetch(jobs)
    parts = [
        *_markdown_part(context), *_withheld_parts(context), *_problem_parts(context),
        hint_part(loaded.cwd, "go"),
    ]  # fmt: skip
    others_ranked = [(p, _MINIMUM[context.category(p)], p.path in loaded.context) for p in others]
    return context.stage(
        parts, focus, others_ranked, docs=request.docs, top=top, limit=request.max_tokens,
        language=GO,
    )  # fmt: skip
