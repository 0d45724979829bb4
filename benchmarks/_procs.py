"""Processes for the benchmarks that time real ``tai`` runs (not a benchmark itself).

``TAI`` is this environment's ``tai`` script and ``BARE`` the bare interpreter of the same
environment (``python -c pass``), the baseline of every start-up figure. ``environment``
is the user's environment without ``TAI_*`` settings, with tai's configuration, data and
cache directories (``TAI_CONFIG_DIR``, ``TAI_DATA_DIR``, ``XDG_CACHE_HOME``) and, when
asked, Go's build cache (``GOCACHE``) under a directory of the benchmark's own, so a run
starts with none of what earlier runs or the user left there. ``compile_sources``
byte-compiles the workspace first, as an installed package has it. ``install`` builds
another environment with the checkout installed as users install it (wheels, not the
workspace's editable sources: those put some fifty directories on ``sys.path``, and every
import of a tai package searches them in turn, ~40 ms of a ``tai next``).
"""

from __future__ import annotations

import compileall
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TAI = str(Path(sys.executable).with_name("tai"))
BARE = [sys.executable, "-c", "pass"]


def environment(base: Path, go_cache: bool = False) -> dict[str, str]:
    """The environment of a run whose tai directories (and Go cache) are under ``base``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAI_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    dirs = {"TAI_CONFIG_DIR": "config", "TAI_DATA_DIR": "data", "XDG_CACHE_HOME": "cache"}
    if go_cache:
        dirs["GOCACHE"] = "gocache"
    for name, folder in dirs.items():
        env[name] = str(base / folder)
        (base / folder).mkdir(parents=True, exist_ok=True)
    return env


def compile_sources() -> None:
    for pattern in ("tai_core/src", "tai_sandbox/src", "libs/*/src", "plugins/*/src"):
        for folder in REPO.glob(pattern):
            compileall.compile_dir(folder, quiet=1)


def install(into: Path) -> tuple[str, list[str]]:
    """Install this checkout into the new environment ``into`` as a user would: every
    distribution of the workspace as a wheel at the locked versions, byte-code compiled
    (``uv sync --no-editable``, half a minute); its ``tai`` script and bare interpreter."""
    uv = shutil.which("uv") or str(Path.home() / ".cache/tai-dev/uv-venv/bin/uv")
    if not Path(uv).exists():
        raise SystemExit("uv is needed to install the checkout (scripts/test.sh installs it)")
    print(f"installing the checkout into {into} (uv sync --no-editable)", file=sys.stderr)
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(into)}
    fresh = [option for name in _members() for option in ("--reinstall-package", name)]
    done = subprocess.run(
        [uv, "sync", "--locked", "--no-editable", "--compile-bytecode", "--quiet", *fresh],
        cwd=REPO, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"uv sync --no-editable failed: {done.stderr[-2000:]}")
    python = into / "bin" / "python"
    return str(into / "bin" / "tai"), [str(python), "-c", "pass"]


def _members() -> list[str]:
    """The workspace's distributions: uv keeps the wheel it built of a local directory until
    that directory's ``pyproject.toml`` changes, so without ``--reinstall-package`` the
    benchmark would time the code of whenever that was, not the checkout's."""
    import tomllib

    lock = tomllib.loads((REPO / "uv.lock").read_text(encoding="utf-8"))
    local = ("editable", "virtual", "directory")
    return [p["name"] for p in lock["package"] if any(k in p.get("source", {}) for k in local)]


def run(command: list[str], env: dict[str, str], cwd: Path | str) -> str:
    """Run ``command``; its stdout, or ``SystemExit`` with its stderr when it fails."""
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout
