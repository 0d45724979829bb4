"""Tokens of the doc-first outline against the full source, for the same focus (expected:
well under 0.5).

On the generated 200-package module, ``collect`` with the default focus (``./...``) sends
each package as its ``go doc`` outline with test and file names; ``all_src=True`` sends
every file of every package instead. Tokens are tai's estimate (characters / 4).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gomodule import generate
from _report import finish

PACKAGES = 200
TARGET = "< 0.5"


def main() -> None:
    from tai_context_go import PROVIDER
    from tai_core.context import ContextRequest
    from tai_core.models import estimate_tokens

    with tempfile.TemporaryDirectory() as temp:
        os.environ["XDG_CACHE_HOME"] = str(Path(temp, "cache"))
        root = generate(Path(temp, "gen"), PACKAGES)
        outline = PROVIDER.collect(ContextRequest(cwd=root, command="go"))
        full = PROVIDER.collect(ContextRequest(cwd=root, command="go", all_src=True))
    outline_tokens = sum(estimate_tokens(p.text) for p in outline)
    full_tokens = sum(estimate_tokens(p.text) for p in full)
    ratio = outline_tokens / full_tokens
    finish(
        f"outline_ratio: {outline_tokens / full_tokens:.2f} (outline {outline_tokens} tokens, "
        f"all_src {full_tokens} tokens, {PACKAGES} focus packages; a count, not a timing); "
        "target < 0.5",
        {"< 0.5": ratio < 0.5},
    )


if __name__ == "__main__":
    main()
