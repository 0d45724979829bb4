"""The terminal UI on a real terminal (tmux): shown by default there, plain output through
a pipe or with -cli; tabs and folds by key; a block's question in a dialog; Ctrl-C."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import tai_executable
from tests.terminal import Terminal

REPLY = """\
@@@ reply
I will capitalise it.
<<紫藤 change(op="REPLACE", find="hello", file-path="greeting.txt")
Hello
紫藤
{extra}<<松柏 summary
- capitalised the greeting
松柏
@@@ reply
Done.
<<松柏 summary
- done
松柏
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "greeting.txt").write_text("hello world\n")
    (root / ".model.replay").write_text(REPLY.format(extra=""))
    return root


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for terminal in opened:
        terminal.close()


def run(project: Path, env: dict[str, str], terminals: list[Terminal], *args: str) -> Terminal:
    command = [tai_executable(), *args, "-model", "replay:.model.replay", "chat", "Capitalise"]
    terminal = Terminal(command, project, {**env, "TERM": "xterm-256color"})
    terminals.append(terminal)
    return terminal


@pytest.mark.slow
def test_the_ui_by_default_tabs_and_folds_then_the_outcome(
    project: Path, isolated_env: dict[str, str], terminals: list[Terminal]
) -> None:
    terminal = run(project, isolated_env, terminals)
    screen = terminal.wait_for("finished — q quits")
    assert "1 Tree" in screen and "2 Output (1)" in screen and "3 Logs (0)" in screen
    assert "▾ user-input user-input-1 — Capitalise" in screen
    assert "block block-1 [applied] — Hello" in screen
    terminal.send("Down")
    terminal.send("Enter")
    screen = terminal.wait_for("▸ user-input user-input-1")
    assert "block-1" not in screen.split("─" * 20)[0]  # folded away
    terminal.send("2")
    screen = terminal.wait_for("▾ Round 1")
    assert "I will capitalise it." in screen
    terminal.send("q")
    screen = terminal.wait_for("[exited 0]")
    assert "-hello world" in screen and "+Hello world" in screen  # the outcome stays
    assert "I will capitalise it." in screen  # and the reply, as the plain output has it
    assert (project / "greeting.txt").read_text() == "Hello world\n"


@pytest.mark.slow
@pytest.mark.parametrize("how", ["pipe", "-cli"])
def test_plain_output_through_a_pipe_or_with_cli(
    how: str, project: Path, isolated_env: dict[str, str], terminals: list[Terminal]
) -> None:
    command = [tai_executable(), "-model", "replay:.model.replay"]
    command += ["-cli", "chat", "Capitalise"] if how == "-cli" else ["chat", "Capitalise"]
    line = [*command, "|", "cat"] if how == "pipe" else command
    terminal = Terminal(["sh", "-c", " ".join(line)], project, isolated_env)
    terminals.append(terminal)
    screen = terminal.wait_for("[exited 0]")
    assert "1 Tree" not in screen and "I will capitalise it." in screen


@pytest.mark.slow
def test_a_question_comes_as_a_dialog(
    project: Path, isolated_env: dict[str, str], terminals: list[Terminal]
) -> None:
    shell = "<<甲乙 shell\ntouch approved\n甲乙\n"
    (project / ".model.replay").write_text(REPLY.format(extra=shell))
    terminal = run(project, isolated_env, terminals, "-approve", "ask", "-shell")
    screen = terminal.wait_for("y yes · n no · Enter: no")
    assert "Run the model's shell command?" in screen and "touch approved" in screen
    terminal.send("y")
    terminal.wait_for("finished — q quits")
    assert (project / "approved").exists()
    terminal.send("q")
    screen = terminal.wait_for("[exited 0]")
    assert "[shell ok]" in screen  # the block's result stays, as the plain output has it


def test_ctrl_c_cancels_and_leaves_with_status_130(
    project: Path, isolated_env: dict[str, str], terminals: list[Terminal]
) -> None:
    (project / ".model.replay").write_text(REPLY.format(extra="<<甲乙 shell\nsleep 60\n甲乙\n"))
    terminal = run(project, isolated_env, terminals, "-shell")
    terminal.wait_for("shell block")
    terminal.send("C-c")
    screen = terminal.wait_for("[exited 130]")
    # the change was written before the shell block ran, and the last line says so (the
    # UI did not pass on what it does not show, and the line said nothing was applied)
    assert (project / "greeting.txt").read_text().startswith("Hello")
    assert "tai: cancelled; round 1's changes were written: greeting.txt; round 1's" in screen


def test_a_narrow_terminal_and_long_lines(
    project: Path, isolated_env: dict[str, str], terminals: list[Terminal]
) -> None:
    long = "word " * 60
    (project / ".model.replay").write_text(REPLY.format(extra="").replace(
        "I will capitalise it.", f"I will capitalise it. {long}"))  # fmt: skip
    command = [tai_executable(), "-model", "replay:.model.replay", "chat", "Capitalise"]
    terminal = Terminal(command, project, {**isolated_env, "TERM": "xterm-256color"},
                        width=80, height=24)  # fmt: skip
    terminals.append(terminal)
    screen = terminal.wait_for("1 Tree")
    assert all(len(line) <= 80 for line in screen.splitlines())
    terminal.send("2")
    screen = terminal.wait_for("▾ Round 1")
    assert screen.count("word") > 20  # the long line wraps, nothing is lost at the edge
    terminal.send("q")
    terminal.wait_for("[exited 0]")


@pytest.mark.slow
@pytest.mark.parametrize("no_color", [False, True])
def test_colours_follow_no_color(
    no_color: bool, project: Path, isolated_env: dict[str, str], terminals: list[Terminal]
) -> None:
    env = {**isolated_env, **({"NO_COLOR": "1"} if no_color else {})}
    terminal = run(project, env, terminals)
    terminal.wait_for("finished — q quits")
    screen = terminal.screen(escapes=True)
    coloured = "\x1b[32m" in screen or "\x1b[38;" in screen  # the [applied]/[ok] green
    assert coloured is not no_color
    terminal.send("q")
    terminal.wait_for("[exited 0]")


@pytest.mark.slow
def test_goal_loops_go_on_without_a_key(
    tmp_path: Path, isolated_env: dict[str, str], terminals: list[Terminal]
) -> None:
    """In a Go module each goal loop's UI closes when the loop ends, so the next loop (and
    the end of the run) never waits for a q."""
    import shutil

    work = tmp_path / "calc"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "calc", work)
    command = [tai_executable(), "-model", "replay:fix-mean.replay", "chat",
               "stats.Mean is wrong: the mean of 1, 2, 3 and 6 must be 3."]  # fmt: skip
    terminal = Terminal(command, work, {**isolated_env, "TERM": "xterm-256color"})
    terminals.append(terminal)
    screen = terminal.wait_for("[exited 0]", limit=240)
    assert "Goal Achieved" in screen
