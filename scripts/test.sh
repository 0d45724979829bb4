#!/usr/bin/env bash
# The test suite, from a fresh machine: installs uv and the locked environment, checks lint,
# formatting and the generated hook reference, then runs pytest. Extra arguments go to pytest.
source "$(dirname "${BASH_SOURCE[0]}")/_uv.sh"
echo "== ruff" && uv run --no-sync ruff check . && uv run --no-sync ruff format --check .
echo "== hook reference" && uv run --no-sync python scripts/hook_docs.py --check
echo "== goimports (built with go the first time: about a minute)" && uv run --no-sync python -m tai_blocks.changes.goimports --install
echo "== go doc helper" && uv run --no-sync python -m tai_blocks.go._godoc --install
echo "== pytest" && exec uv run --no-sync pytest "$@"
