"""The ``new-plan`` kind: a plan node in the session tree, for work too large for one step.

Plans are never edited: a plan is revised by aborting it (``plan-op op=abort``) and writing
a new one, so the tree keeps the history of why the approach changed.
"""

from __future__ import annotations

from collections.abc import Callable

from tai_block_kit.common import CODE_COMMANDS
from tai_core import BlockKind, Param, hookimpl


class NewPlanKind(BlockKind):
    """Start a plan: a named node whose entries are added with plan-op."""

    name = "new-plan"
    params = (
        Param("parent", "The session-tree node the plan belongs under.", required=True),
        Param("name", "The plan's name, unique in the session tree.", required=True),
    )
    triggers_round = True
    commands = CODE_COMMANDS
    runs = False
    prompt_section = """\
# new-plan blocks

A simple task: just do it. A task with several distinct steps: write a `new-plan` block
(`parent` = the node it serves, `name` = a new unique name; body = the goal and approach),
then add its entries with plan-op blocks. The next pending entry is fed back to you each
round until the plan is complete. To change a plan, abort it and write a new one."""
    restatement = "new-plan: parent and name required; entries come as plan-op blocks."
    disabled_notice = "plans are not kept now; describe the steps in prose."
    requires_body = "the goal and the approach"


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the new-plan kind."""
    register(NewPlanKind())
