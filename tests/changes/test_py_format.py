"""Python files formatted once per round with the formatter the project declares: the real
ruff, a stand-in for black, refusals, and programs the model could have planted."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tai_changes import _format, _pyformat
from tai_changes._pyformat import SANDBOX_VARIABLE

from ..conftest import run_tai
from .conftest import block, run_round, write_files

UGLY = "def area( w,h ):\n  return w*h"
RUFF_STYLE = "def area(w, h):\n    return w * h\n"
ORIGINAL = "def area(w, h):\n    return 0\n"


@pytest.fixture(autouse=True)
def outside_the_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts outside the sandbox, with the dev environment's ruff on PATH (it
    lies outside every project here) and nothing formatted yet."""
    monkeypatch.delenv(SANDBOX_VARIABLE, raising=False)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin")
    monkeypatch.setattr(_format, "_formatted", {})


def fake(path: Path, script: str) -> Path:
    """An executable shell script at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
    return path


def modify(root: Path, file: str = "pkg/shapes.py") -> str:
    write_files(root, {file: ORIGINAL})
    run_round(root, block("MODIFY", file, UGLY, target="area"))
    return (root / file).read_text()


@pytest.mark.parametrize(
    "config",
    [
        {"pyproject.toml": "[project]\nname = 'p'\n\n[tool.ruff]\nline-length = 100\n"},
        {"pyproject.toml": "[tool.ruff.format]\nquote-style = 'single'\n"},
        {"ruff.toml": "line-length = 100\n"},
        {".ruff.toml": "", "pyproject.toml": "[tool.black]\n"},
    ],
    ids=["tool.ruff", "tool.ruff.format", "ruff.toml", ".ruff.toml-first"],
)
def test_a_project_declaring_ruff_gets_its_changed_files_formatted(
    tmp_path: Path, config: dict[str, str]
) -> None:
    write_files(tmp_path, config)
    assert modify(tmp_path) == RUFF_STYLE


def test_without_a_declared_formatter_files_stay_as_written(tmp_path: Path) -> None:
    write_files(tmp_path, {"pyproject.toml": "[project]\nname = 'p'\n"})
    assert modify(tmp_path) == UGLY + "\n"
    # the nearest pyproject.toml governs, whatever a parent directory declares
    write_files(tmp_path, {"pyproject.toml": "[tool.ruff]\n", "sub/pyproject.toml": "[x]\n"})
    assert modify(tmp_path, "sub/pkg/shapes.py") == UGLY + "\n"
    write_files(tmp_path, {"broken/pyproject.toml": "[tool.ruff\n"})
    assert modify(tmp_path, "broken/a.py") == UGLY + "\n"


def test_each_file_gets_the_formatter_its_own_project_declares(tmp_path: Path) -> None:
    files = {"a/pyproject.toml": "[project]\nname = 'a'\n", "b/pyproject.toml": "[tool.ruff]\n"}
    write_files(tmp_path, {**files, "a/x.py": ORIGINAL, "b/y.py": ORIGINAL})
    change = [block("MODIFY", f"{p}.py", UGLY, target="area") for p in ("a/x", "b/y")]
    run_round(tmp_path, *change)
    assert (tmp_path / "a/x.py").read_text() == UGLY + "\n"
    assert (tmp_path / "b/y.py").read_text() == RUFF_STYLE


def test_black_reads_the_text_on_stdin_with_the_file_name(tmp_path: Path) -> None:
    tools, project = tmp_path / "tools", tmp_path / "project"
    fake(tools / "black", f'echo "$PWD $@" > {tools}/args\necho "# black"\ncat\n')
    os.environ["PATH"] = f"{tools}{os.pathsep}{os.environ['PATH']}"
    write_files(project, {"pyproject.toml": "[tool.black]\nline-length = 88\n"})
    assert modify(project) == "# black\n" + UGLY + "\n"
    args = f"{project} -q --stdin-filename {project}/pkg/shapes.py -\n"  # run in the project
    assert (tools / "args").read_text() == args


@pytest.mark.parametrize("script", ["echo 'error: bad config' >&2\nexit 2\n", "exit 0\n"])
def test_a_formatter_that_refuses_leaves_the_file_as_written(tmp_path: Path, script: str) -> None:
    tools, project = tmp_path / "tools", tmp_path / "project"
    fake(tools / "ruff", "cat > /dev/null\n" + script)
    os.environ["PATH"] = f"{tools}{os.pathsep}{os.environ['PATH']}"
    write_files(project, {"pyproject.toml": "[tool.ruff]\n"})
    assert modify(project) == UGLY + "\n"


def test_a_formatter_that_hangs_is_stopped_and_the_file_left_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools, project = tmp_path / "tools", tmp_path / "project"
    fake(tools / "ruff", "cat > /dev/null\nsleep 2\necho '# too late'\n")
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(_pyformat, "TIMEOUT", 0.2)
    write_files(project, {"pyproject.toml": "[tool.ruff]\n"})
    assert modify(project) == UGLY + "\n"


def test_what_is_not_a_program_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a/ruff").write_text("#!/bin/sh\necho '# not executable'\ncat\n")
    (tmp_path / "b/ruff").mkdir(parents=True)  # a directory
    path = os.pathsep.join([str(tmp_path / "a"), str(tmp_path / "b"), "", os.environ["PATH"]])
    monkeypatch.setenv("PATH", path)
    write_files(tmp_path / "project", {"pyproject.toml": "[tool.ruff]\n"})
    assert modify(tmp_path / "project") == RUFF_STYLE  # the dev environment's ruff
    monkeypatch.delenv("PATH")  # the default search path: no ruff there
    assert modify(tmp_path / "project") == UGLY + "\n"


def test_a_pyproject_without_a_tool_table_declares_nothing(tmp_path: Path) -> None:
    for text in ("[project]\nname = 'p'\n", "tool = 'ruff'\n"):
        write_files(tmp_path, {"pyproject.toml": text})
        assert modify(tmp_path) == UGLY + "\n"


def planted(project: Path, marker: Path) -> Path:
    """A project declaring ruff whose virtual environment holds a program of the model's:
    it leaves its environment in ``marker`` and tries to write beside the project."""
    write_files(project, {"pyproject.toml": "[tool.ruff]\n"})
    script = f"env > {marker}\ntouch {project.parent}/escaped\necho '# planted'\ncat\n"
    return fake(project / ".venv/bin/ruff", script)


def test_a_formatter_inside_the_project_runs_only_inside_the_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, marker = tmp_path / "project", tmp_path / "ran"
    planted(project, marker)
    # Outside the sandbox: not the project's .venv, not even when it is on PATH (an
    # activated environment); the ruff installed elsewhere formats instead.
    monkeypatch.setenv("PATH", f"{project}/.venv/bin{os.pathsep}{os.environ['PATH']}")
    assert modify(project) == RUFF_STYLE
    assert not marker.exists()
    # Nor through a link inside the project to it, nor as a relative PATH entry.
    (project / "bin").mkdir()
    (project / "bin/ruff").symlink_to(project / ".venv/bin/ruff")
    monkeypatch.setenv("PATH", f"bin{os.pathsep}{project}/bin")
    assert modify(project) == UGLY + "\n"
    assert not marker.exists()
    # Inside the sandbox the project's own formatter is the one, as a block could run it.
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv(SANDBOX_VARIABLE, "1")
    assert modify(project) == "# planted\n" + UGLY + "\n"
    assert marker.exists()


def test_the_formatter_gets_none_of_tais_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, marker = tmp_path / "project", tmp_path / "env"
    planted(project, marker)
    monkeypatch.setenv(SANDBOX_VARIABLE, "1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-formatters")
    monkeypatch.setenv("LANG", "C.UTF-8")
    modify(project)
    names = {line.partition("=")[0] for line in marker.read_text().splitlines()}
    assert "OPENAI_API_KEY" not in names and "LANG" in names
    assert "sk-not-for-formatters" not in marker.read_text()


REPLY = """\
<<甲乙 change(op="MODIFY", target="area", file-path="shapes.py")
def area( w,h ):
  return w*h
