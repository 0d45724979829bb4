"""The Go provider withholds secret files of focus packages, embedded ones and Go files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tai_core.context import hook_check
from tai_core.context._prompt import build_prompt
from tai_core.plugins import PluginHost
from tai_go import snapshot
from tai_go._symbols import requested_source
from tests.conftest import run_tai
from tests.servers import FakeModelServer, Reply

from .conftest import GO_MOD, collect, write

AWS_KEY = "AKIA" + "IOSFODNN7EXAMPLE"
MODULE = {
    "go.mod": GO_MOD,
    "go.sum": "golang.org/x/text v0.14.0 h1:ScX5w1eTa3QqT8oi6+ziP7dTV1S2+ALU0bHi6F8Fp3Q=\n",
    "a/a.go": '// Package a serves.\npackage a\n\nimport _ "embed"\n\n//go:embed fixture.json\n'
    "var fixture string\n\n// Serve serves.\nfunc Serve() string { return fixture }\n",
    "a/fixture.json": f'{{"key": "{AWS_KEY}"}}\n',
    "a/.env": "TOKEN=marker-env\n",
    "a/server.pem": "marker-pem\n",
    "a/notes.txt": "plain notes\n",
    "a/deploy.yaml": "marker-configured\n",
    "k/k.go": f'// Package k holds a key.\npackage k\n\nconst awsKey = "{AWS_KEY}"\n',
    "k/use.go": "package k\n\n// Use uses it.\nfunc Use() string { return awsKey }\n",
}
SUMMARY = "<<松柏 summary\n- looked\n松柏\n"


def secret_check(host: PluginHost, config: dict) -> object:
    return hook_check(host.pm.hook, config)


def test_secrets_of_focus_packages_are_withheld_and_named(host: PluginHost, tmp_path: Path) -> None:
    write(tmp_path, MODULE)
    config = {"secret_files": ["a/deploy.yaml"]}
    parts = collect(tmp_path, all_src=True, config=config, secret=secret_check(host, config))
    prompt = build_prompt(base="B", kinds=[], command="go", parts=parts, task="t").user
    for marker in (AWS_KEY, "marker-env", "marker-pem", "marker-configured"):
        assert marker not in prompt
    assert "plain notes" in prompt and "func Serve()" in prompt
    listing = prompt.split("Files withheld as secrets", 1)[1]
    assert "a/.env" not in listing  # dot files of a package are never shown anyway
    assert "- a/deploy.yaml (matches secret_files pattern 'a/deploy.yaml')\n" in listing
    assert "- a/fixture.json (holds what looks like an AWS Access Key)\n" in listing
    assert "- a/server.pem (PEM key or certificate)\n" in listing
    assert "- k/k.go (holds what looks like an AWS Access Key)\n" in listing


def test_the_outline_and_go_src_show_no_secret_go_file(host: PluginHost, tmp_path: Path) -> None:
    write(tmp_path, MODULE)
    parts = collect(tmp_path, secret=secret_check(host, {}))
    prompt = build_prompt(base="B", kinds=[], command="go", parts=parts, task="t").user
    assert AWS_KEY not in prompt
    assert "(documentation withheld: it would show what k/k.go holds)" in prompt
    assert "- a/notes.txt\n" in prompt and "- a/.env\n" not in prompt
    loaded = snapshot(tmp_path.resolve(), {})
    answer = requested_source(loaded, ["k", "awsKey", "k.Use"])
    assert AWS_KEY not in answer
    assert "func Use()" in answer


@pytest.mark.slow
def test_a_real_run_sends_no_secret_of_a_go_module(
    tmp_path: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    write(tmp_path, MODULE)
    (tmp_path / "tai.toml").write_text(
        'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\nmodel = "m"\n'
        f'base_url = "{openai_server.base_url}"\napi_key = "sk-marker-api-key"\n'
    )
    openai_server.script(Reply(text=SUMMARY), Reply(text=SUMMARY))
    result = run_tai("-max-loops", "1", "chat", "look", cwd=tmp_path, env=isolated_env)
    assert openai_server.requests, result.stderr
    sent = json.dumps(openai_server.requests[0].body)
    for marker in (AWS_KEY, "marker-env", "marker-pem", "sk-marker-api-key"):
        assert marker not in sent, result.stderr
    assert "Files withheld as secrets" in sent
