"""The header of a Go file: its package clause and its imports.

``MODIFY package`` renames the package; ``MODIFY import`` replaces every import
declaration by the body (wrapped in ``import (…)`` when the keyword is missing, placed after
the package clause in a file without imports; an empty body removes them all, and
goimports adds back what the code uses) — except ``import "C"``, whose comment is the cgo
preamble and part of the build. A body that is a whole file brings its imports along:
the ones the file lacks are added.
"""

from __future__ import annotations

from tai_changes._decl import EditError
from tai_changes._go_syntax import (
    Decl,
    declarations,
    header_end,
    import_specs,
    package_clause,
    parse,
)
from tai_changes._splice import cut, encode, insert_after, splice


def modify_package(data: bytes, body: str) -> bytes:
    """The package clause renamed to the body's ``package NAME`` or ``NAME``."""
    name = body.strip().removeprefix("package").strip()
    if not name.isidentifier():
        raise EditError("the body of MODIFY package must be `package NAME` or `NAME`")
    clause = package_clause(parse(data))
    if clause is None:
        raise EditError("the file has no package clause to modify")
    ident = clause.named_children[-1]
    return splice(data, ident.start_byte, ident.end_byte, encode(name))


def _is_cgo(decl: Decl) -> bool:
    """``import "C"`` with its preamble: part of the cgo build, never replaced."""
    return decl.node is not None and any(
        (spec.text or b"").strip() == b'"C"' for spec in import_specs(decl.node)
    )


def modify_imports(data: bytes, body: str) -> bytes:
    """All import declarations (but cgo's) replaced by the body; an empty body removes them."""
    tree = parse(data)
    imports = [d for d in declarations(tree, data) if d.kind == "import" and not _is_cgo(d)]
    out = data
    for decl in reversed(imports):
        out = cut(out, decl.start, decl.end)
    text = encode(body.strip())
    if not text:
        return out
    if not text.startswith(b"import"):
        text = b"import " + text if b"\n" not in text else b"import (\n" + text + b"\n)"
    if imports:
        return splice(out, imports[0].start, imports[0].start, text + b"\n\n")
    clause = package_clause(tree)
    end = 0 if clause is None else data.find(b"\n", clause.end_byte)
    end = len(data) if end < 0 else end + 1
    return insert_after(out, end, text)[0]


def merge_imports(data: bytes, specs: tuple[bytes, ...]) -> bytes:
    """``data`` importing also the import ``specs`` it lacks (from a whole-file body)."""
    if not specs:
        return data
    tree = parse(data)
    decls = declarations(tree, data)
    present = {
        spec.text or b""
        for decl in decls
        if decl.kind == "import" and decl.node is not None
        for spec in import_specs(decl.node)
    }
    missing = [spec for spec in specs if spec not in present]
    if not missing:
        return data
    if len(missing) == 1:
        block = b"import " + missing[0]
    else:
        block = b"import (\n" + b"".join(b"\t" + spec + b"\n" for spec in missing) + b")"
    return insert_after(data, header_end(decls), block)[0]
