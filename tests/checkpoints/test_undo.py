"""Checkpoints and ``tai undo`` on real runs: a run's model wipes, edits and creates
files through change and shell blocks (inside the sandbox), and ``tai undo`` brings the
tree back without overwriting what the user edited after the run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..conftest import run_tai

pytestmark = pytest.mark.permissions  # tai runs sandboxed: CI runs these as root and not root


def replay(root: Path, *replies: str) -> None:
    """The transcript of a run, inside the working directory (the sandbox hides /tmp)."""
    (root / ".model.replay").write_text("".join(f"@@@ reply\n{reply}" for reply in replies))


def change(path: str, text: str) -> str:
    return f'<<甲乙 change(op="WRITE", file-path="{path}")\n{text}甲乙\n'


def shell(command: str) -> str:
    return f"<<甲乙 shell\n{command}\n甲乙\n"


DONE = "Done.\n<<丙丁 summary\n- done\n丙丁\n"


def run(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = run_tai("-shell", "-model", "replay:.model.replay", "chat", "go", cwd=root, env=env)
    assert result.returncode == 0, result.stderr
    return result


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.parts and path.name != ".model.replay"
    }


@pytest.mark.slow
def test_undo_brings_back_a_tree_a_shell_block_wiped(tree: Path, env) -> None:
    before = snapshot(tree)
    replay(
        tree,
        "Wiping.\n" + change("wipe.sh", "rm -rf a.txt src run.sh\n") + shell("sh wipe.sh"),
        DONE,
    )
    run(tree, env)
    assert not (tree / "src").exists() and (tree / "wipe.sh").exists()
    result = run_tai("undo", cwd=tree, env=env)
    assert result.returncode == 0, result.stderr
    assert snapshot(tree) == before
    assert (tree / "run.sh").stat().st_mode & 0o777 == 0o755
    assert "removed wipe.sh" in result.stdout and "restored src/main.py" in result.stdout
    assert (tree / ".git" / "HEAD").exists()  # the user's repository is untouched


def test_edits_made_after_the_run_are_kept_and_named(tree: Path, env) -> None:
    replay(tree, "Editing.\n" + change("a.txt", "by the run\n") + change("b.txt", "new\n") + DONE)
    run(tree, env)
    (tree / "a.txt").write_text("by the user\n")
    result = run_tai("undo", cwd=tree, env=env)
    assert result.returncode == 1
    assert (tree / "a.txt").read_text() == "by the user\n"
    assert not (tree / "b.txt").exists()
    assert "kept a.txt: edited after the run ended" in result.stdout


@pytest.mark.slow
def test_undo_to_before_a_round(tree: Path, env) -> None:
    replay(
        tree,
        "One.\n" + change("one.txt", "1\n") + shell("echo ok"),
        "Two.\n" + change("two.txt", "2\n") + shell("rm a.txt"),
        DONE,
    )
    run(tree, env)
    listing = run_tai("checkpoints", cwd=tree, env=env)
    assert listing.returncode == 0
    assert "before writing" in listing.stdout and "before programs" in listing.stdout
    result = run_tai("undo", "-round", "2", cwd=tree, env=env)
    assert result.returncode == 0, result.stderr
    assert (tree / "one.txt").exists() and not (tree / "two.txt").exists()
    assert (tree / "a.txt").read_text() == "alpha\n"
    missing = run_tai("undo", "-round", "9", cwd=tree, env=env)
    assert missing.returncode == 2 and "no checkpoint at or after round 9" in missing.stderr


def test_ignored_and_large_files_that_existed_are_left_alone(tree: Path, env) -> None:
    """Undo cannot bring back what no checkpoint recorded (ignored, too large); files of
    that kind the run created, it removes (they are absent at the checkpoint)."""
    (tree / ".gitignore").write_text("*.log\n")
    (tree / "debug.log").write_text("log\n")
    (tree / "kept.log").write_text("untouched\n")
    (tree / "grown.log").write_text("line 1\n")
    (tree / "big.dat").write_bytes(b"x" * 2000)
    (tree / "tai.toml").write_text("checkpoint_max_file_bytes = 1000\n")
    script = (
        "rm debug.log big.dat; echo made > new.log; head -c 3000 /dev/zero > huge.dat\n"
        "echo line 2 >> grown.log\n"
    )
    replay(tree, "Go.\n" + change("w.sh", script) + shell("sh w.sh"), DONE)
    run(tree, env)
    result = run_tai("undo", cwd=tree, env=env)
    assert result.returncode == 0, result.stderr
    assert not (tree / "debug.log").exists() and not (tree / "big.dat").exists()
    assert not (tree / "new.log").exists() and not (tree / "huge.dat").exists()
    assert not (tree / "w.sh").exists()
    assert "removed new.log" in result.stdout and "removed huge.dat" in result.stdout
    assert (tree / "kept.log").read_text() == "untouched\n"
    assert (tree / "grown.log").read_text() == "line 1\nline 2\n"


@pytest.mark.slow
def test_a_last_run_that_changed_nothing_is_not_taken_for_an_earlier_one(tree: Path, env) -> None:
    replay(tree, "Editing.\n" + change("a.txt", "fixed by the run\n") + DONE)
    run(tree, env)
    subprocess.run(["git", "-C", str(tree), "add", "-A"], check=True)  # the user accepts it
    replay(tree, "It reads well.\n")  # then asks a question: nothing changes
    asked = run_tai("next", "-model", "replay:.model.replay", "chat", "ok?", cwd=tree, env=env)
    assert asked.returncode == 0, asked.stderr
    result = run_tai("undo", cwd=tree, env=env)
    assert result.returncode == 0, result.stderr
    assert (tree / "a.txt").read_text() == "fixed by the run\n"  # the accepted fix stays
    assert result.stdout == ""
    line = result.stderr.strip()
    assert ", the last here, changed no file: nothing was undone; tai undo -run " in line
    assert "changed nothing" in run_tai("checkpoints", cwd=tree, env=env).stdout
    earlier = line.split("tai undo -run ")[1].split()[0]
    result = run_tai("undo", "-run", earlier[:6], cwd=tree, env=env)  # a prefix, as git's
    assert result.returncode == 0, result.stderr
    assert (tree / "a.txt").read_text() == "alpha\n"
    assert run_tai("undo", "-run", "zz", cwd=tree, env=env).returncode == 2


def test_without_checkpoints_undo_says_why(tmp_path: Path, isolated_env) -> None:
    result = run_tai("undo", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 1  # nothing to act on: a failure, not a command line's
    assert result.stderr.startswith("tai: error: no checkpoints of")
    assert "no checkpoints of" in run_tai("checkpoints", cwd=tmp_path, env=isolated_env).stdout


@pytest.mark.parametrize(
    "command", ["git checkout -- .", "git restore .", "git reset --hard", "git clean -fd"]
)
def test_working_tree_resets_are_undone(tree: Path, env, command: str) -> None:
    subprocess.run(["git", "-C", str(tree), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(tree), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "i"],
        check=True,
    )
    (tree / "a.txt").write_text("uncommitted work\n")
    (tree / "untracked.txt").write_text("not yet added\n")
    before = snapshot(tree)
    replay(tree, "Reset.\n" + shell(command), DONE)
    run(tree, env)
    assert run_tai("undo", cwd=tree, env=env).returncode == 0
    assert snapshot(tree) == before


def test_a_damaged_store_is_refused_not_restored(tree: Path, env, isolated_env) -> None:
    replay(tree, "Go.\n" + change("a.txt", "changed\n") + DONE)
    run(tree, env)
    objects = Path(isolated_env["TAI_DATA_DIR"]) / "checkpoints"
    for path in objects.rglob("objects/*/*"):
        if path.read_bytes() == b"alpha\n":
            path.write_bytes(b"planted\n")
    result = run_tai("undo", cwd=tree, env=env)
    assert result.returncode == 1
    assert "was altered" in result.stdout
    assert (tree / "a.txt").read_text() == "changed\n"


def test_the_checkpoints_list_says_each_runs_task(tree: Path, env) -> None:
    """Runs could be told apart only by their ids: each line names the run's task (from
    the sessions kept), cut to the column; a patch, which keeps no session, shows ``-``."""
    replay(tree, "Editing.\n" + change("a.txt", "by the run\n") + DONE)
    long_task = "rename the configuration loader and update every caller of it"
    result = run_tai("-model", "replay:.model.replay", "chat", long_task, cwd=tree, env=env)
    assert result.returncode == 0, result.stderr
    (tree / "fix.ai").write_text(change("b.txt", "patched\n"))
    assert run_tai("patch", "fix.ai", cwd=tree, env=env).returncode == 0
    listing = run_tai("checkpoints", cwd=tree, env=env)
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert lines[0].split()[-1] == "task"
    ran = [line for line in lines if "rename the" in line]
    assert ran and all(line.endswith("  rename the configuration loader and upd…") for line in ran)
    patched = [line for line in lines[1:] if not line.startswith("(") and line not in ran]
    assert patched and all(line.endswith("  -") for line in patched)


def test_a_second_undo_says_the_files_already_are_as_before(tree: Path, env) -> None:
    replay(tree, "Changing.\n" + change("a.txt", "changed\n") + DONE)
    run(tree, env)
    first = run_tai("undo", cwd=tree, env=env)
    assert first.returncode == 0 and "1 restored" in first.stderr
    assert "undone already?" not in first.stderr
    again = run_tai("undo", cwd=tree, env=env)
    assert again.returncode == 0
    assert again.stderr.rstrip().endswith(
        "0 restored, 0 removed, 0 kept (the files already are as they were before: undone already?)"
    )
