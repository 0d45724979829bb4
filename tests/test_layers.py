"""tai_core reads as floors, each using only those below it (and never one beside it where
the floor says its parts are independent): no import circle between its packages, and no
lower part that knows what is built on it. Checked on the import graph grimp builds of the
installed sources — every import, those inside functions included, but those for type
checkers only."""

from __future__ import annotations

import grimp

#: tai_core's floors, top to bottom; a floor of several parts lists them in a ``Layer``
#: (``independent``: they may not import each other either).
FLOORS: list[str | grimp.Layer] = [
    # the command line (builds the host, hands it the core plugin, runs commands) and the
    # testing kit for plugin authors (drives sessions as the commands do)
    grimp.Layer("cli", "testing", independent=True),
    "_core_plugin",  # the core's commands, registered like a third party's
    "serve",  # the JSON-lines server (tai serve), a client of the commands' sessions
    "commands",  # each command: its flags, its session, its output
    # what the commands build on: the application context, the memory of tai ai, the
    # records, and the terminal UI (a client of the runtime, as the commands' printer is)
    grimp.Layer("app", "memory", "records", "tui", independent=True),
    "runtime",  # commands in, events out; sessions kept
    grimp.Layer("pipeline", "sessions", independent=True),
    "plugins",  # the host, the registry, the failure rules, the core's default hooks
    grimp.Layer("hookspecs", "store", "events", independent=True),
    "context",  # context parts, their order, the composition of providers, secrets
    grimp.Layer("blocks", "models", "tree", independent=True),
    grimp.Layer(
        "config",
        "patterns",
        "progress",
        "textfile",
        "_sqlite",
        "_table",
        "_atomic",
        independent=False,
    ),
    grimp.Layer("_time", "_printable", "_lazy", "_nearest", independent=True),
]


def describe(dependency: object) -> str:
    """``A -> B`` of a floor that may not import another, with the routes it takes."""
    routes = "; ".join(
        " -> ".join([min(route.heads), *route.middle, min(route.tails)])
        for route in dependency.routes  # type: ignore[attr-defined]
    )
    return f"{dependency.importer} -> {dependency.imported} ({routes})"  # type: ignore[attr-defined]


def graph() -> grimp.ImportGraph:
    return grimp.build_graph("tai_core", exclude_type_checking_imports=True)


def test_tai_core_is_built_in_floors() -> None:
    illegal = graph().find_illegal_dependencies_for_layers(layers=FLOORS, containers={"tai_core"})
    assert sorted(map(describe, illegal)) == []


def test_every_part_of_tai_core_has_its_floor() -> None:
    placed = {part for floor in FLOORS
              for part in ([floor] if isinstance(floor, str) else floor.module_tails)}  # fmt: skip
    parts = {module.split(".")[1] for module in graph().modules if "." in module}
    assert sorted(parts - placed) == []
