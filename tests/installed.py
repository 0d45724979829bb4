"""Installing a third-party plugin for a test: a distribution in a directory of its own
(``*.dist-info`` with an entry point of the group ``tai``, and the plugin's module), which
a ``tai`` subprocess finds when the directory is on its ``PYTHONPATH``."""

from __future__ import annotations

from pathlib import Path


def plugin_distribution(site: Path, body: str, name: str = "hello") -> Path:
    """Install the plugin ``name`` (module ``NAME_plugin``, holding ``body``) into
    ``site``; the module's path."""
    module_name = f"{name}_plugin"
    meta = site / f"{module_name}-1.0.dist-info"
    meta.mkdir(parents=True, exist_ok=True)
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\nVersion: 1.0\n")
    (meta / "entry_points.txt").write_text(f"[tai]\n{name} = {module_name}\n")
    module = site / f"{module_name}.py"
    module.write_text(body)
    return module
