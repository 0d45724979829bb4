"""Progress of long steps on stderr (tai_core.progress): silent for a quick step, a line
at each interval of a long one with its counts, a last line only after an earlier one, the
line rewritten in place on a terminal. A fake clock stands for time; the counting runner
runs real processes."""

from __future__ import annotations

import io
import re
import sys
import threading
from pathlib import Path

import pytest

from tai_changes.goimports import go_build_line
from tai_core.progress import Progress, run_counted


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_quick_step_says_nothing() -> None:
    clock, out = Clock(), io.StringIO()
    with Progress("building x", stream=out, clock=clock, ticker=False) as progress:
        progress.count("packages compiled")
        clock.now += 0.9
        progress.poll()
    assert out.getvalue() == ""


def test_a_long_step_says_what_it_does_at_each_interval_and_when_it_ends() -> None:
    clock, out = Clock(), io.StringIO()
    with Progress("building x", stream=out, clock=clock, ticker=False) as progress:
        progress.count("modules downloaded")
        clock.now += 1.5
        progress.count("packages compiled")  # due: the first line
        clock.now += 1
        progress.count("packages compiled")  # within the interval: nothing
        clock.now += 4
        progress.poll()  # nothing counted, still said: a build can sit on one package
        clock.now += 0.5
    assert out.getvalue().splitlines() == [
        "tai: building x: 2 s, 1 module downloaded, 1 package compiled",
        "tai: building x: 6 s, 1 module downloaded, 2 packages compiled",
        "tai: building x: done in 7 s, 1 module downloaded, 2 packages compiled",
    ]


def test_a_failed_step_says_so() -> None:
    clock, out = Clock(), io.StringIO()
    with pytest.raises(KeyError), Progress("x", stream=out, clock=clock, ticker=False):
        clock.now += 3
        raise KeyError("boom")
    assert out.getvalue() == ""  # nothing said before: nothing to close
    with pytest.raises(KeyError), Progress("x", stream=out, clock=clock, ticker=False) as p:
        clock.now += 3
        p.poll()
        raise KeyError("boom")
    assert out.getvalue().splitlines()[-1] == "tai: x: failed after 3 s"


def test_on_a_terminal_the_line_is_rewritten_in_place() -> None:
    clock, out = Clock(), Terminal()
    with Progress("x", stream=out, clock=clock, ticker=False) as progress:
        clock.now += 2
        progress.poll()
        clock.now += 1
        progress.poll()
    assert out.getvalue() == "\r\x1b[Ktai: x: 2 s\r\x1b[Ktai: x: 3 s\r\x1b[Ktai: x: done in 3 s\n"


def test_the_ticker_speaks_without_counts_and_is_gone_after_the_step() -> None:
    """The thread polls by itself; leaving the step joins it (tai enters the sandbox only
    with a single thread)."""
    spoke = threading.Event()

    class Stream(io.StringIO):
        def write(self, text: str) -> int:
            spoke.set()
            return super().write(text)

    before = threading.active_count()
    with Progress("x", stream=Stream(), after=0, every=0.01):
        assert spoke.wait(30), "the ticker never spoke"
        assert threading.active_count() == before + 1
    assert threading.active_count() == before


def test_a_broken_stderr_does_not_end_the_step() -> None:
    out = io.StringIO()
    out.close()
    clock = Clock()
    with Progress("x", stream=out, clock=clock, ticker=False) as progress:
        clock.now += 5
        progress.count("things")


def test_the_runner_counts_what_a_real_process_says(tmp_path: Path) -> None:
    program = "import sys\nfor w in ('a', 'b', 'error: x', 'a'): print(w, file=sys.stderr)\n"
    clock, out = Clock(), io.StringIO()
    with Progress("x", stream=out, clock=clock, ticker=False, after=0, every=0) as progress:
        status, errors = run_counted(
            [sys.executable, "-c", program + "sys.exit(3)"], progress,
            {"a": "apples seen", "b": "bananas seen"}.get,
            cwd=tmp_path, env={}, timeout=60,
        )  # fmt: skip
    assert status == 3
    assert errors.splitlines() == ["a", "b", "error: x", "a"]
    assert out.getvalue().splitlines()[-1] == "tai: x: done in 0 s, 2 apples seen, 1 banana seen"


