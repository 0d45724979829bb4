"""Python edits by declaration on code nobody here wrote: the pinned click 8.1.8 and attrs
25.3.0 source distributions (``tests.realmodules``). Each edit keeps the file compiling,
changes nothing outside the declaration, and the package still imports and works — checked
in a fresh interpreter with the edited ``src`` first on ``sys.path``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tai_changes import ChangeError, apply_change
from tai_changes._decl import EditError
from tai_changes._py_edit import edit_python
from tai_changes._py_syntax import Lines, PyDecl, declarations, parse
from tai_changes._pyformat import SANDBOX_VARIABLE
from tai_core.store import FileStore

from .conftest import block, run_round

pytestmark = pytest.mark.slow

CORE = "src/click/core.py"
MAKE = "src/attr/_make.py"
#: A command whose callback shows what the edits did.
CLI = """
from click.testing import CliRunner

@click.command()
@click.option("--n", default=1)
def cli(n):
    ctx = click.get_current_context()
    click.echo(f"{n * 2} {ctx.meta.get('tai', '-')}")

print(CliRunner().invoke(cli, ["--n", "21"]).output, end="")
"""


@pytest.fixture
def copy(tmp_path: Path, pinned_sdist: Callable[[str], Path]) -> Callable[[str], Path]:
    """``copy(name)``: a copy of the pinned sdist ``name`` this test may edit."""
    return lambda name: shutil.copytree(pinned_sdist(name), tmp_path / name)


def run_python(root: Path, package: str, code: str) -> str:
    """What ``code`` prints, run after importing ``package`` from ``root/src``."""
    src = str(root / "src")
    program = (
        f"import sys\nsys.path.insert(0, {src!r})\nimport {package}\n"
        f"assert {package}.__file__.startswith({src!r}), {package}.__file__\n{code}"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def find(root: Path, file: str, name: str) -> list[PyDecl]:
    data = (root / file).read_bytes()
    return [d for d in declarations(parse(data), Lines(data)) if name in d.names]


def edit(root: Path, file: str, op: str, target: str, body: str = "") -> str:
    """``op`` applied to ``root/file`` (no formatter): the file's new text, written."""
    path = root / file
    text = edit_python(path.read_text(), op, target, body, file)
    path.write_text(text)
    return text


def test_modify_command_invoke_changes_only_it_and_click_still_works(copy) -> None:
    root = copy("click")
    before = (root / CORE).read_text()
    (decl,) = find(root, CORE, "Command.invoke")
    method = before.encode()[decl.start : decl.end].decode()
    changed = method.replace(
        "        if self.callback is not None:\n",
        "        ctx.meta['tai'] = 'edited'\n        if self.callback is not None:\n",
    )
    # as the block parser hands it over (first line stripped), and at the left margin
    for body in (changed.strip(), textwrap.dedent(changed)):
        (root / CORE).write_text(before)
        after = edit(root, CORE, "MODIFY", "click.core.Command.invoke", body)
        assert after == before[: decl.start] + changed + before[decl.end :]
    assert run_python(root, "click", CLI) == "42 edited\n"


def test_modify_of_an_overloaded_method_keeps_or_refuses_its_overloads(copy) -> None:
    root = copy("click")
    run = find(root, CORE, "Context.invoke")
    assert len(run) == 3  # two @t.overload stubs and the implementation
    data = (root / CORE).read_bytes()
    implementation = data[run[2].start : run[2].end].decode()
    with pytest.raises(EditError, match=r"Context\.invoke is defined 3 times"):
        edit(root, CORE, "MODIFY", "Context.invoke", implementation.strip())
    whole = data[run[0].start : run[2].end].decode()
    changed = whole.replace(
        "return __callback(*args, **kwargs)", "return (__callback)(*args, **kwargs)"
    )
    assert changed != whole
    after = edit(root, CORE, "MODIFY", "Context.invoke", changed.strip())
    assert after.encode() == data[: run[0].start] + changed.encode() + data[run[2].end :]
    assert len(find(root, CORE, "Context.invoke")) == 3
    assert run_python(root, "click", CLI) == "42 -\n"


def test_a_decorated_method_and_a_nested_class_in_one_round(copy) -> None:
    root = copy("click")
    (root / "pyproject.toml").write_text("[project]\nname = 'click'\n")  # no formatter
    scope = (
        "@contextmanager\ndef scope(self, cleanup: bool = True) -> t.Iterator['Context']:\n"
        "    self.meta['tai'] = 'scoped'\n    with self:\n        yield self"
    )
    nested = 'class Marks:\n    """Marks."""\n\n    def label(self) -> str:\n        return "x"'
    label = 'def label(self) -> str:\n    return "nested"'
    run_round(
        root,
        block("MODIFY", CORE, scope, target="Context.scope"),
        block("ADD_AFTER", CORE, nested, target="Context.scope"),
        block("MODIFY", CORE, label, target="click.core.Context.Marks.label"),
    )
    text = (root / CORE).read_text()
    assert "    @contextmanager\n    def scope(self" in text
    assert '    class Marks:\n        """Marks."""\n\n        def label(self) -> str:\n' in text
    code = "with click.Context(click.Command('c')).scope() as ctx: print(ctx.meta['tai'])\n"
    code += "print(click.core.Context.Marks().label())\n"
    assert run_python(root, "click", code) == "scoped\nnested\n"


def test_delete_and_add_in_attrs_and_a_name_bound_twice_apart(copy) -> None:
    root = copy("attrs")
    store = FileStore.open(root)
    with pytest.raises(ChangeError, match=r"Attribute is defined 2 times apart .*lines 2365, 2584"):
        apply_change(store, block("DELETE", MAKE, target="Attribute"))
    edit(root, MAKE, "DELETE", "_has_own_attribute")
    helper = "def _has_own_attribute(cls, attrib_name):\n    return attrib_name in cls.__dict__"
    edit(root, MAKE, "ADD_AFTER", "attr._make.fields", helper)
    code = "@attr.s\nclass C:\n    x = attr.ib()\nprint([a.name for a in attr.fields(C)])\n"
    assert run_python(root, "attr", code) == "['x']\n"


def test_attrs_own_ruff_configuration_formats_the_changed_function(
    copy, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy("attrs")
    monkeypatch.delenv(SANDBOX_VARIABLE, raising=False)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin")
    before = (root / MAKE).read_text()
    (decl,) = find(root, MAKE, "_has_own_attribute")
    body = "def _has_own_attribute( cls,attrib_name ):\n  return attrib_name in cls.__dict__"
    run_round(root, block("MODIFY", MAKE, body, target="_has_own_attribute"))
    formatted = (
        "def _has_own_attribute(cls, attrib_name):\n    return attrib_name in cls.__dict__\n"
    )
    after = (root / MAKE).read_text()
    assert after == before[: decl.start] + formatted + before[decl.end :]
