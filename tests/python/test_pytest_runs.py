"""pytest blocks through tai's pipeline: after the round's changes are written, their
result fed to the model's next round — in process with the testing kit, and as a real
``tai`` run whose pytest runs in the sandbox."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from tai_core.plugins import PluginHost
from tai_core.testing import ScriptedModel, run_session
from tests.conftest import run_tai

SUMMARY = "<<丙丁 summary\n- ran the tests\n丙丁\n"
DONE = "<<庚辛 done\nThe tests pass.\n庚辛\n"


def test_a_reply_fixes_the_code_and_its_pytest_block_sees_the_fix(
    host: PluginHost, calc: Path
) -> None:
    (calc / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    fix = '<<甲乙 change(op="WRITE", file-path="calc.py")\ndef add(a, b):\n    return a + b\n甲乙\n'
    model = ScriptedModel(
        f"Fixing add.\n<<戊己 pytest\ntests/test_calc.py::test_add\n戊己\n{fix}{SUMMARY}",
        f"The test passes.\n{SUMMARY}",
    )
    run = run_session(host, model, "Fix add.", cwd=calc, command="py")
    assert run.finished, run.terminal
    assert "# pytest blocks" in model.requests[0].system
    fed_back = model.requests[1].messages[-1].text
    assert f"Working directory: {calc}\nInterpreter: " in fed_back
    assert "Tests passed.\nStdout:\n" in fed_back and "1 passed" in fed_back


@pytest.mark.slow
@pytest.mark.permissions  # tai runs sandboxed: CI runs this as root and not root
def test_a_real_run_runs_the_projects_interpreter_inside_the_sandbox(
    tmp_path: Path, calc: Path, isolated_env: dict[str, str]
) -> None:
    if not tmp_path.is_relative_to("/tmp"):
        pytest.skip("pytest's temporary directory is not under /tmp (fresh in the sandbox)")
    escaped = tmp_path / "escaped"  # outside the working directory: the sandbox's own /tmp
    python = calc / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(
        "#!/bin/sh\n"
        'echo "sandboxed=${TAI_IN_SANDBOX:-no} key=${OPENAI_API_KEY:-none}" >&2\n'
        f"echo planted > {escaped}\n"
        f'exec {sys.executable} "$@"\n'
    )
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    (calc / ".model.replay").write_text(
        "@@@ reply\nRunning the test.\n<<戊己 pytest\n-k test_add\n戊己\n"
        f"{SUMMARY}"
        "@@@ reply\n"
        f"@@@ expect user: Interpreter: {python} (the project's virtual environment\n"
        "@@@ expect user: Tests passed.\n"
        "@@@ expect user: sandboxed=1 key=none\n"
        f"It passes.\n{DONE}{SUMMARY}"
        "@@@ reply\n"  # the goal loop's confirming loop (a Python project runs as goal loops)
        "@@@ expect user: begin of focus module calc\n"
        f"Confirmed on a fresh read.\n{DONE}{SUMMARY}"
    )
    env = {**isolated_env, "OPENAI_API_KEY": "sk-must-not-reach-the-tests",
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # fmt: skip
    result = run_tai("-model", "replay:.model.replay", "chat", "Run the test", cwd=calc, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert not escaped.exists()  # what the planted program wrote outside stayed inside
