"""Same inputs, same bytes — across processes, hash seeds and discovery orders.

A value built twice in one process cannot show an order that depends on the hash seed
(iterating a set of strings) or on the order in which the file system lists a directory:
both builds see the same seed and the same listing. So each "same inputs, same bytes"
value is built here in processes of its own, one per ``PYTHONHASHSEED``, from trees written
in different orders (:func:`write_in_order`), and the outputs are compared byte for byte.

Run as ``python -m tests.determinism WHAT ARG...``; it prints the value named ``WHAT``
(see ``BUILDERS``), built from its arguments, and nothing else.
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Hash seeds of the processes that build a value; they differ, as real runs' do.
SEEDS = ("1", "2", "3")


def write_in_order(root: Path, files: Mapping[str, str], *, reverse: bool) -> Path:
    """``files`` under a new ``root``, created in order or in reverse order (so a directory
    lists its entries in another order, on file systems that list in creation order)."""
    shutil.rmtree(root, ignore_errors=True)
    names = sorted(files, reverse=reverse)
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[name], encoding="utf-8")
    return root


def listing(root: Path) -> list[str]:
    """Every path under ``root`` in the order the file system lists them."""
    found: list[str] = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        found += [os.path.relpath(os.path.join(directory, n), root) for n in dirs + files]
    return found


def built_in_processes(
    what: str, *arguments: str, prepare: Callable[[int], object] | None = None
) -> list[str]:
    """The value ``what`` built from ``arguments`` in one process per seed; ``prepare(i)``,
    when given, runs before the i-th process (to rewrite its tree in another order)."""
    outputs = []
    for number, seed in enumerate(SEEDS):
        if prepare is not None:
            prepare(number)
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-m", "tests.determinism", what, *arguments],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    return outputs


# -- the values ------------------------------------------------------------------------------


def _host():  # the real PluginHost, imported late like the tests do
    import click

    from tai_core.plugins import LoadOptions, PluginHost

    host = PluginHost(LoadOptions(), cli=click.Group(), stderr=io.StringIO())
    host.load_entry_points()
    return host


def _many_parts(order: int) -> list[object]:
    """Several context parts of every kind, in a discovery order chosen by ``order``."""
    from tai_core.context import (
        TIER_CONTEXT,
        TIER_EXTERNAL,
        TIER_FILES,
        TIER_FOCUS,
        ContextPart,
    )

    parts = []
    for i in range(3):
        parts += [
            ContextPart(TIER_EXTERNAL, f"ext{i}", f"``` external ext{i}"),
            ContextPart(TIER_CONTEXT, f"ctx{i}", f"``` context ctx{i}", path=f"ctx/{i}.go"),
            ContextPart(TIER_FOCUS, f"focus{i}", f"``` focus focus{i}", path=f"focus/{i}.go"),
            ContextPart(TIER_FILES, f"doc{i}.md", f"``` file doc{i}.md", path=f"doc{i}.md"),
            ContextPart(
                TIER_FILES,
                f"vendor/lib{i}.go",
                f"``` file vendor/lib{i}.go",
                path=f"vendor/lib{i}.go",
                read_only=True,
            ),
            ContextPart(
                TIER_CONTEXT,
                f"secret{i}",
                "",
                path=f"conf/secret{i}.env",
                withheld="names a secret file",
            ),
        ]
    random.Random(order).shuffle(parts)
    return parts


def prompt(command: str = "go") -> str:
    """The prompt of many parts, found in an order that differs between processes (the
    shuffle draws on the hash seed, as a set's order does)."""
    from tai_core.context._prompt import build_prompt

    host = _host()
    built = build_prompt(
        base="BASE",
        kinds=host.registry.block_kinds.values(),
        command=command,
        parts=_many_parts(hash("discovery order")),  # type: ignore[arg-type]
        task="fix it",
        config={"extra_system_prompt": ["Be terse.", "Be kind."]},
        disabled=["shell", "go-test"],
        feedback="loop 1 failed",
        now="2026-12-01 10:00 UTC",
    )
    return built.system + "\n\0\n" + built.user


def block_prompts() -> str:
    """The block-format prompts of every command, with and without disabled kinds."""
    from tai_core.blocks import block_prompts as build

    kinds = list(_host().registry.block_kinds.values())
    out = []
    for command in ("go", "any", "ai"):
        for disabled in ((), ("shell",), ("shell", "change", "go-test")):
            out += [*build(kinds, command, list(disabled))]
    return "\n\0\n".join(out)


def go_context(root: str, focus: str, max_tokens: str = "") -> str:
    """The Go provider's parts and the whole prompt for the module at ``root``."""
    from tai_context_go import PROVIDER
    from tai_core.context import ContextRequest
    from tai_core.context._prompt import build_prompt

    fields: dict[str, object] = {"focus": (focus,)}
    if max_tokens:
        fields["max_tokens"] = int(max_tokens)
    request = ContextRequest(cwd=Path(root), command="go", **fields)  # type: ignore[arg-type]
    parts = PROVIDER.collect(request)
    built = build_prompt(
        base="BASE",
        kinds=_host().registry.block_kinds.values(),
        command="go",
        parts=parts,
        task="add a discount",
        disabled=["shell"],
    )
    return json.dumps([repr(p) for p in parts], indent=0) + "\n\0\n" + built.system + built.user


def any_context(root: str) -> str:
    """The any-text provider's parts for the tree at ``root``."""
    from tai_context_any import provider
    from tai_core.context import ContextRequest

    parts = provider.collect(ContextRequest(cwd=Path(root), command="any"))
    return json.dumps([repr(p) for p in parts], indent=0)


BUILDERS: dict[str, Callable[..., str]] = {
    "prompt": prompt,
    "block-prompts": block_prompts,
    "go-context": go_context,
    "any-context": any_context,
}


if __name__ == "__main__":
    sys.stdout.write(BUILDERS[sys.argv[1]](*sys.argv[2:]))
