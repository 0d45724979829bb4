# Sourced by the other scripts: find uv, or install it once into a private virtualenv, then
# build the locked environment. uv comes from PyPI; nothing else is needed on the machine
# but python3 (3.11+). Each step says what it does; a long one says every five seconds how
# far it has got (neither pip nor uv shows progress off a terminal).
set -euo pipefail

# _ticking LABEL [SIZE_OF_DIR] -- COMMAND...: run COMMAND, saying "scripts: LABEL: N s"
# (and the megabytes in SIZE_OF_DIR) every five seconds while it runs.
_ticking() {
  local label=$1 measured=$2 started=$SECONDS ticker status=0
  shift 3
  (
    trap 'kill "$nap" 2>/dev/null; exit 0' TERM
    while :; do
      sleep 5 &
      nap=$!
      wait "$nap"
      size=${measured:+, $(du -sm "$measured" 2>/dev/null | cut -f1) MB in $measured}
      echo "scripts: $label: $((SECONDS - started)) s$size" >&2
    done
  ) &
  ticker=$!
  "$@" || status=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  return "$status"
}

if command -v uv >/dev/null 2>&1; then
  UV=$(command -v uv)
else
  tools="${XDG_CACHE_HOME:-$HOME/.cache}/tai-dev/uv-venv"
  if [ ! -x "$tools/bin/uv" ]; then
    echo "scripts: installing uv from PyPI into $tools (python3 -m venv, pip)" >&2
    _ticking "installing uv" "$tools" -- bash -c '
      python3 -m venv "$1" &&
        "$1/bin/python" -m pip install --quiet --disable-pip-version-check uv' _ "$tools"
  fi
  UV="$tools/bin/uv"
fi
export PATH="$(dirname "$UV"):$PATH"
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The environment is built from the lock file, quietly (uv would list every one of some 150
# distributions it builds and installs): the ticker says how far the download has got, and
# a line at the end how many distributions the environment holds. tai's own sources are
# installed editable and compiled here (half a second), so that a run with
# PYTHONDONTWRITEBYTECODE=1 (or a read-only checkout) starts as fast as an installed tai;
# the rest of the environment is compiled by compile_environment, which the example calls
# (start-up as users meet it), while the test suite compiles only what it imports, when it
# imports it (some 1,000 of the environment's 12,000 modules).
echo "scripts: the Python environment from uv.lock (uv sync; a minute on a fresh machine)" >&2
_ticking "uv sync" "$("$UV" cache dir 2>/dev/null || true)" -- "$UV" sync --locked --quiet
installed=$(find .venv/lib/python3*/site-packages -maxdepth 1 -name '*.dist-info' 2>/dev/null | wc -l)
echo "scripts: .venv holds $installed distributions (uv.lock's)" >&2
"$UV" run --no-sync python -m compileall -q -j 0 tai_core/src tai_sandbox/src libs/*/src plugins/*/src

# compile_environment: the byte-code of the whole environment (a quarter of a minute on a
# fresh machine, nothing downloaded meanwhile; once compiled, uv checks it in a second).
compile_environment() {
  echo "scripts: compiling the environment's byte-code (uv sync --compile-bytecode)" >&2
  _ticking "compiling byte-code" .venv -- "$UV" sync --locked --compile-bytecode --quiet
}
