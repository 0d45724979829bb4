"""``scripts/test.sh`` stops at the first check that fails: a lint or reference error must
fail the command CI runs, not scroll past before the tests pass (``set -e`` does not stop
inside an ``a && b && c`` list)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

#: A stand-in for uv that answers every step and fails the one named by ``FAIL_ON``,
#: writing each command it is given to ``$CALLS``.
FAKE_UV = """#!/bin/sh
echo "$*" >> "$CALLS"
case "$*" in *"$FAIL_ON"*) exit 1 ;; esac
exit 0
"""


@pytest.mark.parametrize(
    "fail_on", ["ruff check", "ruff format", "hook_docs.py", "protocol_docs.py", "api_docs.py"]
)
def test_a_failing_check_ends_the_run_before_pytest(tmp_path: Path, fail_on: str) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "uv").write_text(FAKE_UV)
    (bin_dir / "uv").chmod(0o755)
    calls = tmp_path / "calls"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "CALLS": str(calls),
           "FAIL_ON": fail_on}  # fmt: skip
    done = subprocess.run(["bash", str(REPO / "scripts" / "test.sh")], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode != 0, done.stdout + done.stderr
    ran = calls.read_text().splitlines()
    # the failing check was the last thing run but the Go helpers' builds (in the background)
    foreground = [line for line in ran if not line.endswith(" --install")]
    assert fail_on in foreground[-1]
    assert not any(line.startswith("run --no-sync pytest") for line in ran)
