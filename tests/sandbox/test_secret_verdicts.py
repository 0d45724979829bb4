"""The content scan's verdicts kept across runs (``tai_sandbox._verdicts``): a file whose
bytes did not change is not scanned again — detect-secrets is not even imported — and a
kept verdict is believed only when tai signed it: one planted from inside a sandboxed run
(``no credential here`` for a file that holds one) is not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_tai
from tests.servers import FakeModelServer, Reply

from .conftest import sandboxed

#: A credential the content rule knows (an AWS access key id), split so this file has none.
AWS_KEY = "AKIA" + "IOSFODNN7EXAMPLE"
FOUND = "holds what looks like an AWS Access Key"

#: A fresh interpreter judging the files named in its arguments, as tai's context does
#: (the key read first, as before the sandbox): the reasons, then whether detect-secrets
#: was imported.
SCAN = """
import json, sys
from tai_core.store._key import journal_key
journal_key()
from tai_sandbox.secret_scan import tai_secret_file
reasons = [tai_secret_file(path=p, data=open(p, "rb").read(), config={}) for p in sys.argv[1:]]
print(json.dumps([reasons, "detect_secrets" in sys.modules]))
"""


@pytest.fixture
def cache_env(isolated_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    (tmp_path / "cache").mkdir()
    return {**isolated_env, "XDG_CACHE_HOME": str(tmp_path / "cache")}


def verdicts_file(env: dict[str, str]) -> Path:
    return Path(env["XDG_CACHE_HOME"]) / "tai" / "secret-verdicts"


def scan(cwd: Path, env: dict[str, str], *names: str) -> tuple[list[str | None], bool]:
    done = subprocess.run(
        [sys.executable, "-c", SCAN, *names], cwd=cwd, env=env, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    reasons, imported = json.loads(done.stdout)
    return reasons, imported


def forged_line(path: str, data: bytes, verdict: str = "-") -> str:
    """A line an attacker can write: the right key (every input of it is public), any MAC."""
    from tai_sandbox import _verdicts
    from tai_sandbox.secret_scan import PLUGINS

    return f"{_verdicts.key_of(repr(PLUGINS), path, data)} {'0' * 64} {verdict}"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "notes.md").write_text("Deploys happen on Fridays.\n")
    (folder / "deploy.txt").write_text(f"aws_access_key_id = {AWS_KEY}\n")
    return folder


def test_an_unchanged_file_is_not_scanned_again(files: Path, cache_env) -> None:
    first = scan(files, cache_env, "notes.md", "deploy.txt")
    assert first == ([None, FOUND], True)
    assert scan(files, cache_env, "notes.md", "deploy.txt") == ([None, FOUND], False)
    assert len(verdicts_file(cache_env).read_text().splitlines()) == 2


@pytest.mark.slow
def test_a_changed_file_or_another_path_is_scanned_again(files: Path, cache_env) -> None:
    scan(files, cache_env, "notes.md", "deploy.txt")
    (files / "notes.md").write_text(f"Deploys happen on Fridays. {AWS_KEY}\n")
    assert scan(files, cache_env, "notes.md") == ([FOUND], True)
    (files / "copy.txt").write_text(f"aws_access_key_id = {AWS_KEY}\n")
    assert scan(files, cache_env, "copy.txt") == ([FOUND], True)


def test_a_verdict_tai_did_not_sign_is_not_believed(files: Path, cache_env) -> None:
    data = (files / "deploy.txt").read_bytes()
    verdicts_file(cache_env).parent.mkdir(parents=True)
    verdicts_file(cache_env).write_text(f"{forged_line('deploy.txt', data)}\nnot a line\n")
    assert scan(files, cache_env, "deploy.txt") == ([FOUND], True)


def test_a_verdict_signed_under_another_key_is_not_believed(
    files: Path, cache_env, tmp_path: Path
) -> None:
    """A clean verdict for the file, signed by another tai (another user's key)."""
    key = forged_line("deploy.txt", (files / "deploy.txt").read_bytes()).split()[0]
    other = {**cache_env, "TAI_DATA_DIR": str(tmp_path / "other")}
    keep = f"from tai_sandbox import _verdicts; _verdicts.keep({key!r}, '-')"
    subprocess.run([sys.executable, "-c", keep], env=other, check=True)
    assert verdicts_file(cache_env).read_text().endswith(" -\n")
    assert scan(files, cache_env, "deploy.txt") == ([FOUND], True)


def test_without_tais_key_every_file_is_scanned_and_nothing_kept(files: Path, cache_env) -> None:
    data = Path(cache_env["TAI_DATA_DIR"])
    (data / "keys").write_text("not a directory: no key can be read or made")
    script = SCAN.replace("journal_key()\n", "")
    done = subprocess.run([sys.executable, "-c", script, "deploy.txt"], cwd=files,
                          env=cache_env, capture_output=True, text=True, check=True)  # fmt: skip
    assert json.loads(done.stdout) == [[FOUND], True]
    assert not verdicts_file(cache_env).exists()


def test_the_file_keeps_the_newer_half_past_its_bound(
    monkeypatch: pytest.MonkeyPatch, cache_env, tmp_path: Path
) -> None:
    from tai_sandbox import _verdicts

    for name in ("XDG_CACHE_HOME", "TAI_DATA_DIR"):
        monkeypatch.setenv(name, cache_env[name])
    monkeypatch.setattr(_verdicts, "MAX_LINES", 4)
    monkeypatch.setattr(_verdicts, "_lines", {})
    keys = [f"{number:032x}" for number in range(6)]
    for key in keys:
        _verdicts.keep(key, "-")
    monkeypatch.setattr(_verdicts, "_lines", None)
    assert _verdicts.recall(keys[0]) is None and _verdicts.recall(keys[-1]) == "-"
    assert [line.split()[0] for line in verdicts_file(cache_env).read_text().splitlines()] == (
        keys[3:]
    )


@pytest.mark.usefixtures("namespaces")
@pytest.mark.permissions
def test_a_verdict_planted_from_inside_a_sandboxed_run_lets_nothing_out(
    files: Path, cache_env
) -> None:
    """Plant inside (tai's cache is writable there), trigger outside: `tai next` in the
    directory still withholds the file the planted line calls clean."""
    line = forged_line("deploy.txt", (files / "deploy.txt").read_bytes())
    target = verdicts_file(cache_env)
    planted = sandboxed(f"mkdir -p {target.parent} && printf '%s\\n' '{line}' >> {target}",
                        files, cache_env)  # fmt: skip
    assert planted.returncode == 0, planted.stderr
    assert line in target.read_text()  # the plant landed: the test can tell
    with FakeModelServer("openai") as server:
        (files / "tai.toml").write_text(
            'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
            f'model = "m"\nbase_url = "{server.base_url}"\napi_key = "k"\n'
        )
        server.script(Reply(text="An answer.\n"))
        result = run_tai("next", "chat", "What is here?", cwd=files, env=cache_env)
        (request,) = server.requests
    assert result.returncode == 0, result.stderr
    sent = "\n".join(message["content"] for message in request.body["messages"])
    assert "Deploys happen on Fridays." in sent
    assert AWS_KEY not in sent and "deploy.txt" in sent.split("withheld", 1)[1]


def test_a_signed_verdict_moved_to_another_file_is_not_believed(files: Path, cache_env) -> None:
    """The MAC covers the key and the verdict: tai's own "clean" line for one file, its key
    swapped for the key of a file that holds a credential, is refused."""
    scan(files, cache_env, "notes.md")
    _, mac, verdict = verdicts_file(cache_env).read_text().split(" ", 2)
    key = forged_line("deploy.txt", (files / "deploy.txt").read_bytes()).split()[0]
    verdicts_file(cache_env).write_text(f"{key} {mac} {verdict}")
    assert scan(files, cache_env, "deploy.txt") == ([FOUND], True)


def test_the_key_is_the_scanner_the_path_and_the_bytes() -> None:
    """The key format is part of the file's format (``FORMAT``): pinned here, so that a
    change to it is a change of ``FORMAT`` too."""
    import hashlib
    from importlib import metadata

    from tai_sandbox import _verdicts

    version = metadata.version("detect-secrets")
    expected = hashlib.blake2b(f"1\0{version}\0P\0".encode(), digest_size=16)
    expected.update(b"a.txt\0" + b"data")
    assert _verdicts.key_of("P", "a.txt", b"data") == expected.hexdigest()
    assert _verdicts.key_of("Q", "a.txt", b"data") != _verdicts.key_of("P", "a.txt", b"data")


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch, cache_env, tmp_path: Path) -> Any:
    """The verdict store of this process, over ``cache_env``'s directories (in a cache
    directory not made yet), read afresh."""
    from tai_sandbox import _verdicts

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "not-yet" / "cache"))
    monkeypatch.setenv("TAI_DATA_DIR", cache_env["TAI_DATA_DIR"])
    monkeypatch.setattr(_verdicts, "_lines", None)
    return _verdicts


