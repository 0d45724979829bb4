#!/usr/bin/env bash
# tai's main job on the bundled examples, offline: goal loops with a replay model on a copy
# of each example, never the repository itself. Without an argument both run; `go` or `py`
# runs one.
#   go: examples/calc, a Go module whose stats.Mean is wrong, with examples/calc/fix-mean.replay.
#       The outline goes out, the model fetches Mean's source with go-src, fixes it with a
#       change block, runs go-test, sees the tests pass and says done; a second loop
#       confirms. Then the module's own `go test ./...` runs on the result.
#   py: examples/pystats, a Python package whose pystats.stats.mean is wrong, with
#       examples/pystats/fix-mean.replay, the same story with py-src and pytest; the copy
#       gets a virtual environment with pytest first (.venv, the one tai's pytest blocks
#       use), and its own pytest runs on the result.
set -euo pipefail
which=${1:-all}
case "$which" in all|go|py) ;; *) echo "usage: scripts/example.sh [go|py]" >&2; exit 2 ;; esac
source "$(dirname "${BASH_SOURCE[0]}")/_uv.sh"
# the Go helpers are built now, beside the compiling, rather than in the middle of the run
if [ "$which" != py ]; then
  source scripts/_go_helpers.sh
  start_go_helpers
fi
compile_environment
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# tai's configuration and data (the sessions, the undo checkpoints) of the example stay in
# the scratch directory, removed at the end: the user's own are neither read nor added to
export TAI_CONFIG_DIR="$work/config" TAI_DATA_DIR="$work/data"

if [ "$which" != py ]; then
  wait_go_helpers
  task="stats.Mean is wrong: the mean of 1, 2, 3 and 6 must be 3. Fix it and prove it with the tests."
  echo "== tai on a copy of examples/calc with the replay model (offline): tai -model replay:fix-mean.replay chat \"$task\""
  cp -r "$repo/examples/calc" "$work/calc"
  (cd "$work/calc" && "$repo/.venv/bin/tai" -model replay:fix-mean.replay chat "$task")
  echo
  echo "== go test ./... on the result"
  (cd "$work/calc" && go test ./...)
fi

if [ "$which" != go ]; then
  echo "== examples/pystats: a copy with its own virtual environment holding pytest (uv venv, uv pip install from uv's cache)"
  cp -r "$repo/examples/pystats" "$work/pystats"
  cd "$work/pystats"
  "$UV" venv -q .venv
  "$UV" pip install -q --offline --python .venv/bin/python pytest 2>/dev/null \
    || "$UV" pip install -q --python .venv/bin/python pytest
  task="pystats.stats.mean is wrong: the mean of 1, 2, 3 and 6 must be 3. Fix it and prove it with the tests."
  echo "== tai on the copy of examples/pystats with the replay model (offline): tai -model replay:fix-mean.replay chat \"$task\""
  "$repo/.venv/bin/tai" -model replay:fix-mean.replay chat "$task"
  echo
  echo "== pytest on the result"
  .venv/bin/python -m pytest -q -p no:cacheprovider
  cd "$repo"
fi
