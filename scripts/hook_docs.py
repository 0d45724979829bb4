"""Write (or, with --check, verify) docs/plugin-hooks.md from the hook specifications.

The reference is generated from hookspecs.py so the docs and the code cannot drift; the
test suite runs the --check form.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from _generated import write_or_check

from tai_core import hookspecs

DOC = Path(__file__).resolve().parent.parent / "docs" / "plugin-hooks.md"

INTRO = """\
# tai plugin hooks

Generated from `tai_core/src/tai_core/hookspecs.py` by `scripts/hook_docs.py`; do not edit
by hand. A plugin implements hooks with the `tai_core.hookimpl` marker and is registered
under the entry-point group `tai` (see CONTRIBUTING.md). An implementation may accept
fewer arguments than listed.
"""


def hook_names() -> list[str]:
    """Every hook specification, in the order of the source file."""
    functions = inspect.getmembers(hookspecs, inspect.isfunction)
    specs = [(name, fn) for name, fn in functions if name.startswith("tai_")]
    return [name for name, fn in sorted(specs, key=lambda item: item[1].__code__.co_firstlineno)]


def signature(name: str) -> str:
    """``name(arg, arg)`` as the heading shows it."""
    params = inspect.signature(getattr(hookspecs, name)).parameters
    return f"{name}({', '.join(params)})"


def render() -> str:
    sections = [INTRO]
    for name in hook_names():
        function = getattr(hookspecs, name)
        options = getattr(function, "tai_spec", {})
        flags = [flag for flag in ("firstresult", "historic") if options.get(flag)]
        doc = inspect.cleandoc(function.__doc__ or "")
        sections.append(
            f"## {signature(name)}\n\n"
            + (f"*{', '.join(flags)}*\n\n" if flags else "")
            + doc
            + "\n"
        )
    return "\n".join(sections)


def main() -> int:
    return write_or_check(DOC, render, "hook_docs.py", __doc__ or "")


if __name__ == "__main__":
    raise SystemExit(main())
