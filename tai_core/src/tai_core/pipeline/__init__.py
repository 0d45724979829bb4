"""The pipeline: rounds of generation over immutable state.

Why shaped so: every round starts from a frozen :class:`RunState`, so a failed attempt is
retried from the very value it started from — nothing is undone because nothing was
mutated — and changes reach the disk only when an attempt succeeds (the workspace's
flush). Blocks are requests: they are parsed while the reply streams, applied to the
in-memory workspace when they stream (changes), and run after the reply ends, their
results becoming the next round's input. Every step is written to the session tree and
published as an event; the pipeline never prints.

* ``_state`` — options, state, one attempt's outcome;
* ``_attempt`` — streaming one reply through the parser and the streaming kinds;
* ``_loop`` — rounds, retries, feedback;
* ``_execute`` — running a reply's blocks in the protocol's order;
* ``_record`` — what a reply writes to the session tree, and the plan feed;
* ``_notes`` — what the program tells the model between rounds;
* ``_report`` — the usage table.
"""

from tai_core.pipeline._attempt import AttemptRunner
from tai_core.pipeline._execute import COMPONENT_ORDER
from tai_core.pipeline._loop import Pipeline, RunFailure, RunResult
from tai_core.pipeline._report import usage_table
from tai_core.pipeline._state import BlockApplyError, RunError, RunOptions, RunState, UsageRow

__all__ = [
    "COMPONENT_ORDER",
    "AttemptRunner",
    "BlockApplyError",
    "Pipeline",
    "RunError",
    "RunFailure",
    "RunOptions",
    "RunResult",
    "RunState",
    "UsageRow",
    "usage_table",
]
