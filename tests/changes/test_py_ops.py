"""Python change operations by declaration, through the real parser (``ast``) and the store.

No configuration declares a formatter here, so every result is the text tai spliced,
compared byte for byte (formatting: ``test_py_format.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_changes import ChangeError, apply_change
from tai_changes._py_edit import edit_python
from tai_core.store import FileStore

from .conftest import block, run_round, write_files

CLASS = '''\
"""A module."""

from __future__ import annotations

import functools


class Shape:
    """A shape."""

    # The area, cached.
    @functools.cached_property
    def area(self) -> float:
        return 0.0

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    class Meta:
        def label(self) -> str:
            return "shape"


async def fetch() -> int:
    return 1
'''


def apply_py(root: Path, original: str, *blocks, name: str = "mod.py") -> str:
    """The content of ``name`` after a round of ``blocks`` over ``original``."""
    write_files(root, {name: original})
    run_round(root, *blocks)
    return (root / name).read_bytes().decode()


def fails(root: Path, original: str, change, name: str = "mod.py") -> ChangeError:
    write_files(root, {name: original})
    with pytest.raises(ChangeError) as caught:
        apply_change(FileStore.open(root), change)
    return caught.value


def test_modify_a_method_replaces_its_decorators_and_the_comments_above(tmp_path: Path) -> None:
    body = "@property\n    def area(self) -> float:\n        return 1.0"
    result = apply_py(tmp_path, CLASS, block("MODIFY", "mod.py", body, target="Shape.area"))
    assert result == CLASS.replace(
        "    # The area, cached.\n    @functools.cached_property\n    def area(self) -> float:\n"
        "        return 0.0\n",
        "    @property\n    def area(self) -> float:\n        return 1.0\n",
    )


@pytest.mark.parametrize(
    "body",
    [
        "def label(self) -> str:\n            return 'meta'",  # first line stripped, as parsed
        "def label(self) -> str:\n    return 'meta'",  # at the left margin
        "        def label(self) -> str:\n            return 'meta'",  # where it sits
        "\tdef label(self) -> str:\n\t\treturn 'meta'",  # tabs
    ],
    ids=["stripped-first-line", "margin", "in-place", "tabs"],
)
def test_a_method_body_at_any_indentation_is_indented_to_the_target(body: str) -> None:
    result = edit_python(CLASS, "MODIFY", "Shape.Meta.label", body, "mod.py")
    expected = "        def label(self) -> str:\n            return 'meta'\n"
    if body.startswith("\t"):
        expected = "        def label(self) -> str:\n        \treturn 'meta'\n"
    assert result == CLASS.replace(
        '        def label(self) -> str:\n            return "shape"\n', expected
    )


def test_strings_spanning_lines_keep_their_bytes_and_docstrings_move(tmp_path: Path) -> None:
    body = (
        'def label(self) -> str:\n    """The label.\n\n    Longer.\n    """\n'
        '    text = """\nraw\n      kept"""\n    return text'
    )
    result = apply_py(tmp_path, CLASS, block("MODIFY", "mod.py", body, target="Shape.Meta.label"))
    assert (
        '        def label(self) -> str:\n            """The label.\n\n            Longer.\n'
        '            """\n            text = """\nraw\n      kept"""\n            return text\n'
    ) in result


def test_delete_removes_a_group_of_definitions_and_keeps_blank_lines_tidy(tmp_path: Path) -> None:
    result = apply_py(tmp_path, CLASS, block("DELETE", "mod.py", target="Shape.name"))
    assert "name" not in result
    assert "        return 0.0\n\n    class Meta:\n" in result
    result = apply_py(tmp_path, CLASS, block("DELETE", "mod.py", target="Shape"))
    assert result == CLASS[: CLASS.index("class Shape")] + CLASS[CLASS.index("async def") :]


