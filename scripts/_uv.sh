# Sourced by the other scripts: find uv, or install it once into a private virtualenv.
# uv comes from PyPI; nothing else is needed on the machine but python3 (3.11+).
set -euo pipefail
if command -v uv >/dev/null 2>&1; then
  UV=$(command -v uv)
else
  tools="${XDG_CACHE_HOME:-$HOME/.cache}/tai-dev/uv-venv"
  if [ ! -x "$tools/bin/uv" ]; then
    echo "scripts: installing uv into $tools" >&2
    python3 -m venv "$tools"
    "$tools/bin/python" -m pip install --quiet --disable-pip-version-check uv
  fi
  UV="$tools/bin/uv"
fi
export PATH="$(dirname "$UV"):$PATH"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The environment is built from the lock file; byte-code is compiled so that start-up
# is measured as users meet it. uv reports what it resolved and installed.
echo "scripts: the Python environment from uv.lock (uv sync; a minute on a fresh machine)" >&2
"$UV" sync --locked --compile-bytecode
