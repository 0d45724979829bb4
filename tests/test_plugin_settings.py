"""Plugin settings: declared as a pydantic model, written in ``[plugins.NAME]``, checked as
tai's own keys are (closed, strict, one line naming file, line and key) and delivered
typed through ``tai_configure`` — in-process on a host, and as a user meets them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from tai_core import hookimpl
from tai_core.config import ConfigError, load_config
from tai_core.plugins import PluginHost
from tests.conftest import run_tai
from tests.installed import plugin_distribution


class NoteSettings(BaseModel):
    max_notes: int = 10
    topics: list[str] = []
    file: str


class Notes:
    """A plugin with settings; keeps what it was configured with."""

    __name__ = "notes_plugin"

    def __init__(self, model: Any = NoteSettings) -> None:
        self.model = model
        self.configured: list[Any] = []

    @hookimpl
    def tai_plugin_settings(self) -> Any:
        return self.model

    @hookimpl
    def tai_configure(self, settings: Any) -> None:
        if getattr(settings, "file", "") == "explode":
            raise RuntimeError("cannot open the notes file")
        self.configured.append(settings)


def configured(host: PluginHost, tmp_path: Path, text: str, plugin: Notes | None = None) -> Notes:
    """``plugin`` (a new :class:`Notes` by default) registered as ``notes`` and configured
    from a ``tai.toml`` holding ``text`` in ``tmp_path``."""
    notes = plugin or Notes()
    assert host.register(notes, "notes").status == "loaded"
    (tmp_path / "tai.toml").write_text(text)
    host.configure(load_config(tmp_path, {"TAI_CONFIG_DIR": str(tmp_path / "none")}))
    return notes


def test_the_plugin_receives_its_settings_typed(host: PluginHost, tmp_path: Path) -> None:
    notes = configured(host, tmp_path, '[plugins.notes]\nfile = "N.md"\ntopics = ["a", "b"]\n')
    assert notes.configured == [NoteSettings(file="N.md", topics=["a", "b"])]
    assert notes.configured[0].max_notes == 10  # the default
    assert host.record("notes").registers["settings"] == ["file", "max_notes", "topics"]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('[plugins.notes]\nfile = "N.md"\nmax_notse = 3\n', 3,
         "unknown key 'plugins.notes.max_notse' (did you mean 'max_notes'? plugin 'notes' "
         "takes: file, max_notes, topics)"),
        ('model = "m"\n\n[plugins.notes]\nfile = "N.md"\nmax_notes = "3"\n', 5,
         "key 'plugins.notes.max_notes': Input should be a valid integer"),
        ('[plugins.notes]\nfile = "N.md"\ntopics = ["a", 2]\n', 3,
         "key 'plugins.notes.topics.1': Input should be a valid string"),
        ('[plugins]\nnotes = 3\n', 2, "key 'plugins.notes' must be a table"),
    ],
)  # fmt: skip
def test_a_wrong_setting_names_file_line_and_key(
    host: PluginHost, tmp_path: Path, text: str, line: int, message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        configured(host, tmp_path, text)
    assert str(caught.value) == f"{tmp_path / 'tai.toml'}:{line}: {message}"


def test_a_required_setting_without_a_table_says_so(host: PluginHost, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\(no \[plugins.notes\] table\): key "
                       r"'plugins.notes.file': Field required"):  # fmt: skip
        configured(host, tmp_path, 'model = "m"\n')


def test_defaults_are_delivered_when_the_table_is_absent(host: PluginHost, tmp_path: Path) -> None:
    class Optional(BaseModel):
        depth: int = 2

    notes = configured(host, tmp_path, "", Notes(Optional))
    assert notes.configured == [Optional()]


def test_tables_of_other_plugins(host: PluginHost, tmp_path: Path, stderr) -> None:
    configured(host, tmp_path, '[plugins.notes]\nfile = "N.md"\n[plugins.xyzzy]\nx = 1\n'
               '[plugins.shel]\ny = 2\n')  # fmt: skip
    said = stderr.getvalue()
    assert "[plugins.xyzzy] is set, but no plugin 'xyzzy' is installed (see tai plugins)" in said
    assert "[plugins.shel] is set, but no plugin 'shel' is installed; did you mean " in said
    with pytest.raises(ConfigError, match=r"tai.toml:1: plugin 'shell' has no settings"):
        host.configure(_config(tmp_path, "[plugins.shell]\nx = 1\n"))


def _config(tmp_path: Path, text: str) -> Any:
    (tmp_path / "tai.toml").write_text(text)
    return load_config(tmp_path, {"TAI_CONFIG_DIR": str(tmp_path / "none")})


def test_a_declaration_that_is_not_a_model_is_a_load_error(host: PluginHost) -> None:
    record = host.register(Notes(model={"file": str}), "notes")
    assert record.status == "failed"
    assert "tai_plugin_settings must return a pydantic model class" in (record.error or "")
    assert "notes" not in host.registry.settings


def test_a_plugin_failing_to_configure_is_skipped(host: PluginHost, tmp_path: Path, stderr) -> None:
    configured(host, tmp_path, '[plugins.notes]\nfile = "explode"\n')
    record = host.record("notes")
    assert record is not None and record.status == "failed"
    assert "tai_configure failed: RuntimeError: cannot open the notes file" in (record.error or "")
    assert host.pm.get_plugin("notes") is None and "notes" not in host.registry.settings
    host.warn_failures()  # the command line warns of every load failure once, after loading
    assert stderr.getvalue().count("tai: plugin 'notes' was skipped") == 1


SETTINGS_PLUGIN = """
from pydantic import BaseModel
from tai_core import hookimpl

