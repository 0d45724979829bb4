"""``collect``: from a load to the tiered parts of a Python project's first request.

Focus modules enter as outlines (:mod:`._outline`), test modules as the names of their
tests and fixtures, each directory of the focus with the names of its other files; the
project modules the focus imports compete for the budget at the visibility levels of
:mod:`tai_staging`; third-party imports are named with their installed versions; modules
that do not parse are named with the parser's error, closing the focus tier.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import tai_staging as staged
from tai_core.context import (
    TIER_CONTEXT,
    TIER_EXTERNAL,
    TIER_FILES,
    TIER_FOCUS,
    ContextPart,
    ContextRequest,
    matches,
    withheld,
)
from tai_core.progress import Progress
from tai_python._outline import BRIEF, FULL, SHORT, render
from tai_python._project import Load, Module, load
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

#: Module categories, in priority order, and the least level each is shown at.
FOCUS, CONTEXT, DIRECT, REACHED = range(4)
_MINIMUM = {CONTEXT: staged.CODE, DIRECT: staged.DOC, REACHED: staged.SHORT_DOC}
#: The outline shape of each focus level, and of each context documentation level.
_FOCUS_SHAPES = {staged.FOCUS_FULL: FULL, staged.FOCUS_PACKAGE: BRIEF, staged.FOCUS_SHORT: SHORT}
_CONTEXT_SHAPES = {staged.SHORT_DOC: SHORT, staged.DOC: FULL}
FOCUS_NAMES = ("source", "full outline", "brief outline", "short outline")
#: How the window rule speaks of Python.
PY = Language(
    key="py", name="Python", unit="module", focus_names=FOCUS_NAMES,
    fetch_hint=(
        "A py-src block naming a module returns its source; naming a class, function or "
        "method returns that declaration's source.\n"
    ),
    narrow="-pkg MODULE or -pkg DIRECTORY, or focus in tai.toml",
)  # fmt: skip


def _names(title: str, names: Sequence[str]) -> str:
    return f"\n{title}\n" + "".join(f"- {name}\n" for name in names) if names else ""


def _fixtures(module: Module) -> list[str]:
    return [
        decl["name"]
        for decl in module.summary.get("decls", ())
        if decl["kind"] == "def" and any("fixture" in d for d in decl.get("decorators", ()))
    ]


class _Context(Staging):
    """One collection: the load, the request's filters and the token costs so far."""

    def __init__(self, request: ContextRequest, loaded: Load, changes: Mapping[str, int]) -> None:
        super().__init__()
        self.request = request
        self.load = loaded
        self.expressions = request.match_expressions()
        request.check_matched((m.file for m in loaded.modules.values()), self.keep)
        self.distance = distances(loaded.modules, (*loaded.focus, *loaded.context))
        self.changes = {name: changes.get(m.file, 0) for name, m in loaded.modules.items()}
        #: What the focus modules import, once (``category`` asks it of every module).
        self.direct = frozenset(i for f in loaded.focus for i in loaded.modules[f].imports)

    def keep(self, file: str) -> bool:
        return matches(file, self.expressions)

    def category(self, module: Module) -> int:
        if module.name in self.load.focus:
            return FOCUS
        if module.name in self.load.context:
            return CONTEXT
        return DIRECT if module.name in self.direct else REACHED

    def key(self, module: Module, file: str = "") -> str:
        distance = self.distance.get(module.name, UNREACHED)
        unit = module.name.replace(".", "/")
        return sort_key(self.changes.get(module.name, 0), not file, distance, unit, file)

    def read_only(self, file: str | Path) -> bool:
        return not self.request.is_writable(Path(file))

    def source_part(self, module: Module, role: str, tier: int) -> list[ContextPart]:
        shown = self.load.shown(module.file)
        if not self.keep(module.file) or module.file not in self.load.files:
            return []
        read_only = self.read_only(module.file)
        text = file_block(role, shown, self.load.files[module.file], read_only)
        return [ContextPart(tier, self.key(module, shown), text, shown, read_only)]

    def focus_parts(self, module: Module, level: int) -> list[ContextPart]:
        """A focus module's part: its source at ``FOCUS_SOURCE``, else its outline."""
        if level == staged.FOCUS_SOURCE:
            return self.source_part(module, "focus file", TIER_FOCUS)
        if not self.keep(module.file):
            return []
        shown = self.load.shown(module.file)
        read_only = self.read_only(module.file)
        body = (
            "" if level == staged.FOCUS_FULL
            else f"(Shown as its {FOCUS_NAMES[level]} to fit the model's window: a py-src "
            f"block naming {module.name} returns its source.)\n"
        ) + f"File: {shown}\n"  # fmt: skip
        error = module.summary.get("error")
        if error:
            body += f"\n(does not parse: {error}; read the file with an ingest block)\n"
        elif module.test:
            summary = module.summary
            doc = (summary.get("doc") or "").split("\n\n", 1)[0]
            body += (
                (f"\n{doc}\n" if doc else "")
                + _names(
                    "Tests (fetch one with a py-src block naming MODULE.TEST):",
                    summary.get("tests", ()),
                )
                + _names("Fixtures:", _fixtures(module))
            )
        else:
            outline = render(module.summary, _FOCUS_SHAPES[level], private=True)
            body += f"\n{outline}" if outline else ""
        text = unit_block("focus module", module.name, body, read_only)
        return [ContextPart(TIER_FOCUS, self.key(module), text, shown, read_only)]

    def parts_at(self, module: Module, level: int) -> list[ContextPart]:
        """A context module's part at a visibility level."""
        if level == staged.INVISIBLE or (module.summary.get("error") and level < staged.CODE):
            return []
        if level >= staged.CODE:
            return self.source_part(module, "context file", TIER_CONTEXT)
        outline = render(module.summary, _CONTEXT_SHAPES[level], private=False)
        shown = self.load.shown(module.file)
        text = unit_block("context module", module.name, f"File: {shown}\n\n{outline}")
        return [ContextPart(TIER_CONTEXT, self.key(module), text, shown)]

    def doc_parts(self, path: str, level: int) -> list[ContextPart]:
        """A ``-doc`` module's outline (none when invisible)."""
        module = self.load.modules.get(path)
        if level == staged.INVISIBLE or module is None:
            return []
        text = unit_block("documentation of module", path, render(module.summary, FULL, False))
        return [ContextPart(TIER_FILES, f"~doc {path}", text, path)]