def test_modify_a_property_replaces_getter_and_setter_only_when_both_are_given(
    tmp_path: Path,
) -> None:
    getter = "@property\ndef name(self) -> str:\n    return 'fixed'"
    with pytest.raises(ChangeError, match=r"Shape\.name is defined 2 times \(lines 16, 20"):
        apply_py(tmp_path, CLASS, block("MODIFY", "mod.py", getter, target="Shape.name"))
    both = f"{getter}\n\n@name.setter\ndef name(self, value: str) -> None:\n    self._name = value"
    result = apply_py(tmp_path, CLASS, block("MODIFY", "mod.py", both, target="Shape.name"))
    assert result.count("def name") == 2 and "return 'fixed'" in result
    assert "    @name.setter\n    def name(self, value: str) -> None:\n" in result


def test_an_add_never_drops_an_overload_it_would_replace(tmp_path: Path) -> None:
    overloads = (
        "import typing\n\n\n@typing.overload\ndef area(x: int) -> int: ...\n\n\n"
        "@typing.overload\ndef area(x: str) -> str: ...\n\n\ndef area(x):\n    return x\n\n\n"
        "def helper():\n    pass\n"
    )
    with pytest.raises(ChangeError, match=r"area is defined 3 times"):
        apply_py(tmp_path, overloads, block("ADD_AFTER", "mod.py", "def area(x):\n    return 0",
                                            target="helper"))  # fmt: skip
    assert (tmp_path / "mod.py").read_text() == overloads


def test_async_functions_nested_classes_and_keywords_in_targets(tmp_path: Path) -> None:
    body = "async def fetch() -> int:\n    return 2"
    for target in ("fetch", "async def fetch", "fetch()", "mod.fetch"):
        result = apply_py(tmp_path, CLASS, block("MODIFY", "mod.py", body, target=target))
        assert result.endswith("async def fetch() -> int:\n    return 2\n"), target
    result = apply_py(tmp_path, CLASS, block("DELETE", "mod.py", target="class Shape.Meta"))
    assert "Meta" not in result and "            return" not in result


def test_a_module_path_before_the_name_is_the_file_itself(tmp_path: Path) -> None:
    path = "src/pkg/shapes.py"
    body = 'def label(self) -> str:\n    return "x"'
    change = block("MODIFY", path, body, target="pkg.shapes.Shape.Meta.label")
    assert 'return "x"' in apply_py(tmp_path, CLASS, change, name=path)
    change = block("MODIFY", "src/pkg/__init__.py", "async def fetch(): ...", target="pkg.fetch")
    assert "async def fetch(): ...\n" in apply_py(
        tmp_path, CLASS, change, name="src/pkg/__init__.py"
    )


@pytest.mark.parametrize(
    ("target", "hint"),
    [
        ("Shape.aera", "closest: Shape.area"),
        ("label", "closest: Shape.Meta.label"),
        ("Circle", "the file declares Shape, Shape.area, Shape.name"),
    ],
)
def test_a_missing_name_fails_naming_the_closest(tmp_path: Path, target: str, hint: str) -> None:
    for op in ("MODIFY", "DELETE", "ADD_AFTER"):
        error = fails(tmp_path, CLASS, block(op, "mod.py", "x = 1", target=target))
        assert f"no declaration named {target}" in str(error) and hint in str(error)


def test_add_before_and_after_methods_and_functions(tmp_path: Path) -> None:
    method = "def perimeter(self) -> float:\n    return 0.0"
    result = apply_py(tmp_path, CLASS, block("ADD_AFTER", "mod.py", method, target="Shape.name"))
    assert (
        "        self._name = value\n\n    def perimeter(self) -> float:\n        return 0.0\n\n"
        "    class Meta:\n"
    ) in result
    result = apply_py(tmp_path, CLASS, block("ADD_BEFORE", "mod.py", method, target="Shape.area"))
    assert (
        '    """A shape."""\n\n    def perimeter(self) -> float:\n        return 0.0\n\n'
        "    # The area, cached.\n"
    ) in result
    function = "def helper() -> None:\n    pass"
    result = apply_py(tmp_path, CLASS, block("ADD_BEFORE", "mod.py", function, target="fetch"))
    assert '"shape"\n\n\ndef helper() -> None:\n    pass\n\n\nasync def fetch()' in result
    result = apply_py(tmp_path, CLASS, block("ADD_AFTER", "mod.py", function, target="Shape"))
    assert '"shape"\n\n\ndef helper() -> None:\n    pass\n\n\nasync def fetch()' in result


