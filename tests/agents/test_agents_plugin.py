"""The agents plugin: the built-in agent commands, the user's and the project's files
(a later one replacing an earlier one), one warning per broken file, the model's index."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tai_agents import discovered, index
from tai_core.plugins._contracts import agent_command_problems

BUILT_IN = {"plan", "research", "rubber-duck", "init", "summarise", "compact"}


def agent_file(directory: Path, name: str, body: str = "Do it.", **fields: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    header = "".join(f"{key}: {value}\n" for key, value in {"name": name, **fields}.items())
    path = directory / f"{name}.agent.md"
    path.write_text(f"---\n{header}---\n{body}\n")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TAI_CONFIG_DIR", str(tmp_path / "config"))
    root = tmp_path / "repo"
    (root / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def test_the_built_ins_load_and_fulfil_the_contract(project: Path) -> None:
    warnings: list[str] = []
    agents = discovered(project, warnings.append)
    assert warnings == []
    assert set(agents) == BUILT_IN
    for agent in agents.values():
        assert agent_command_problems(agent) == []
        rendered = agent.render({"cwd": "/w", "platform": "linux", "date": "2026-12-02",
                                 "model": "m", "session_id": "s", "kinds": ["response"],
                                 "arguments": "the parser"})  # fmt: skip
        assert rendered and "{{" not in rendered and "{%" not in rendered
    assert "The user wants a plan for: the parser" in agents["plan"].render(
        {"cwd": "/w", "platform": "linux", "date": "d", "model": "m", "session_id": "s",
         "kinds": [], "arguments": "the parser"})  # fmt: skip
    assert agents["compact"].user_invocable is False
    assert agents["plan"].tools == ("response", "memory", "shell")


def test_user_then_project_files_replace_the_built_ins(project: Path, tmp_path: Path) -> None:
    agent_file(tmp_path / "config" / "agents", "plan", description="the user's plan")
    agent_file(project / ".tai" / "agents", "review", description="review it", model="fast")
    agent_file(project / "sub" / ".tai" / "agents", "plan", description="the sub's plan")
    agents = discovered(project / "sub", print)
    assert agents["plan"].description == "the sub's plan"
    assert agents["review"].model == "fast"
    assert agents["review"].source == f"project {project / '.tai' / 'agents' / 'review.agent.md'}"
    assert discovered(project, print)["plan"].description == "the user's plan"


def test_two_files_of_one_directory_with_one_name_are_a_warning(project: Path) -> None:
    agents_dir = project / ".tai" / "agents"
    first = agent_file(agents_dir, "review", description="the first")
    second = agents_dir / "review-again.agent.md"
    second.write_text("---\nname: review\ndescription: the second\n---\nDo it.\n")
    warnings: list[str] = []
    agents = discovered(project, warnings.append)
    assert agents["review"].description == "the first"  # "review-again" sorts first
    assert warnings == [
        f"/review is declared twice, by project {second} and by project {first}: the latter is used"
    ]


def test_a_broken_file_is_one_warning_and_the_others_load(project: Path) -> None:
    agents_dir = project / ".tai" / "agents"
    agent_file(agents_dir, "good", description="fine")
    agent_file(agents_dir, "bad", description="[unclosed")
    agent_file(agents_dir, "Bad Name", description="x")
    warnings: list[str] = []
    agents = discovered(project, warnings.append)
    assert "good" in agents and "bad" not in agents
    assert sorted(w.split(": ")[0] for w in warnings) == [
        f"{agents_dir / 'Bad Name.agent.md'}:2", f"{agents_dir / 'bad.agent.md'}:3",
    ]  # fmt: skip
    assert all(w.endswith("; the agent command is not loaded") for w in warnings)


def test_the_index_leaves_out_what_the_model_may_not_invoke(project: Path) -> None:
    agent_file(project / ".tai" / "agents", "secret", description="hidden",
               **{"disable-model-invocation": "true"})  # fmt: skip
    text = index(discovered(project, print).values())
    assert text is not None and text.startswith("# Agent commands")
    assert "- /plan [what to plan] — Plan a change" in text
    assert "/secret" not in text and "/compact" not in text
    assert index([]) is None


def test_a_file_taking_a_session_commands_name_is_left_out_alone(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """``/help`` is a session command: an agent file named help is refused with a warning
    naming the file, and every other agent command still registers (one such file took
    all of them, the built-ins too)."""
    from tests.conftest import run_tai

    path = agent_file(tmp_path / ".tai" / "agents", "help", description="x")
    result = run_tai("plugins", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 0, result.stderr
    assert f"project {path}: not registered: agent command 'help' does not fulfil" in (
        result.stderr
    )
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("agents ")]
    assert all(name in line for name in BUILT_IN) and "help" not in line
