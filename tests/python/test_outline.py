"""The focus outline: signatures, docstrings and theory, never a function body."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tai_python._outline import BRIEF, FULL, SHORT, render
from tai_python._summary import summarize
from tests.python.conftest import collect, part_with, text_of


def test_focus_module_is_an_outline_without_bodies(basic: Path) -> None:
    parts = collect(basic)
    cart = part_with(parts, "begin of focus module shop.cart")
    text = cart.text
    assert cart.path == "src/shop/cart.py"
    assert "File: src/shop/cart.py" in text
    # docstrings, signatures with hints and defaults, decorators, bases, nested classes
    assert "THEORY: a cart never stores prices" in text
    assert "@attrs.define\nclass Cart:" in text
    assert "    def add(self, item: str, count: int = 1) -> None:" in text
    assert '        """Add ``count`` of ``item``."""' in text
    assert "    @property\n    def total(self) -> float:" in text
    assert "async def checkout(cart: Cart, *, pay: bool = True) -> str:" in text
    assert "    class Line:" in text and "        def render(self) -> str:" in text
    # public constants, theory constants whole, class attributes; no private variable
    assert "LIMIT = 100" in text
    assert 'THEORY_OF_CARTS = """A cart is a list of item names.\nPrices live elsewhere."""' in text
    assert "items: list[str] = attrs.Factory(list)" in text
    assert "_cache" not in text
    # private methods are listed in the focus (as go doc -u does); bodies never are
    assert "def _secret_helper(self) -> int:" in text
    for body in ("SECRET_BODY_MARKER", "BODY_MARKER_CHECKOUT", "self.items.extend"):
        assert body not in text_of(parts)
    # the imports as written: what the names in the signatures refer to
    assert "import json\nimport attrs\nfrom . import prices\nfrom .prices import price_of\n" in text
    assert "__future__" not in text


def test_package_all_tests_fixtures_and_other_files(basic: Path) -> None:
    parts = collect(basic)
    package = part_with(parts, "begin of focus module shop\n").text
    assert 'from shop.cart import Cart\n\n__all__ = ["Cart"]' in package  # the re-export
    tests = part_with(parts, "begin of focus module tests.test_cart").text
    assert "- test_add\n- TestTotal.test_empty\n" in tests and "helper" not in tests
    assert "Fixtures:\n- cart\n" in part_with(parts, "focus module tests.conftest").text
    files = part_with(parts, "other files of directory src/shop").text
    assert "- src/shop/data.json" in files
    project = part_with(parts, "begin of python project").text
    assert "- README.md" in project and "attrs — required as 'attrs>=23'" in project
    assert "scripts/tool.py" not in text_of(parts)  # not a package, not imported


def test_outline_is_much_smaller_than_the_source(basic: Path) -> None:
    outline = len(text_of(collect(basic)))
    full = len(text_of(collect(basic, all_src=True)))
    assert "SECRET_BODY_MARKER" in text_of(collect(basic, all_src=True))
    assert outline < full


def test_a_module_that_does_not_parse_is_named_with_the_error(basic: Path) -> None:
    (basic / "src/shop/broken.py").write_text("def f(:\n    pass\n")
    parts = collect(basic)
    assert "(does not parse: line 1:" in part_with(parts, "focus module shop.broken").text
    problems = part_with(parts, "modules that do not parse")
    assert "- shop.broken: line 1:" in problems.text
    assert problems.notice and "shop.broken" in problems.notice


def test_levels_shrink() -> None:
    source = (
        b'"""Doc.\n\nMore."""\n\nclass A(B):\n    """A long\n\n    story."""\n\n'
        b"    def m(self, x: int) -> int:\n        return x\n\ndef _p(): pass\n"
    )
    summary = summarize(source)
    full, brief, short = (render(summary, s, private=True) for s in (FULL, BRIEF, SHORT))
    assert "story." in full and "story." not in brief and '"""A long"""' in brief
    assert short == '"""Doc."""\nclass A(B)\n'
    assert "def _p():" in full and "def _p" not in render(summary, FULL, private=False)


def test_signatures_values_and_docstrings_are_as_written_on_one_line() -> None:
    source = b'''"""Module \\u00e9 doc."""
import os.path as osp
from .. import (
    sibling,  # a comment
    other as o,
)
class A(
    Base,  # the base
    metaclass=M,
):
    def m(
        self,
        a: int = 1,  # one
        *args: str,
    ) -> dict[
        str, int
    ]:
        r"""Raw \\d doc."""
        import lazy.mod
X = (
    1,
)
Y: list[int] = [
    1,
    2,
]
def g[T](x: T) -> T: ...
'''
    summary = summarize(source)
    (a, x, y, g) = summary["decls"]
    assert a["sig"] == "class A(Base, metaclass=M):"
    assert a["children"][0]["sig"] == "def m(self, a: int = 1, *args: str) -> dict[str, int]:"
    assert a["children"][0]["doc"] == "Raw \\d doc." and summary["doc"] == "Module \u00e9 doc."
    assert (x["sig"], y["sig"], x["line"]) == ("X = (1,)", "Y: list[int] = [1, 2]", 20)
    assert g["sig"] == "def g[T](x: T) -> T:"  # newer syntax than Python 3.11's
    lines = ["import os.path as osp", "from .. import sibling, other as o"]
    assert summary["import_lines"] == lines
    imports = [[0, "os.path", []], [2, "", ["sibling", "other"]], [0, "lazy.mod", []]]
    assert summary["imports"] == imports


IDENT = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)


@st.composite
def modules(draw: st.DrawFn) -> str:
    lines = []
    for name in draw(st.lists(IDENT, min_size=1, max_size=6, unique=True)):
        if draw(st.booleans()):
            lines.append(f"class C{name}(object):\n    '''doc {name}'''\n")
            lines.append(f"    def m_{name}(self, a=1, *b, **c):\n        return 'BODY{name}'\n")
        else:
            decorator = draw(st.sampled_from(["", "@staticmethod\n", "@functools.cache\n"]))
            lines.append(f"{decorator}def f_{name}(x: int) -> int:\n    return 'BODY{name}'\n")
    return "\n".join(lines)


@settings(max_examples=60, deadline=None)
@given(modules())
def test_no_body_ever_reaches_an_outline(source: str) -> None:
    summary = summarize(source.encode())
    for shape in (FULL, BRIEF, SHORT):
        text = render(summary, shape, private=True)
        assert "BODY" not in text
        assert render(summarize(source.encode()), shape, private=True) == text  # deterministic
    compile(render(summary, FULL, private=True), "<outline>", "exec")  # reads as a stub


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_any_bytes_give_a_summary_or_an_error(data: bytes) -> None:
    summary = summarize(data)
    assert "error" in summary or "decls" in summary
    for shape in (FULL, BRIEF, SHORT):
        render(summary, shape, private=False)


def test_a_coding_declaration_is_honoured(basic: Path) -> None:
    source = '# -*- coding: latin-1 -*-\n"""Caf\xe9 prices."""\n\ndef caf\xe9() -> str: ...\n'
    (basic / "src/shop/latin.py").write_bytes(source.encode("latin-1"))
    text = part_with(collect(basic), "begin of focus module shop.latin").text
    assert '"""Café prices."""' in text and "def café() -> str:" in text


def test_a_module_nested_deeper_than_python_allows_is_named_with_its_error() -> None:
    source = "".join("    " * i + "if x:\n" for i in range(1200)) + "    " * 1200 + "y = 1\n"
    assert summarize(source.encode()) == {"error": "line 101: too many levels of indentation"}
    default = "def f(a=" + "(" * 3000 + "1" + ")" * 3000 + ",\n    b=2): pass\n"
    assert summarize(default.encode()) == {"error": "line 1: too many nested parentheses"}


def test_a_docstring_of_blank_lines_is_no_docstring_in_a_brief_outline() -> None:
    summary = summarize(b'class A:\n    """\n        """\n\n    def m(self): ...\n')
    assert render(summary, BRIEF, private=True) == "class A:\n    def m(self):\n        ...\n"


def test_a_module_python_accepts_and_tree_sitter_does_not_keeps_what_was_recognised() -> None:
    # valid Python (inside brackets a line may be indented less), which tree-sitter-python
    # 0.25 takes for an error: the whole module lands in ERROR nodes, declarations and all
    source = (
        b"class T:\n"
        b"    def a(self):\n"
        b"            def b(self):\n"
        b"                    return 12\n"
        b"            (bar.\n"
        b"        baz(\n"
        b"        ))\n"
        b"            files().setdefault(\n"
        b"            )\n"
        b"    def test_c(self):\n"
        b'        x = """\n'
        b'            """\n'
    )
    compile(source, "<valid>", "exec")
    summary = summarize(source)
    assert [(d["name"], d["sig"]) for d in summary["decls"]] == [
        ("T", "class T:"),
        ("test_c", "def test_c(self):"),
    ]


def test_a_module_with_a_nul_byte_is_named_without_a_line(basic: Path) -> None:
    (basic / "src/shop/nul.py").write_bytes(b'def h():\n    """a\x00b"""\n')
    text = text_of(collect(basic))
    assert "cannot be read as Python source: source code string cannot contain null" in text
    assert "line None" not in text


def test_type_alias_statements_are_outlined(basic: Path) -> None:
    """Python 3.12's ``type`` statement declares a name as an assignment does (it was
    dropped, while a generic ``def first[T]`` was kept)."""
    (basic / "src/shop/kinds.py").write_text(
        "type Prices = dict[str, float]\ntype Pair[T] = tuple[T, T]\n\n\n"
        "class Shelf:\n    type Row = list[str]\n\n    def first[T](self, x: T) -> T: ...\n"
    )
    text = part_with(collect(basic), "focus module shop.kinds").text
    assert "type Prices = dict[str, float]" in text and "type Pair[T] = tuple[T, T]" in text
    assert "type Row = list[str]" in text and "def first[T](self, x: T) -> T" in text
