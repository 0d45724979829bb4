"""The README's figures table and ``benchmarks/figures.py`` agree (no benchmark is run)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_readme_table_lists_every_benchmark_with_its_target() -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import figures
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    rows = figures.table_rows(figures.README.read_text(encoding="utf-8"))
    assert sorted(rows) == figures.scripts()
    assert {s: target for s, (_, target) in rows.items()} == {
        s: figures.target(s) for s in figures.scripts()
    }
