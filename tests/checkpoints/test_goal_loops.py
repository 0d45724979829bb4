"""The goal loops of one ``tai chat`` are undone together: their checkpoints name the
command (a signed field of each line), and only tai's own lines say which runs belong to
it or which run was last — a line a run plants can make undo refuse, never reach back
further."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tai_checkpoints import _commands, _store
from tai_checkpoints._store import CheckpointStore
from tai_core.store import _key


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CheckpointStore:
    monkeypatch.setenv("TAI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(_key, "_cached", {})
    monkeypatch.setattr(_store, "_chains", {})
    root = tmp_path / "work"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    return CheckpointStore(root)


def checkpoint(store: CheckpointStore, session: str, command: str | None = None) -> None:
    """A run's checkpoints: before it writes in round 1, and as it ends."""
    store.record(session, 1, "write", 1 << 20, command=command)
    (store.root / "a.txt").write_text(f"{session}\n")
    store.record(session, 1, "end", 1 << 20, command=command)


def log_lines(store: CheckpointStore) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (store.directory / "log.jsonl").read_text().splitlines()]


def rewrite(store: CheckpointStore, lines: list[dict[str, Any]]) -> None:
    (store.directory / "log.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def refusal(store: CheckpointStore, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        _commands._last_command(store)
    assert exited.value.code == 1  # a failure: the log cannot be trusted
    return capsys.readouterr().err


def test_the_loops_of_the_last_command_are_undone_together(store: CheckpointStore) -> None:
    checkpoint(store, "alone")  # an earlier run of its own: no command named
    checkpoint(store, "loop1", "cmd")
    checkpoint(store, "loop2", "cmd")
    runs = _commands._last_command(store)
    assert [run[0]["session"] for run in runs] == ["loop1", "loop2"]
    assert _commands._target(runs, None) is runs[0][0]  # before the first loop
    assert _commands._target(runs, 1) is runs[1][0]  # -round: the last loop's rounds
    assert _commands._undone(runs, None) == (
        "runs loop1 and loop2, the goal loops of one tai command (before the first)"
    )


def test_a_run_alone_is_undone_alone(store: CheckpointStore) -> None:
    checkpoint(store, "loop1", "cmd")
    checkpoint(store, "alone")
    runs = _commands._last_command(store)
    assert [run[0]["session"] for run in runs] == ["alone"]
    assert _commands._undone(runs, None) == "run alone (before the run)"


@pytest.mark.parametrize("forge", ["changed", "removed", "added"])
def test_the_command_a_line_names_is_signed(store: CheckpointStore, forge: str) -> None:
    checkpoint(store, "other")
    checkpoint(store, "loop1", "cmd")
    lines = log_lines(store)
    target = lines[2] if forge != "added" else lines[0]
    if forge == "changed":
        target["command"] = "another"
    elif forge == "removed":
        del target["command"]
    else:
        target["command"] = "cmd"  # an older run claimed for this command
    rewrite(store, lines)
    problems = [entry["problem"] for entry in store.log()]
    assert problems[lines.index(target)] == "does not carry tai's signature"
    assert problems.count(None) == 3


def test_a_planted_last_line_points_undo_nowhere(
    store: CheckpointStore, capsys: pytest.CaptureFixture[str]
) -> None:
    """A line after the command's, naming an earlier run and the command: undo would go
    back over that earlier run (or undo it instead) if it were believed."""
    checkpoint(store, "earlier")
    checkpoint(store, "loop1", "cmd")
    lines = log_lines(store)
    rewrite(store, [*lines, {**lines[0], "command": "cmd", "round": 2}])
    error = refusal(store, capsys)
    assert "line 5" in error and "undo cannot tell which run was last" in error


def test_a_planted_line_cannot_join_a_command(store: CheckpointStore) -> None:
    checkpoint(store, "earlier")
    checkpoint(store, "loop1", "cmd")
    checkpoint(store, "loop2", "cmd")
    lines = log_lines(store)
    rewrite(store, [lines[0], {**lines[1], "command": "cmd"}, *lines[2:]])
    runs = _commands._last_command(store)
    assert [run[0]["session"] for run in runs] == ["loop1", "loop2"]