def test_the_runner_kills_a_process_past_its_time_limit(tmp_path: Path) -> None:
    """The limit is a fraction of a second and the process would run for ever: only the
    kill can end it."""
    with (
        Progress("x", stream=io.StringIO(), ticker=False) as progress,
        pytest.raises(TimeoutError, match="longer than"),
    ):
        run_counted(
            [sys.executable, "-c", "import time\nwhile True: time.sleep(1)"], progress,
            lambda line: None, cwd=tmp_path, env={}, timeout=0.2,
        )  # fmt: skip


@pytest.mark.parametrize(
    ("line", "counted"),
    [
        ("go: downloading golang.org/x/tools v0.52.0", "modules downloaded"),
        ("golang.org/x/tools/internal/event/label", "packages compiled"),
        ("internal/goarch", "packages compiled"),
        ("tai/godoc", "packages compiled"),
        ("# golang.org/x/tools/cmd/goimports", None),
        ("./main.go:3:2: undefined: x", None),
        ("go: golang.org/x/tools@v9: invalid version", None),
        ("", None),
    ],
)
def test_go_build_lines(line: str, counted: str | None) -> None:
    assert go_build_line(line) == counted


@pytest.mark.slow
def test_a_block_s_command_running_over_a_second_is_named_on_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The command sleeps 1.5 s, so it always runs past the one second after which the
    user is told; a command that ends at once is not mentioned."""
    from tai_block_kit.run import run_captured

    run_captured([sys.executable, "-c", "pass"], tmp_path, 60, what="a quick one")
    run_captured([sys.executable, "-c", "import time; time.sleep(1.5)"], tmp_path, 60)
    lines = capfd.readouterr().err.splitlines()
    assert len(lines) == 2, lines
    assert re.fullmatch(r"tai: \S+ -c 'import time; time.sleep\(1.5\)': \d+ s", lines[0])
    assert re.fullmatch(r"tai: \S+ -c 'import time; time.sleep\(1.5\)': done in \d+ s", lines[1])


def test_control_characters_of_the_step_s_name_do_not_reach_the_terminal() -> None:
    """The name may hold a model's text (a shell block's first line): an escape sequence
    in it is shown, not sent to the terminal."""
    clock, out = Clock(), io.StringIO()
    with Progress(
        "shell block printf '\x1b]0;pwned\x07'", stream=out, clock=clock, ticker=False
    ) as p:
        clock.now += 2
        p.poll()
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()
    assert "\\x1b]0;pwned\\x07" in out.getvalue()


@pytest.mark.slow
def test_the_last_line_says_how_a_command_ended(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Not "done" for a command that failed, was killed (a cancelled turn) or ran out of
    time."""
    from tai_block_kit.run import run_captured

    sleep = "import time; time.sleep(1.5)"
    run_captured([sys.executable, "-c", f"{sleep}; raise SystemExit(3)"], tmp_path, 60,
                 what="failing")  # fmt: skip
    run_captured([sys.executable, "-c", f"{sleep}; import os; os.kill(os.getpid(), 9)"],
                 tmp_path, 60, what="killed")  # fmt: skip
    run_captured([sys.executable, "-c", "import time; time.sleep(30)"], tmp_path, 1.2,
                 what="slow")  # fmt: skip
    last = [line for line in capfd.readouterr().err.splitlines() if " after " in line]
    assert [line.rsplit(" after ", 1)[0] for line in last] == [
        "tai: failing: exit status 3", "tai: killed: stopped", "tai: slow: timed out"
    ]  # fmt: skip
