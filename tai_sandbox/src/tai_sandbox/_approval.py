"""Approval of shell commands: who says yes to what the policy does not refuse outright.

The policy refuses destructive commands whatever the mode, and runs the commands of
``allowed_shell_commands``. What is left — a command that is neither — is the approval
mode's to decide (``-approve MODE`` before the command, or ``approve`` in tai.toml):

* ``auto`` (the default): it runs when no allowlist is configured, and is refused when
  one is (the allowlist is then the whole of what may run);
* ``ask``: the user is asked, with the policy's verdict, each time; a run where no one
  can be asked (no terminal, no client that answers) refuses it;
* ``never``: it is refused — only the allowlist runs, and nothing is ever asked.

The question goes through the runtime (``tai_core.blocks.ask``): on a terminal, the
plain command line asks there; ``tai serve -stdio`` sends it to its client. Its default is
no, so a question nobody answers never runs anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: The approval modes.
MODES = ("auto", "ask", "never")
#: The flag that sets the mode for one run.
FLAG = "-approve"


class Chosen:
    """The mode ``-approve`` gave this process (``""``: none, the configuration's holds)."""

    mode = ""


def mode_of(config: Mapping[str, Any]) -> str:
    """The mode in force: the flag's, else the configuration's ``approve``, else ``auto``."""
    return Chosen.mode or str(config.get("approve") or "auto")


def approval(
    command: str,
    allowed: Sequence[str],
    mode: str,
    ask: Callable[[str], bool] | None,
) -> tuple[bool, str]:
    """``(runs, reason)`` for ``command``, which no rule refused and the allowlist
    ``allowed`` does not hold, under approval ``mode``; ``ask`` asks the user a yes-or-no
    question (``None``: no one can be asked)."""
    listed = "; ".join(allowed)
    if mode == "auto":
        if not allowed:
            return (
                True,
                "no destructive pattern found (no allowed_shell_commands: any program runs)",
            )
        return False, f"it is not in allowed_shell_commands (matched as whole commands): {listed}"
    if mode == "never":
        return False, ("approve = never: only the commands of allowed_shell_commands run, and "
                       "it is not one of them")  # fmt: skip
    if mode != "ask":
        return False, f"approve must be one of {', '.join(MODES)}, not {mode!r}"
    verdict = "no destructive pattern found" + (
        "; it is not in allowed_shell_commands" if allowed else ""
    )
    if ask is None:
        return False, f"not approved: approve = ask, and no one can be asked here ({verdict})"
    question = f"Run the model's shell command?\n\n    {command}\n\nThe policy: {verdict}."
    if ask(question):
        return True, f"approved by the user ({verdict})"
    return False, "the user did not approve it"


def choose(ctx: Any, param: Any, value: str | None) -> None:
    """The ``-approve`` option's callback."""
    del ctx, param
    if value:
        Chosen.mode = value
