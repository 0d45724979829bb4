# Sourced by the other scripts: find uv, or install it once into a private virtualenv, then
# build the locked environment. uv comes from PyPI; nothing else is needed on the machine
# but python3 (3.11+). Each step says what it does; a long one says how far it has got.
set -euo pipefail
if command -v uv >/dev/null 2>&1; then
  UV=$(command -v uv)
else
  tools="${XDG_CACHE_HOME:-$HOME/.cache}/tai-dev/uv-venv"
  if [ ! -x "$tools/bin/uv" ]; then
    echo "scripts: installing uv from PyPI into $tools (python3 -m venv, pip)" >&2
    python3 -m venv "$tools"
    "$tools/bin/python" -m pip install --disable-pip-version-check --progress-bar off uv |
      grep -E '^(Downloading|Successfully)' >&2 || true
  fi
  UV="$tools/bin/uv"
fi
export PATH="$(dirname "$UV"):$PATH"
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# While uv sync downloads (it shows no progress off a terminal), a line every 5 seconds
# says how much of its cache has arrived.
_uv_sync_progress() {
  local cache nap started=$SECONDS
  cache=$("$UV" cache dir 2>/dev/null) || return 0
  trap 'kill "$nap" 2>/dev/null; exit 0' TERM
  while :; do
    sleep 5 &
    nap=$!
    wait "$nap"
    echo "scripts: uv sync: $((SECONDS - started)) s, uv's cache holds $(du -sm "$cache" 2>/dev/null | cut -f1) MB" >&2
  done
}
# The environment is built from the lock file; byte-code is compiled so that start-up
# is measured as users meet it. uv reports what it resolved and installed.
echo "scripts: the Python environment from uv.lock (uv sync; a minute on a fresh machine)" >&2
_uv_sync_progress &
_uv_ticker=$!
"$UV" sync --locked --compile-bytecode || { kill "$_uv_ticker" 2>/dev/null; exit 1; }
kill "$_uv_ticker" 2>/dev/null || true
wait "$_uv_ticker" 2>/dev/null || true
# tai's own sources are installed editable, which --compile-bytecode leaves alone: they are
# compiled here, so that a run with PYTHONDONTWRITEBYTECODE=1 (or a read-only checkout)
# starts as fast as an installed tai.
"$UV" run --no-sync python -m compileall -q -j 0 tai_core/src tai_blocks/src tai_providers/src tai_sandbox/src
