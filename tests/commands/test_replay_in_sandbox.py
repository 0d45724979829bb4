"""A replay transcript the sandbox hides (another directory under /tmp, which is a fresh
one inside) is named with the reason, and what to do about it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_tai


@pytest.mark.slow
def test_a_hidden_transcript_says_why(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    if not tmp_path.is_relative_to("/tmp"):
        pytest.skip("pytest's temporary directory is not under /tmp here")
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    (elsewhere / "r.txt").write_text("@@@ reply\nhi\n")
    result = run_tai("next", "-model", f"replay:{elsewhere / 'r.txt'}", "chat", "x",
                     cwd=work, env=isolated_env)  # fmt: skip
    assert result.returncode == 2  # a model tai cannot use: set-up
    assert "inside tai's sandbox, whose /tmp is a fresh one" in result.stderr
    unsandboxed = {**isolated_env, "TAI_NO_SANDBOX": "1"}
    result = run_tai("next", "-model", f"replay:{elsewhere / 'r.txt'}", "chat", "x",
                     cwd=work, env=unsandboxed)  # fmt: skip
    assert result.returncode == 0 and result.stdout == "hi\n"


def test_a_missing_transcript_in_the_working_directory_is_only_missing(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """The sandbox hides nothing of the working directory: no talk of a fresh /tmp."""
    result = run_tai("next", "-model", "replay:nope.replay", "chat", "x", cwd=tmp_path,
                     env=isolated_env)  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        f"tai: error: model 'replay:nope.replay': replay transcript {tmp_path / 'nope.replay'} "
        "does not exist\n"
    )


def test_a_missing_transcript_outside_tmp_is_only_missing(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """Outside /tmp and /dev/shm the sandbox shows the file system as it is (read-only):
    a transcript missing there is missing everywhere."""
    result = run_tai("next", "-model", "replay:/var/nonexistent/t.replay", "chat", "x",
                     cwd=tmp_path, env=isolated_env)  # fmt: skip
    assert (result.returncode, result.stderr) == (2, (
        "tai: error: model 'replay:/var/nonexistent/t.replay': replay transcript "
        "/var/nonexistent/t.replay does not exist\n"
    ))  # fmt: skip
