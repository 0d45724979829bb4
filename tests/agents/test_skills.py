"""Skills: found in the project, the user's directory and installed packages; indexed in
the system prompt; loaded by a `skill` block, instructions and files, within the skill's
directory and past the secret check."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tai_kind_skill import SkillKind, index
from tai_kind_skill._skills import discovered
from tests.commands.test_next import AWS_KEY
from tests.conftest import run_tai


def skill(root: Path, name: str, description: str, body: str = "Do it well.", **more: str) -> Path:
    directory = root / name
    directory.mkdir(parents=True, exist_ok=True)
    header = "".join(f"{key}: {value}\n" for key, value in more.items())
    (directory / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{header}---\n{body}\n"
    )
    return directory


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TAI_CONFIG_DIR", str(tmp_path / "config"))
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def test_project_skills_replace_the_users_and_broken_ones_are_named(
    project: Path, tmp_path: Path
) -> None:
    skill(tmp_path / "config" / "skills", "deploy", "the user's deploy")
    skill(tmp_path / "config" / "skills", "review", "the user's review")
    skill(project / ".tai" / "skills", "deploy", "Deploy: to staging, then production")
    broken = skill(project / ".tai" / "skills", "Bad", "x")
    hidden = skill(project / ".tai" / "skills", "hidden", "x",
                   **{"disable-model-invocation": "true"})  # fmt: skip
    del hidden
    warnings: list[str] = []
    skills = discovered(project, warnings.append)
    assert skills["deploy"].description == "Deploy: to staging, then production"
    assert skills["review"].description == "the user's review"
    assert warnings == [f"{broken / 'SKILL.md'}:2: 'name' must be lowercase letters and digits "
                        "joined by single hyphens, not 'Bad'; the skill is not loaded"]  # fmt: skip
    text = index({n: s for n, s in skills.items() if s.model_invocable})
    assert text is not None
    assert text.splitlines()[-2:] == [
        "- deploy — Deploy: to staging, then production", "- review — the user's review",
    ]  # fmt: skip
    assert "hidden" not in text


def test_too_long_instructions_are_refused(project: Path) -> None:
    skill(project / ".tai" / "skills", "long", "x", body="word " * 5000)
    warnings: list[str] = []
    assert discovered(project, warnings.append) == {}
    assert "longer than 20000 characters" in warnings[0]


REPLIES = """\
@@@ reply
@@@ expect system: - deploy — Deploy the service
@@@ expect system: # skill blocks
<<紫藤 skill
deploy
紫藤
@@@ reply
@@@ expect user: Run scripts/ship.sh with the tag.
@@@ expect user: - scripts/ship.sh
<<松柏 skill(file="scripts/ship.sh")
deploy
松柏
<<竹梅 skill(file="../../../secrets.txt")
deploy
竹梅
<<蘭菊 skill(file="notes.txt")
deploy
蘭菊
<<梧桐 skill
deplyo
梧桐
<<银杏 skill(file="scripts/bump.sh")
deploy
银杏
@@@ reply
@@@ expect user: scripts/bump.sh: No such file or directory in the directory of the skill deploy
@@@ expect user: whose files are: notes.txt, scripts/ship.sh
@@@ expect user: echo shipping
@@@ expect user: ../../../secrets.txt: not a file of the skill deploy
@@@ expect user: deploy/notes.txt is withheld
@@@ expect user: no skill 'deplyo'; did you mean 'deploy'?
Done.
<<杉柏 summary
- read the deploy skill
杉柏
"""


def test_a_run_loads_a_skill_and_its_files(project: Path, isolated_env: dict[str, str]) -> None:
    directory = skill(project / ".tai" / "skills", "deploy", "Deploy the service",
                      body="Run scripts/ship.sh with the tag.")  # fmt: skip
    (directory / "scripts").mkdir()
    (directory / "scripts" / "ship.sh").write_text("echo shipping\n")
    (directory / "notes.txt").write_text(f"key {AWS_KEY}\n")
    (project.parent / "secrets.txt").write_text("never\n")
    (project / ".model.replay").write_text(REPLIES)
    env = {**isolated_env, "TAI_CONFIG_DIR": str(project.parent / "config")}
    result = run_tai("-model", "replay:.model.replay", "chat", "Ship it", cwd=project, env=env)
    assert result.returncode == 0, result.stderr


def test_without_skills_the_kind_costs_no_prompt_section(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TAI_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    assert SkillKind().available({}) is False
