"""Write (or, with --check, verify) docs/plugin-hooks.md from the hook specifications.

The reference is generated from hookspecs.py so the docs and the code cannot drift; the
test suite runs the --check form.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

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
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if the file is stale")
    args = parser.parse_args()
    text = render()
    if args.check:
        if not DOC.exists() or DOC.read_text(encoding="utf-8") != text:
            print(f"{DOC} is out of date: run python scripts/hook_docs.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
