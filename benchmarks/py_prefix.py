"""Share of the Python context that stays byte-identical across edits of a focus module
(target: 100% before the focus part).

On the pinned click 8.1.8 source (real code; ``tests.realmodules.fetch_sdist``), with the
default focus, the context is collected, a focus module is edited, and it is collected
again; the parts are concatenated in ``(tier, key)`` order, as the prompt builder places
them. Two edits of ``click/core.py``: a function body (the outline has no bodies, so the
whole context should stay identical) and a signature (everything before ``click.core``'s
part should). The figure is the share of the text before the edited module's part that is
identical (100% is the target), beside the common prefix over the whole text.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import finish
from _runs import REPO

sys.path.insert(0, str(REPO))
from tests.realmodules import fetch_sdist

TARGET = "100% before the focus part"
BODY = ('"Base commands are not invocable by default"', '"Base commands cannot be invoked"')
SIGNATURE = (
    "def invoke(self, ctx: Context) -> t.Any:",
    "def invoke(self, ctx: Context, n: int = 0) -> t.Any:",
)


def parts(root: Path) -> list:
    from tai_context_py import PROVIDER
    from tai_core.context import ContextRequest

    found = PROVIDER.collect(ContextRequest(cwd=root, command="py"))
    return sorted(found, key=lambda p: (p.tier, p.key))


def shares(root: Path, edit: tuple[str, str]) -> tuple[float, float]:
    """(identical share before the edited module's part, common prefix over the whole)."""
    core = root / "src/click/core.py"
    original = core.read_text()
    if edit[0] not in original:
        raise SystemExit(f"the edit's text is not in core.py: {edit[0]!r}")
    before = parts(root)
    core.write_text(original.replace(edit[0], edit[1], 1))
    after = parts(root)
    core.write_text(original)
    index = next(i for i, p in enumerate(after) if p.path == "src/click/core.py")
    head_before = "".join(p.text for p in before[:index])
    head_after = "".join(p.text for p in after[:index])
    text_before, text_after = "".join(p.text for p in before), "".join(p.text for p in after)
    return (
        _common(head_before, head_after) / max(1, len(head_after)),
        _common(text_before, text_after) / len(text_after),
    )


def _common(first: str, second: str) -> int:
    """The length of the common prefix of two texts."""
    return next(
        (i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b),
        min(len(first), len(second)),
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        os.environ["XDG_CACHE_HOME"] = str(Path(temp, "cache"))
        root = fetch_sdist("click", Path(temp))
        body_head, body_all = shares(root, BODY)
        sig_head, sig_all = shares(root, SIGNATURE)
    finish(
        f"py_prefix: click 8.1.8, default focus: a body edit of click/core.py keeps "
        f"{body_head:.1%} of the context before core's part and {body_all:.1%} of all of it "
        f"identical; a signature edit {sig_head:.1%} before core's part ({sig_all:.1%} of "
        "all: the common prefix ends in core's part); target 100% before the focus part",
        {"100% before the focus part": body_head == 1.0 and sig_head == 1.0},
    )


if __name__ == "__main__":
    main()
