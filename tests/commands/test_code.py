"""The default command as a user runs it (a real `tai` process, real files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core.testing import project
from tests.conftest import run_tai

REPLY = """\
@@@ reply
@@@ expect user: begin of file greeting.txt
@@@ expect user: # Task
I will capitalise it.
<<紫藤 change(op="REPLACE", find="hello", file-path="greeting.txt")
Hello
紫藤
<<松柏 summary
- capitalised the greeting
松柏
"""


def text_project(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "greeting.txt").write_text("hello world\n")
    (root / ".model.replay").write_text(REPLY)
    return root


def test_outside_a_go_module_it_edits_text_files(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    root = text_project(tmp_path)
    result = run_tai("-model", "replay:.model.replay", "chat", "Capitalise the greeting",
                     cwd=root, env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (root / "greeting.txt").read_text() == "Hello world\n"
    assert "-hello world\n+Hello world" in result.stderr  # the run's diff
    assert "=== Goal Loop" not in result.stderr  # goal loops are for Go modules


UNCLOSED = """\
@@@ reply
<<松柏 summary
- capitalised the greeting
松柏
<<紫藤 change(op="REPLACE", find="hello", file-path="greeting.txt")
Hello
"""


def test_a_block_still_malformed_when_the_corrections_ran_out_fails_the_run(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    root = text_project(tmp_path)
    (root / ".model.replay").write_text(UNCLOSED * 4)
    result = run_tai("-model", "replay:.model.replay", "chat", "Capitalise the greeting",
                     cwd=root, env=isolated_env)  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "the correction budget is spent" in result.stderr
    assert result.stderr.endswith(
        "tai: error: 1 block(s) of the reply were still malformed when the corrections ran "
        "out: they were not applied (what the others did stays)\n"
    )
    assert (root / "greeting.txt").read_text() == "hello world\n"


def test_a_directory_that_is_no_project_is_told_as_one(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """Notes are not a software project: the prompt speaks of files shown whole, offers no
    language's kinds and no done (no goal loop would confirm it)."""
    root = text_project(tmp_path)
    (root / ".model.replay").write_text(
        "@@@ reply\n"
        "@@@ expect system: You are changing the files of a directory\n"
        "@@@ expect system: - done: the run ends on its own; do not write done blocks.\n"
        + REPLY.removeprefix("@@@ reply\n")
    )
    result = run_tai("-model", "replay:.model.replay", "chat", "Capitalise the greeting",
                     cwd=root, env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr


def test_stdin_joins_the_task(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    """git diff | tai -stdin chat "review this": the piped text is part of the task (it was
    silently dropped by the default command); an empty pipe is warned of."""
    root = text_project(tmp_path)
    (root / ".model.replay").write_text(
        "@@@ reply\n@@@ expect user: Capitalise the greeting\n\nPIPED WORDS\n"
        + REPLY.removeprefix("@@@ reply\n")
    )
    result = run_tai("-model", "replay:.model.replay", "-stdin", "chat", "Capitalise the greeting",
                     cwd=root, env=isolated_env, stdin="PIPED WORDS\n")  # fmt: skip
    assert result.returncode == 0, result.stderr
    empty = run_tai("-model", "replay:.model.replay", "-stdin", "-no-apply", "chat", "x",
                    cwd=root, env=isolated_env, stdin="")  # fmt: skip
    assert "tai: warning: -stdin: standard input is empty\n" in empty.stderr


def test_no_apply_shows_the_diff_and_writes_nothing(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    root = text_project(tmp_path)
    result = run_tai("code", "-no-apply", "-model", "replay:.model.replay", "chat", "Go",
                     cwd=root, env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (root / "greeting.txt").read_text() == "hello world\n"
    assert "+Hello world" in result.stderr


def test_a_task_is_required(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("-model", "replay:x", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 2
    assert 'give the task as chat "…"' in result.stderr


REVIEW = (
    REPLY
    + """\
@@@ reply
@@@ expect user: Review the following changes
@@@ expect user: +Hello world
The change is right; nothing to fix.
<<竹梅 summary
- reviewed the capitalisation: correct
竹梅
"""
)


def test_review_reads_the_runs_diff(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    root = text_project(tmp_path)
    (root / ".model.replay").write_text(REVIEW)
    result = run_tai("-review", "-model", "replay:.model.replay", "chat", "Capitalise",
                     cwd=root, env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "The change is right" in result.stdout
    assert (root / "greeting.txt").read_text() == "Hello world\n"


@pytest.mark.slow
def test_a_context_that_cannot_be_collected_ends_the_run_at_once(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    (tmp_path / "go.mod").write_text("module example.com/broken\n\ngo 1.99\n")
    (tmp_path / "a.go").write_text("package a\n")
    (tmp_path / ".model.replay").write_text("@@@ reply\nnever asked\n")
    env = {**isolated_env, "GOTOOLCHAIN": "local"}
    result = run_tai("-record", "-model", "replay:.model.replay", "chat", "x",
                     cwd=tmp_path, env=env)  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.count("=== Goal Loop") == 1, result.stderr  # no silent retries
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("tai: error: ")]
    assert error.startswith("tai: error: context: go list: ") and "requires go >= 1.99" in error
    listing = run_tai("record", cwd=tmp_path, env=env)
    assert listing.returncode == 0 and "error" in listing.stdout, listing.stdout
    transcript = run_tai("record", "-session", "1", cwd=tmp_path, env=env)
    assert "context_failed" in transcript.stdout and "requires go >= 1.99" in transcript.stdout


def test_a_partial_load_is_noted_once_and_the_run_goes_on(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    (tmp_path / "go.mod").write_text("module example.com/part\n\ngo 1.22\n")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "a.go").write_text(
        'package a\n\nimport "example.invalid/gone"\n\nvar X = gone.Y\n'
    )
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "b.go").write_text("// Package b is fine.\npackage b\n")
    done = "<<珊瑚 done\n- nothing to do\n珊瑚\n<<琥珀 summary\n- checked\n琥珀\n"
    (tmp_path / ".model.replay").write_text(
        "@@@ reply\n@@@ expect user: - example.invalid/gone: a/a.go:3:8: \n"
        f"@@@ expect user: Package b is fine.\n{done}@@@ reply\n{done}"
    )
    env = {**isolated_env, "GOPROXY": "off", "GOFLAGS": "-mod=mod"}
    result = run_tai("-model", "replay:.model.replay", "chat", "x", cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if line.startswith("tai: note: ")]
    assert notes == [
        "tai: note: 1 Go package(s) failed to load and are named to the model: example.invalid/gone"
    ]


GO_MODULE = {"go.mod": "module example.com/g\n\ngo 1.22\n", "g.go": "package g\n"}


@pytest.mark.parametrize(
    ("layout", "args", "named"),
    [
        ({"setup.py": "", "tool.py": "def run(): ...\n"}, ["-pkg", "nosuch.mod"],
         "focus pattern 'nosuch.mod' names no module of the project"),
        ({"notes.md": "x\n"}, ["-match", "("], "-match '('"),
        ({"notes.md": "x\n"}, ["-match", "nomatch"], "-match 'nomatch' matches no file"),
        (GO_MODULE, ["-match", "nomatch"], "-match 'nomatch' matches no file"),
        ({"setup.py": "", "tool.py": "def run(): ...\n"}, ["-match", "nomatch", "-match", "x$"],
         "-match 'nomatch', 'x$' matches no file"),
        (GO_MODULE, ["-match", "("], "-match '('"),
        (GO_MODULE, ["-pkg", "./nosuch/..."], "go list: pattern ./nosuch/... matched no "),
        (GO_MODULE, ["-doc", "nosuch.example/x"],
         '-doc nosuch.example/x: cannot find package "nosuch.example/x"'),
    ],
)  # fmt: skip
def test_a_selection_that_names_nothing_is_a_usage_error(
    layout: dict[str, str], args: list[str], named: str, tmp_path: Path,
    isolated_env: dict[str, str],
) -> None:  # fmt: skip
    """Exit status 2 (the command line's mistake, as for -file), and no second loop."""
    project(tmp_path, {**layout, ".model.replay": "@@@ reply\nnever asked\n"})
    result = run_tai("-model", "replay:.model.replay", *args, "chat", "x", cwd=tmp_path,
                     env=isolated_env)  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert f"tai: error: context: {named}" in result.stderr
    assert result.stderr.count("=== Goal Loop") <= 1


@pytest.mark.slow
def test_a_file_on_stdout_holds_the_answer_once_not_each_retried_attempt(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """``tai … > answer.md``: the attempt that ended without a summary was retried, and
    the file holds the answer of the attempt that was used (a pipe still streams both:
    its reader follows the text as it comes)."""
    import subprocess

    from tests.conftest import tai_executable

    (tmp_path / ".model.replay").write_text(
        "@@@ reply\nA first try, never finished.\n"
        "@@@ reply\nThe answer.\n<<甲乙 summary\n- answered\n甲乙\n"
    )
    answer = tmp_path / "answer.md"
    with answer.open("w") as out:
        done = subprocess.run(
            [tai_executable(), "-model", "replay:.model.replay", "chat", "Answer"],
            cwd=tmp_path, env=isolated_env, stdout=out, stderr=subprocess.PIPE, text=True,
            timeout=60,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "retrying" in done.stderr  # the first attempt was retried: the case at hand
    assert answer.read_text().startswith("The answer.\n")
    assert "first try" not in answer.read_text()
    piped = run_tai("-model", "replay:.model.replay", "chat", "Answer", cwd=tmp_path,
                    env=isolated_env)  # fmt: skip
    assert "A first try" in piped.stdout and "The answer." in piped.stdout
