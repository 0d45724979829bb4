"""Go change operations on declarations: MODIFY, ADD_BEFORE, ADD_AFTER and DELETE.

Each operation is a function of the file's text, the target and the body to the new text;
it finds declarations through the syntax tree (never by pattern-matching the source),
splices whole lines, and accepts its result only if it is valid Go. Formatting is not done
here: the result is formatted once per round, when the round's changes are finished (see
:mod:`tai_changes._format`), so a reply's later blocks see the earlier ones'
declarations and imports exactly as written.

Where the original tool silently did nothing — a MODIFY or DELETE whose target does not
exist — the operation fails and names the closest names the file does declare.
"""

from __future__ import annotations

from tai_changes._decl import ADD_OPS, EditError, not_found
from tai_changes._go_body import Body, body_problem, read_body
from tai_changes._go_header import merge_imports, modify_imports, modify_package
from tai_changes._go_syntax import (
    Decl,
    Spec,
    declarations,
    first_problem,
    header_end,
    parse,
    spec_nodes,
)
from tai_changes._splice import (
    append_text,
    cut,
    decode,
    encode,
    insert_after,
    splice,
)

_KEYWORDS = ("func ", "type ", "const ", "var ")
#: Names Go lets a file declare many times: never "the existing declaration" of a body.
REPEATABLE = frozenset({"init", "_"})


def valid_go(data: bytes) -> str:
    """``data`` with exactly one trailing newline, if it is a valid Go file."""
    data = data.rstrip() + b"\n"
    problem = first_problem(parse(data), data)
    if problem is not None:
        raise EditError(f"the result is not valid Go ({problem})", modified=decode(data))
    return decode(data)


def target_key(target: str) -> str:
    """The name a target denotes: ``T.M`` for ``*T.M``, ``(*T).M`` or ``T[K].M``; a leading
    keyword (``func F``) is dropped."""
    key = target.strip()
    for keyword in _KEYWORDS:
        if key.startswith(keyword):
            key = key[len(keyword) :].strip()
    if "." in key:
        receiver, _, name = key.rpartition(".")
        receiver = receiver.replace("(", "").replace(")", "").replace("*", "").strip()
        key = f"{receiver.split('[')[0].strip()}.{name.strip()}"
    return key


def _matches(decls: list[Decl], key: str) -> list[tuple[Decl, Spec | None]]:
    """The declarations named ``key``, with the spec that names it inside a group."""
    found = []
    for decl in decls:
        if decl.kind in ("package", "import") or key not in decl.names:
            continue
        spec = None
        if decl.grouped and len(decl.specs) > 1:
            spec = next(spec for spec in decl.specs if key in spec.names)
        found.append((decl, spec))
    return found


def _choose(matches: list[tuple[Decl, Spec | None]], body: Body | None) -> tuple[Decl, Spec | None]:
    """The match whose kind is the body's, else the first."""
    if body is not None and body.entities:
        kind = body.entities[0].kind
        for match in matches:
            if match[0].kind == kind:
                return match
    return matches[0]


def _not_found(key: str, decls: list[Decl]) -> EditError:
    names = [n for decl in decls if decl.kind not in ("package", "import") for n in decl.names]
    return not_found(key, names)


def _replace(data: bytes, decl: Decl, spec: Spec | None, body: Body) -> bytes:
    """Put ``body`` in the place of ``decl`` (or of its ``spec`` inside a group), then
    delete other declarations of the names the body declares."""
    entity = body.entities[0] if len(body.entities) == 1 else None
    if spec is not None and entity is not None and entity.kind == decl.kind and entity.spec:
        text = entity.spec + b"\n"
        out = splice(data, spec.start, spec.end, text)
        inserted = (spec.start, spec.start + len(text))
    elif spec is not None:
        # The body replaces one spec of a group by something else: the spec leaves the
        # group and the body follows the group.
        out = cut(data, spec.start, spec.end)
        out, start = insert_after(out, decl.end - (len(data) - len(out)), body.text)
        inserted = (start, start + len(body.text))
    else:
        text = body.text + b"\n"
        out = splice(data, decl.start, decl.end, text)
        inserted = (decl.start, decl.start + len(text))
    return _dedupe(out, inserted, set(body.names))


def _dedupe(data: bytes, inserted: tuple[int, int], names: set[str]) -> bytes:
    """``data`` without the declarations of ``names`` outside the ``inserted`` range."""
    low, high = inserted
    names = names - REPEATABLE

    def outside(start: int, end: int) -> bool:
        return end <= low or start >= high

    def doomed(span: Decl | Spec) -> bool:
        return bool(span.names) and set(span.names) <= names and outside(span.start, span.end)

    cuts = []
    for decl in declarations(parse(data), data):
        if decl.kind in ("package", "import"):
            continue
        if decl.grouped and len(decl.specs) > 1:
            specs = [spec for spec in decl.specs if doomed(spec)]
            if len(specs) == len(decl.specs) and outside(decl.start, decl.end):
                cuts.append((decl.start, decl.end))
            else:
                cuts.extend((spec.start, spec.end) for spec in specs)
        elif doomed(decl):
            cuts.append((decl.start, decl.end))
    for start, end in sorted(cuts, reverse=True):
        data = cut(data, start, end)
    return data


