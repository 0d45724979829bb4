"""Change blocks refuse secret files: no content in the error, no hint, no error log.

Every secret here is a marker made in the test (never a real credential); a key's format
is built from pieces, so this file itself holds no detectable secret.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tai_changes import ChangeError, apply_change
from tai_core.context import secret_name
from tai_core.store import FileStore
from tests.conftest import run_tai
from tests.servers import FakeModelServer, Reply

from .conftest import block, write_files

AWS_KEY = "AKIA" + "IOSFODNN7EXAMPLE"
ENV = "DB_PASSWORD=hunter2-zzz\n"
REFUSAL = "withheld as a secret (environment file); change blocks may not read or write it"
SUMMARY = "<<松柏 summary\n- tried\n松柏\n"

#: One block of each op on the secret file ``.env`` (a RENAME from it and one onto it).
BLOCKS = {
    "WRITE": block("WRITE", ".env", "DB_PASSWORD=x"),
    "REPLACE": block("REPLACE", ".env", "x", find="DB_PASSWORD=hunterX"),
    "REPLACE found": block("REPLACE", ".env", "x", find="DB_PASSWORD=hunter2-zzz"),
    "INSERT_BEFORE": block("INSERT_BEFORE", ".env", "x", find="DB_PASSWORD=hunterX"),
    "INSERT_AFTER": block("INSERT_AFTER", ".env", "x", find="DB_PASSWORD"),
    "ADD_BEFORE BEGIN": block("ADD_BEFORE", ".env", "X=1", target="BEGIN"),
    "ADD_AFTER END": block("ADD_AFTER", ".env", "X=1", target="END"),
    "DELETE": block("DELETE", ".env", target="*"),
    "MODIFY": block("MODIFY", ".env", "x", target="F"),
    "RENAME source": block("RENAME", ".env", target="notes.txt"),
    "RENAME target": block("RENAME", "notes.txt", target=".env"),
    "a path that leads there": block("REPLACE", "sub/../.env", "x", find="hunterX"),
}


def tree_of(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", list(BLOCKS))
def test_every_op_on_a_secret_file_is_refused_before_it_is_read(tmp_path: Path, name: str) -> None:
    write_files(tmp_path, {".env": ENV, "notes.txt": "notes\n", "sub/x.txt": "x\n"})
    before = tree_of(tmp_path)
    store = FileStore.open(tmp_path)
    with pytest.raises(ChangeError) as caught:
        apply_change(store, BLOCKS[name])
    message = str(caught.value)
    assert REFUSAL in message
    assert ".env" in message
    assert "hunter2" not in message and "closest" not in message
    assert caught.value.log is None
    assert tree_of(tmp_path) == before  # no error log, nothing changed


def test_the_refusal_names_the_file_and_a_renames_target(tmp_path: Path) -> None:
    write_files(tmp_path, {".env": ENV, "notes.txt": "notes\n"})
    store = FileStore.open(tmp_path)
    with pytest.raises(ChangeError) as caught:
        apply_change(store, BLOCKS["REPLACE"])
    assert str(caught.value) == f"REPLACE in .env: {REFUSAL}"
    with pytest.raises(ChangeError) as caught:
        apply_change(store, BLOCKS["RENAME target"])
    assert str(caught.value) == f"RENAME .env in notes.txt: the target .env is {REFUSAL}"


def test_a_link_is_judged_by_its_own_name_and_by_what_it_leads_to(tmp_path: Path) -> None:
    write_files(tmp_path, {".env": ENV, "plain.txt": "plain\n"})
    (tmp_path / "settings.txt").symlink_to(".env")
    (tmp_path / "prod.env").symlink_to("plain.txt")
    store = FileStore.open(tmp_path)
    for path in ("settings.txt", "prod.env"):
        with pytest.raises(ChangeError, match="withheld as a secret"):
            apply_change(store, block("REPLACE", path, "x", find="nothing"))


def test_a_link_is_judged_by_its_path_as_written_from_the_working_directory(
    tmp_path: Path, monkeypatch
) -> None:
    """An anchored pattern (``keys/prod.json``) names a path from the working directory;
    a link there is withheld by it even though what it leads to is not, and wherever the
    process itself happens to be."""
    from tai_core.context import names_only

    write_files(tmp_path, {"data/x.json": "{}\n"})
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys/prod.json").symlink_to("../data/x.json")
    monkeypatch.chdir(tmp_path / "data")
    store = FileStore.open(tmp_path, secret=names_only({"secret_files": ["keys/prod.json"]}))
    assert store.withheld("data/x.json") is None
    assert store.withheld("keys/prod.json")
    assert store.withheld("keys/../keys/prod.json")


def marker_check(path: str, data: bytes | None) -> str | None:
    """The name rules and a content rule: a file holding ``MARKER-SECRET`` is withheld
    (what the hook answers with the core's plugin and a content scanner installed)."""
    if data and b"MARKER-SECRET" in data:
        return "holds a marker"
    return secret_name(path)


def test_a_file_withheld_by_its_content_is_refused_too(tmp_path: Path) -> None:
    write_files(tmp_path, {"config.txt": "token = MARKER-SECRET-1\n", "a.txt": "a\n"})
    store = FileStore.open(tmp_path, secret=marker_check)
    with pytest.raises(ChangeError) as caught:
        apply_change(store, block("REPLACE", "config.txt", "x", find="token = MARKER-SECRET-2"))
    assert str(caught.value) == (
        "REPLACE in config.txt: withheld as a secret (holds a marker); change blocks may not "
        "read or write it"
    )
    # the content as the run sees it: a key written by an earlier block counts
    store = apply_change(store, block("WRITE", "a.txt", "MARKER-SECRET-3"))
    with pytest.raises(ChangeError, match=r"withheld as a secret \(holds a marker\)"):
        apply_change(store, block("REPLACE", "a.txt", "x", find="MARKER-SECRET-4"))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".error-log")] == []


