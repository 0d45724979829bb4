"""Python edits by declaration against generated modules: functions (async, decorated,
commented), classes with methods, attributes and nested classes, constants, strings that
span lines and docstrings.

MODIFY of any declaration with its own text — stripped, as the block parser hands a body
over, so a method loses its first line's indentation — gives the file back byte for byte;
DELETE of any declaration leaves every declaration outside it byte-identical and the file
compiling, declaring all it declared but what was deleted.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tai_changes._py_edit import edit_python
from tai_changes._py_syntax import Lines, declarations, parse, problem

NAMES = ("alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa")
BODIES = (
    "{i}    return x",
    '{i}    """Doc of {n}.\n\n{i}    More of it.\n{i}    """\n{i}    return x',
    '{i}    text = """\nraw {n}\n  kept as it is"""\n{i}    return text',
    "{i}    if x:\n{i}        return (\n{i}            x,\n{i}        )\n{i}    return None",
)


@st.composite
def functions(draw: st.DrawFn, name: str, indent: str) -> str:
    lines = []
    if draw(st.booleans()):
        lines.append(f"{indent}# About {name}.")
    if draw(st.booleans()):
        lines.append(f"{indent}@decorate")
    prefix = "async " if draw(st.booleans()) else ""
    lines.append(f"{indent}{prefix}def {name}(x):")
    lines.append(draw(st.sampled_from(BODIES)).format(i=indent, n=name))
    return "\n".join(lines)


@st.composite
def classes(draw: st.DrawFn, name: str, indent: str, depth: int) -> str:
    head = [f"{indent}# The class {name}."] if draw(st.booleans()) else []
    head += [f"{indent}class {name.title()}:", f'{indent}    """A {name}."""']
    members = []
    for member in draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3)):
        kind = draw(st.sampled_from(["method", "attribute", "class"] if depth else ["method"]))
        if kind == "method":
            members.append(draw(functions(member, indent + "    ")))
        elif kind == "attribute":
            members.append(f"{indent}    {member}: int = {len(member)}")
        else:
            members.append(draw(classes(member, indent + "    ", depth - 1)))
    return "\n".join(head) + "".join(f"\n\n{member}" for member in members)


@st.composite
def modules(draw: st.DrawFn) -> str:
    items = []
    for name in draw(st.lists(st.sampled_from(NAMES), unique=True, min_size=1, max_size=4)):
        kind = draw(st.sampled_from(["function", "class", "constant"]))
        if kind == "function":
            items.append(draw(functions(name, "")))
        elif kind == "class":
            items.append(draw(classes(name, "", 1)))
        else:
            items.append(f"{name.upper()} = {{'{name}': 1}}")
    head = '"""A generated module."""\n\nimport os\n\n\n' if draw(st.booleans()) else ""
    return head + "\n\n\n".join(items) + "\n"


def declared(source: str) -> dict[str, str]:
    """Each declaration's first name and its text."""
    data = source.encode()
    return {
        decl.names[0]: data[decl.start : decl.end].decode()
        for decl in declarations(parse(data), Lines(data))
    }


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(modules())
def test_modify_with_its_own_text_is_the_identity(source: str) -> None:
    assert problem(source.encode()) is None, source
    for name, text in declared(source).items():
        assert edit_python(source, "MODIFY", name, text.strip(), "mod.py") == source, name


@settings(max_examples=150, deadline=None)
@given(modules(), st.data())
def test_delete_leaves_the_rest_byte_identical(source: str, data: st.DataObject) -> None:
    before = declared(source)
    gone = data.draw(st.sampled_from(sorted(before)))
    result = edit_python(source, "DELETE", gone, "", "mod.py")
    assert problem(result.encode()) is None, result
    after = declared(result)
    inside = {name for name in before if name == gone or name.startswith(gone + ".")}
    assert set(after) == set(before) - inside
    outside = [name for name in before if not gone.startswith(name + ".")]
    for name in outside:
        if name not in inside:
            assert after[name] == before[name], name