甲乙
"""


@pytest.mark.slow
def test_tai_patch_without_the_sandbox_never_runs_a_planted_formatter(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    project, marker = tmp_path / "work", tmp_path / "work" / "ran"
    planted(project, marker)
    write_files(project, {"shapes.py": ORIGINAL, ".AI": REPLY})
    env = {**isolated_env, "TAI_NO_SANDBOX": "1", "PATH": os.environ["PATH"]}
    done = run_tai("patch", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert (project / "shapes.py").read_text() == RUFF_STYLE  # the ruff outside formatted
    assert not marker.exists()
    # In the sandbox (the default), the project's formatter runs, inside it.
    write_files(project, {"shapes.py": ORIGINAL, ".AI": REPLY})
    done = run_tai("patch", cwd=project, env={**isolated_env, "PATH": os.environ["PATH"]})
    assert done.returncode == 0, done.stderr
    assert (project / "shapes.py").read_text().startswith("# planted\n")
    assert marker.exists() and not (tmp_path / "escaped").exists()  # /tmp is its own there


@pytest.mark.slow
@pytest.mark.parametrize("flags", [(), ("-no-network",)], ids=["network", "no-network"])
def test_a_planted_formatter_gets_the_network_a_block_would(
    tmp_path: Path, isolated_env: dict[str, str], flags: tuple[str, ...]
) -> None:
    """In a real sandboxed `tai patch`, the project's own formatter (which the model may
    have written) tries to reach a server on the machine's loopback: it can when blocks
    can, and with -no-network it cannot, as a shell block could not."""
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        project = tmp_path / "work"
        write_files(project, {"pyproject.toml": "[tool.ruff]\n", "shapes.py": ORIGINAL})
        probe = (
            "import socket, sys\n"
            "s = socket.socket(); s.settimeout(3)\n"
            f"reached = s.connect_ex(('127.0.0.1', {port})) == 0\n"
            "sys.stdout.write(f'# reached: {reached}\\n' + sys.stdin.read())\n"
        )
        fake(
            project / ".venv/bin/ruff",
            f"exec {sys.executable} -c \"$(cat <<'EOF'\n{probe}EOF\n)\"\n",
        )
        (project / ".AI").write_text(REPLY)
        done = run_tai(
            *flags, "patch", cwd=project, env={**isolated_env, "PATH": os.environ["PATH"]}
        )
    assert done.returncode == 0, done.stderr
    first = (project / "shapes.py").read_text().splitlines()[0]
    assert first == f"# reached: {not flags}"