def test_ordinary_files_and_templates_still_change(tmp_path: Path) -> None:
    write_files(tmp_path, {".env.example": "DB_PASSWORD=change-me\n", "a.txt": "a\n"})
    store = FileStore.open(tmp_path, secret=marker_check)
    store = apply_change(store, block("REPLACE", ".env.example", "DB_HOST=h", find="change-me"))
    store = apply_change(store, block("WRITE", "b.txt", "b"))
    with pytest.raises(ChangeError) as caught:  # an ordinary failure still quotes and logs
        apply_change(store, block("REPLACE", "a.txt", "x", find="ab"))
    assert "closest line 1: 'a'" in str(caught.value) and caught.value.log is not None


def test_an_error_log_is_never_written_for_a_secret_file(tmp_path: Path) -> None:
    """Belt and braces: whatever fails, the log of a withheld file is not written."""
    write_files(tmp_path, {".env": ENV, "a.txt": "a\n"})
    store = FileStore.open(tmp_path, secret=marker_check)
    cases = [
        (".env", ENV, None),  # by name
        ("a.txt", "MARKER-SECRET in the file\n", None),  # by the content it held
        ("a.txt", None, "a\nMARKER-SECRET the change produced\n"),  # by the result
        ("../outside.txt", "x\n", None),  # a path that cannot be judged
    ]
    for path, source, modified in cases:
        failure = ChangeError("REPLACE", "", path, "find text not found")
        assert failure.logged(store, source=source, modified=modified).log is None
    assert tree_of(tmp_path) == {".env": ENV, "a.txt": "a\n"}
    failure = ChangeError("REPLACE", "", "a.txt", "find text not found")
    assert failure.logged(store, source="a\n", modified=None).log is not None


# Real runs: the tai command, the installed plugins (names in the core, content by the
# sandbox's detect-secrets), the bytes the model's server received.


def config_text(server: FakeModelServer) -> str:
    return (
        'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\nmodel = "m"\n'
        f'base_url = "{server.base_url}"\napi_key = "sk-test"\nread_timeout = 5.0\n'
    )


