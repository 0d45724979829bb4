"""Secret files never reach the model: real `tai` runs, the bytes the model's server got.

Every secret here is a marker made in the test (never a real credential): a key's format
built from pieces, so this file itself holds no detectable secret.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tai_core import Block, BlockResult, parse_blocks
from tai_core.plugins import PluginHost
from tests.conftest import run_context, run_tai
from tests.servers import FakeModelServer, Reply

from .conftest import write_tree

pytestmark = pytest.mark.permissions  # tai runs sandboxed: CI runs these as root and not root

AWS_KEY = "AKIA" + "IOSFODNN7EXAMPLE"
GITHUB_TOKEN = "ghp_" + "M4rk3r" * 6
PRIVATE_KEY = (
    "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nmarker-private-key-body\n"
    "-----END OPENSSH PRIVATE KEY-----\n"
)
SUMMARY = "<<松柏 summary\n- looked at the files\n松柏\n"
#: Marker -> the file that holds it (each must be withheld).
SECRETS = {
    "marker-env-value": ".env",
    "marker-private-key-body": "keys/deploy",  # innocent name, caught by its content
    "marker-rsa-by-name": "id_rsa",
    "marker-netrc-password": ".netrc",
    "sk-marker-api-key": "tai.toml",
    AWS_KEY: "config/settings.yaml",
    GITHUB_TOKEN: "scripts/release.sh",
    "marker-configured": "deploy/prod.yaml",
}
#: Ordinary files full of hashes that look random and hold nothing secret.
ORDINARY = {
    "go.sum": "golang.org/x/text v0.14.0 h1:ScX5w1eTa3QqT8oi6+ziP7dTV1S2+ALU0bHi6F8Fp3Q=\n",
    "uv.lock": (
        '[[package]]\nname = "attrs"\nsdist = { url = "https://files.example/attrs.tar.gz", '
        'hash = "sha256:66779c2a9e1b22eb5a4af8d7d2ef29bf0d8e3a4a1c7f5b0c1c1e0a9a5e1b8f6d" }\n'
    ),
    "package-lock.json": '{"integrity": "sha512-Q0lXbGZ8cQz5sR3bY0h9KxN8vQmUeYk0wqZp2a+Zt0="}\n',
    "src/digest.py": (
        'EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"\n'
        'ICON = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kg"\n'
    ),
    ".env.example": "API_TOKEN=change-me\n",
}


def config_text(server: FakeModelServer) -> str:
    return (
        'model = "local"\nsecret_files = ["deploy/*.yaml"]\n[[generators]]\nname = "local"\n'
        f'type = "openai"\nmodel = "m"\nbase_url = "{server.base_url}"\n'
        'api_key = "sk-marker-api-key"\nread_timeout = 5.0\n'
    )


@pytest.fixture
def project(tmp_path: Path, openai_server: FakeModelServer) -> Path:
    root = tmp_path / "project"
    write_tree(root, {
        ".env": "API_TOKEN=marker-env-value\n",
        "keys/deploy": PRIVATE_KEY,
        "id_rsa": "marker-rsa-by-name\n",
        ".netrc": "machine example.org login me password marker-netrc-password\n",
        "tai.toml": config_text(openai_server),
        "config/settings.yaml": f"aws_access_key_id: {AWS_KEY}\n",
        "scripts/release.sh": f"export TOKEN={GITHUB_TOKEN}\n",
        "deploy/prod.yaml": "password: marker-configured\n",
        "notes.md": "ordinary notes\n",
        **ORDINARY,
    })  # fmt: skip
    return root


def first_request(server: FakeModelServer) -> str:
    return json.dumps(server.requests[0].body, ensure_ascii=False)


def withheld_list(sent: str) -> str:
    text = json.loads(sent)["messages"][-1]["content"]
    text = text if isinstance(text, str) else json.dumps(text)
    return text.split("Files withheld as secrets", 1)[1].split("\n\n", 1)[0]


def test_the_first_request_carries_no_secret_and_names_each(
    project: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    openai_server.script(Reply(text=SUMMARY))
    result = run_tai("chat", "look around", cwd=project, env=isolated_env)
    assert result.returncode == 0, result.stderr
    sent = first_request(openai_server)
    for marker in SECRETS:
        assert marker not in sent
    listing = withheld_list(sent)
    for name in SECRETS.values():
        assert f"\n- {name} (" in listing
    assert "- .env (environment file)" in listing
    assert "- config/settings.yaml (holds what looks like an AWS Access Key)" in listing
    assert "- deploy/prod.yaml (matches secret_files pattern 'deploy/*.yaml')" in listing
    for name, content in ORDINARY.items():
        assert json.dumps(content.rstrip("\n"))[1:-1] in sent, name
        assert f"- {name} (" not in listing
    assert "ordinary notes" in sent


@pytest.mark.slow
def test_the_same_tree_gives_the_same_bytes(
    project: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    openai_server.script(Reply(text=SUMMARY), Reply(text=SUMMARY))
    for _ in range(2):
        assert run_tai("chat", "t", cwd=project, env=isolated_env).returncode == 0
    users = [r.body["messages"][-1]["content"] for r in openai_server.requests]
    first, second = (text.split("Current time:")[0] for text in users)
    assert first == second
    assert "Files withheld as secrets" in first


def test_a_link_to_a_secret_outside_is_judged_by_its_target(
    tmp_path: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    home = write_tree(tmp_path / "home", {".aws/credentials": "[default]\nmarker-aws-creds\n"})
    root = write_tree(tmp_path / "p", {"a.txt": "a\n"})
    (root / "notes").symlink_to(home / ".aws" / "credentials")
    (root / "cloud").symlink_to(home / ".aws")
    (Path(isolated_env["TAI_CONFIG_DIR"]) / "tai.toml").write_text(config_text(openai_server))
    openai_server.script(Reply(text=SUMMARY))
    # the sandbox's fresh /tmp would hide the links' targets (under pytest's /tmp): the walk
    # is what is tested here
    env = {**isolated_env, "TAI_NO_SANDBOX": "1"}
    result = run_tai("chat", "t", cwd=root, env=env)
    assert result.returncode == 0, result.stderr
    sent = first_request(openai_server)
    assert "marker-aws-creds" not in sent
    listing = withheld_list(sent)
    assert "- cloud/credentials (AWS credentials)" in listing
    assert "- notes (AWS credentials)" in listing


def next_run(root: Path, env: dict[str, str], server: FakeModelServer, *files: str):
    (Path(env["TAI_CONFIG_DIR"]) / "tai.toml").write_text(config_text(server))
    server.script(Reply(text="ok\n"))
    args = [arg for name in files for arg in ("-file", name)]
    return run_tai("next", *args, "chat", "t", cwd=root, env=env)


def test_file_named_exactly_is_sent_with_one_warning(
    tmp_path: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    root = write_tree(tmp_path / "p", {".env": "API_TOKEN=marker-env-value\n"})
    result = next_run(root, isolated_env, openai_server, ".env")
    assert result.returncode == 0, result.stderr
    assert "marker-env-value" in first_request(openai_server)
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "tai: warning: -file .env looks like a secret (environment file); "
        "sending it because you named it"
    ]
    assert "Files withheld as secrets" not in first_request(openai_server)


def test_file_glob_withholds_and_names(
    tmp_path: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    root = write_tree(tmp_path / "p", {
        ".env": "API_TOKEN=marker-env-value\n", "prod.env": "X=marker-prod\n",
        "a.txt": f"key {AWS_KEY}\n", "b.txt": "plain text\n",
    })  # fmt: skip
    result = next_run(root, isolated_env, openai_server, "*.env", "*.txt")
    assert result.returncode == 0, result.stderr
    sent = first_request(openai_server)
    for marker in ("marker-env-value", "marker-prod", AWS_KEY):
        assert marker not in sent
    assert "plain text" in sent
    listing = withheld_list(sent)
    assert "- .env (environment file)\n- a.txt (holds what looks like an AWS Access Key)" in (
        listing
    )
    assert "- prod.env (environment file)" in listing
    assert "warning" not in result.stderr


def ingest(host: PluginHost, cwd: Path, body: str, **config: object) -> BlockResult:
    (block,) = parse_blocks(f"<<紫藤 ingest\n{body}\n紫藤")
    assert isinstance(block, Block)
    kind = host.registry.block_kinds["ingest"]
    context = run_context(host, cwd, command="any", config=config)
    return host.pm.hook.tai_run_block(block=block, kind=kind, context=context)


def test_ingest_refuses_a_secret_file_and_marks_it_in_globs(
    host: PluginHost, tmp_path: Path
) -> None:
    write_tree(tmp_path, {
        ".env": "A=marker-env-value\n", "conf/app.yaml": f"key: {AWS_KEY}\n",
        "conf/plain.yaml": "a: 1\n", "conf/site.pem": "marker-pem\n", "go.sum": ORDINARY["go.sum"],
        "conf/mine.yaml": "marker-configured\n",
    })  # fmt: skip
    body = (
        "<file>.env</file>\n<file>conf/app.yaml</file>\n<file>conf/mine.yaml</file>\n"
        "<file>go.sum</file>\n<glob>conf/*</glob>"
    )
    result = ingest(host, tmp_path, body, secret_files=["conf/mine.*"])
    assert not result.ok
    for marker in ("marker-env-value", AWS_KEY, "marker-pem", "marker-configured"):
        assert marker not in result.text
    assert (
        "[error: .env is withheld as a secret (environment file); its content is never sent]"
        in result.text
    )
    assert "conf/app.yaml is withheld as a secret (holds what looks like an AWS Access Key)" in (
        result.text
    )
    assert "conf/mine.yaml is withheld as a secret (matches secret_files pattern" in result.text
    assert ORDINARY["go.sum"] in result.text
    assert (
        '<context type="glob" pattern="conf/*">\nconf/app.yaml\nconf/mine.yaml (withheld: secret)'
        "\nconf/plain.yaml\nconf/site.pem (withheld: secret)\n</context>"
    ) in result.text


def test_ingest_judges_a_link_by_its_target(host: PluginHost, tmp_path: Path) -> None:
    write_tree(tmp_path, {"private/id_ed25519": "marker-ed25519\n"})
    (tmp_path / "innocent.txt").symlink_to(tmp_path / "private" / "id_ed25519")
    result = ingest(host, tmp_path, "<file>innocent.txt</file>\n<glob>*.txt</glob>")
    assert "marker-ed25519" not in result.text
    assert "innocent.txt is withheld as a secret (SSH private key)" in result.text
    assert "innocent.txt (withheld: secret)" in result.text


def test_content_scanning_can_be_switched_off_names_cannot(
    project: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    openai_server.script(Reply(text=SUMMARY))
    result = run_tai("-p", "no:secrets", "chat", "t", cwd=project, env=isolated_env)
    assert result.returncode == 0, result.stderr
    sent = first_request(openai_server)
    assert AWS_KEY in sent  # the content plugin is off: the user said so
    assert "marker-env-value" not in sent and "sk-marker-api-key" not in sent
