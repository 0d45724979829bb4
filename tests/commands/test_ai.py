"""`tai ai` as a user runs it with piped prompts: real `tai` subprocesses against a local
model server, the profiles file and the sessions database in a temporary data directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands.test_next import configure
from tests.conftest import as_sent, run_tai
from tests.servers import FakeModelServer, Reply

REMEMBER = "Noted.\n<<松柏 memory\n<memory><memory-item>likes Go</memory-item></memory>\n松柏\n"


@pytest.fixture
def chat_dir(tmp_path: Path, openai_server: FakeModelServer) -> Path:
    folder = tmp_path / "chat"
    folder.mkdir()
    configure(folder, openai_server)
    return folder


def ai(folder: Path, env: dict[str, str], prompts: str, *flags: str) -> str:
    result = run_tai("ai", *flags, cwd=folder, env=env, stdin=prompts)
    assert result.returncode == 0, result.stderr
    return result.stdout


def system_of(server: FakeModelServer, index: int) -> str:
    return server.requests[index].body["messages"][0]["content"]


def contents(server: FakeModelServer, index: int) -> list[str]:
    return [m["content"] for m in server.requests[index].body["messages"][1:]]


def profiles(env: dict[str, str]) -> list[dict[str, object]]:
    return json.loads((Path(env["TAI_DATA_DIR"]) / "ai-memory.json").read_text())["Entries"]


def test_a_chat_remembers_and_goes_on(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text=REMEMBER), Reply(text="You like Go."))
    out = ai(chat_dir, isolated_env, "I like Go\n\n   \nwhat do I like?\n")
    # the memory block is printed as written: what every later chat's prompt will carry
    # is never saved out of the user's sight (the terminal UI shows it the same way)
    assert out == REMEMBER + "You like Go.\n"
    assert len(openai_server.requests) == 2  # blank lines are no prompts
    first, second = contents(openai_server, 0), contents(openai_server, 1)
    first_input = as_sent("I like Go", "user-input-1")
    assert first[0].endswith(f"# Task\n\n{first_input}")  # the rules go with the first message
    assert second == [first[0], REMEMBER, as_sent("what do I like?", "user-input-2")]
    assert "# What you know about the user" not in system_of(openai_server, 0)
    assert system_of(openai_server, 1).endswith("# What you know about the user\n\n- likes Go")
    assert "# memory blocks" in system_of(openai_server, 0)
    assert "shell: commands cannot be run now" in system_of(openai_server, 0)  # no -shell
    assert [entry["Items"] for entry in profiles(isolated_env)] == [["likes Go"]]
    assert profiles(isolated_env)[0]["Model"] == "local"


def test_an_answer_is_printed_without_its_block_lines(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    """A response block is the answer: piped (or -cli), the chat prints its text, not the
    heredoc around it, as the terminal UI does; the session keeps the reply as written."""
    answer = '<<琥珀 response(name="a", parent="user-input-1")\nTwo lines\nof answer.\n琥珀\n'
    openai_server.script(Reply(text=answer), Reply(text="Again."))
    out = ai(chat_dir, isolated_env, "hi\nand?\n")
    assert out == "Two lines\nof answer.\nAgain.\n"
    assert contents(openai_server, 1)[1] == answer


@pytest.mark.slow
def test_continue_takes_up_the_last_session_here(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="First."), Reply(text="Second."))
    ai(chat_dir, isolated_env, "one\n")
    ai(chat_dir, isolated_env, "two\n", "-continue")
    assert contents(openai_server, 1)[1:] == ["First.", as_sent("two", "user-input-2")]
    listing = run_tai("sessions", cwd=chat_dir, env=isolated_env).stdout.splitlines()
    assert len(listing) == 2 and listing[1].split()[4:7] == ["4", "closed", "ai"]


@pytest.mark.slow
def test_no_memory_neither_shows_nor_keeps_a_profile(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text=REMEMBER), Reply(text=REMEMBER), Reply(text="Hi."))
    ai(chat_dir, isolated_env, "I like Go\n")
    ai(chat_dir, isolated_env, "I like Go\nhello\n", "-no-memory")
    assert "# What you know about the user" not in system_of(openai_server, 2)
    assert "memory: nothing is remembered in this session" in system_of(openai_server, 2)
    assert len(profiles(isolated_env)) == 1  # the -no-memory session added nothing


def test_a_failed_round_remembers_nothing(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    # the memory block streams, then the connection drops: the round fails after its
    # retries, and its memory is dropped with it
    openai_server.script(*[Reply(text=REMEMBER, fault="drop", chunks=8)] * 4)
    result = run_tai("ai", cwd=chat_dir, env=isolated_env, stdin="I like Go\n")
    assert result.returncode == 1  # a turn failed: a script piping prompts sees it
    assert "tai: error:" in result.stderr
    assert not (Path(isolated_env["TAI_DATA_DIR"]) / "ai-memory.json").exists()


def test_a_damaged_profiles_file_is_a_warning(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    (Path(isolated_env["TAI_DATA_DIR"]) / "ai-memory.json").write_text("{not json")
    openai_server.script(Reply(text="Hi."))
    result = run_tai("ai", cwd=chat_dir, env=isolated_env, stdin="hello\n")
    assert result.returncode == 0 and result.stdout == "Hi.\n"
    assert "tai: warning: the memory file is damaged and is ignored:" in result.stderr


@pytest.mark.slow
def test_a_session_changed_outside_tai_is_refused_without_being_called_resumed(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    import contextlib
    import sqlite3

    openai_server.script(Reply(text="First."))
    ai(chat_dir, isolated_env, "one\n")
    database = Path(isolated_env["TAI_DATA_DIR"]) / "tai-sessions.db"
    with contextlib.closing(sqlite3.connect(database)) as db:
        db.execute("UPDATE messages SET content = 'planted' WHERE role = 'assistant'")
        db.commit()
    again = run_tai("ai", "-continue", cwd=chat_dir, env=isolated_env, stdin="two\n")
    assert again.returncode == 1 and len(openai_server.requests) == 1
    assert "does not carry tai's seal" in again.stderr
    assert "tai: resumed session" not in again.stderr and again.stderr.count("\n") == 1
    resumed = run_tai("ai", "-continue", cwd=chat_dir, env=isolated_env, stdin="")
    assert resumed.returncode == 1  # still refused: nothing was written over it


def test_resume_and_continue_refusals(chat_dir: Path, isolated_env: dict[str, str]) -> None:
    both = run_tai("ai", "-resume", "x", "-continue", cwd=chat_dir, env=isolated_env, stdin="")
    assert both.returncode == 2 and "-resume and -continue cannot be used together" in both.stderr
    nothing = run_tai("ai", "-continue", cwd=chat_dir, env=isolated_env, stdin="")
    assert nothing.returncode == 1
    assert nothing.stderr == f"tai: error: no kept session in {chat_dir} to continue\n"


def test_compact_in_a_chat_replaces_the_conversation_by_its_summary(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="One."), Reply(text="Two."),
                         Reply(text="The user counts to two."), Reply(text="Three."))  # fmt: skip
    out = ai(chat_dir, isolated_env, "say one\nsay two\n/compact keep the count\nsay three\n")
    assert out == ("One.\nTwo.\ncompacted: 4 messages into a summary of 23 characters\nThree.\n")
    summary_call = contents(openai_server, 2)[0]
    assert summary_call.endswith("The user adds: keep the count")
    opening, last = contents(openai_server, 0)[0], contents(openai_server, 3)
    rules = opening[: opening.index("# Task\n\n")]  # the chat's rules and files stay
    assert rules and last[0] == (
        f"{rules}# Task\n\nConversation summary before compaction:\nThe user counts to two."
    )
    assert last[2] == as_sent("say three", "user-input-3")


@pytest.mark.slow
def test_trust_memory_signs_the_users_own_edit(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text=REMEMBER), Reply(text="Hi."), Reply(text="Hi again."))
    ai(chat_dir, isolated_env, "I like Go\n")
    path = Path(isolated_env["TAI_DATA_DIR"]) / "ai-memory.json"
    data = json.loads(path.read_text())
    data["Entries"][-1]["Items"].append("prefers tabs")
    path.write_text(json.dumps(data))
    untrusted = run_tai("ai", cwd=chat_dir, env=isolated_env, stdin="hello\n")
    assert "1 entries tai did not write" in untrusted.stderr
    assert "# What you know about the user" not in system_of(openai_server, 1)
    trusted = run_tai("ai", "-trust-memory", cwd=chat_dir, env=isolated_env, stdin="hello\n")
    assert trusted.returncode == 0, trusted.stderr
    assert "tai: signed the memory of local" in trusted.stderr
    assert "  - prefers tabs" in trusted.stderr
    assert system_of(openai_server, 2).endswith("- likes Go\n- prefers tabs")


def test_the_rules_and_files_go_with_the_first_turn_that_is_kept(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """A failed (or cancelled) first turn keeps none of its messages, so its rules and
    ``-file`` text went nowhere: the next prompt was sent bare. They go with the next."""
    (tmp_path / "notes.txt").write_text("The deploy key rotates on Mondays.\n")
    (tmp_path / "r.replay").write_text(
        "@@@ reply\n@@@ error 401 bad key\n"
        "@@@ reply\n@@@ expect user: The deploy key rotates on Mondays.\nFine.\n"
    )
    result = run_tai("ai", "-no-memory", "-file", "notes.txt", "-model", "replay:r.replay",
                     cwd=tmp_path, env=isolated_env, stdin="first\nsecond\n")  # fmt: skip
    assert "401 bad key" in result.stderr and "expected the last user" not in result.stderr
    assert result.stdout.endswith("Fine.\n") and result.returncode == 1  # a turn failed
    assert "was not kept" not in result.stderr  # the second turn was answered


def test_a_chat_whose_turns_all_failed_says_it_was_not_kept(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """The opening line promises the session's id for -resume once a turn is answered:
    when none was, the chat says so as it ends, and -resume finds nothing."""
    (tmp_path / "r.replay").write_text("@@@ reply\n@@@ error 401 bad key\n")
    result = run_tai("ai", "-no-memory", "-model", "replay:r.replay",
                     cwd=tmp_path, env=isolated_env, stdin="first\n")  # fmt: skip
    assert result.returncode == 1
    session = result.stderr.split("tai: new session ")[1].split()[0]
    assert "kept once a turn is answered" in result.stderr
    assert f"tai: session {session} was not kept: no turn was answered" in result.stderr
    again = run_tai("ai", "-no-memory", "-model", "replay:r.replay", "-resume", session,
                    cwd=tmp_path, env=isolated_env, stdin="")  # fmt: skip
    assert again.returncode == 1 and "no sessions kept yet" in again.stderr


def test_quit_leaves_the_chat(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="Hi."), Reply(text="never asked"))
    out = ai(chat_dir, isolated_env, "hello\n/quit\nnot sent\n")
    assert out == "Hi.\n" and len(openai_server.requests) == 1


def test_a_kept_session_is_taken_up_with_its_own_model(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """-continue and -resume need no -model where none is configured: the session keeps
    the one it ran with; a session that is not there is said before any model is."""
    (tmp_path / "r.replay").write_text("@@@ reply\nFirst.\n")
    started = run_tai("ai", "-no-memory", "-model", "replay:r.replay",
                      cwd=tmp_path, env=isolated_env, stdin="hi\n")  # fmt: skip
    assert started.returncode == 0, started.stderr
    again = run_tai("ai", "-no-memory", "-continue", cwd=tmp_path, env=isolated_env,
                    stdin="again\n")  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "tai: resumed session" in again.stderr and again.stdout == "First.\n"
    missing = run_tai("ai", "-resume", "nosuchsession", cwd=tmp_path, env=isolated_env, stdin="")
    assert missing.returncode == 1 and "no session" in missing.stderr, missing.stderr
