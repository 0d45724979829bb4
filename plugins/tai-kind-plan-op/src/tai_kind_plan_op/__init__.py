"""The ``plan-op`` kind: add a plan entry, mark one done, or abort an entry or a plan."""

from __future__ import annotations

from collections.abc import Callable

from tai_block_kit.common import CODE_COMMANDS
from tai_core import Block, BlockKind, Param, hookimpl

OPS = ("add", "done", "abort")


class PlanOpKind(BlockKind):
    """Operate on a plan in the session tree."""

    name = "plan-op"
    params = (
        Param(
            "op",
            "add an entry, mark one done, or abort an entry or plan.",
            required=True,
            choices=OPS,
        ),
        Param(
            "name",
            "add: the new entry's name; done/abort: the entry or plan operated on.",
            required=True,
        ),
        Param("parent", "add: the plan (or entry) the new entry belongs under."),
    )
    triggers_round = True
    commands = CODE_COMMANDS
    runs = False
    prompt_section = """\
# plan-op blocks

Operate on a plan with `plan-op` blocks:
- `op="add"`, `parent` = the plan or entry, `name` = a new unique name; body = the step.
- `op="done"`, `name` = the entry; body = what was done.
- `op="abort"`, `name` = the entry or plan; body = why. Aborting is the only way to revise a
  plan: abort it, then write a new plan."""
    restatement = "plan-op: op add (parent, name), done (name) or abort (name, why)."
    disabled_notice = "plans are not kept now; describe the steps in prose."

    def check_body(self, block: Block) -> list[str]:
        op = block.params.get("op")
        problems = []
        if op == "add" and not block.params.get("parent"):
            problems.append("plan-op add needs parent: the plan or entry it belongs under")
        if op in ("add", "abort") and not block.body:
            what = "the step" if op == "add" else "why it is aborted"
            problems.append(f"plan-op {op} needs a body: {what}")
        return problems


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the plan-op kind."""
    register(PlanOpKind())
