#!/usr/bin/env bash
# tai's main job on the bundled example, offline: a copy of examples/calc (a Go module whose
# stats.Mean is wrong), the replay model examples/calc/fix-mean.replay, goal loops. The
# outline goes out, the model fetches Mean's source with go-src, fixes it with a change
# block, runs go-test, sees the tests pass and says done; a second loop confirms. Then the
# module's own tests run on the result. The repository itself is never touched.
source "$(dirname "${BASH_SOURCE[0]}")/_uv.sh"
# the Go helpers are built now, rather than in the middle of the run
source scripts/_go_helpers.sh
echo "== tai on a copy of examples/calc with the replay model (offline)"
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r examples/calc "$work/calc"
cd "$work/calc"
export TAI_CONFIG_DIR="$work/config"
"$repo/.venv/bin/tai" -model replay:fix-mean.replay \
  chat "stats.Mean is wrong: the mean of 1, 2, 3 and 6 must be 3. Fix it and prove it with the tests."
echo
echo "== go test ./... on the result"
go test ./...
