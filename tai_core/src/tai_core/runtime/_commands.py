"""The commands a client sends the runtime, and the setup a session starts from.

Commands are frozen values, so a client can build them anywhere (a key binding, a JSON
line, a web request) and the runtime's handling of each is one function of the value and
the runtime's state. Every command names the session it is for, but those that act on
the saved sessions as a whole (:class:`ListSessions`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from tai_core.blocks import BlockKind
from tai_core.models import ModelSpec, Provider, RetryPolicy
from tai_core.pipeline import RunOptions
from tai_core.pipeline._loop import Handoff
from tai_core.pipeline._thoughts import Summarizer
from tai_core.tree import NodeSpec


@attrs.frozen
class SessionSetup:
    """Everything a session needs, assembled by the command that starts it."""

    options: RunOptions
    provider: Provider
    spec: ModelSpec
    kinds: Mapping[str, BlockKind]
    system: str
    context: Any
    workspace: Any = None
    handoff: Handoff | None = None
    retry_policy: RetryPolicy | None = None
    #: Renders the run's changes for :class:`RunFinished` (empty when nothing changed).
    describe_changes: Callable[[Any], str] | None = None
    #: Summarises the model's thoughts as they stream (``-summarize-thoughts``).
    summarize_thoughts: Summarizer | None = None
    #: Nodes a new session's tree starts with, after the generator's event node (a goal
    #: loop's ``goal`` node: which loop, and what the previous one came to).
    opening: tuple[NodeSpec, ...] = ()
    #: Resolves a model named as ``-model`` takes it, for the one call a plugin switches
    #: to it (``tai_before_model_call``'s ``model``); ``None``: no switching.
    resolve_model: Callable[[str], tuple[Provider, ModelSpec]] | None = None
    #: The session's system prompt with another base text (``None``: its own) and these
    #: kinds off, for agent commands (:mod:`tai_core.runtime._agents`); ``None``: the
    #: session cannot switch to one.
    rebuild_system: Callable[[str | None, frozenset[str]], str] | None = None


@attrs.frozen
class StartSession:
    """Open a session; ``setup.options.session_id`` names it."""

    setup: SessionSetup


@attrs.frozen
class Submit:
    """Send ``text`` to the model as the next user input (``shown`` goes into the tree)."""

    session_id: str
    text: str
    shown: str = ""


@attrs.frozen
class Steer:
    """Add ``text`` to the session's running turn: a reply streaming now is interrupted
    and asked again with it (what was streamed stays in the conversation); otherwise it
    goes with the turn's next request (see :mod:`tai_core.pipeline._steer`)."""

    session_id: str
    text: str


@attrs.frozen
class Cancel:
    """Stop the session's running submit; nothing of the interrupted round is applied.
    With nothing running (and no question open) it is answered by a warning notice."""

    session_id: str


@attrs.frozen
class CloseSession:
    """Close the session (refused while it runs); a kept session is saved as closed."""

    session_id: str


@attrs.frozen
class ResetSession:
    """Clear the session's conversation and tree, keeping its model and system prompt
    (refused while it runs)."""

    session_id: str


@attrs.frozen
class UpdateSession:
    """Change the model or the call parameters from the next model call on (refused
    while the session runs). ``None`` leaves a value as it is; ``model`` is a resolved
    provider and spec."""

    session_id: str
    model: tuple[Provider, ModelSpec] | None = None
    temperature: float | None = None
    max_output_tokens: int | None = None
    reasoning_effort: str | None = None

    def problem(self) -> str:
        """Why this update cannot be applied (``""`` when it can)."""
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            return f"temperature {self.temperature} is not between 0 and 2"
        if self.max_output_tokens is not None and self.max_output_tokens <= 0:
            return f"max_output_tokens {self.max_output_tokens} is not positive"
        return ""

    def applied_to(self, spec: ModelSpec) -> ModelSpec:
        """``spec`` with the parameters this update sets."""
        changes = {
            "temperature": self.temperature,
            "max_generate_tokens": self.max_output_tokens,
            "reasoning_effort": self.reasoning_effort,
        }
        return attrs.evolve(spec, **{k: v for k, v in changes.items() if v is not None})


