# Sourced by the set-up scripts after scripts/_uv.sh: builds the two Go programs tai runs —
# goimports and the go doc helper — into tai's cache, side by side (each says what it
# builds while it takes over a second). Already built, each says where it is at once.
echo "== Go helpers: goimports and the go doc helper, built side by side the first time"
uv run --no-sync python -m tai_changes.goimports --install &
goimports_build=$!
uv run --no-sync python -m tai_go._godoc --install &
helper_build=$!
wait "$goimports_build"
wait "$helper_build"
