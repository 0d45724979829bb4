"""``-no-apply`` as a user runs it: tests and commands see the pending changes, later
loops see earlier loops' work, the final diff is the sum, and the tree is never written."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import run_tai

SHELL_SEES_IT = """\
@@@ reply
Changing, then looking.
<<甲乙 change(op="WRITE", file-path="new.txt")
changed in the dry run
甲乙
<<甲乙 shell
cat new.txt greeting.txt && echo "made by a command" > made.txt && rm greeting.txt
甲乙
@@@ reply
@@@ expect user: changed in the dry run
The command saw the change.
<<丙丁 summary
- looked
丙丁
"""


def test_commands_see_the_pending_changes_and_nothing_is_written(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)  # a .git to sweep past
    (tmp_path / "greeting.txt").write_text("hello\n")
    (tmp_path / ".model.replay").write_text(SHELL_SEES_IT)
    result = run_tai("-no-apply", "-shell", "-model", "replay:.model.replay", "chat", "go",
                     cwd=tmp_path, env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "new.txt").exists()
    assert (tmp_path / "greeting.txt").read_text() == "hello\n"
    assert "+changed in the dry run" in result.stderr
    assert "+++ b/made.txt\n@@ -0,0 +1 @@\n+made by a command" in result.stderr
    assert "--- a/greeting.txt\n+++ /dev/null" in result.stderr
    assert not (tmp_path / "made.txt").exists()
    assert "dry run (-no-apply): nothing was written to your working tree" in result.stderr
    assert "removed" not in result.stderr  # the sweep inside sees the overlay's own inodes


LOOPS = """\
@@@ reply
Adding a function.
<<甲乙 change(op="WRITE", file-path="added.go")
package calc

// Added is new in loop one.
func Added() int { return 2 }
甲乙
<<丙丁 done
Added exists.
丙丁
<<戊己 summary
- added Added
戊己
@@@ reply
@@@ expect user: Added is new in loop one
It is there.
<<丙丁 done
Added is there.
丙丁
<<戊己 summary
- confirmed
戊己
"""


def test_a_later_loop_sees_the_earlier_loops_changes(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)  # a .git to sweep past
    (tmp_path / "go.mod").write_text("module example.com/calc\n\ngo 1.20\n")
    (tmp_path / "calc.go").write_text(
        "package calc\n\n// One is one.\nfunc One() int { return 1 }\n"
    )
    (tmp_path / ".model.replay").write_text(LOOPS)
    result = run_tai("-no-apply", "-model", "replay:.model.replay", "chat", "add",
                     cwd=tmp_path, env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Goal Achieved after 2 loop(s)" in result.stderr
    assert not (tmp_path / "added.go").exists()
    assert "+func Added() int { return 2 }" in result.stderr


def test_without_the_overlay_commands_are_switched_off(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    (tmp_path / "greeting.txt").write_text("hello\n")
    (tmp_path / ".model.replay").write_text(
        "@@@ reply\n@@@ expect system: commands cannot be run now\nNo commands, then.\n"
        '<<甲乙 change(op="WRITE", file-path="new.txt")\nx\n甲乙\n'
        "<<丙丁 summary\n- wrote\n丙丁\n"
    )
    result = run_tai("-no-sandbox", "-no-apply", "-shell", "-model", "replay:.model.replay",
                     "chat", "go", cwd=tmp_path, env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "new.txt").exists()
    assert "+x" in result.stderr


def test_a_dry_run_that_did_not_start_says_only_why(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    result = run_tai("-no-apply", "chat", "hi", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 2
    assert result.stderr.startswith("tai: error: no model")
    assert result.stderr.count("\n") == 1  # no note on what a run that never began changed
