# Sourced by the set-up scripts after scripts/_uv.sh: builds the two Go programs tai runs —
# goimports and the go doc helper — into tai's cache, side by side and in the background
# while the script goes on with its other steps (each build says what it builds while it
# takes over a second; already built, each says where it is at once).
#   start_go_helpers: starts both builds.
#   wait_go_helpers: waits for both; a failed build ends the script (set -e).
# A script that ends before it waits (a failing check) leaves them to finish: each build
# goes into place whole, for the next run.
start_go_helpers() {
  echo "== Go helpers: goimports and the go doc helper, built side by side in the background the first time"
  uv run --no-sync python -m tai_changes.goimports --install &
  goimports_build=$!
  uv run --no-sync python -m tai_go._godoc --install &
  helper_build=$!
}

wait_go_helpers() {
  wait "$goimports_build"
  wait "$helper_build"
}