def change_reply(params: str, body: str = "x") -> str:
    return f"Editing.\n<<甲乙 change({params})\n{body}\n甲乙\n{SUMMARY}"


def sent(server: FakeModelServer) -> str:
    return "\n".join(
        json.dumps(r.body, ensure_ascii=ascii) for r in server.requests for ascii in (0, 1)
    )


@pytest.mark.parametrize(
    ("files", "params", "marker", "reason"),
    [
        ({".env": ENV}, 'op="REPLACE", find="DB_PASSWORD=hunterX", file-path=".env"',
         "hunter2-zzz", "environment file"),
        ({"conf.txt": f"aws = {AWS_KEY}\nother = 1\n"},
         'op="REPLACE", find="aws = AKIA-wrong", file-path="conf.txt"',
         AWS_KEY, "holds what looks like an AWS Access Key"),
        ({".env": ENV, "a.txt": "a\n"}, 'op="RENAME", target=".env", file-path="a.txt"',
         "hunter2-zzz", "environment file"),
    ],
)  # fmt: skip
def test_a_run_tells_the_model_the_file_is_withheld_and_sends_none_of_it(
    tmp_path: Path,
    openai_server: FakeModelServer,
    isolated_env: dict[str, str],
    files: dict[str, str],
    params: str,
    marker: str,
    reason: str,
) -> None:
    root = tmp_path / "p"
    write_files(root, files)
    (Path(isolated_env["TAI_CONFIG_DIR"]) / "tai.toml").write_text(config_text(openai_server))
    openai_server.script(Reply(text=change_reply(params)), Reply(text=SUMMARY))
    result = run_tai("chat", "fix the file", cwd=root, env=isolated_env)
    assert result.returncode == 0, result.stderr
    assert len(openai_server.requests) == 2
    retry = json.dumps(openai_server.requests[1].body, ensure_ascii=False)
    assert f"withheld as a secret ({reason}); change blocks may not read or write it" in retry
    assert "closest line" not in retry
    assert marker not in sent(openai_server)
    assert tree_of(root) == files  # nothing changed, no error log


def test_a_replayed_run_gets_the_refusal_as_its_correction(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    root = tmp_path / "p"
    write_files(root, {".env": ENV})
    (root / ".model.replay").write_text(
        "@@@ reply\n"
        + change_reply('op="REPLACE", find="DB_PASSWORD=hunterX", file-path=".env"')
        + "@@@ reply\n@@@ expect user: REPLACE in .env: withheld as a secret (environment "
        "file); change blocks may not read or write it\n" + SUMMARY
    )
    result = run_tai("-model", "replay:.model.replay", "chat", "go", cwd=root, env=isolated_env)
    assert result.returncode == 0, result.stderr
    assert "hunter2" not in result.stdout + result.stderr
    assert not list(root.glob(".error-log.*"))
    assert (root / ".env").read_text() == ENV


@pytest.mark.slow
def test_patch_refuses_secret_files_by_name_and_by_content(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    root = tmp_path / "p"
    files = {".env": ENV, "conf.txt": f"aws = {AWS_KEY}\n", "tai.toml": "model = 'x'\n"}
    write_files(root, files)
    cases = {
        ".env": 'op="REPLACE", find="DB_PASSWORD=hunterX", file-path=".env"',
        "conf.txt": 'op="INSERT_AFTER", find="aws = AKIA-wrong", file-path="conf.txt"',
        "tai.toml": 'op="WRITE", file-path="tai.toml"',
    }
    for name, params in cases.items():
        (root / ".AI").write_text(f"<<甲乙 change({params})\nx\n甲乙\n")
        result = run_tai("patch", cwd=root, env=isolated_env)
        assert result.returncode == 1
        assert f"in {name}: withheld as a secret (" in result.stderr
        assert "change blocks may not read or write it" in result.stderr
        assert "hunter2" not in result.stderr and AWS_KEY not in result.stderr
        assert "closest" not in result.stderr and "details in" not in result.stderr
        assert tree_of(root) == {**files, ".AI": f"<<甲乙 change({params})\nx\n甲乙\n"}
