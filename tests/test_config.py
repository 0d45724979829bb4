"""Configuration files: where they are found, how they merge, what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core.config import ConfigError, config_directories, load_config, user_config_dir


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """A Go module with a sub-directory as working directory and a user config dir."""
    module = tmp_path / "module"
    cwd = module / "cmd" / "tool"
    cwd.mkdir(parents=True)
    (module / "go.mod").write_text("module example.com/m\n\ngo 1.22\n")
    user = tmp_path / "user"
    user.mkdir()
    return {"module": module, "cwd": cwd, "user": user}


def env_for(layout: dict[str, Path]) -> dict[str, str]:
    return {"TAI_CONFIG_DIR": str(layout["user"]), "HOME": str(layout["user"])}


def test_search_order_nearest_first(layout: dict[str, Path]) -> None:
    directories = config_directories(layout["cwd"], env_for(layout))
    assert directories[:3] == [layout["cwd"], layout["module"], layout["user"]]
    assert directories[3] == Path("/etc/tai").resolve()


def test_scalars_nearest_wins_lists_concatenate(layout: dict[str, Path]) -> None:
    (layout["cwd"] / "tai.toml").write_text(
        'model = "near"\ndisabled_plugins = ["shell"]\n[go]\nhidden = ["a"]\n'
    )
    (layout["module"] / ".tai.toml").write_text(
        'model = "module"\nfast_model = "quick"\ndisabled_plugins = ["memory"]\n'
        '[go]\nhidden = ["b"]\nno_tests = true\n'
    )
    (layout["user"] / "tai.toml").write_text(
        'model = "far"\nallowed_shell_commands = "git status"\n'
        '[[generators]]\nname = "local"\ntype = "openai"\n'
    )
    config = load_config(layout["cwd"], env_for(layout))
    assert config.get("model") == "near"
    assert config.get("fast_model") == "quick"
    assert config.get("disabled_plugins") == ["shell", "memory"]
    assert config.get("allowed_shell_commands") == ["git status"]  # str|list -> list
    assert config.get("go") == {"hidden": ["a", "b"], "no_tests": True}
    assert config.get("generators") == [{"name": "local", "type": "openai"}]
    assert config.files == (
        layout["cwd"] / "tai.toml",
        layout["module"] / ".tai.toml",
        layout["user"] / "tai.toml",
    )


def test_alias_and_canonical(layout: dict[str, Path]) -> None:
    (layout["cwd"] / "tai.toml").write_text('model_name = "alias"\nmodel = "canonical"\n')
    assert load_config(layout["cwd"], env_for(layout)).get("model") == "canonical"
    (layout["cwd"] / "tai.toml").write_text('model_name = "alias"\n')
    assert load_config(layout["cwd"], env_for(layout)).get("model") == "alias"


def test_no_files_is_empty(layout: dict[str, Path]) -> None:
    config = load_config(layout["cwd"], env_for(layout))
    assert config.files == ()
    assert config.get("model", "default") == "default"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('modle = "x"\n', "unknown key 'modle' (did you mean 'model'?)"),
        ("[go]\nhiden = []\n", "unknown key 'go.hiden' (did you mean 'hidden'?)"),
        ("max_token = 5\n", "unknown key 'max_token' (did you mean 'max_tokens'?)"),
        (
            'approve = "nevr"\n',  # read at load, not when the first command is asked about
            'key \'approve\' must be one of "auto", "ask", "never", not "nevr" '
            '(did you mean "never"?)',
        ),
        ("approve = true\n", 'key \'approve\' must be one of "auto", "ask", "never", not true'),
        ("model = 3\n", "key 'model' must be a string, not 3"),
        ("shell = 1\n", "key 'shell' must be true or false, not 1"),
        ("max_tokens = true\n", "key 'max_tokens' must be a positive integer, not true"),
        ("max_tokens = 0\n", "key 'max_tokens' must be a positive integer, not 0"),
        ("max_context_bytes = -1\n", "key 'max_context_bytes' must be a positive integer, not -1"),
        (
            "ingest_max_bytes = 1.5\n",
            "key 'ingest_max_bytes' must be a positive integer, not 1.5",
        ),
        ("shell_timeout = inf\n", "key 'shell_timeout' must be a finite number of seconds above 0"),
        ("shell_timeout = -5\n", "key 'shell_timeout' must be a finite number of seconds above 0"),
        ("shell_timeout = nan\n", "key 'shell_timeout' must be a finite number of seconds above 0"),
        ("go_test_timeout = 0\n", "key 'go_test_timeout' must be a finite number of seconds"),
        ("pytest_timeout = -1\n", "key 'pytest_timeout' must be a finite number of seconds"),
        (
            'shell_timeout = "5"\n',
            "key 'shell_timeout' must be a finite number of seconds above 0, not \"5\"",
        ),
        (
            '[[generators]]\nname = "a"\nread_timeout = -inf\n',
            "key 'generators[0].read_timeout' must be a finite number of seconds above 0",
        ),
        ('[[generators]]\nname = "a"\ntemperature = -1\n', "key 'generators[0].temperature'"),
        (
            '[[generators]]\nname = "a"\nretries = 21\n',
            "key 'generators[0].retries' must be an integer from 0 to 20, not 21",
        ),
        (
            '[[generators]]\nname = "a"\nretry_delay = 0\n',
            "key 'generators[0].retry_delay' must be a number of seconds above 0 and at most 20",
        ),
        ("durable = 1\n", "key 'durable' must be true or false, not 1"),
        ("disabled_plugins = [1]\n", "key 'disabled_plugins' must be a list of strings"),
        ("generators = 3\n", "key 'generators' must be a list of tables, not 3"),
        ('shell = "yes"\n', "key 'shell' must be true or false, not \"yes\""),
        ('shell = "\\u001b[2J"\n', 'not "\\x1b[2J"'),
        ("shell = [true]\n", "key 'shell' must be true or false, not a list"),
        ("model = 1979-05-27\n", "key 'model' must be a string, not a date or time"),
        ("model = \n", "invalid TOML"),
    ],
)
def test_errors_name_file_and_key(layout: dict[str, Path], text: str, message: str) -> None:
    path = layout["module"] / "tai.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(layout["cwd"], env_for(layout))
    where = "" if message == "invalid TOML" else f":{text.count(chr(10), 0, text.rindex('=')) + 1}"
    assert str(caught.value).startswith(f"{path}{where}: ")  # the line that sets the key
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[[generators]]\ntype = "openai"\n',
            ':1: generators[0] has no name: give it one (name = "…"), the name -model '
            "selects it by",
        ),
        (
            '[[generators]]\nname = "a"\ntype = "openai"\n\n[[generators]]\nname = "a"\n',
            ":6: generators[1] is named 'a' like generators[0] of the same file, which "
            "-model a always selects",
        ),
    ],
)
def test_a_generator_model_cannot_select_is_refused(
    layout: dict[str, Path], text: str, message: str
) -> None:
    path = layout["module"] / "tai.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(layout["cwd"], env_for(layout))
    assert str(caught.value) == f"{path}{message}"


def test_a_list_of_tables_written_as_one_table_is_shown_with_two_brackets(
    layout: dict[str, Path],
) -> None:
    path = layout["module"] / "tai.toml"
    path.write_text('model = "m"\n[generators]\nname = "m"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(layout["cwd"], env_for(layout))
    assert str(caught.value) == (
        f"{path}:2: key 'generators' must be a list of tables, not a table: each entry is "
        "written [[generators]], with two brackets"
    )


def test_every_problem_of_every_file_is_found_at_once(layout: dict[str, Path]) -> None:
    near, far = layout["cwd"] / "tai.toml", layout["module"] / ".tai.toml"
    near.write_text(
        'modle = "x"\napprove = "nevr"\n[go]\nno_tests = "yes"\n'
        '[[generators]]\nname = "a"\ntype = 3\n[[generators]]\nname = "b"\nread_timeout = "x"\n'
    )
    far.write_text("shel = true\n")
    with pytest.raises(ConfigError) as caught:
        load_config(layout["cwd"], env_for(layout))
    places = [problem.split(": ", 1)[0] for problem in caught.value.problems]
    assert places == [f"{near}:1", f"{near}:2", f"{near}:4", f"{near}:7", f"{near}:10", f"{far}:1"]
    assert "unknown key 'modle' (did you mean 'model'?)" in caught.value.problems[0]
    assert "key 'generators[1].read_timeout' must be" in caught.value.problems[4]
    assert str(caught.value) == caught.value.problems[0] + " (and 5 more)"


@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        ("http://127.0.0.1:8000/v1", True),
        ("https://api.example.com", True),
        ("HTTPS://[::1]:8080/v1", True),
        ("127.0.0.1:8000", False),  # the scheme left out
        ("localhost:11434/v1", False),
        ("ftp://example.com", False),
        ("http://", False),
        ("http://[::1", False),
    ],
)
def test_a_base_url_or_proxy_is_a_web_address(
    layout: dict[str, Path], value: str, accepted: bool
) -> None:
    path = layout["cwd"] / "tai.toml"
    path.write_text(f'proxy = "{value}"\n[[generators]]\nname = "m"\nbase_url = "{value}"\n')
    if accepted:
        assert load_config(layout["cwd"], env_for(layout)).get("proxy") == value
        return
    with pytest.raises(ConfigError) as caught:
        load_config(layout["cwd"], env_for(layout))
    must = "must be an http:// or https:// address (http://HOST[:PORT][/PATH])"
    assert caught.value.problems == (
        f"{path}:1: key 'proxy' {must}, not \"{value}\"",
        f"{path}:4: key 'generators[0].base_url' {must}, not \"{value}\"",
    )


def test_a_nameless_generator_is_found_with_the_other_problems(layout: dict[str, Path]) -> None:
    path = layout["cwd"] / "tai.toml"
    path.write_text('[[generators]]\ntype = "openai"\n\n[[generators]]\nname = 3\nshel = true\n')
    with pytest.raises(ConfigError) as caught:
        load_config(layout["cwd"], env_for(layout))
    assert [problem.split(": ", 1)[0] for problem in caught.value.problems] == [
        f"{path}:1",
        f"{path}:5",
    ]  # the nameless one, the name that is no string (the generators' keys are open)
    assert "generators[0] has no name" in caught.value.problems[0]


def test_an_unknown_key_near_no_name_gets_no_guess(layout: dict[str, Path]) -> None:
    (layout["cwd"] / "tai.toml").write_text("frobnicate = 5\n")
    with pytest.raises(ConfigError) as caught:
        load_config(layout["cwd"], env_for(layout))
    assert str(caught.value).endswith(": unknown key 'frobnicate'")


def test_the_approval_modes_are_the_sandboxs() -> None:
    from tai_core.config._schema import CONFIG_SCHEMA
    from tai_sandbox._approval import MODES

    assert CONFIG_SCHEMA["approve"].choices == MODES


def test_errors_point_to_the_line_in_a_long_file(layout: dict[str, Path]) -> None:
    path = layout["cwd"] / "tai.toml"
    path.write_text(
        'model = "a"\n\n[[generators]]\nname = "a"\ntype = "openai"\n\n[[generators]]\n'
        'name = "b"\n# the second one\n"temperature" = -2\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_config(layout["cwd"], env_for(layout))
    assert str(caught.value).startswith(f"{path}:10: key 'generators[1].temperature'")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'model = "\xff"\n', "line 1: not UTF-8 text (byte 0xff)"),
        (b'model = "a"\n\n# caf\xe9\n', "line 3: not UTF-8 text (byte 0xe9)"),
    ],
)
def test_non_utf8_names_file_and_line(layout: dict[str, Path], data: bytes, message: str) -> None:
    path = layout["cwd"] / "tai.toml"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as caught:
        load_config(layout["cwd"], env_for(layout))
    assert str(caught.value).endswith(f"tai.toml: {message}; TOML files are UTF-8")


def test_ranges_accept_their_edges(layout: dict[str, Path]) -> None:
    (layout["cwd"] / "tai.toml").write_text(
        "shell_timeout = 0.5\nmax_context_bytes = 1\ntemperature = 0\ndurable = false\n"
        '[[generators]]\nname = "a"\nmax_thinking_tokens = 0\n'
    )
    values = load_config(layout["cwd"], env_for(layout)).values
    assert values["shell_timeout"] == 0.5 and values["max_context_bytes"] == 1
    assert values["temperature"] == 0.0 and values["durable"] is False
    assert values["generators"][0]["max_thinking_tokens"] == 0


def test_numbers_accept_integers(layout: dict[str, Path]) -> None:
    (layout["cwd"] / "tai.toml").write_text("temperature = 1\n")
    assert load_config(layout["cwd"], env_for(layout)).get("temperature") == 1.0


def test_user_config_dir_follows_xdg() -> None:
    assert user_config_dir({"TAI_CONFIG_DIR": "/x/y"}) == Path("/x/y")
    assert user_config_dir({"HOME": "/h", "XDG_CONFIG_HOME": "/cfg"}) == Path("/cfg/tai")
    assert user_config_dir({"HOME": "/h"}) == Path("/h/.config/tai")