def test_kept_in_a_new_directory_private_and_known_at_once(store: Any, tmp_path: Path) -> None:
    assert store.recall("0" * 32) is None  # the file is read (and absent) first
    store.keep("0" * 32, "AWS Access Key")
    assert store.recall("0" * 32) == "AWS Access Key"  # this process knows it at once
    path = tmp_path / "not-yet" / "cache" / "tai" / store.FILE_NAME
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700


def test_a_verdict_with_a_line_break_is_not_kept(store: Any, tmp_path: Path) -> None:
    store.keep("1" * 32, "-\n" + "2" * 32)
    assert not (tmp_path / "not-yet").exists()


def test_lines_of_any_shape_and_bytes_are_ignored(store: Any, tmp_path: Path) -> None:
    store.keep("3" * 32, "-")
    path = tmp_path / "not-yet" / "cache" / "tai" / store.FILE_NAME
    kept = path.read_bytes()
    path.write_bytes(b"\xff\xfe not text\n" + b"4" * 32 + b"\n" + b"5" * 32 + b" x\n" + kept)
    store._lines = None
    assert store.recall("3" * 32) == "-"
    assert store.recall("4" * 32) is None and store.recall("5" * 32) is None


def test_exactly_the_bound_is_not_trimmed(
    store: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(store, "MAX_LINES", 3)
    keys = [f"{number:032x}" for number in range(3)]
    for key in keys:
        store.keep(key, "-")
    store._lines = None
    assert [store.recall(key) for key in keys] == ["-", "-", "-"]
