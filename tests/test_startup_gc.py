"""The console script's start-up runs without the cyclic collector (tai_core.cli._startup_gc):
off while the command line, the configuration and the plugins load, back on — with what
start-up made frozen — when the command runs, inside the sandbox too; an application that
calls ``main`` keeps its collector as it set it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .sandbox.conftest import namespaces_refused

#: Reports the collector's state while the plugins load (``build``) and when the command
#: starts (``_errors.run``, in the sandboxed worker for an isolated command), on fd 2.
PROBE = """
import gc, json, os, sys
from tai_core.cli import _errors, _main
seen = {{}}
def report(name, original):
    def wrapper(*args, **kwargs):
        seen[name] = [gc.isenabled(), gc.get_freeze_count()]
        os.write(2, ("STATE " + json.dumps(seen) + "\\n").encode())
        return original(*args, **kwargs)
    return wrapper
_main.build = report("start-up", _main.build)
_errors.run = report("command", _errors.run)
sys.argv = ["tai", *{args!r}]
if {embedded!r}:
    if {embedded!r} == "off":
        gc.disable()
    try:
        _main.main(sys.argv[1:])
    except SystemExit:
        pass
    os.write(2, ("AFTER " + json.dumps([gc.isenabled(), gc.get_freeze_count()]) + "\\n").encode())
else:
    from tai_core.cli import launch
    launch()
"""


@pytest.fixture
def env(tmp_path: Path, isolated_env: dict[str, str]) -> dict[str, str]:
    (tmp_path / "cache").mkdir()
    (tmp_path / "reply.txt").write_text("No blocks here.\n")
    return {**isolated_env, "XDG_CACHE_HOME": str(tmp_path / "cache")}


def probe(cwd: Path, env: dict[str, str], *args: str, embedded: str = "") -> dict[str, object]:
    script = PROBE.format(args=list(args), embedded=embedded)
    done = subprocess.run([sys.executable, "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    lines = done.stderr.splitlines()
    states = [json.loads(line[6:]) for line in lines if line.startswith("STATE ")]
    after = [json.loads(line[6:]) for line in lines if line.startswith("AFTER ")]
    assert states, done.stderr
    return {**states[-1], "after": after[0] if after else None, "status": done.returncode}


def test_the_command_runs_with_the_collector_on_and_start_up_frozen(
    tmp_path: Path, env: dict[str, str]
) -> None:
    state = probe(tmp_path, env, "parse", "reply.txt")
    assert state["status"] == 0
    assert state["start-up"] == [False, 0]
    enabled, frozen = state["command"]  # type: ignore[misc]
    assert enabled is True
    assert frozen > 10_000  # the objects of some four hundred modules


def test_inside_the_sandbox_too(tmp_path: Path, env: dict[str, str]) -> None:
    if reason := namespaces_refused():
        pytest.skip(f"the kernel refuses namespaces here: {reason}")
    (tmp_path / "changes.txt").write_text("No blocks here.\n")
    state = probe(tmp_path, env, "patch", "-no-apply", "changes.txt")
    assert state["start-up"] == [False, 0]
    enabled, frozen = state["command"]  # type: ignore[misc]
    assert (enabled, frozen > 10_000) == (True, True)


@pytest.mark.parametrize("collector", ["on", "off"])
def test_an_embedding_application_keeps_its_collector(
    tmp_path: Path, env: dict[str, str], collector: str
) -> None:
    state = probe(tmp_path, env, "parse", "reply.txt", embedded=collector)
    on = collector == "on"
    assert state["start-up"] == [on, 0]
    assert state["command"] == [on, 0]
    assert state["after"] == [on, 0]
