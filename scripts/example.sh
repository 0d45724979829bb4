#!/usr/bin/env bash
# tai's main job on the bundled example, offline. For now (the pipeline and the providers
# are still being built): list the installed plugins, then read the bundled reply the way
# a run reads a model's answer, block by block, with each kind's verdict.
source "$(dirname "${BASH_SOURCE[0]}")/_uv.sh"
uv run --no-sync tai plugins
echo
uv run --no-sync tai parse examples/replies/staged-fix.txt
