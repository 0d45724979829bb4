"""The console script ends without the interpreter's teardown (tai_core.cli._quick_exit):
what the run wrote and its status are whole, the ``atexit`` functions of the run still
run, and only the finalization is skipped — which a witness object shows, whose
finalizer leaves a file when the interpreter tears its module down."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import atexit, sys
class Witness:
    def __del__(self, open=open):  # builtins may be gone by then: its own reference
        with open({witness!r}, "w") as file:
            file.write("torn down")
witness = Witness()
if {registered!r}:
    atexit.register(lambda: None)
sys.argv = ["tai", *{args!r}]
from tai_core.cli import launch
launch()
"""


@pytest.fixture
def env(tmp_path: Path, isolated_env: dict[str, str]) -> dict[str, str]:
    (tmp_path / "cache").mkdir()
    return {**isolated_env, "XDG_CACHE_HOME": str(tmp_path / "cache"), "TAI_NO_SANDBOX": "1"}


def launch(tmp_path: Path, env: dict[str, str], *args: str, registered: bool = False):
    witness = tmp_path / "witness"
    witness.unlink(missing_ok=True)
    probe = PROBE.format(witness=str(witness), registered=registered, args=list(args))
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    return done, witness.exists()


def test_a_full_run_ends_whole_without_the_teardown(tmp_path: Path, env: dict[str, str]) -> None:
    env = {**env, "TAI_NO_LAUNCH_CACHE": "1"}
    done, torn_down = launch(tmp_path, env, "plugins", "--json")
    assert done.returncode == 0, done.stderr
    assert {"tai-core", "shell"} <= {entry["name"] for entry in json.loads(done.stdout)["plugins"]}
    assert not torn_down
    (tmp_path / "reply.txt").write_text("No blocks here.\n")
    done, torn_down = launch(tmp_path, {**env, "TAI_NO_LAUNCH_CACHE": ""}, "parse", "reply.txt")
    assert (done.returncode, done.stdout, torn_down) == (0, "0 block(s), 0 problem(s)\n", False)
    kept_code = list((tmp_path / "cache" / "tai" / "launch").glob("code-*"))
    assert kept_code  # the run's own atexit function (keeping the compiled code) ran


@pytest.mark.parametrize(
    ("args", "status"), [(["nosuch-command-x", "y"], 2), (["parse", "missing.txt"], 2)]
)
def test_the_status_is_the_runs(
    tmp_path: Path, env: dict[str, str], args: list[str], status: int
) -> None:
    done, torn_down = launch(tmp_path, env, *args)
    assert done.returncode == status and done.stderr.startswith("tai: error: ")
    assert not torn_down


def test_an_earlier_atexit_function_keeps_the_usual_end(
    tmp_path: Path, env: dict[str, str]
) -> None:
    done, torn_down = launch(tmp_path, env, "--version", registered=True)
    assert done.returncode == 0 and done.stdout.startswith("tai, version")
    assert torn_down  # it would never have run: the interpreter ended as it does
