"""A run's shell block rewrites the checkpoint store (the data directory is writable in
the sandbox): the stat cache, the log, a manifest. ``tai undo``, outside, still restores
the tree or refuses with one line — never trusts what the run wrote there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..conftest import run_tai
from .test_undo import DONE, change, replay, run, shell

pytestmark = pytest.mark.permissions  # tai runs sandboxed: CI runs these as root and not root

#: Rewrites auth.txt (same size) and makes the stat cache claim it is unchanged.
PLANT_CACHE = """
import json, os, pathlib
cache = next(pathlib.Path({data!r}, "checkpoints").glob("*/cache.json"))
raw = cache.read_bytes()
head, body = (b"", raw) if raw.startswith(b"{{") else raw.split(b"\\n", 1)
document = json.loads(body)
pathlib.Path("auth.txt").write_text("user=model\\n")
info = os.stat("auth.txt")
row = document["files"]["auth.txt"]
row[:4] = [info.st_size, info.st_mtime_ns, info.st_ino, info.st_mode]
if len(row) > 5:
    row[4] = info.st_ctime_ns
cache.write_bytes(head + (b"\\n" if head else b"") + json.dumps(document).encode())
"""

#: Rewrites auth.txt in place, same size, and sets its modification time back.
PLANT_UTIME = """
import os
info = os.stat("auth.txt")
with open("auth.txt", "r+") as handle:
    handle.write("user=model\\n")
os.utime("auth.txt", ns=(info.st_atime_ns, info.st_mtime_ns))
"""

#: Points the run's checkpoints at a forged manifest that also holds evil.txt.
PLANT_LOG = """
import hashlib, json, pathlib
store = next(pathlib.Path({data!r}, "checkpoints").glob("*/log.jsonl")).parent
def save(data):
    digest = hashlib.sha256(data).hexdigest()
    path = store / "objects" / digest[:2] / digest[2:]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return digest
lines = [json.loads(line) for line in (store / "log.jsonl").read_text().splitlines()]
first = lines[0]["manifest"]
manifest = json.loads((store / "objects" / first[:2] / first[2:]).read_bytes())
manifest["evil.txt"] = [save(b"planted\\n"), 0o644, False]
forged = save(json.dumps(manifest).encode())
for line in lines:
    line["manifest"] = forged
(store / "log.jsonl").write_text("".join(json.dumps(line) + "\\n" for line in lines))
"""


def backdate(root: Path) -> None:
    """As files are before a run: written more than a second ago (so the cache holds them)."""
    past = os.stat(root).st_mtime_ns - 60_000_000_000
    for path in root.rglob("*"):
        if ".git" not in path.parts:
            os.utime(path, ns=(past, past), follow_symlinks=False)


@pytest.mark.parametrize("plant", [PLANT_CACHE, PLANT_UTIME], ids=["cache", "utime"])
@pytest.mark.slow
def test_a_poisoned_stat_cache_does_not_hide_a_change(tree: Path, env, plant: str) -> None:
    (tree / "auth.txt").write_text("user=alice\n")
    backdate(tree)
    script = plant.format(data=env["TAI_DATA_DIR"])
    replay(tree, "Go.\n" + change("plant.py", script) + shell("python3 plant.py"), DONE)
    run(tree, env)
    assert (tree / "auth.txt").read_text() == "user=model\n"
    listing = run_tai("checkpoints", cwd=tree, env=env)
    before_programs = listing.stdout.splitlines()[-3]  # up to the end of the run: auth.txt
    assert before_programs.split("before programs")[1].split()[0] == "1"  # changed, then task
    result = run_tai("undo", cwd=tree, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tree / "auth.txt").read_text() == "user=alice\n"
    assert "restored auth.txt" in result.stdout


def test_a_forged_log_is_refused_with_one_line(tree: Path, env) -> None:
    script = PLANT_LOG.format(data=env["TAI_DATA_DIR"])
    replay(tree, "Go.\n" + change("plant.py", script) + shell("python3 plant.py"), DONE)
    run(tree, env)
    result = run_tai("undo", cwd=tree, env=env)
    assert not (tree / "evil.txt").exists()
    assert result.returncode == 1, result.stdout + result.stderr  # failed, the line says why
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "not tai's" in result.stderr
    assert (tree / "plant.py").exists()  # nothing was undone


@pytest.mark.slow
def test_checkpoints_of_another_key_are_refused(tree: Path, env) -> None:
    replay(tree, "Go.\n" + change("a.txt", "changed\n") + DONE)
    run(tree, env)
    keys = Path(env["TAI_DATA_DIR"]) / "keys"
    for path in keys.iterdir():
        path.write_bytes(b"k" * 32)
    result = run_tai("undo", cwd=tree, env=env)
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) == 1 and "not tai's" in result.stderr
    assert (tree / "a.txt").read_text() == "changed\n"
    listing = run_tai("checkpoints", cwd=tree, env=env)
    assert "not tai's" in listing.stdout


def test_without_a_key_checkpoints_are_skipped_with_one_warning(monkeypatch, tmp_path) -> None:
    import tai_checkpoints as checkpoints
    from tai_core.store import _key

    data = tmp_path / "data"
    data.mkdir()
    (data / "keys").write_text("not a directory: no key can be read or made")
    monkeypatch.setenv("TAI_DATA_DIR", str(data))
    monkeypatch.setattr(_key, "_cached", {})
    monkeypatch.setattr(checkpoints, "_warned", [])
    (tmp_path / "a.txt").write_text("a\n")
    warnings = []
    monkeypatch.setattr(checkpoints.click, "echo", lambda text, err=False: warnings.append(text))
    for round_number in (1, 2):
        checkpoints.tai_checkpoint(str(tmp_path), "s1", round_number, "write", {}, "s1")
    assert len(warnings) == 1 and "no checkpoint" in warnings[0]
    assert not list(data.glob("checkpoints/*/log.jsonl"))
