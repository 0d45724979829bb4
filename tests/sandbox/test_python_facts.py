"""Python one-liners as the shell policy reads them (tai_sandbox._python): names through
the imports, paths evaluated from literals (the home is /home/u, the working directory
/work; a part only known at run time is DYNAMIC, NUL), argument vectors, forks in loops.
Each expectation was read and agreed with: together they are the reader's contract."""

from __future__ import annotations

import pytest

from tai_sandbox._python import python_facts

# code, strings, argument vectors, calls (name, args, receiver), forks in a loop
CASES = [
    (
        'import os.path\nos.path.join("a", "b")',
        ["a", "b"],
        [],
        [("os.path.join", ("a", "b"), None)],
        False,
    ),
    (
        'import subprocess as sp\nsp.run(["rm", "-rf", "/"])',
        ["rm", "-rf", "/"],
        [("rm", "-rf", "/")],
        [("subprocess.run", (("rm", "-rf", "/"),), None)],
        False,
    ),
    ("import a.b as c\nc.d()", [], [], [("a.b.d", (), None)], False),
    ("from . import y\ny()", [], [], [("y", (), None)], False),
    (
        'from shutil import rmtree as rt\nrt(os.path.expanduser("~/x"))',
        ["~/x"],
        [],
        [("shutil.rmtree", ("/home/u/x",), None), ("os.path.expanduser", ("~/x",), None)],
        False,
    ),
    (
        'import shutil\nshutil.rmtree(f"/srv/{name}/x")',
        ["/srv/", "/x"],
        [],
        [("shutil.rmtree", ("/srv/\x00/x",), None)],
        False,
    ),
    (
        'from pathlib import Path\nos.remove(Path.home() / "docs")',
        ["docs"],
        [],
        [("os.remove", ("/home/u/docs",), None), ("pathlib.Path.home", (), None)],
        False,
    ),
    (
        'from pathlib import Path\nos.remove(Path(), Path("a", "b"))',
        ["a", "b"],
        [],
        [
            ("os.remove", (".", "a/b"), None),
            ("pathlib.Path", (), None),
            ("pathlib.Path", ("a", "b"), None),
        ],
        False,
    ),
    (
        'import os\nos.remove(os.path.join("a", "b"), os.path.expanduser("rel"),'
        ' os.path.abspath("~/y"))',
        ["a", "b", "rel", "~/y"],
        [],
        [
            ("os.remove", ("a/b", "rel", "/home/u/y"), None),
            ("os.path.join", ("a", "b"), None),
            ("os.path.expanduser", ("rel",), None),
            ("os.path.abspath", ("~/y",), None),
        ],
        False,
    ),
    (
        'import os\nos.remove(os.environ["HOME"] + "/.bashrc", os.environ["USER"], os.environ[k])',
        ["/.bashrc", "USER", "HOME"],
        [],
        [("os.remove", ("/home/u/.bashrc", "\x00", "\x00"), None)],
        False,
    ),
    (
        'import os\nopen(os.getenv("HOME") + "/f", mode="w")',
        ["/f", "w", "HOME"],
        [],
        [("open", ("/home/u/f", "w"), None), ("os.getenv", ("HOME",), None)],
        False,
    ),
    (
        'import os\nos.remove(os.getenv("PATH"), os.getcwd(), Path.cwd())',
        ["PATH"],
        [],
        [
            ("os.remove", (None, "/work", "/work"), None),
            ("os.getenv", ("PATH",), None),
            ("os.getcwd", (), None),
            ("Path.cwd", (), None),
        ],
        False,
    ),
    (
        'from pathlib import Path\nPath("~/x").expanduser().unlink()',
        ["~/x"],
        [],
        [
            ("path.unlink", (), "/home/u/x"),
            ("path.expanduser", (), "~/x"),
            ("pathlib.Path", ("~/x",), None),
        ],
        False,
    ),
    (
        'from pathlib import Path\nos.remove(Path("/a").resolve(), Path("~").resolve())',
        ["/a", "~"],
        [],
        [
            ("os.remove", ("/a", "/home/u"), None),
            ("path.resolve", (), "/a"),
            ("path.resolve", (), "~"),
            ("pathlib.Path", ("/a",), None),
            ("pathlib.Path", ("~",), None),
        ],
        False,
    ),
    (
        'from pathlib import Path\nPath("x").open("w")',
        ["w", "x"],
        [],
        [("path.open", ("x", "w"), "x"), ("pathlib.Path", ("x",), None)],
        False,
    ),
    (
        'f(1, None, b"x", ["a", 1], "a" + x)',
        ["a", "a"],
        [],
        [("f", (None, None, None, ("a", "\x00"), "a\x00"), None)],
        False,
    ),
    ("while True:\n    os.fork()", [], [], [("os.fork", (), None)], True),
    ("for i in x:\n    a.b.fork()", [], [], [("a.b.fork", (), None)], True),
    (
        "for i in x:\n    print(i)\nos.fork()",
        [],
        [],
        [("os.fork", (), None), ("print", (None,), None)],
        False,
    ),
    ('x = ["a", y]; z = ("p", "q")', ["a", "p", "q"], [("p", "q")], [], False),
]


@pytest.mark.parametrize(("code", "strings", "argvs", "calls", "forks"), CASES)
def test_python_facts(code, strings, argvs, calls, forks) -> None:
    facts = python_facts(code, "/home/u", "/work")
    assert facts is not None
    assert facts.strings == strings
    assert facts.argvs == argvs
    assert [(call.name, call.args, call.receiver) for call in facts.calls] == calls
    assert facts.forks_in_loop is forks


@pytest.mark.parametrize("code", ["def (", "a\0b"])
def test_code_that_does_not_parse_has_no_facts(code: str) -> None:
    assert python_facts(code, "/home/u", "/work") is None
