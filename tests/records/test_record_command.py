"""`-record` and `tai record` as a user runs them: real `tai` subprocesses, the replay
provider as the model, the records database in a temporary configuration directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core.records import EventRow, RecordStore
from tests.conftest import run_tai

#: A run of `tai next` with every kind of round: thoughts and a malformed block (feedback,
#: so a second round), a truncated attempt, an attempt failing after output, the answer.
RUN = """\
@@@ reply
@@@ thought: First, the plan.
@@@ thought:
@@@ thought: Then the answer.
@@@ usage input=300 output=40 cache_read=100 reasoning=7
Let me look.
<<紫藤 response(parent="user-input-1"
broken
紫藤
@@@ reply
@@@ finish length
Partial answ
@@@ reply
@@@ error 503 overloaded
Half an
@@@ reply
@@@ usage input=500 output=60
The answer is 42.

<<松柏 summary
- answered
松柏
"""

#: Row types that hold what the model did (times and prompts aside).
MODEL_ROWS = ("round_start", "thought", "text", "usage", "finish", "round_end", "block_summary")


def database(env: dict[str, str]) -> Path:
    return Path(env["TAI_DATA_DIR"]) / "tai-records.db"


def read(env: dict[str, str]) -> tuple[list, dict[int, list[EventRow]]]:
    store = RecordStore(database(env))
    try:
        sessions = store.sessions(100)
        return sessions, {s.id: store.events(s.id) for s in sessions}
    finally:
        store.close()


def model_rows(events: list[EventRow]) -> list[tuple[int, str, str]]:
    return [(e.round, e.type, e.detail) for e in events if e.type in MODEL_ROWS]


def record_run(tmp_path: Path, env: dict[str, str], transcript: str = RUN, *flags: str):
    (tmp_path / "run.txt").write_text(transcript, encoding="utf-8")
    return run_tai(
        "next", "-model", "replay:run.txt", *flags, "chat", "what is it", cwd=tmp_path, env=env
    )


@pytest.mark.slow
def test_a_recorded_run_is_listed_and_printed(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = record_run(tmp_path, isolated_env, RUN, "-record")
    assert result.returncode == 0, result.stderr
    assert "The answer is 42." in result.stdout
    (session,), events = read(isolated_env)
    assert (session.command, session.model, session.status) == ("next", "replay:run.txt", "success")
    assert session.cwd == str(tmp_path) and session.rounds == 2
    kinds = [e.type for e in events[session.id]]
    assert kinds[:3] == ["system_prompt", "user", "round_start"]
    assert kinds.count("text") == 4  # one row per attempt, however many pieces streamed
    assert "parse_error" in kinds and "notice" in kinds and "outline" in kinds
    assert ("round_start", "attempt 3") in [(e.type, e.detail) for e in events[session.id]]

    listing = run_tai("record", cwd=tmp_path, env=isolated_env)
    assert listing.returncode == 0, listing.stderr
    header, line = listing.stdout.splitlines()
    assert header.split() == [
        "ID", "STARTED", "TOOK", "ROUNDS", "STATUS", "COMMAND", "MODEL", "DIRECTORY"
    ]  # fmt: skip
    assert line.split()[0] == "1" and "success  next     replay:run.txt" in line

    shown = run_tai("record", "--session", "1", cwd=tmp_path, env=isolated_env)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert text.startswith(f"session 1: tai next with replay:run.txt in {tmp_path}\nstarted ")
    assert "2 round(s), status success" in text
    assert "--- context [system_prompt] " in text and "--- context [user] " in text
    assert "--- round 1 [thought] " in text
    assert "\nFirst, the plan.\n\nThen the answer.\n" in text
    assert "--- round 2 [text] " in text and "\nThe answer is 42.\n" in text
    assert text.index("[round_start]") < text.index("[text]") < text.index("[round_end]")


@pytest.mark.slow
def test_limit_lists_the_newest(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    for _ in range(3):
        assert record_run(tmp_path, isolated_env, RUN, "--record").returncode == 0
    listing = run_tai("record", "-limit", "2", cwd=tmp_path, env=isolated_env)
    assert [line.split()[0] for line in listing.stdout.splitlines()[1:]] == ["3", "2"]
    default = run_tai("record", cwd=tmp_path, env=isolated_env)
    assert len(default.stdout.splitlines()) == 4


@pytest.mark.slow
def test_recording_follows_flag_and_configuration(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    assert record_run(tmp_path, isolated_env).returncode == 0
    assert not database(isolated_env).exists()  # not asked: nothing written, not even a file
    (tmp_path / "tai.toml").write_text("record = true\n", encoding="utf-8")
    assert record_run(tmp_path, isolated_env).returncode == 0
    assert record_run(tmp_path, isolated_env, RUN, "-no-record").returncode == 0
    sessions, _ = read(isolated_env)
    assert len(sessions) == 1


def test_a_recording_failure_is_only_a_warning(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    database(isolated_env).mkdir()  # a directory where the database file should be
    result = record_run(tmp_path, isolated_env, RUN, "-record")
    assert result.returncode == 0
    assert "The answer is 42." in result.stdout
    assert "tai: warning: not recording: " in result.stderr


def test_a_failed_run_is_recorded_as_failed(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = record_run(tmp_path, isolated_env, "@@@ reply\n@@@ error 401 bad key\n", "-record")
    assert result.returncode == 1
    (session,), events = read(isolated_env)
    assert session.status == "error" and "bad key" in session.error
    assert "run_failed" in [e.type for e in events[session.id]]


@pytest.mark.slow
def test_a_recorded_run_replays_with_the_same_replies(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    original = record_run(tmp_path, isolated_env, RUN, "-record")
    assert original.returncode == 0, original.stderr
    written = run_tai(
        "record", "-session", "1", "-replay", "again.txt", cwd=tmp_path, env=isolated_env
    )
    assert written.returncode == 0, written.stderr
    assert "@@@ finish length" in (tmp_path / "again.txt").read_text("utf-8")
    replayed = run_tai(
        "next", "-model", "replay:again.txt", "-record", "chat", "what is it",
        cwd=tmp_path, env=isolated_env,
    )  # fmt: skip
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout == original.stdout
    (second, first), events = read(isolated_env)
    assert second.rounds == first.rounds == 2
    assert model_rows(events[second.id]) == model_rows(events[first.id])
    assert len(model_rows(events[first.id])) > 10


def test_analyze_sends_the_transcript_to_the_model(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    assert record_run(tmp_path, isolated_env, RUN, "-record").returncode == 0
    (tmp_path / "analyst.txt").write_text(
        "@@@ reply\n"
        "@@@ expect system: You review the transcript of one run of tai\n"
        "@@@ expect user: session 1: tai next with replay:run.txt\n"
        "@@@ expect user: The answer is 42.\n"
        "The run spent a round on a malformed block.\n",
        encoding="utf-8",
    )
    result = run_tai(
        "record", "-analyze", "-session", "1", "-model", "replay:analyst.txt",
        cwd=tmp_path, env=isolated_env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The run spent a round on a malformed block.\n"


@pytest.mark.slow
def test_reading_without_records_and_bad_requests(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    empty = run_tai("record", cwd=tmp_path, env=isolated_env)
    assert empty.returncode == 0
    assert empty.stdout.startswith("no recorded runs yet: run a command with -record")
    nothing = run_tai("record", "-analyze", "-model", "replay:x", cwd=tmp_path, env=isolated_env)
    assert nothing.returncode == 1 and "no recorded runs yet" in nothing.stderr
    assert not database(isolated_env).exists()
    assert record_run(tmp_path, isolated_env, RUN, "-record").returncode == 0
    missing = run_tai("record", "-session", "7", cwd=tmp_path, env=isolated_env)
    assert missing.returncode == 1 and "no recorded run 7" in missing.stderr
    no_session = run_tai("record", "-replay", "x.txt", cwd=tmp_path, env=isolated_env)
    assert no_session.returncode == 2 and "-replay needs -session N" in no_session.stderr


def test_a_damaged_database_is_one_clear_error(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    database(isolated_env).write_bytes(b"this is not a database" * 100)
    result = run_tai("record", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 1
    assert result.stderr.startswith("tai: error: cannot read the records database ")
    assert "Traceback" not in result.stderr


def test_a_transcript_longer_than_the_window_keeps_its_ends() -> None:
    from tai_core.commands.record import fitted_transcript

    text = "BEGIN" + "x" * 100_000 + "END"
    fitted = fitted_transcript(text, 5000)
    assert len(fitted) <= 5000 * 4 and fitted.startswith("BEGIN") and fitted.endswith("END")
    assert "characters of the transcript left out to fit the model's window" in fitted
    assert fitted_transcript("short", 5000) == "short"


def test_each_turn_of_a_chat_is_a_recorded_run(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    (tmp_path / "chat.txt").write_text("@@@ reply\nFirst.\n@@@ reply\nSecond.\n")
    env = {**isolated_env, "TAI_NO_SANDBOX": "1"}
    result = run_tai("ai", "-model", "replay:chat.txt", "-record", "-no-memory", cwd=tmp_path,
                     env=env, stdin="one\ntwo\n")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-2:] == ["First.", "Second."]
    runs, events = read(env)
    assert len(runs) == 2
    replies = [e.detail for run in events.values() for e in run if e.type == "text"]
    assert "".join(replies).count("First.") == 1 and "".join(replies).count("Second.") == 1
    quiet = run_tai("ai", "-model", "replay:chat.txt", "-no-memory", cwd=tmp_path, env=env,
                    stdin="one\n")  # fmt: skip
    assert quiet.returncode == 0 and len(read(env)[0]) == 2  # not recorded without -record


def test_a_replay_that_cannot_be_written_is_one_line(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    assert record_run(tmp_path, isolated_env, RUN, "-record").returncode == 0
    missing = tmp_path / "no-such-folder" / "again.txt"
    result = run_tai("record", "-session", "1", "-replay", str(missing), cwd=tmp_path,
                     env=isolated_env)  # fmt: skip
    assert (result.returncode, result.stderr) == (
        1, f"tai: error: cannot write {missing}: No such file or directory\n"
    )  # fmt: skip