def test_an_add_of_a_name_that_exists_replaces_it(tmp_path: Path) -> None:
    body = "async def fetch() -> int:\n    return 3"
    result = apply_py(tmp_path, CLASS, block("ADD_BEFORE", "mod.py", body, target="Shape"))
    assert result.count("def fetch") == 1 and result.endswith("    return 3\n")
    assert result.index("class Shape") < result.index("def fetch")


def test_a_body_declaring_a_name_twice_leaves_one_definition(tmp_path: Path) -> None:
    original = "def f():\n    pass\n\n\ndef g():\n    pass\n"
    body = "def f():\n    return 1\n\n\ndef g():\n    return 2"
    assert apply_py(tmp_path, original, block("MODIFY", "mod.py", body, target="f")) == (
        "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    )


def test_begin_is_after_the_docstring_the_future_import_and_the_imports(tmp_path: Path) -> None:
    result = apply_py(tmp_path, CLASS, block("ADD_AFTER", "mod.py", "import os", target="BEGIN"))
    assert "import functools\nimport os\n\n\nclass Shape:" in result
    result = apply_py(tmp_path, CLASS, block("ADD_BEFORE", "mod.py", "LIMIT = 3", target="BEGIN"))
    assert "import functools\n\n\nLIMIT = 3\n\n\nclass Shape:" in result
    shebang = "#!/usr/bin/env python\n# Licence.\n\n# The entry point.\ndef main():\n    pass\n"
    result = apply_py(tmp_path, shebang, block("ADD_AFTER", "mod.py", "X = 1", target="BEGIN"))
    assert result.startswith("#!/usr/bin/env python\n# Licence.\n\n\nX = 1\n\n\n# The entry")


def test_end_appends_and_a_missing_file_is_created_only_by_begin_or_end(tmp_path: Path) -> None:
    result = apply_py(tmp_path, CLASS, block("ADD_AFTER", "mod.py", "X = 1", target="END"))
    assert result == CLASS + "\n\nX = 1\n"
    store = run_round(tmp_path, block("ADD_AFTER", "new.py", "def f():\n    pass", target="END"))
    assert (tmp_path / "new.py").read_text() == "def f():\n    pass\n" and store
    error = fails(tmp_path / "sub", "", block("MODIFY", "none.py", "x = 1", target="x"), "x.py")
    assert "does not exist; create it with WRITE" in str(error)
    error = fails(tmp_path, CLASS, block("MODIFY", "mod.py", "x = 1", target="END"))
    assert "only supports ADD_BEFORE and ADD_AFTER" in str(error)


def test_a_constant_takes_a_bare_value_keeping_its_annotation_and_comment(tmp_path: Path) -> None:
    original = "# Seconds.\nTIMEOUT: float = 1.0\n\n\nclass C:\n    limit = 3\n"
    result = apply_py(tmp_path, original, block("MODIFY", "mod.py", "2.5", target="TIMEOUT"))
    assert result == original.replace("1.0", "2.5")
    result = apply_py(tmp_path, original, block("MODIFY", "mod.py", "limit = 4", target="C.limit"))
    assert result.endswith("class C:\n    limit = 4\n")
    error = fails(tmp_path, "a = b = 1\n", block("DELETE", "mod.py", target="a"))
    assert "a is assigned in one statement with b; MODIFY that statement" in str(error)


def test_a_name_defined_again_further_away_is_ambiguous(tmp_path: Path) -> None:
    original = "def f():\n    pass\n\n\nX = 1\n\n\ndef f():\n    pass\n"
    for op in ("MODIFY", "DELETE"):
        error = fails(tmp_path, original, block(op, "mod.py", "def f(): ...", target="f"))
        assert "f is defined 2 times apart in its scope (lines 1, 8)" in str(error)


def test_a_result_that_does_not_compile_fails_with_its_line_and_a_log(tmp_path: Path) -> None:
    error = fails(tmp_path, CLASS, block("ADD_AFTER", "mod.py", "return 1", target="fetch"))
    assert "the result is not valid Python 3." in str(error)
    assert "line 33: 'return' outside function" in str(error)
    assert error.log is not None
    log = (tmp_path / error.log).read_text()
    assert "<modified-file>" in log and "    return 1\n\n\nreturn 1" in log
    error = fails(tmp_path, CLASS, block("DELETE", "mod.py", target="Shape.Meta.label"))
    assert "line 27: expected an indented block after class definition on line 24" in str(error)


def test_a_body_that_is_not_python_fails_in_its_own_lines(tmp_path: Path) -> None:
    body = "def area(self):\n        x = (\n        return x"
    error = fails(tmp_path, CLASS, block("MODIFY", "mod.py", body, target="Shape.area"))
    assert "the body is not Python (line 2:" in str(error)


def test_a_file_that_does_not_parse_takes_text_operations(tmp_path: Path) -> None:
    broken = "def f(:\n    pass\n"
    error = fails(tmp_path, broken, block("MODIFY", "mod.py", "def f(): pass", target="f"))
    assert "the file does not parse as Python 3." in str(error)
    assert "line 1: invalid syntax" in str(error) and "use REPLACE or INSERT_*" in str(error)
    fixed = apply_py(tmp_path, broken, block("REPLACE", "mod.py", "def f():", find="def f(:"))
    assert fixed == "def f():\n    pass\n"


def test_write_must_compile_unless_the_file_it_replaces_did_not(tmp_path: Path) -> None:
    error = fails(tmp_path, "", block("WRITE", "new.py", "def f(:\n    pass"), "other.py")
    assert "not valid Python 3." in str(error) and "line 1" in str(error)
    error = fails(tmp_path, "x = 1\n", block("WRITE", "mod.py", "x = (\n"))
    assert "'(' was never closed" in str(error)
    assert apply_py(tmp_path, "x = (\n", block("WRITE", "mod.py", "x = [\n")) == "x = [\n"
    assert apply_py(tmp_path, "x = (\n", block("WRITE", "mod.py", "x = 1")) == "x = 1\n"


def test_declaration_ops_work_in_stub_files_and_crlf_files_stay_crlf(tmp_path: Path) -> None:
    stub = "class C:\n    def f(self) -> int: ...\n    def g(self) -> str: ...\n"
    result = apply_py(tmp_path, stub, block("DELETE", "mod.pyi", target="C.f"), name="mod.pyi")
    assert result == "class C:\n    def g(self) -> str: ...\n"
    crlf = "def f():\r\n    pass\r\n\r\n\r\ndef g():\r\n    pass\r\n"
    body = "def g():\n    return 1"
    result = apply_py(tmp_path, crlf, block("MODIFY", "mod.py", body, target="g"))
    assert result == "def f():\r\n    pass\r\n\r\n\r\ndef g():\r\n    return 1\r\n"


def test_statements_sharing_their_lines_are_not_declarations(tmp_path: Path) -> None:
    original = "x = 1; y = 2\n\n\nclass C: z = 3\n"
    for target in ("x", "C.z"):
        error = fails(tmp_path, original, block("DELETE", "mod.py", target=target))
        assert f"no declaration named {target}" in str(error)
    assert apply_py(tmp_path, original, block("DELETE", "mod.py", target="C")) == "x = 1; y = 2\n"


def test_a_definition_inside_an_if_block_is_named_with_a_way_to_edit_it(tmp_path: Path) -> None:
    guarded = "import sys\n\nif sys.platform == 'win32':\n    def enc():\n        return 'mbcs'\n" \
              "else:\n    def enc():\n        return 'utf-8'\n"  # fmt: skip
    with pytest.raises(
        ChangeError, match=r"enc is defined inside an if/try/with block \(line 4, 7\)"
    ):
        apply_py(tmp_path, guarded, block("MODIFY", "mod.py", "def enc():\n    return 1",
                                          target="enc"))  # fmt: skip


def test_a_syntax_error_in_a_body_is_named_as_python_names_it(tmp_path: Path) -> None:
    body = "def helper(x):\n    return x +"
    with pytest.raises(ChangeError, match=r"the body is not Python \(line 2: invalid syntax"):
        apply_py(tmp_path, CLASS, block("MODIFY", "mod.py", body, target="fetch"))
