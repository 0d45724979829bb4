"""Change blocks in a real run: the replay model, the change kind, the file store, the disk."""

from __future__ import annotations

from pathlib import Path

from tai_core.commands._session import describe_changes, open_workspace
from tai_core.runtime import RoundStarted, RunFailed, RunFinished

SUMMARY = "<<紫藤 summary\n- done\n紫藤"
GO = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"


def project(tmp_path: Path) -> Path:
    (tmp_path / "go.mod").write_text("module example.com/calc\n\ngo 1.22\n")
    (tmp_path / "calc.go").write_text(GO)
    (tmp_path / "README.md").write_text("# calc\n\nSubtracts.\n")
    return tmp_path


def test_changes_reach_the_disk_when_the_round_succeeds(host, replay, tmp_path: Path) -> None:
    root = project(tmp_path)
    reply = (
        '<<松柏 change(op="MODIFY", target="Add", file-path="calc.go")\n'
        "func Add(a, b int) int { return a + b }\n松柏\n"
        '<<竹梅 change(op="REPLACE", find="Subtracts.", file-path="README.md")\nAdds.\n竹梅\n'
        + SUMMARY
    )
    outcome = replay([reply], workspace=open_workspace(host, {}, root), describe=describe_changes)
    finished = outcome.terminal
    assert isinstance(finished, RunFinished)
    assert "return a + b" in (root / "calc.go").read_text()
    assert (root / "README.md").read_text() == "# calc\n\nAdds.\n"
    assert "-func Add(a, b int) int { return a - b }" in finished.diff
    assert "+Adds." in finished.diff


def test_a_failing_change_applies_nothing_and_is_retried(host, replay, tmp_path: Path) -> None:
    root = project(tmp_path)
    good = '<<竹梅 change(op="REPLACE", find="Subtracts.", file-path="README.md")\nAdds.\n竹梅\n'
    bad = '<<松柏 change(op="MODIFY", target="Sub", file-path="calc.go")\nfunc Sub() {}\n松柏\n'
    outcome = replay(
        [good + bad + SUMMARY,
         "@@@ expect user: no declaration named Sub; the file declares Add\n"
         "@@@ expect user: All change blocks of that reply were dropped\n"
         + good + SUMMARY],
        workspace=open_workspace(host, {}, root),
    )  # fmt: skip
    assert isinstance(outcome.terminal, RunFinished)
    assert [(e.round, e.attempt) for e in outcome.of(RoundStarted)] == [(1, 1), (1, 2)]
    assert (root / "README.md").read_text() == "# calc\n\nAdds.\n"  # once, from the retry
    assert (root / "calc.go").read_text() == GO


def test_a_write_conflict_fails_the_run_and_writes_nothing(host, replay, tmp_path: Path) -> None:
    root = project(tmp_path)
    workspace = open_workspace(host, {}, root)
    workspace, _ = workspace.load("README.md")  # tai has read it
    (root / "README.md").write_text("# calc\n\nEdited by a person meanwhile.\n")
    reply = (
        '<<竹梅 change(op="WRITE", file-path="README.md")\n# calc\n\nAdds.\n竹梅\n'
        '<<松柏 change(op="WRITE", file-path="NEW.md")\nnew\n松柏\n' + SUMMARY
    )
    outcome = replay([reply], workspace=workspace)
    failed = outcome.terminal
    assert isinstance(failed, RunFailed)  # at once: no retry can fix someone else's edit
    assert failed.final  # nor a next goal loop: the disk refused the round's changes
    assert "write conflict" in failed.message and "README.md" in failed.message
    assert len(outcome.of(RoundStarted)) == 1
    assert (root / "README.md").read_text() == "# calc\n\nEdited by a person meanwhile.\n"
    assert not (root / "NEW.md").exists()
