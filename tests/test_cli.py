"""The `tai` command as a user runs it: a real subprocess of the installed script."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .conftest import run_tai

REPLY = """\
Here is the plan.

<<紫藤 summary
- renamed the helper
紫藤

<<松柏 shell(timeout=3)
go vet ./...
松柏

<<竹梅 frobnicate
??
竹梅

<<蘭菊 change(op="REPLACE", file-path="a.txt")
new
蘭菊
"""


def test_plugins_lists_every_builtin(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("plugins", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 0, result.stderr
    assert "Block kinds (15): change, continue, done, go-src, go-test, ingest" in result.stdout
    assert re.search(r"^shell +tai-kind-shell 0\.1\.0 +block kinds: shell$", result.stdout, re.M)
    assert "Providers (17): aliyun, azure, baidu, bedrock, deepseek, gemini" in result.stdout
    assert result.stderr == ""


def test_plugins_json(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("plugins", "--json", cwd=tmp_path, env=isolated_env)
    document = json.loads(result.stdout)
    assert len(document["block_kinds"]) == 15
    shell = next(p for p in document["plugins"] if p["name"] == "shell")
    assert shell["distribution"] == "tai-kind-shell"
    assert shell["version"] == "0.1.0"
    assert shell["status"] == "loaded"
    assert shell["block_kinds"] == ["shell"]
    assert shell["hooks"] == ["tai_register_block_kinds"]
    assert document["commands"] == [
        "ai", "checkpoints", "code", "next", "parse", "patch", "ping", "plugins", "policy",
        "record", "sandbox", "serve", "sessions", "undo", "web",
    ]  # fmt: skip


def test_plugins_filtered_by_hook(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai(
        "plugins", "--json", "--hook", "tai_register_commands", cwd=tmp_path, env=isolated_env
    )
    names = [p["name"] for p in json.loads(result.stdout)["plugins"]]
    assert names == [
        "tai-core", "agents-md", "change", "checkpoints", "sandbox", "shell-policy", "web"
    ]  # fmt: skip
    text = run_tai("plugins", "-hook", "tai_register_commands", cwd=tmp_path, env=isolated_env)
    lines = text.stdout.splitlines()
    assert [line.split()[0] for line in lines[1:8]] == names
    # the totals are every plugin's, so a filtered table does not give them as its own
    assert lines[-1].startswith("7 of ") and lines[-1].endswith(" implement tai_register_commands")
    assert "Block kinds" not in text.stdout


def test_dash_p_no_blocks_a_plugin(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("-p", "no:shell", "-pno:memory", "plugins", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 0, result.stderr
    assert "Block kinds (13):" in result.stdout
    assert re.search(r"^shell +tai-kind-shell 0\.1\.0 +blocked", result.stdout, re.M)


def test_bad_dash_p_is_a_usage_error(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("-p", "shell", "plugins", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 2
    assert "only -p no:NAME" in result.stderr
    assert "Traceback" not in result.stderr


def test_config_disabled_plugins(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    (tmp_path / "tai.toml").write_text('disabled_plugins = ["go-test"]\n')
    result = run_tai("plugins", "--json", cwd=tmp_path, env=isolated_env)
    document = json.loads(result.stdout)
    assert "go-test" not in document["block_kinds"]
    assert len(document["block_kinds"]) == 14


def test_allowlist_environment(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    env = {**isolated_env, "TAI_LOAD_PLUGINS": "change,done"}
    document = json.loads(run_tai("plugins", "--json", cwd=tmp_path, env=env).stdout)
    assert document["block_kinds"] == ["change", "done"]


def test_trace_environment(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    env = {**isolated_env, "TAI_TRACE_PLUGINS": "1", "TAI_LOAD_PLUGINS": "done"}
    result = run_tai("plugins", cwd=tmp_path, env=env)
    assert result.returncode == 0
    assert (
        "[tai trace] tai_register_block_kinds(register=<register block kinds of 'done'>) -> done"
        in (result.stderr)
    )


def test_unknown_config_key_names_file_line_and_key(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    (tmp_path / "tai.toml").write_text('modle = "x"\n')
    result = run_tai("next", "chat", "hi", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 2
    where = tmp_path / "tai.toml"
    assert result.stderr == (
        f"tai: error: {where}:1: unknown key 'modle' (did you mean 'model'?)\n"
    )


def test_each_problem_of_the_configuration_is_a_line(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    (tmp_path / "tai.toml").write_text('modle = "m"\nshel = true\n')
    result = run_tai("next", "chat", "hi", cwd=tmp_path, env=isolated_env)
    where = tmp_path / "tai.toml"
    assert (result.returncode, result.stderr) == (2, (
        f"tai: error: {where}:1: unknown key 'modle' (did you mean 'model'?)\n"
        f"tai: error: {where}:2: unknown key 'shel' (did you mean 'shell'?)\n"
    ))  # fmt: skip
    helped = run_tai("--help", cwd=tmp_path, env=isolated_env)
    assert helped.returncode == 0
    assert helped.stderr == (
        f"tai: warning: {where}:1: unknown key 'modle' (did you mean 'model'?) (and 1 more; "
        "its settings are ignored here)\n"
    )


@pytest.mark.parametrize("command", ["plugins", "sessions", "checkpoints"])
def test_what_mends_a_bad_configuration_still_runs(
    tmp_path: Path, isolated_env: dict[str, str], command: str
) -> None:
    """What is installed and what tai recorded can be seen while tai.toml is being mended
    (the message of an unknown model says to see tai plugins); a run still cannot start."""
    (tmp_path / "tai.toml").write_text("bogus = 1\n")
    where = tmp_path / "tai.toml"
    warning = f"tai: warning: {where}:1: unknown key 'bogus' (its settings are ignored here)\n"
    result = run_tai(command, cwd=tmp_path, env=isolated_env)
    assert (result.returncode, result.stderr) == (0, warning)
    run = run_tai("next", "chat", "hi", cwd=tmp_path, env=isolated_env)
    assert (run.returncode, run.stderr) == (2, f"tai: error: {where}:1: unknown key 'bogus'\n")


def test_help_lists_plugin_commands(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    for flag in ("--help", "-help", "-h"):
        result = run_tai(flag, cwd=tmp_path, env=isolated_env)
        assert result.returncode == 0
        assert "plugins" in result.stdout and "parse" in result.stdout
        assert "no:NAME" in result.stdout


def test_parse_reports_each_block(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("parse", "-", cwd=tmp_path, env=isolated_env, stdin=REPLY)
    assert result.returncode == 1  # two blocks are invalid
    lines = result.stdout.splitlines()
    assert lines[0] == "line 3: summary — ok"
    assert lines[1] == 'line 7: shell(timeout="3") — invalid:'
    assert "shell blocks take no parameter 'timeout'" in lines[2]
    assert lines[3] == "line 11: frobnicate — unknown kind (no installed plugin registers it)"
    assert lines[4] == 'line 15: change(op="REPLACE", file-path="a.txt") — invalid:'
    assert "change op REPLACE needs find" in lines[5]
    assert lines[-1] == "4 block(s), 2 problem(s), 1 of a kind no plugin here runs"


def test_parse_offers_the_kind_meant(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    reply = "<<紫藤 go_test\n./...\n紫藤\n"
    result = run_tai("parse", "-", cwd=tmp_path, env=isolated_env, stdin=reply)
    assert result.stdout.splitlines()[0] == (
        "line 1: go_test — unknown kind (no installed plugin registers it; did you mean 'go-test'?)"
    )


def test_parse_reports_unclosed_blocks(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text("<<紫藤 summary\n- did it\n紫藤 done\n", encoding="utf-8")
    result = run_tai("parse", "--json", str(reply), cwd=tmp_path, env=isolated_env)
    assert result.returncode == 1
    (entry,) = json.loads(result.stdout)["results"]
    assert entry["status"] == "unclosed"
    assert entry["line"] == 1
    assert 'line 3: "紫藤 done"' in entry["message"]
    assert entry["detail"] == 'has no matching closing line "紫藤"'
    result = run_tai("parse", str(reply), cwd=tmp_path, env=isolated_env)
    assert result.returncode == 1
    lines = result.stdout.splitlines()  # the line named once, the near-miss as a hint
    assert lines[0] == (
        "line 1: unclosed block: kind 'summary', delimiter '紫藤': has no matching closing "
        'line "紫藤"'
    )
    assert '  line 3: "紫藤 done"' in lines
    assert lines[-1] == "0 block(s), 1 problem(s)"
