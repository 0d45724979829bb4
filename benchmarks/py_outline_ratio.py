"""Tokens of the Python outline against the full source, for the same focus (target: at
most 0.35).

On real code — the pinned source distributions of click 8.1.8 and attrs 25.3.0
(``tests.realmodules.fetch_sdist``, downloaded once into tai's development cache) — and on
the generated 500-module project (``_pyproject.generate``), ``collect`` with the default
focus (the project's packages and tests) sends each module as its outline and each test
module as its test names; ``all_src=True`` sends every focus file whole instead. Tokens
are tai's estimate (characters / 4). The target is judged on the real projects together.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pyproject import generate
from _report import finish
from _runs import REPO

sys.path.insert(0, str(REPO))
from tests.realmodules import fetch_sdist

TARGET = "<= 0.35"


def tokens(root: Path, all_src: bool) -> int:
    from tai_context_py import PROVIDER
    from tai_core.context import ContextRequest
    from tai_core.models import estimate_tokens

    parts = PROVIDER.collect(ContextRequest(cwd=root, command="py", all_src=all_src))
    return sum(estimate_tokens(part.text) for part in parts)


def main() -> None:
    figures = {}
    with tempfile.TemporaryDirectory() as temp:
        os.environ["XDG_CACHE_HOME"] = str(Path(temp, "cache"))
        for name in ("click", "attrs"):
            root = fetch_sdist(name, Path(temp))
            figures[name] = (tokens(root, False), tokens(root, True))
        generated = generate(Path(temp, "gen"), 500)
        figures["generated"] = (tokens(generated, False), tokens(generated, True))
    real = sum(figures[n][0] for n in ("click", "attrs")) / sum(
        figures[n][1] for n in ("click", "attrs")
    )
    each = "; ".join(f"{n} {o / f:.2f} ({o} of {f} tokens)" for n, (o, f) in figures.items())
    finish(
        f"py_outline_ratio: {real:.2f} on click and attrs together (outline over full source "
        f"of the default focus; a count, not a timing); {each}; target <= 0.35",
        {"<= 0.35": real <= 0.35},
    )


if __name__ == "__main__":
    main()
