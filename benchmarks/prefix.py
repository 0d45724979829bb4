"""Share of the Go context that stays byte-identical across an edit of a focus file.

On a generated module of 60 packages, the context is collected, a function is added to a
focus file, and it is collected again; the parts are concatenated in ``(tier, key)``
order, as the prompt builder places them, and the common prefix of the two texts is
measured against the edited text's length (not a timing: no baseline). The figure is
for the default focus, ``./...`` (every package is focus; the edited package is in the
middle of the focus tier), which is what a user gets; beside it, the favourable choice of
one focus package (``-pkg``, the edit in the last package, the other 59 its context).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gomodule import generate, package_name
from _report import finish

PACKAGES = 60
TARGET = "—"


def context_text(root: Path, focus: tuple[str, ...]) -> str:
    from tai_context_go import PROVIDER
    from tai_core.context import ContextRequest

    parts = PROVIDER.collect(ContextRequest(cwd=root, command="go", focus=focus))
    return "".join(part.text for part in sorted(parts, key=lambda p: (p.tier, p.key)))


def stable_share(root: Path, focus: tuple[str, ...], edited: Path) -> float:
    original = edited.read_text()
    before = context_text(root, focus)
    edited.write_text(
        original + "\n// Reset empties s.\nfunc (s *Store) Reset() { s.records = nil }\n"
    )
    after = context_text(root, focus)
    edited.write_text(original)
    common = next(
        (i for i, (x, y) in enumerate(zip(before, after, strict=False)) if x != y),
        min(len(before), len(after)),
    )
    return common / len(after)


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        os.environ["XDG_CACHE_HOME"] = str(Path(temp, "cache"))
        root = generate(Path(temp, "gen"), PACKAGES)
        last = package_name(PACKAGES - 1)
        one = stable_share(root, (f"./pkg/{last}",), root / "pkg" / last / "store.go")
        middle = package_name(PACKAGES // 2)
        every = stable_share(root, (), root / "pkg" / middle / "store.go")
    finish(
        f"prefix: {every:.1%} of the context byte-identical after a focus edit with the "
        f"default focus (every package; edit in package {PACKAGES // 2 + 1} of {PACKAGES}); "
        f"{one:.1%} with one focus package of {PACKAGES} (the edited one)"
    )


if __name__ == "__main__":
    main()
