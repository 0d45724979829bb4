"""A run whose output's reader went away (``tai … chat "…" | head -1``): the rest of the
reply goes nowhere, the run goes on, and how it ended is still said — the error line on
stderr, the exit status, the record. A real ``tai`` process, its stdout a pipe whose
reading end is closed before anything is written, the replay provider as the model."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_tai, tai_executable

#: Two replies without a summary: a retry, then no reply left, so the run fails.
FAILING = "@@@ reply\nHello there.\n\n@@@ reply\nSecond answer.\n"
#: One reply that ends the run.
ENDING = "@@@ reply\nThe answer.\n\n<<松柏 summary\n- answered\n松柏\n"


def run_unread(root: Path, env: dict[str, str], replay: str) -> tuple[int, str]:
    (root / "model.replay").write_text(replay, encoding="utf-8")
    process = subprocess.Popen(
        [tai_executable(), "-model", "replay:model.replay", "chat", "-record", "hi"],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the reply comes
    stderr = process.stderr.read()
    return process.wait(timeout=60), stderr


@pytest.mark.parametrize(
    ("replay", "status", "last_line", "recorded"),
    [
        (FAILING, 1, "tai: error: replay ", "error"),
        (ENDING, 0, "total ", "success"),
    ],
)
def test_the_end_of_the_run_is_still_said(
    tmp_path: Path, isolated_env: dict[str, str], replay: str, status: int, last_line: str,
    recorded: str,
) -> None:  # fmt: skip
    ended, stderr = run_unread(tmp_path, isolated_env, replay)
    assert ended == status, stderr
    assert stderr.splitlines()[-1].startswith(last_line), stderr
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr
    listing = run_tai("record", cwd=tmp_path, env=isolated_env)
    (run,) = listing.stdout.splitlines()[1:]
    assert f"  {recorded}  " in run, listing.stdout
