"""``tai patch`` as a user runs it: a real ``tai`` process, real files, real goimports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import run_tai
from ..test_startup import HEAVY
from .conftest import write_files

REPLY = """\
I renamed Old and fixed the readme.

<<龘靐 change(op="MODIFY", target="Old", file-path="a.go")
func New() string { return strings.ToUpper("x") }
龘靐

<<齉爩 summary
- Renamed Old to New.
齉爩

<<甲乙 change(op="REPLACE", find="old description", file-path="README.md")
new description
甲乙

<<丙丁 change(op="DELETE", target="Missing", file-path="a.go")
丙丁

<<戊己 change(op="WRITE", file-path="notes/b.txt")
hello
戊己

<<庚辛 change(file-path="a.go")
an op-less change block stays
庚辛
"""


def project(tmp_path: Path) -> Path:
    write_files(
        tmp_path,
        {
            "go.mod": "module example.com/pt\n\ngo 1.22\n",
            "a.go": "package pt\n\nfunc Old() {}\n\nfunc Keep() int { return 1 }\n",
            "README.md": "# Title\n\nold description\n",
            ".AI": REPLY,
        },
    )
    return tmp_path


@pytest.mark.slow
def test_patch_applies_until_an_error_and_resumes(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    root = project(tmp_path / "work")
    first = run_tai("patch", cwd=root, env=isolated_env)
    assert first.returncode == 1, first.stderr
    assert first.stdout == "Applied MODIFY Old a.go\nApplied REPLACE README.md\n"
    missing = "tai: error: line 15: DELETE Missing in a.go: no declaration named Missing"
    assert missing in first.stderr
    assert (root / "a.go").read_text() == (
        'package pt\n\nimport "strings"\n\nfunc New() string { return strings.ToUpper("x") }\n'
        "\nfunc Keep() int { return 1 }\n"
    )
    assert (root / "README.md").read_text() == "# Title\n\nnew description\n"
    assert not (root / "notes").exists()
    remaining = (root / ".AI").read_text()
    assert "龘靐" not in remaining and "甲乙" not in remaining
    assert "- Renamed Old to New." in remaining and "丙丁" in remaining and "戊己" in remaining

    (root / ".AI").write_text(remaining.replace('target="Missing"', 'target="Keep"'))
    second = run_tai("patch", cwd=root, env=isolated_env)
    assert second.returncode == 0, second.stderr
    assert second.stdout == "Applied DELETE Keep a.go\nApplied WRITE notes/b.txt\n"
    assert "Keep" not in (root / "a.go").read_text()
    assert (root / "notes/b.txt").read_text() == "hello\n"
    assert (root / ".AI").read_text() == (
        "I renamed Old and fixed the readme.\n\n"
        "<<齉爩 summary\n- Renamed Old to New.\n齉爩\n\n"
        '<<庚辛 change(file-path="a.go")\nan op-less change block stays\n庚辛\n'
    )

    third = run_tai("patch", cwd=root, env=isolated_env)
    assert third.returncode == 0 and third.stdout == "No change blocks to apply in .AI.\n"


def test_patch_of_a_named_file_and_a_parse_error(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    root = project(tmp_path / "work")
    (root / "reply.txt").write_text(
        '<<甲乙 change(op="WRITE", file-path="x.txt")\nx\n甲乙\n\n'
        '<<丙丁 change(op="WRITE", file-path="y.txt")\nnever closed\n'
    )
    result = run_tai("patch", "reply.txt", cwd=root, env=isolated_env)
    assert result.returncode == 1
    assert result.stdout == "Applied WRITE x.txt\n"
    assert "tai: error: unclosed block at line 5" in result.stderr
    assert (root / "x.txt").read_text() == "x\n"
    assert not (root / "y.txt").exists()
    assert (root / "reply.txt").read_text().startswith('<<丙丁 change(op="WRITE"')


def test_a_patch_is_undone_as_a_run_is(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    """tai patch records the tree before and after its write (tai_checkpoint), so tai
    undo brings back the files and the .AI the blocks were cut out of."""
    root = tmp_path / "work"
    reply = '<<甲乙 change(op="REPLACE", find="old", file-path="notes.txt")\nnew\n甲乙\n'
    write_files(root, {"notes.txt": "old words\n", ".AI": reply})
    applied = run_tai("patch", cwd=root, env=isolated_env)
    assert (applied.returncode, applied.stdout) == (0, "Applied REPLACE notes.txt\n"), (
        applied.stderr
    )
    assert (root / "notes.txt").read_text() == "new words\n"
    undone = run_tai("undo", cwd=root, env=isolated_env)
    assert undone.returncode == 0, undone.stderr
    assert (root / "notes.txt").read_text() == "old words\n"
    assert (root / ".AI").read_text() == reply


def test_patch_refuses_protected_paths_and_reports_a_missing_file(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    root = project(tmp_path / "work")
    (root / ".AI").write_text(
        '<<甲乙 change(op="WRITE", file-path=".vscode/tasks.json")\n{}\n甲乙\n'
    )  # tai.toml is protected too, but refused sooner as a secret (test_secret_changes.py)
    result = run_tai("patch", cwd=root, env=isolated_env)
    assert result.returncode == 1
    assert ".vscode/tasks.json: protected" in result.stderr
    assert not (root / ".vscode").exists()
    missing = run_tai("patch", "nope.AI", cwd=root, env=isolated_env)
    assert missing.returncode == 2  # the command line names what is not there: usage
    assert missing.stderr == (
        "tai: error: invalid value for FILE: cannot read nope.AI: No such file or directory; "
        "see tai patch --help\n"
    )


PROBE = """
import atexit, json, sys
atexit.register(lambda: sys.stderr.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
from tai_core.cli import main
main(["patch"])
"""


def test_patch_imports_nothing_heavy_beyond_tree_sitter(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    root = project(tmp_path / "work")
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=root, env=isolated_env,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    modules: set[str] = set()
    for line in result.stderr.splitlines():
        if line.startswith("MODULES "):
            modules.update(json.loads(line.removeprefix("MODULES ")))
    assert "tree_sitter" in modules  # the patch really ran
    # The secret check scans the content of each file a block changes; detect-secrets,
    # the scanner, imports requests (about 150 ms, once).
    assert "detect_secrets" in modules
    allowed = {"tree_sitter", "requests"}
    heavy = sorted(m for m in modules if m.split(".")[0] in set(HEAVY) - allowed)
    assert heavy == []


def test_no_apply_prints_the_diff_and_writes_nothing(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    root = project(tmp_path)
    before = {p.name: p.read_text() for p in root.iterdir() if p.is_file()}
    result = run_tai("patch", "-no-apply", cwd=root, env=isolated_env)
    assert result.returncode == 1  # the DELETE of Missing still fails, as it would for real
    assert "--- a/a.go" in result.stdout and "+++ b/a.go" in result.stdout
    assert "+func New() string" in result.stdout
    assert "-old description" in result.stdout and "+new description" in result.stdout
    assert "\x1b[" not in result.stdout  # piped: no colours
    assert "Missing" in result.stderr
    assert "details in" not in result.stderr  # no error log either: nothing is written
    after = {p.name: p.read_text() for p in root.iterdir() if p.is_file()}
    assert after == before
    assert not (root / "notes").exists()
