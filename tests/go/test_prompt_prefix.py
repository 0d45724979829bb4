"""Prefix stability of the whole prompt, with the real Go context provider."""

from __future__ import annotations

from pathlib import Path

from tai_core.context import ContextRequest
from tai_core.context._prompt import build_prompt

FILES = {
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "money/money.go": "// Package money adds amounts.\npackage money\n\n"
    "// Add adds two amounts in cents.\nfunc Add(a, b int) int { return a + b }\n",
    "cart/cart.go": "// Package cart holds items.\npackage cart\n\n"
    'import "example.com/shop/money"\n\n'
    "// Total sums the cart.\nfunc Total(items []int) int {\n\tt := 0\n"
    "\tfor _, i := range items {\n\t\tt = money.Add(t, i)\n\t}\n\treturn t\n}\n",
}


def write(root: Path) -> None:
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def prompt(host, root: Path):
    provider = host.registry.context_providers["go"]
    request = ContextRequest(cwd=root, command="go", focus=("./cart",))
    return build_prompt(
        base="BASE", kinds=host.registry.block_kinds.values(), command="go",
        parts=provider.collect(request), task="add a discount", disabled=["shell"],
    )  # fmt: skip


def test_editing_a_focus_file_keeps_every_byte_before_the_focus(host, tmp_path: Path) -> None:
    write(tmp_path)
    before = prompt(host, tmp_path)
    cart = tmp_path / "cart" / "cart.go"
    cart.write_text(cart.read_text().replace("// Total sums the cart.", "// Total sums it all."))
    after = prompt(host, tmp_path)
    focus = before.user.index("``` begin of focus package example.com/shop/cart")
    assert after.system == before.system
    assert after.user[:focus] == before.user[:focus]
    assert after.user != before.user  # the focus section did change
    assert "Total sums it all." in after.user[focus:]
