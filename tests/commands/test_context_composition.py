"""Context providers compose: a third-party *additive* provider (a CHANGELOG) adds its part
to whatever the primary provider sends — the Go outline inside a Go module, the text files
elsewhere — in its own place (tier and name-prefixed key), withheld like any file when it
names a secret, and a failing one costs only its part. Run as a user meets it: the plugin
installed as a distribution, `tai next` against the fake OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_tai
from tests.go.conftest import BASIC, write
from tests.installed import plugin_distribution
from tests.servers import FakeModelServer, Reply

from .test_next import configure, sent

CHANGELOG_PLUGIN = """
from pathlib import Path
from tai_core import ContextPart, hookimpl
from tai_core.context import TIER_CONTEXT

class Changelog:
    name = "changelog"
    description = "the project's CHANGELOG.md"
    additive = True

    def applies(self, cwd):
        return (cwd / "CHANGELOG.md").is_file()

    def collect(self, request):
        text = (request.cwd / "CHANGELOG.md").read_text()
        parts = [ContextPart(TIER_CONTEXT, "log", "# Changelog part\\n" + text,
                             path="CHANGELOG.md")]
        if (request.cwd / ".env").is_file():  # a careless provider: sends what it finds
            parts.append(ContextPart(TIER_CONTEXT, "env", (request.cwd / ".env").read_text(),
                                     path=".env"))
        if "boom" in text:
            raise RuntimeError("cannot parse the changelog")
        return tuple(parts)

@hookimpl
def tai_register_context_providers(register):
    register(Changelog())
"""


@pytest.fixture
def env(tmp_path: Path, isolated_env: dict[str, str]) -> dict[str, str]:
    plugin_distribution(tmp_path / "site", CHANGELOG_PLUGIN, name="changelog")
    return {**isolated_env, "PYTHONPATH": str(tmp_path / "site"), "TAI_NO_SANDBOX": "1"}


def ask(folder: Path, server: FakeModelServer, env: dict[str, str]) -> tuple[str, str, str]:
    """The system prompt and user message of ``tai next`` in ``folder``, and its stderr."""
    server.script(Reply(text="An answer.\n"))
    result = run_tai("next", "chat", "What changed?", cwd=folder, env=env)
    assert result.returncode == 0, result.stderr
    return (*sent(server), result.stderr)


@pytest.mark.slow
def test_in_a_go_module_the_changelog_joins_the_outline(
    tmp_path: Path, openai_server: FakeModelServer, env: dict[str, str]
) -> None:
    module = write(tmp_path / "module", BASIC)
    configure(module, openai_server)
    (module / "CHANGELOG.md").write_text("## 1.1\n- Parse accepts spaces.\n")
    _, user, _ = ask(module, openai_server, env)
    assert "# Changelog part\n## 1.1\n- Parse accepts spaces." in user
    assert "begin of focus package example.com/m/a" in user  # the primary's outline
    # its own place: the context tier, before the focus packages
    assert user.index("# Changelog part") < user.index("begin of focus package")


def test_in_a_text_directory_the_changelog_joins_the_files_once(
    tmp_path: Path, openai_server: FakeModelServer, env: dict[str, str]
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    configure(folder, openai_server)
    (folder / "notes.md").write_text("Deploys happen on Fridays.\n")
    (folder / "CHANGELOG.md").write_text("## 2.0\n- Dropped Python 3.9.\n")
    _, user, _ = ask(folder, openai_server, env)
    assert "begin of file notes.md\nDeploys happen on Fridays." in user
    assert "# Changelog part\n## 2.0" in user


def test_without_a_changelog_nothing_is_added(
    tmp_path: Path, openai_server: FakeModelServer, env: dict[str, str]
) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    configure(folder, openai_server)
    (folder / "notes.md").write_text("Nothing changed.\n")
    _, user, stderr = ask(folder, openai_server, env)
    assert "Changelog part" not in user and "changelog" not in stderr


@pytest.mark.slow
def test_a_secret_file_an_additive_provider_sends_is_withheld(
    tmp_path: Path, openai_server: FakeModelServer, env: dict[str, str]
) -> None:
    module = write(tmp_path / "module", BASIC)
    configure(module, openai_server)
    (module / "CHANGELOG.md").write_text("## 1.2\n")
    (module / ".env").write_text("DATABASE_PASSWORD=hunter2-correct-horse\n")
    _, user, _ = ask(module, openai_server, env)
    assert "hunter2" not in user
    assert ".env" in user  # named in the closing list of withheld files
    assert "# Changelog part\n## 1.2" in user


def test_a_failing_additive_provider_costs_only_its_part(
    tmp_path: Path, openai_server: FakeModelServer, env: dict[str, str]
) -> None:
    module = write(tmp_path / "module", BASIC)
    configure(module, openai_server)
    (module / "CHANGELOG.md").write_text("boom\n")
    _, user, stderr = ask(module, openai_server, env)
    assert "begin of focus package example.com/m/a" in user
    assert "Changelog part" not in user
    assert (
        "tai: warning: context provider 'changelog' failed: RuntimeError: cannot parse the "
        "changelog; its parts are left out" in stderr
    )