def _read_or_fail(body: str, prefer: str | None) -> Body:
    parsed = read_body(body, prefer)
    if parsed is None:
        raise EditError(f"the body is not Go declarations ({body_problem(body)})")
    return parsed


def _is_string(decl: Decl, key: str) -> bool:
    """Whether the value of ``key`` in ``decl`` is a string literal."""
    for spec in spec_nodes(decl.node) if decl.node is not None else ():
        names = [name.text for name in spec.children_by_field_name("name")]
        value = spec.child_by_field_name("value")
        if encode(key) in names and value is not None and value.named_children:
            return value.named_children[0].type.endswith("string_literal")
    return False


def _value_body(decl: Decl, key: str, body: str) -> Body | None:
    """For a MODIFY of a constant or variable whose body is only the new value; an unquoted
    new value of a string constant is quoted with backquotes."""
    if decl.kind not in ("const", "var"):
        return None
    value = body.strip()
    if (
        decl.kind == "const"
        and _is_string(decl, key)
        and not value.startswith(('"', "`"))
        and "`" not in value
    ):
        value = f"`{value}`"
    parsed = read_body(f"{decl.kind} {key} = {value}", decl.kind)
    return parsed if parsed is not None and parsed.names == (key,) else None


def _edge(data: bytes, op: str, target: str, body: str) -> bytes:
    """ADD_BEFORE/ADD_AFTER of ``BEGIN`` (after the package clause and imports; a body of
    comments only goes before everything with ADD_BEFORE) or ``END`` (the end)."""
    parsed = _read_or_fail(body, None)
    decls = declarations(parse(data), data)
    for name in parsed.names:
        matches = [] if name in REPEATABLE else _matches(decls, name)
        if matches:
            return merge_imports(_replace(data, *_choose(matches, parsed), parsed), parsed.imports)
    if target == "END":
        out = append_text(data, parsed.text)
    elif op == "ADD_BEFORE" and not parsed.entities:
        out = parsed.text + b"\n\n" + data
    else:
        out = insert_after(data, header_end(decls), parsed.text)[0]
    return merge_imports(out, parsed.imports)


def _decl_op(data: bytes, op: str, target: str, body: str) -> bytes:
    decls = declarations(parse(data), data)
    key = target_key(target)
    matches = _matches(decls, key)
    if key in REPEATABLE and len(matches) > 1 and op in ("MODIFY", "DELETE"):
        raise EditError(
            f"the file declares {key} {len(matches)} times, so the target is ambiguous; "
            "use WRITE for the whole file"
        )
    if op == "DELETE":
        if not matches:
            raise _not_found(key, decls)
        decl, spec = matches[0]
        span = spec or decl
        if len(span.names) > 1:
            others = ", ".join(n for n in span.names if n != key)
            raise EditError(
                f"{key} is declared in one spec with {others}; MODIFY that spec instead"
            )
        return cut(data, span.start, span.end)
    prefer = matches[0][0].kind if matches else None
    parsed = read_body(body, prefer)
    if op == "MODIFY":
        if not matches:
            raise _not_found(key, decls)
        if parsed is None or key not in parsed.names:
            parsed = _value_body(matches[0][0], key, body) or parsed
        if parsed is None:
            raise EditError(f"the body is not Go declarations ({body_problem(body)})")
        return merge_imports(_replace(data, *_choose(matches, parsed), parsed), parsed.imports)
    parsed = parsed or _read_or_fail(body, prefer)
    for name in parsed.names:
        existing = [] if name in REPEATABLE else _matches(decls, name)
        if existing:
            out = _replace(data, *_choose(existing, parsed), parsed)
            return merge_imports(out, parsed.imports)
    if not matches:
        out = append_text(data, parsed.text)
    elif op == "ADD_BEFORE":
        start = _choose(matches, parsed)[0].start
        out = splice(data, start, start, parsed.text + b"\n\n")
    else:
        out = insert_after(data, _choose(matches, parsed)[0].end, parsed.text)[0]
    return merge_imports(out, parsed.imports)


def edit_go(source: str | None, op: str, target: str, body: str) -> str:
    """The text of a Go file after ``op`` on ``target`` with ``body``.

    ``source`` is ``None`` when the file does not exist: only an ADD_* whose body is a whole
    file (with its package clause) creates it. Raises :class:`EditError`.
    """
    target = target.strip()
    if source is None:
        if op in ADD_OPS:
            parsed = read_body(body)
            if parsed is not None and parsed.package is not None:
                return valid_go(encode(body))
        raise EditError(
            "the file does not exist; create it with WRITE (a whole file, package clause first)"
        )
    data = encode(source)
    special = target.lower()
    if special in ("package", "import"):
        if op != "MODIFY":
            raise EditError(f"target {target} only supports MODIFY")
        out = modify_package(data, body) if special == "package" else modify_imports(data, body)
    elif target in ("BEGIN", "END"):
        if op not in ADD_OPS:
            raise EditError(f"target {target} only supports ADD_BEFORE and ADD_AFTER")
        out = _edge(data, op, target, body)
    else:
        out = _decl_op(data, op, target, body)
    return valid_go(out)