@attrs.frozen
class ActivateAgent:
    """Switch the session to the agent command ``name`` from its next turn on (``""``:
    back to the session's own system prompt, kinds and model); refused while it runs.
    ``arguments`` is the text the user gave after the name (the template may use it; the
    front-end submits it as the next turn). Answered by ``AgentActivated``, or an error
    notice saying why nothing changed."""

    session_id: str
    name: str
    arguments: str = ""


@attrs.frozen
class CompactSession:
    """Replace the session's conversation by its summary now (``/compact`` in ``tai
    ai``), asked to keep what ``instructions`` say; refused while the session runs. Done
    as a turn would start one when the request nears the window
    (:mod:`tai_core.runtime._compaction`): ``SessionCompacted``, or a warning saying why
    the conversation was kept."""

    session_id: str
    instructions: str = ""


@attrs.frozen
class ListSessions:
    """List the saved sessions, newest first (of directory ``cwd`` when given)."""

    limit: int = 10
    cwd: str | None = None


@attrs.frozen
class LoadSession:
    """Make saved session ``session_id`` live again under its id, run by ``setup`` (the
    model, kinds and context of this run; its session id is replaced by the saved one)."""

    session_id: str
    setup: SessionSetup


@attrs.frozen
class DeleteSession:
    """Delete saved session ``session_id`` (and close its live copy; refused while it
    runs)."""

    session_id: str


@attrs.frozen
class ExportSession:
    """Write saved session ``session_id`` as JSON lines to ``path`` (replaced whole, never
    left half written)."""

    session_id: str
    path: str


@attrs.frozen
class RunExtensionCommand:
    """Run the plugins' session command ``name`` (``/NAME``) with ``args`` in session
    ``session_id``; its output comes back as ``ExtensionCommandFinished``."""

    session_id: str
    name: str
    args: str = ""


@attrs.frozen
class RespondToPrompt:
    """Answer the open question ``prompt_id`` of session ``session_id`` (``PromptRequested``):
    ``True``/``False`` to a confirm, one of the choices to a select, a string to an input."""

    session_id: str
    prompt_id: str
    answer: Any


@attrs.frozen
class ReloadExtensions:
    """Read the configuration and the installed plugins again, without a restart: plugins
    installed since join, removed or newly disabled ones leave, settings are checked and
    given again, and every session goes on with them from its next turn. Refused while a
    session runs. A plugin that now fails is reported (``ExtensionsReloaded.problems``) and
    the sessions go on with what loaded; a configuration that cannot be used keeps
    everything as it was. A plugin module already imported is not imported again (Python
    cannot do that safely, and a plugin may hold state, as the sandbox does): its edited
    code takes effect at the next start."""


@attrs.frozen
class Reloaded:
    """What a reload produced; the front-end's reload function returns it."""

    #: The new plugin manager's hook relay.
    hook: Any
    #: The session commands now: name -> (plugin, command).
    extensions: Mapping[str, tuple[str, Any]]
    #: A session's setup with the new kinds, provider and context.
    rebind: Callable[[SessionSetup], SessionSetup]
    #: The plugins loaded, by name.
    plugins: tuple[str, ...]
    #: One line per plugin that failed and per warning of the configuration.
    problems: tuple[str, ...] = ()
    #: What the front-end builds new sessions from now (its application context).
    app: Any = None
    #: The agent commands now, by name (asked for when first needed).
    agents: Callable[[], Mapping[str, Any]] | None = None


Command = (
    StartSession
    | Submit
    | Steer
    | Cancel
    | CloseSession
    | ResetSession
    | UpdateSession
    | ActivateAgent
    | CompactSession
    | ListSessions
    | LoadSession
    | DeleteSession
    | ExportSession
    | RunExtensionCommand
    | ReloadExtensions
    | RespondToPrompt
)
