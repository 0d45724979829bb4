"""A generated Python project for the benchmarks (not a benchmark itself).

``generate(root, modules)`` writes a src-layout project of ``modules`` modules in packages
of ten, each module a docstring, imports of two modules before it, two classes of four
methods and three functions, with bodies of several statements; one test module per
package. The same arguments always write the same bytes.
"""

from __future__ import annotations

from pathlib import Path

PER_PACKAGE = 10


def module_name(index: int) -> str:
    """The dotted name of module ``index``."""
    return f"gen.p{index // PER_PACKAGE:03d}.m{index:04d}"


def _function(name: str, indent: str, method: bool) -> str:
    params = "self, value: int, *, scale: float = 1.0" if method else "value: int, scale: float"
    body = [
        f'"""Compute {name} of ``value``: the scaled, clamped and rounded result.',
        "",
        "Negative values count from the end, as for sequences.",
        '"""',
        "if value < 0:",
        "    value = -value * 2",
        "total = 0.0",
        "for step in range(value % 7 + 1):",
        "    total += step * scale",
        "    if total > 1000:",
        '        raise ValueError(f"{value} overflows at step {step}")',
        "result = round(total / (value + 1), 3)",
        "return int(result) if result.is_integer() else int(result * 10)",
    ]
    inner = indent + "    "
    lines = [f"{indent}def {name}({params}) -> int:"]
    lines += [f"{inner}{line}" if line else "" for line in body]
    return "\n".join(lines) + "\n"


def module_source(index: int) -> str:
    """The source of module ``index``."""
    imports = [module_name(i) for i in (index - 1, index - 3) if i >= 0]
    head = [f'"""Module {index}: records of kind {index} and their arithmetic."""', ""]
    head += ["from __future__ import annotations", "", "import math", ""]
    head += [f"import {name}" for name in imports]
    head += ["", f"LIMIT_{index} = {index * 3}", ""]
    parts = ["\n".join(head)]
    for c in range(2):
        methods = "\n".join(_function(f"op_{c}_{m}", "    ", True) for m in range(4))
        parts.append(
            f"class Record{index}_{c}:\n"
            f'    """A record of kind {index}, variant {c}."""\n\n'
            f"    size: int = {c}\n\n{methods}"
        )
    parts += [_function(f"helper_{index}_{f}", "", False) for f in range(3)]
    return "\n\n".join(parts)


def test_source(package: int) -> str:
    """The test module of ``package``."""
    first = package * PER_PACKAGE
    tests = [
        f"def test_record_{first + i}():\n    from {module_name(first + i)} import "
        f"Record{first + i}_0\n\n    assert Record{first + i}_0().op_0_0(3) >= 0\n"
        for i in range(PER_PACKAGE)
    ]
    return "\n\n".join(tests)


def generate(root: Path, modules: int) -> Path:
    """Write the project under ``root``; return ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "gen"\nversion = "1.0"\n')
    (root / "src/gen").mkdir(parents=True, exist_ok=True)
    (root / "src/gen/__init__.py").write_text('"""The generated project."""\n')
    (root / "tests").mkdir(exist_ok=True)
    for index in range(modules):
        path = root / "src" / (module_name(index).replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(module_source(index))
    for package in range((modules + PER_PACKAGE - 1) // PER_PACKAGE):
        (root / f"tests/test_p{package:03d}.py").write_text(test_source(package))
    return root