def _directory_parts(context: _Context) -> list[ContextPart]:
    """For each directory of the focus, the names of its other files (for ``ingest``)."""
    loaded = context.load
    directories = sorted({loaded.modules[name].directory for name in loaded.focus})
    parts = []
    for directory in directories:
        names = [
            loaded.shown(f) for f in loaded.other_files.get(directory, ())
            if f not in loaded.withheld and context.keep(f)
        ]  # fmt: skip
        if not names:
            continue
        shown = loaded.shown(directory)
        text = unit_block("other files of directory", shown, _names(
            "Fetch them with ingest blocks:", names).lstrip("\n"))  # fmt: skip
        key = sort_key(0, False, 0, shown, "")
        parts.append(ContextPart(TIER_FOCUS, key, text, shown))
    return parts


def _outside_focus(loaded: Load, keep: Callable[[str], bool]) -> tuple[list[str], list[str]]:
    """The project's files the focus parts do not name: those at the root, and each
    shallowest directory holding no focus module with how many files it holds."""
    files = [(d, f) for d, found in loaded.other_files.items() for f in found]
    files += [(module.directory, module.file) for module in loaded.modules.values()]
    root = str(loaded.root)
    beside = {loaded.modules[name].directory for name in loaded.focus}
    inside = beside | {str(parent) for d in beside for parent in Path(d).parents}
    counts: dict[str, int] = {}
    at_root = []
    for folder, file in files:
        if file in loaded.withheld or not keep(file):
            continue
        if folder in beside and file in loaded.other_files.get(folder, ()):
            continue  # named beside the focus modules (the root's too, when it holds some)
        if folder == root:
            at_root.append(loaded.shown(file))
            continue
        if folder in inside:
            continue
        directory = Path(folder)
        while str(directory.parent) not in inside and str(directory.parent) != root:
            directory = directory.parent
        counts[str(directory)] = counts.get(str(directory), 0) + 1
    listed = [
        f"{loaded.shown(d)}/ ({n} file{'s' if n > 1 else ''})" for d, n in sorted(counts.items())
    ]
    return sorted(at_root), listed


