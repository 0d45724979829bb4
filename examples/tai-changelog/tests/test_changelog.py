"""tai-changelog's own tests, with tai's testing kit: registered as tai registers it,
configured from a ``tai.toml``, composed with the primary context provider."""

from __future__ import annotations

import pytest
import tai_changelog

from tai_core.config import ConfigError, load_config
from tai_core.context import ContextRequest
from tai_core.context._compose import Composed, choose

LOG = "# Changelog\n\n## 2.0\n- Dropped Python 3.9.\n\n## 1.0\n- First release.\n"


@pytest.fixture
def host(tai_host, tai_plugin):
    """The host with the plugin registered; its settings are back to the defaults after
    the test (the module's provider keeps what tai_configure gave it)."""
    tai_plugin(tai_changelog, "changelog")
    yield tai_host
    tai_changelog.PROVIDER.settings = tai_changelog.Settings()


def configure(host, project, text: str) -> None:
    (project / "tai.toml").write_text(text)
    host.configure(load_config(project, {"TAI_CONFIG_DIR": str(project / "none")}))


def test_the_changelog_joins_the_primary_context(host, tai_project) -> None:
    project = tai_project({"CHANGELOG.md": LOG, "notes.md": "Deploys on Fridays.\n"})
    chosen = choose(host.registry.context_providers.values(), project, print)
    assert isinstance(chosen, Composed) and chosen.primary.name == "any"
    parts = chosen.collect(ContextRequest(cwd=project, command="any"))
    (part,) = [p for p in parts if p.key == "changelog:changelog"]
    assert part.text.startswith("``` begin of changelog CHANGELOG.md\n# Changelog")
    assert any("Deploys on Fridays." in p.text for p in parts)


def test_settings_choose_the_file_and_the_size(host, tai_project) -> None:
    project = tai_project({"CHANGES.md": LOG})
    configure(host, project, '[plugins.changelog]\nfile = "CHANGES.md"\nmax_bytes = 45\n')
    (part,) = tai_changelog.PROVIDER.collect(ContextRequest(cwd=project, command="any"))
    assert "Dropped Python 3.9." in part.text and "First release" not in part.text
    assert f"(older entries left out: {len(LOG) - 43} of {len(LOG)} bytes)" in part.text


def test_a_wrong_setting_is_refused_with_its_line(host, tai_project) -> None:
    project = tai_project()
    with pytest.raises(ConfigError, match=r"tai.toml:3: key 'plugins.changelog.max_bytes': "
                       r"Input should be greater than 0"):  # fmt: skip
        configure(host, project, '[plugins.changelog]\nfile = "C.md"\nmax_bytes = 0\n')