class Settings(BaseModel):
    greeting: str = "hello"
    times: int = 1

@hookimpl
def tai_plugin_settings():
    return Settings
"""


@pytest.mark.slow
def test_as_a_user_meets_them(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    plugin_distribution(tmp_path / "site", SETTINGS_PLUGIN, name="greeter")
    env = {**isolated_env, "PYTHONPATH": str(tmp_path / "site")}
    work = tmp_path / "work"
    work.mkdir()
    listed = run_tai("plugins", "--json", cwd=work, env=env)
    (entry,) = [p for p in json.loads(listed.stdout)["plugins"] if p["name"] == "greeter"]
    assert entry["settings"]["properties"]["times"] == {"default": 1, "title": "Times",
                                                         "type": "integer"}  # fmt: skip
    table = run_tai("plugins", cwd=work, env=env).stdout
    assert "settings [plugins.greeter]: greeting, times" in table
    (work / "tai.toml").write_text("[plugins.greeter]\ntimes = 1.5\n")
    refused = run_tai("next", "chat", "hi", cwd=work, env=env)
    assert refused.returncode == 2
    problem = f"{work / 'tai.toml'}:2: key 'plugins.greeter.times': Input should be a valid integer"
    assert refused.stderr == f"tai: error: {problem}\n"
    mending = run_tai("plugins", cwd=work, env=env)  # while the file is mended: warned
    assert mending.returncode == 0
    assert mending.stderr == f"tai: warning: {problem} (its settings are ignored here)\n"


class Fields(BaseModel):
    deployment: str
    region: str = "eu"


class Deployed:
    """A provider plugin whose generators take fields of its own."""

    __name__ = "deployed"

    def __init__(self) -> None:
        from tests.test_plugin_contracts import EchoProvider

        self.provider = EchoProvider()
        self.provider.generator_fields = Fields

    @hookimpl
    def tai_register_providers(self, register: Any) -> None:
        register(self.provider)


def generators(host: PluginHost, tmp_path: Path, project: str, user: str = "") -> None:
    """Configure ``host`` from a project ``tai.toml`` and a user one (farther)."""
    (tmp_path / "user").mkdir(exist_ok=True)
    (tmp_path / "user" / "tai.toml").write_text(user)
    (tmp_path / "tai.toml").write_text(project)
    host.configure(load_config(tmp_path, {"TAI_CONFIG_DIR": str(tmp_path / "user")}))


def test_a_provider_s_own_generator_fields_are_checked(host: PluginHost, tmp_path: Path) -> None:
    assert host.register(Deployed(), "deployed").status == "loaded"
    good = '[[generators]]\nname = "e"\ntype = "echo"\ndeployment = "prod"\n'
    generators(host, tmp_path, good)
    wrong = '[[generators]]\nname = "a"\ntype = "echo"\n\n[[generators]]\nname = "e"\ntype = "echo"\ndeployment = 3\n'  # noqa: E501
    with pytest.raises(ConfigError) as caught:
        generators(host, tmp_path, good, user=wrong)  # the second entry of the user's file
    assert str(caught.value) == (
        f"{tmp_path / 'user' / 'tai.toml'}:8: key 'generators[1].deployment': "
        "Input should be a valid string"
    )
    with pytest.raises(ConfigError, match=r"tai.toml:4: unknown key 'generators\[0\].deploy' "
                       r"\(did you mean 'deployment'\? the 'echo' provider takes: deployment, "
                       r"region\)"):  # fmt: skip
        generators(host, tmp_path, good.replace("deployment", "deploy"))


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ('type = "openai"\nbase = "x"\n',
         "'generators[0].base': the 'openai' provider declares no fields of its own"),
        ('type = "nope"\nbase = "x"\n',
         "'generators[0].base': no installed provider serves type 'nope'"),
        ('base = "x"\n', "'generators[0].base': it has no type"),
        # the nearest key, and the nearest type spelt as the provider spells it
        ('type = "openai"\nbase_ulr = "x"\n', "'generators[0].base_ulr' (did you mean "
         "'base_url'?): the 'openai' provider declares no fields of its own"),
        ('type = "opnai"\nbase_ulr = "x"\n', "'generators[0].base_ulr' (did you mean "
         "'base_url'?): no installed provider serves type 'opnai' (did you mean 'openai'?)"),
    ],
)  # fmt: skip
def test_a_misspelt_generator_key_is_still_refused(
    host: PluginHost, tmp_path: Path, entry: str, why: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        generators(host, tmp_path, f'[[generators]]\nname = "a"\n{entry}')
    line = 4 if entry.startswith("type") else 3
    assert str(caught.value) == f"{tmp_path / 'tai.toml'}:{line}: unknown key {why}"
