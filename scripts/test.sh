#!/usr/bin/env bash
# The test suite, from a fresh machine: installs uv and the locked environment, checks lint,
# formatting and the generated hook reference, then runs pytest in parallel. Without --all
# (and outside CI: the CI variable unset) the tests marked slow are left out: end-to-end runs
# on real modules and builds, the terminal and the browser, fuzzing, each a second or more,
# more than half the suite's time in some 150 tests (tests/quick_set.py names the unmarked
# ones that take long). Extra arguments go to pytest.
source "$(dirname "${BASH_SOURCE[0]}")/_uv.sh"
source scripts/_go_helpers.sh
start_go_helpers
# One check per line: set -e ends the script at a failing command, but not at one that
# fails inside an `a && b && c` list (only the last of such a list counts).
echo "== ruff"
uv run --no-sync ruff check .
uv run --no-sync ruff format --check .
echo "== hook, protocol and API references"
uv run --no-sync python scripts/hook_docs.py --check
uv run --no-sync python scripts/protocol_docs.py --check
uv run --no-sync python scripts/api_docs.py --check
# Two tests make a project's own virtual environment and install pytest into it with
# `uv pip install --offline`, which needs the registry's data for pytest in uv's cache:
# `uv sync` installs from the lock's URLs and leaves none, so on a fresh machine pytest is
# installed once into a scratch environment here (with the network, as uv sync was).
echo "== pytest's registry data in uv's cache, for the tests that install it offline"
scratch=$(mktemp -d)
uv venv --quiet "$scratch/venv"
uv pip install --quiet --python "$scratch/venv/bin/python" pytest
rm -rf "$scratch"
wait_go_helpers
selection=(-m "not slow")
what="the quick set: -m 'not slow'; --all or CI=true runs every test"
if [ "${1:-}" = "--all" ]; then
  shift
  selection=() && what="every test"
elif [ -n "${CI:-}" ] && [ "${CI:-}" != "false" ] && [ "${CI:-}" != "0" ]; then
  selection=() && what="every test (CI=$CI)"
fi
# pytest rewrites the asserts of every test module (some 450) in each worker and keeps the
# result in __pycache__ (git-ignored) for the next run, unless PYTHONDONTWRITEBYTECODE is
# set: then it does that work again at every run, 8 s of each worker's start here. The
# suite keeps its caches whatever the variable says (tai's own sources were compiled above).
unset PYTHONDONTWRITEBYTECODE
# One worker per core (pytest-xdist; -n 0 runs in this process, for -s or a debugger); each
# worker takes the next test when it is free, so the long ones do not leave a core idle.
echo "== pytest, $what ($(nproc) workers, random order: the seed is in the header)"
exec uv run --no-sync pytest -n auto --dist worksteal "${selection[@]}" "$@"
