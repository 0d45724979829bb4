"""A module's outline at a level, rendered from its summary (:mod:`._summary`).

The outline reads as a stub file: decorators, ``class``/``def`` lines with full signatures,
docstrings indented under them, module- and class-level assignments; no function bodies.
Three shapes serve the levels of :mod:`tai_staging`:

- ``full``: every declaration with its whole docstring (a focus module at full
  documentation shows private names too, as ``go doc -u`` does; a context module at
  documentation shows public ones);
- ``brief``: every declaration with the first line of its docstring (the focus level
  "package documentation", the context level "short documentation");
- ``short``: the first paragraph of the module docstring and the top-level public
  declarations' signature lines.

``full`` and ``brief`` show the module-level imports as written (what the names in the
signatures refer to; a package's re-exports). The module docstring is the module's theory
and is kept whole in ``full`` and ``brief``;
so are theory constants (``THEORY_…`` assignments), whose whole source is shown.
"""

from __future__ import annotations

from tai_python._summary import Decl, Summary

FULL, BRIEF, SHORT = "full", "brief", "short"
_INDENT = "    "


def _public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def _quoted(text: str, indent: str) -> list[str]:
    lines = text.splitlines() or [""]
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    body = [f"{indent}{line}" if line else "" for line in lines[1:]]
    return [f'{indent}"""{lines[0]}', *body, f'{indent}"""']


def _first_line(text: str | None) -> str | None:
    lines = (text or "").strip().splitlines()  # a docstring may be blank lines only
    return lines[0] if lines else None


def _decl_lines(decl: Decl, indent: str, shape: str, private: bool, out: list[str]) -> None:
    """Add the lines of one declaration to ``out``; assignments only when public (or theory
    constants), other private declarations only when ``private``."""
    kind = decl["kind"]
    if not (private and kind != "var") and not decl.get("theory") and not _public(decl["name"]):
        return
    if kind == "var":
        out += [indent + line for line in decl["sig"].splitlines()]
        return
    decorators = decl.get("decorators")
    if decorators:
        out += [indent + decorator for decorator in decorators]
    out.append(indent + decl["sig"])
    inner = indent + _INDENT
    doc = decl.get("doc")
    if doc and shape != FULL:
        doc = _first_line(doc)
    start = len(out)
    if doc:
        out += _quoted(doc, inner)
    for child in decl.get("children") or ():
        _decl_lines(child, inner, shape, private, out)
    if len(out) == start:
        out.append(inner + "...")


def render(summary: Summary, shape: str, private: bool) -> str:
    """The outline of a module's ``summary`` in ``shape`` (``full``, ``brief`` or
    ``short``), with private names when ``private``; empty for a module that did not
    parse (its error is shown by the caller)."""
    if "error" in summary:
        return ""
    lines: list[str] = []
    doc = summary.get("doc")
    if shape == SHORT:
        if doc:
            lines += _quoted(doc.split("\n\n", 1)[0], "")
        for decl in summary["decls"]:
            if _public(decl["name"]) and decl["kind"] != "var":
                lines.append(decl["sig"].removesuffix(":"))
        return "\n".join(lines) + "\n" if lines else ""
    if doc:
        lines += [*_quoted(doc, ""), ""]
    if summary.get("import_lines"):
        lines += [*summary["import_lines"], ""]
    if summary.get("all"):
        lines += [summary["all"], ""]
    for decl in summary["decls"]:
        block: list[str] = []
        _decl_lines(decl, "", shape, private, block)
        if block and decl["kind"] != "var":
            lines += [*([""] if lines and lines[-1] else []), *block, ""]
        else:
            lines += block
    return "\n".join(lines).rstrip("\n") + "\n" if lines else ""