def _project_part(context: _Context) -> list[ContextPart]:
    """What the project holds beyond the focus — the files at its root, the directories
    outside the focus — and the third-party imports of the focus and context modules with
    the versions the project's environment has; a ``pyproject.toml`` that does not parse
    is said here (and on the terminal), since its requirements are then unknown."""
    loaded = context.load
    at_root, directories = _outside_focus(loaded, context.keep)
    external = sorted({
        top for name in (*loaded.focus, *loaded.context) for top in loaded.modules[name].external
    })  # fmt: skip
    body = _names("Files at the project's root (fetch them with ingest blocks):", at_root)
    body += _names(
        "Directories outside the focus (list their files with an ingest <glob> block):",
        directories,
    )
    installed = loaded.installed
    if installed.problem:
        body += f"\n{installed.problem}\n"
    if external:
        where = (
            f"versions from {installed.environment}" if installed.environment
            else "no .venv or venv at the project's root: versions unknown"
        )  # fmt: skip
        body += _names(
            f"Third-party imports of the focus ({where}):",
            [installed.describe(top) for top in external],
        )
    if not body:
        return []
    text = unit_block("python project", loaded.shown(loaded.root), body.lstrip("\n"))
    notice = installed.problem
    return [ContextPart(TIER_EXTERNAL, "py project", text, str(loaded.root), notice=notice)]


def _problem_parts(context: _Context) -> list[ContextPart]:
    """The modules the focus reaches that do not parse, closing the focus tier."""
    loaded = context.load
    broken = {
        name: loaded.modules[name].summary["error"]
        for name in context.distance
        if name in loaded.modules and "error" in loaded.modules[name].summary
    }
    if not broken:
        return []
    lines = "".join(f"- {name}: {broken[name]}\n" for name in sorted(broken))
    text = unit_block(
        "modules that do not parse", f"({len(broken)})",
        "Python's parser refuses these modules; the rest of the context is complete:\n"
        f"{lines}",
    )  # fmt: skip
    names = ", ".join(sorted(broken)[:3]) + (" …" if len(broken) > 3 else "")
    notice = f"{len(broken)} Python module(s) do not parse and are named to the model: {names}"
    return [ContextPart(TIER_FOCUS, "~ load problems", text, "", notice=notice)]


def collect(request: ContextRequest) -> tuple[ContextPart, ...]:
    """The parts of a Python project's first request (see :mod:`tai_python`), within
    ``request.max_tokens`` when it is set."""
    with Progress("collecting the Python context") as progress:
        loaded = load(
            request.cwd, focus=request.focus, context=request.context, config=request.config,
            secret=request.secret, ignore=request.ignore,
        )  # fmt: skip
        progress.count("modules loaded", len(loaded.modules))
        context = _Context(request, loaded, git_counts(request.cwd))
        return _parts(context)


def _parts(context: _Context) -> tuple[ContextPart, ...]:
    request, loaded = context.request, context.load
    modules = loaded.modules
    reached = [modules[name] for name in context.distance if name in modules]
    ordered = sorted(reached, key=lambda m: (context.category(m), context.distance[m.name], m.name))
    focus = [m for m in ordered if m.name in loaded.focus]
    others = [m for m in ordered if m.name not in loaded.focus]
    parts = [
        *_project_part(context), *_directory_parts(context), *_problem_parts(context),
        *(withheld(loaded.shown(f), why) for f, why in sorted(loaded.withheld.items())),
        hint_part(loaded.cwd, "py"),
    ]  # fmt: skip
    others_ranked = [(m, _MINIMUM[context.category(m)], m.name in loaded.context) for m in others]
    top = staged.FOCUS_SOURCE if request.all_src else staged.FOCUS_FULL
    return context.stage(
        parts, focus, others_ranked, docs=request.docs, top=top, limit=request.max_tokens,
        language=PY,
    )  # fmt: skip
