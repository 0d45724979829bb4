"""Shared fixtures: a plugin host built from the installed entry points, and helpers."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tai_core import _core_plugin
from tai_core.cli import make_group
from tai_core.plugins import LoadOptions, PluginHost

REPO = Path(__file__).resolve().parent.parent

#: The fake model servers (OpenAI-compatible, Gemini, Azure, Bedrock) as fixtures; the
#: quick set's watch on tests that take long without being marked slow.
pytest_plugins = ["tests.servers.fixtures", "tests.quick_set"]

# No per-example deadline: the properties check results, and a loaded CI machine must not
# turn a slow example into a failure. Speed is measured by benchmarks/, not by tests.
settings.register_profile("tai", deadline=None)
settings.load_profile("tai")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Root passes every permission check, so what an unprivileged user meets cannot be
    seen as root: ``.ci/run`` runs these tests again as a user of its own."""
    if item.get_closest_marker("unprivileged") and os.geteuid() == 0:
        pytest.skip("root passes every permission check (CI runs this as an unprivileged user)")
    if item.get_closest_marker("root") and os.geteuid() != 0:
        pytest.skip("the setup needs root (CI's root pass runs this)")


@pytest.fixture
def stderr() -> io.StringIO:
    return io.StringIO()


@pytest.fixture
def host(stderr: io.StringIO) -> PluginHost:
    """A host with every installed plugin loaded, its warnings captured."""
    plugin_host = PluginHost(LoadOptions(), cli=make_group(), stderr=stderr, core=_core_plugin)
    plugin_host.load_entry_points()
    return plugin_host


@pytest.fixture
def isolated_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """Environment for a `tai` subprocess: no user or TAI_* settings leak in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAI_")}
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    env["TAI_CONFIG_DIR"] = str(config_dir)
    env["TAI_DATA_DIR"] = str(tmp_path / "data")
    (tmp_path / "data").mkdir()
    yield env


def run_context(host: PluginHost, cwd: Path, *, command: str = "go", config=None):
    """The run context the command line gives blocks (the product's own class)."""
    from tai_core.commands._session import Context

    return Context(cwd, command, dict(config or {}), host.pm.hook)


def as_sent(text: str, node: str) -> str:
    """A user input as the model receives it: closed by the line naming its node in the
    session tree (``user-input-N``)."""
    from tai_core.pipeline._notes import input_node_note

    return f"{text.rstrip()}\n\n{input_node_note(node)}"


def tai_executable() -> str:
    """The `tai` script of the environment running the tests."""
    return str(Path(sys.executable).with_name("tai"))


def run_tai(
    *args: str, cwd: Path, env: dict[str, str], stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [tai_executable(), *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def uv_executable() -> str:
    """uv, which the test command installs; the suite needs it to build environments."""
    found = shutil.which("uv") or os.environ.get("UV")
    if not found:
        pytest.fail("uv is not on PATH: run the tests with scripts/test.sh (it installs uv)")
    return found


@pytest.fixture(scope="session")
def pinned(tmp_path_factory: pytest.TempPathFactory):
    """``pinned(name)``: a writable copy of a pinned public module (``tests.realmodules``),
    made once per session; tests that edit it copy it again."""
    from tests.realmodules import fetch

    root = tmp_path_factory.mktemp("modules")
    return lambda name: fetch(name, root)


@pytest.fixture(scope="session")
def pinned_sdist(tmp_path_factory: pytest.TempPathFactory):
    """``pinned_sdist(name)``: an unpacked copy of a pinned Python source distribution
    (``tests.realmodules``), made once per session; tests that edit it copy it again."""
    from tests.realmodules import fetch_sdist

    root = tmp_path_factory.mktemp("sdists")
    return lambda name: fetch_sdist(name, root)


@pytest.fixture(scope="session")
def uv_cache() -> str:
    """uv's cache directory as the suite found it (before a test moves ``XDG_CACHE_HOME``,
    which would move uv's too): the packages of the locked environment are in it."""
    found = subprocess.run([uv_executable(), "cache", "dir"], capture_output=True, text=True)
    return found.stdout.strip()
