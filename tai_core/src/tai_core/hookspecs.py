"""Every hook tai calls, with what it receives, what it returns and where it may live.

tai's core knows the block protocol, the pipeline, the session tree and these
specifications; everything a user can name — block kinds, providers, context providers,
commands, the sandbox's policies — is a plugin implementing them. The built-in plugins
use exactly the hooks below, through the same entry-point group (``tai``) as third-party
ones, so nothing a built-in does is out of reach of a plugin.

Conventions (the template of pytest and datasette):

* Registration hooks receive a ``register`` callback instead of returning values, so a
  plugin may register any number of things and tai knows which plugin registered each.
* ``firstresult`` hooks stop at the first implementation that returns something other
  than ``None``; the others collect every non-``None`` result in a list.
* An implementation may accept fewer arguments than its specification names; this is how
  specifications grow without breaking plugins. Name the arguments you use, exactly.
* "Where it may be implemented" says which kind of plugin the hook is meant for. Any
  module registered under the entry-point group ``tai`` may implement any hook.

The generation hooks (session, round, model call) are called by the runtime that runs
the pipeline; the block hooks by the block pipeline; the policy hooks by whatever is about
to run a command or touch a path. Each docstring names the caller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    import click

    from tai_core.blocks import Block, BlockKind, BlockResult, RunContext

#: The marker that declares a hook specification (project name ``tai``).
hookspec = pluggy.HookspecMarker("tai")


# ---------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------


@hookspec
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register block kinds.

    Called once per plugin while plugins load, right after the plugin is registered; an
    exception here unregisters the plugin and is reported (fatal with
    ``TAI_STRICT_PLUGINS=1``).

    :param register: call ``register(kind)`` for each kind, where ``kind`` fulfils the
        :class:`tai_core.blocks.BlockKind` contract (its name, parameters, prompt section,
        restatement, whether it streams, whether it triggers a round, the commands it is
        available in, ``validate`` and ``execute``). A name already registered by another
        plugin is refused and reported as that plugin's load error.
    :return: nothing; results are ignored.

    Where it may be implemented: block-kind plugins (each built-in kind is a distribution,
    ``tai-kind-NAME``, registering its kind through this very hook).
    """


@hookspec
def tai_register_providers(register: Callable[[Any], None]) -> None:
    """Register model providers.

    Called once per plugin while plugins load, as :func:`tai_register_block_kinds`.

    :param register: call ``register(provider)`` for each provider; ``provider`` fulfils
        :class:`tai_core.models.Provider`: ``name``, ``description``, ``types`` (the
        configuration ``type`` values it serves), ``prefixes`` (``-model PREFIX:NAME``),
        ``short_names`` (models it offers without configuration), ``spec`` (a generator's
        fields to a :class:`tai_core.models.ModelSpec`) and ``stream`` (a
        :class:`tai_core.models.GenerationRequest` to text, thought, usage and finish
        events; failures raised as :class:`tai_core.models.ProviderError`, whose
        ``retryable`` tells the pipeline whether to try again). A provider that lacks a
        member, or whose name or type another plugin took, is refused and reported as that
        plugin's load error.
    :return: nothing; results are ignored.

    Where it may be implemented: provider plugins (``tai-provider-NAME`` and third parties).
    """


@hookspec
def tai_register_context_providers(register: Callable[[Any], None]) -> None:
    """Register context providers — the sources of the parts of the first request.

    Called once per plugin while plugins load, as :func:`tai_register_block_kinds`.

    :param register: call ``register(provider)`` for each context provider; ``provider``
        fulfils :class:`tai_core.context.ContextProvider`: ``name``, ``description``,
        ``applies(cwd)`` and ``collect(request)``, which turns a
        :class:`tai_core.context.ContextRequest` into
        :class:`tai_core.context.ContextPart` values, each placed by its tier and key. A
        provider that lacks a member, or whose name is taken, is refused and reported as a
        load error.
    :return: nothing; results are ignored.

    Where it may be implemented: context-provider plugins (the Go provider, the any-text
    provider, third parties).
    """


@hookspec
def tai_register_commands(cli: click.Group) -> None:
    """Add sub-commands to the ``tai`` command line.

    Called once per plugin while plugins load, before the command line is parsed, so
    ``tai --help`` lists plugin commands beside the built-in ones.

    :param cli: the ``tai`` :class:`click.Group`; decorate functions with ``@cli.command()``
        or call ``cli.add_command``. A command whose module is heavy is added as
        ``cli.add_command(tai_core.cli.LazyCommand(NAME, "package.module:attribute",
        FIRST_SENTENCE))``: its module is imported only when the command runs, so other
        commands (and ``tai --help``) never pay for it. A command name that already exists
        is refused and reported as the plugin's load error.
    :return: nothing; results are ignored.

    Where it may be implemented: any plugin that offers a command.
    """


@hookspec
def tai_register_session_commands(register: Callable[[Any], None]) -> None:
    """Register commands users type in a session (``/NAME args``).

    Called once per plugin while plugins load, as :func:`tai_register_block_kinds`. In
    ``tai ai`` a line starting with ``/`` runs one (``/help`` lists them); ``tai serve
    -stdio`` runs one with ``{"type": "command", "session_id", "name", "args"}``; any client
    of the runtime sends ``RunExtensionCommand``. Its output arrives as the event
    ``ExtensionCommandFinished``.

    :param register: call ``register(command)`` for each command, where ``command``
        fulfils :class:`tai_core.plugins.SessionCommand` (``name``, ``description``,
        ``run(session, args)``). A name another plugin took is refused and reported as this
        plugin's load error.
    :return: nothing; results are ignored.

    Where it may be implemented: plugins that offer something to do in a session (show a
    status, switch a setting, fetch a ticket).

    Failure rule: if an implementation raises, the plugin is skipped with that as its load
    error. (A command's own failure when it runs is one error line naming the plugin; the
    session goes on.)
    """


@hookspec
def tai_register_agent_commands(register: Callable[[Any], None]) -> None:
    """Register agent commands: modes a session switches to with ``/NAME [text]``.

    Called once per plugin the first time agent commands are needed (a chat's runtime,
    ``tai plugins``), not while plugins load: they are read from files, which commands that
    do not use them should not pay for (``PluginHost.declared``). Invoking one (``/plan add
    dark mode`` in ``tai ai``, ``{"type": "command", "name":
    "plan", "args": …}`` in ``tai serve -stdio``, ``tai ai -agent plan "…"``, or the
    runtime's ``ActivateAgent``) replaces the session's base system prompt with the
    rendered template, restricts its block kinds to ``tools`` (a kind that is off stays
    off), switches to ``model`` for the agent's turns, and submits the text after the
    name; ``/agent off`` goes back. The event ``AgentActivated`` says what is in force.

    :param register: call ``register(command)`` for each command, where ``command``
        fulfils :class:`tai_core.plugins.AgentCommand` (``name``, ``description``,
        ``render(data)``, ``tools``, ``model``, ``argument_hint``, ``user_invocable``,
        ``model_invocable``). A ``/NAME`` another plugin took (for an agent or a session
        command) is refused and reported as this plugin's load error.
    :return: nothing; results are ignored.

    Where it may be implemented: plugins that bring modes of work (the ``agents`` plugin
    registers the built-in ones and the project's and user's ``*.agent.md`` files).

    Failure rule: if an implementation raises or its registrations break the contract or
    take a name, none of its agent commands is registered, with one warning naming the
    plugin; the plugin stays loaded for everything else.
    """


@hookspec(firstresult=True)
def tai_plugin_settings() -> Any:
    """Declare this plugin's settings.

    Called once per plugin while plugins load, as :func:`tai_register_block_kinds`.
    Users write the settings in a ``[plugins.NAME]`` table of ``tai.toml`` (``NAME`` the
    plugin's name); they are checked against the model as tai's own keys are — an unknown
    key, a value of the wrong type (strictly: ``"3"`` is not ``3``), a required field left
    out, each one line naming file, line and key — and reach the plugin typed through
    :func:`tai_configure`. ``tai plugins --json`` shows the model's JSON schema.

    :return: a pydantic model class (``pydantic.BaseModel``) whose fields are the
        settings, with their defaults (the first answer is taken: a plugin has one);
        anything else is the plugin's load error.

    Where it may be implemented: any plugin with settings of its own.

    Failure rule: if an implementation raises, or returns what is not a pydantic model
    class, the plugin is skipped with that as its load error.
    """


@hookspec
def tai_configure(settings: Any) -> None:
    """Receive this plugin's settings, checked and typed.

    Called once per plugin that declared settings (:func:`tai_plugin_settings`), after
    the configuration is read and before any command runs — with the defaults when
    ``tai.toml`` has no ``[plugins.NAME]`` table.

    :param settings: an instance of the model the plugin declared.
    :return: nothing.

    Where it may be implemented: plugins that declare settings.

    Failure rule: if an implementation raises, the plugin is skipped (unregistered, with
    everything it registered), its failure shown as its load error and warned about.
    """


# ---------------------------------------------------------------------------------------
# Block lifecycle: parsed -> validated -> (streamed) -> run -> result
# ---------------------------------------------------------------------------------------


@hookspec
def tai_block_parsed(block: Block, kind: BlockKind | None) -> None:
    """A complete block came out of the parser.

    Called by the block pipeline for every complete block, in reply order, as soon as its
    closing line has arrived (while the reply still streams), before validation.

    :param block: the parsed :class:`tai_core.blocks.Block`.
    :param kind: its registered kind, or ``None`` when no plugin registered that kind (the
        block is then kept as a remaining block and never runs).
    :return: nothing; results are ignored.

    Where it may be implemented: observers (recording, logging, live displays).

    Failure rule: if an implementation raises, the attempt fails as a block that cannot
    be applied does (the round is retried), the message naming the plugin.
    """


@hookspec
def tai_validate_block(block: Block, kind: BlockKind) -> Sequence[str] | None:
    """Check a block before it is streamed or run.

    Called by the block pipeline after :func:`tai_block_parsed` for blocks of a known kind.
    The kind's own ``validate`` runs as the built-in implementation of this hook; plugins
    add checks of their own (a house rule about paths, a forbidden parameter).

    :param block: the parsed block.
    :param kind: its kind.
    :return: a sequence of problems (each a sentence the model can act on), or ``None``
        for none. Every implementation's problems are collected; any problem makes the
        block invalid, and the problems are fed back to the model.

    Where it may be implemented: block-kind plugins and policy plugins.

    Failure rule: if an implementation raises, the block is invalid, its problem the
    plugin's failure (the model reads it).
    """


@hookspec(firstresult=True)
def tai_run_block(block: Block, kind: BlockKind, context: RunContext) -> BlockResult | None:
    """Run one block after the reply has ended (deferred execution).

    Called by the block pipeline for each valid block of a kind that runs, after the round
    that carried it succeeded and its changes were flushed. The built-in implementation
    (``trylast``) calls ``kind.execute(block, context)``. Stops at the first non-``None``
    result, which makes three patterns possible:

    * refuse a block: a ``tryfirst`` implementation returns a refusing
      :class:`tai_core.blocks.BlockResult` (``ok=False``) and the kind never runs;
    * change its arguments: a ``tryfirst`` implementation calls ``kind.execute`` with a
      modified block and returns that result;
    * time, log or rewrite results: a ``wrapper=True`` implementation around the call
      (``result = yield``, then return the result or a replacement).

    :param block: the block to run.
    :param kind: its kind.
    :param context: the :class:`tai_core.blocks.RunContext` of the run (working directory,
        the command being run, the configuration).
    :return: the :class:`tai_core.blocks.BlockResult` whose text is fed back to the model.

    Where it may be implemented: the sandbox (policy), observers (wrappers), and plugins
    that replace how a kind runs.

    Failure rule: if an implementation raises, the block fails and its result names the
    plugin (the model reads it); the run goes on.
    """


# ---------------------------------------------------------------------------------------
# Generation lifecycle (called by the runtime)
# ---------------------------------------------------------------------------------------


@hookspec
def tai_session_start(session: Any) -> None:
    """A session (one run of a command, or an interactive session) has started.

    Called by the runtime after the session's configuration was validated and before the
    first round. Fire-and-forget.

    :param session: the runtime's read-only view of the session (its id, command, model
        and working directory).
    :return: nothing.

    Where it may be implemented: observers, recorders, plugins that prepare per-session
    state.

    Failure rule: if an implementation raises, the failure is one warning naming the
    plugin and the hook; the other plugins are still called and the run goes on.
    """


@hookspec
def tai_session_end(session: Any, error: BaseException | None) -> None:
    """A session has ended, successfully (``error is None``) or not.

    Called by the runtime once per session, after the last round and the final flush, also
    when the session was cancelled. Fire-and-forget.

    :param session: the session view, as in :func:`tai_session_start`.
    :param error: the terminal error, or ``None``.
    :return: nothing.

    Where it may be implemented: observers, recorders, clean-up of per-session state.

    Failure rule: if an implementation raises, the failure is one warning naming the
    plugin and the hook; the other plugins are still called and the run goes on.
    """


@hookspec
def tai_turn_start(session: Any, text: str) -> None:
    """A turn — one input of the user and the rounds that answer it — is starting.

    Called by the runtime when a submit is accepted, before its first round. Fire-and-
    forget: an exception is reported in one line naming the plugin, and the turn goes on.

    :param session: the session view.
    :param text: the input as the model will read it.
    :return: nothing.

    Where it may be implemented: observers, plugins that keep per-turn state.

    Failure rule: if an implementation raises, the failure is one warning naming the
    plugin and the hook; the other plugins are still called and the run goes on.
    """


@hookspec
def tai_turn_end(session: Any, outcome: str, error: BaseException | None) -> None:
    """A turn has ended.

    Called by the runtime once per accepted submit, after its last round (and its flush),
    however it ended. Fire-and-forget, like :func:`tai_turn_start`.

    :param session: the session view.
    :param outcome: ``"finished"``, ``"failed"`` or ``"cancelled"``.
    :param error: what ended a failed or cancelled turn, or ``None``.
    :return: nothing.

    Where it may be implemented: observers, cost trackers, notifiers.

    Failure rule: if an implementation raises, the failure is one warning naming the
    plugin and the hook; the other plugins are still called and the run goes on.
    """


@hookspec
def tai_round_start(session: Any, round_number: int) -> None:
    """A round (one model call and the blocks it carries) is about to start.

    Called by the runtime before the request of each round is built, retries included.
    Fire-and-forget.

    :param session: the session view.
    :param round_number: 1 for the first round of the session, counting every attempt.
    :return: nothing.

    Where it may be implemented: observers.

    Failure rule: if an implementation raises, the failure is one warning naming the
    plugin and the hook; the other plugins are still called and the run goes on.
    """


@hookspec
def tai_round_end(session: Any, round_number: int, outcome: str) -> None:
    """A round has ended.

    Called by the runtime after the round's outcome is known and, on success, after its
    changes reached the disk. Fire-and-forget.

    :param session: the session view.
    :param round_number: as in :func:`tai_round_start`.
    :param outcome: ``"success"``, ``"retry"`` (the attempt is discarded and retried from
        the snapshot before it) or ``"error"`` (the run cannot go on).
    :return: nothing.

    Where it may be implemented: observers.

    Failure rule: if an implementation raises, the failure is one warning naming the
    plugin and the hook; the other plugins are still called and the run goes on.
    """


@hookspec
def tai_system_prompt(command: str, cwd: str, config: Mapping[str, Any]) -> str | None:
    """Add standing text to the system prompt of a run: project instructions (``AGENTS.md``),
    an index of skills, a team's conventions.

    Called once whenever a command builds its system prompt (``tai``'s default command,
    ``tai next``, ``tai ai``, ``tai serve``), before the model is called. The text belongs
    to the static part of the prompt, which providers cache: it must depend only on the
    project and the configuration (never the time, the task or a random value), so that
    requests keep their shared prefix.

    :param command: the command's prompt name (``go``, ``any``, ``next``, ``ai``).
    :param cwd: the working directory of the run.
    :param config: the effective configuration.
    :return: ``None``, or Markdown text that starts with its own ``#`` heading; the texts
        of all plugins follow the block-format sections in plugin-name order, before the
        configured ``extra_system_prompt``.

    Where it may be implemented: plugins that bring standing instructions.

    Failure rule: if an implementation raises, its text is left out with one warning
    naming the plugin; the other plugins' texts are kept and the run goes on.
    """


@hookspec
def tai_before_model_call(
    session: Any, model: str, messages: Sequence[Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    """A request is about to be sent to the model; a plugin may adjust this call.

    Called by the runtime once per model call, after the prompt is built. Synchronous.

    :param session: the session view.
    :param model: the model name the call will use.
    :param messages: the request's messages (read-only), each ``{"role", "text"}``.
    :return: ``None``, or a mapping with any of the keys ``system_text`` (appended to the
        system prompt for this call only, each after a blank line, as a section of its
        own), ``headers`` (extra HTTP headers for this call; later plugins win on
        the same header), ``messages`` (the messages this call sends instead, each
        ``{"role": "user" | "assistant", "text": …}``, the last one the user's: a plugin
        injects or removes messages; the session's own conversation is unchanged; the
        last plugin's list wins) and ``model`` (the model this one call goes to instead of
        the session's, named as ``-model`` takes it — a generator's name or
        ``PREFIX:MODEL`` — and resolved against the configuration, confidential mode
        included; the last plugin's wins). Other keys, messages not so shaped, or a model
        that does not resolve fail the run with an error naming the plugin and them.

    Where it may be implemented: plugins that add instructions or tag requests.

    Failure rule: if an implementation raises, the call is not made and the run ends in
    one line naming the plugin.
    """


@hookspec
def tai_after_model_call(
    session: Any, model: str, finish_reason: str, usage: Mapping[str, int]
) -> None:
    """The model's reply has ended (streamed completely, or failed).

    Called by the runtime after each model call, before the reply's blocks run.
    Fire-and-forget.

    :param session: the session view.
    :param model: the model that answered.
    :param finish_reason: the provider's finish reason (``"stop"``, ``"length"``, …), or
        ``"error"``.
    :param usage: normalised token counts (``input``, ``cache_read``, ``cache_write``,
        ``output``, ``reasoning``).
    :return: nothing.

    Where it may be implemented: observers, cost trackers.

    Failure rule: if an implementation raises, the failure is one warning naming the
    plugin and the hook; the other plugins are still called and the run goes on.
    """


@hookspec
def tai_before_compaction(
    session: Any, messages: Sequence[Mapping[str, Any]], reason: str
) -> Mapping[str, Any] | None:
    """The session's conversation is about to be replaced by its summary.

    Called by the runtime before the summary call of a compaction: at the start of a turn
    whose request nears the model's window (``[auto_compact]``), or on the compact
    command. Synchronous.

    :param session: the session view.
    :param messages: the conversation (read-only), each ``{"role", "text"}``.
    :param reason: ``"auto"`` or ``"requested"``.
    :return: ``None``, or a mapping with any of the keys ``skip`` (true: the conversation
        is kept as it is — a plugin that manages the history itself; one plugin's skip
        is enough) and ``instructions`` (text added to what the summary is asked to keep;
        the texts of all plugins are joined). Another answer is one warning and ignored.

    Where it may be implemented: plugins that keep notes or memories of long sessions.

    Failure rule: if an implementation raises, the conversation is not compacted, one
    warning names the plugin, and the turn goes on.
    """


@hookspec
def tai_after_compaction(
    session: Any, reason: str, messages_before: int, messages_after: int, summary: str
) -> None:
    """The session's conversation was replaced by its summary.

    Called by the runtime after a compaction succeeded (never after one that failed or
    was skipped). Fire-and-forget.

    :param session: the session view.
    :param reason: ``"auto"`` or ``"requested"``.
    :param messages_before: the messages of the conversation before.
    :param messages_after: the messages after (the summary and its acknowledgement).
    :param summary: the summary's text.
    :return: nothing.

    Where it may be implemented: observers, plugins that archive summaries.

    Failure rule: if an implementation raises, the failure is one warning naming the
    plugin and the hook; the other plugins are still called and the run goes on.
    """


@hookspec
def tai_schedule_tick(now: float) -> None:
    """A periodic tick of the runtime, for background work.

    Called by the runtime every ``schedule_interval`` seconds of configuration from its
    first command to its shutdown, while sessions run and while they are idle (never when
    the interval is unset). Fire-and-forget: an exception is reported in one line naming
    the plugin, and the ticks go on.

    :param now: the tick's time, as :func:`time.time`.
    :return: nothing.

    Where it may be implemented: plugins with background duties (syncing, reminders).

    Failure rule: if an implementation raises, the failure is one warning naming the
    plugin and the hook; the other plugins are still called and the run goes on.
    """


# ---------------------------------------------------------------------------------------
# Isolation and policy (first result wins)
# ---------------------------------------------------------------------------------------


@hookspec
def tai_prepare_isolation(cwd: str, config: Mapping[str, Any], session: bool) -> None:
    """Prepare, outside the sandbox, what must not be writable inside it.

    Called by the command line right before :func:`tai_enter_isolation`, for the same
    commands, and also when the run goes without isolation. Inside the sandbox the
    directory of the helper programs tai installs is read-only, so a program a plugin
    will run (goimports, any helper) is installed here, where it can be, and never by a
    process a model controls. The same holds for the launch directory, where a start keeps
    what it compiled for the next (attrs' classes, regular expressions): a module the run
    will import anyway, imported here, is compiled once and not at every start.

    :param cwd: the working directory of the run.
    :param config: the merged configuration.
    :param session: whether the command runs a session with a model (every command
        isolated but ``patch``, which only applies a file of blocks): what only a
        session uses is imported only then.
    :return: nothing. An exception is reported as a warning and the run goes on; the
        plugin then fails later, where it needs the program, with its own message.

    Where it may be implemented: plugins that run programs they install themselves (the
    ``change`` plugin installs goimports in a Go module); plugins whose modules every run
    imports after entering (the sandbox's own, a provider's protocol).

    Failure rule: if an implementation raises, the failure is one warning naming the
    plugin and the hook; the other plugins are still called and the run goes on.
    """


@hookspec(firstresult=True)
def tai_enter_isolation(argv: Sequence[str], cwd: str, config: Mapping[str, Any]) -> str | None:
    """Move the rest of this run into an isolated environment (a sandbox) before it runs
    anything a model asks for.

    Called by the command line once per process, after plugins have loaded and before the
    command runs, for the commands that run model output (the default command, ``chat``,
    ``ai``, ``next``, ``patch``; never for ``--help``, ``plugins``, ``parse`` or ``policy``).
    The process is still single-threaded then. Stops at the first non-``None`` answer.

    An implementation may fork: the call then returns in the child, which carries on as
    tai inside the isolation, while the calling process never returns (it waits, forwards
    signals and exits with the child's status). It must mark the environment (a variable)
    so a tai started inside does not enter again. Isolation fails closed: when it cannot
    be set up, the implementation leaves the process unchanged and raises
    :class:`tai_core.plugins.IsolationError` saying why and how to proceed; the command
    line prints that one line and exits with status 2, running nothing.

    :param argv: the command-line arguments (without the program name), for an
        implementation that re-executes tai or honours an opt-out flag.
    :param cwd: the working directory of the run.
    :param config: the merged configuration (``protected_paths``, …).
    :return: one line saying what is in force (``"sandbox: …"``, or why there is none when
        the user turned it off on purpose). ``None`` leaves it to other plugins; when no
        plugin answers, the command line refuses to run (unless ``TAI_NO_SANDBOX=1``).

    Where it may be implemented: the sandbox distribution; plugins that provide another
    isolation (containers, Landlock) — ``tryfirst`` to take precedence.

    Failure rule: if an implementation raises anything but
    :class:`tai_core.IsolationError`, nothing runs either: one line naming the plugin,
    exit status 2.
    """


@hookspec
def tai_block_process(argv: list[str], env: dict[str, str], config: Mapping[str, Any]) -> None:
    """Adjust a program a block is about to start: its arguments and environment.

    Called by the block kinds that run programs (``shell``, ``go-test``, ``pytest``;
    third-party kinds should do the same) right before the process starts, with lists and
    dictionaries that implementations change in place. Every implementation is called, in
    the usual order.

    :param argv: the program and its arguments; a wrapper may be put in front (the
        sandbox's network cut runs the program in a namespace without network).
    :param env: the environment the program gets, a copy of tai's; secrets are removed
        here (the core removes provider keys, ``*_KEY``/``*_TOKEN``/``*_SECRET``/``*_PASS``
        and similar variables, and values with a password in a URL, by the
        ``shell_environment`` configuration: :mod:`tai_core.blocks._environment`).
    :param config: the merged configuration of the run.
    :return: nothing; results are ignored.

    Where it may be implemented: policy plugins (environment rules, wrappers such as
    network cuts, resource limits).

    Failure rule: if an implementation raises, the program is not started and the block
    fails, its result naming the plugin.
    """


@hookspec(firstresult=True)
def tai_shell_policy(
    command: str, cwd: str, ask: Callable[[str], bool] | None
) -> tuple[bool, str] | None:
    """Decide whether a shell command may run.

    Called by ``tai policy check`` and by whatever is about to run a command. The sandbox
    distribution also refuses shell blocks by the same decision in a ``tryfirst``
    :func:`tai_run_block` (hook implementations cannot call hooks), so a plugin replacing
    the policy refuses blocks the same way. Stops at the first non-``None`` answer.

    :param command: the command text, as the model wrote it.
    :param cwd: the directory it would run in.
    :param ask: ``ask(question)`` asks the user a yes-or-no question through the run's
        clients and returns the answer (no when no one answers), for a policy that lets the
        user approve a command (``-approve ask``); ``None`` where no one can be asked
        (``tai policy check``).
    :return: ``(allowed, reason)`` — ``reason`` says why, in one sentence the model and the
        user can read — or ``None`` to leave the decision to other plugins. When no plugin
        answers, the command is refused.

    Where it may be implemented: the sandbox distribution; policy plugins (``tryfirst`` to
    take precedence over it).

    Failure rule: if an implementation raises, the command is refused, the reason naming
    the plugin (a policy that cannot answer refuses).
    """


@hookspec(firstresult=True)
def tai_secret_file(path: str, data: bytes | None, config: Mapping[str, Any]) -> str | None:
    """Say why a file must not be sent to the model (it holds or may hold a secret).

    Called before a file's content is put in a request: by the context providers for each
    file they would show (through :attr:`tai_core.context.ContextRequest.secret`), by
    ``-file`` for each file a glob matched (a file named exactly is sent with a warning:
    the user decided), by ``ingest`` for ``<file>`` (refused) and ``<glob>`` (listed
    with a mark), and by change blocks (in a run and in ``tai patch``, through
    :meth:`tai_core.store.FileStore.withheld`) for each file they name, which are refused
    before the file is read, since their errors would quote it. A withheld file is never
    shown; it is named, with the reason, in the
    context's closing list "Files withheld as secrets". Stops at the first non-``None``
    answer, so any plugin that gives a reason withholds the file.

    The core's own plugin answers first (``tryfirst``) with the name rules of
    :mod:`tai_core.context._secrets` and the configuration's ``secret_files``; it cannot
    be disabled, so with no other plugin installed files are still withheld by name.

    :param path: the file's path as the model would see it: relative to the working
        directory (``/``-separated), or absolute outside it (a symbolic link's target is
        asked about under its own path too).
    :param data: the bytes about to be sent, or ``None`` when only the name is judged (a
        listing that shows no content); an implementation that judges content returns
        ``None`` for ``None``.
    :param config: the merged configuration of the run.
    :return: the reason, a short phrase naming what the file is (``"environment
        file"``, ``"holds what looks like an AWS access key"``) — never the secret
        itself — or ``None`` to leave the file to other plugins. When no plugin answers,
        the file is sent.

    Where it may be implemented: secret detectors (tai-sandbox's ``secrets`` plugin scans
    content); policy plugins with rules of their own (``tryfirst`` to answer before the
    content scan).

    Failure rule: if an implementation raises, the file is withheld, the reason naming
    the plugin (a check that cannot answer withholds).
    """


@hookspec(firstresult=True)
def tai_path_policy(path: str, operation: str) -> tuple[bool, str] | None:
    """Decide whether a path may be read or written.

    Called before a change block touches a file and before a fetch block reads one. Stops at
    the first non-``None`` answer.

    :param path: the path, relative to the working directory or absolute.
    :param operation: ``"read"``, ``"write"``, ``"create"``, ``"delete"`` or ``"rename"``.
    :return: ``(allowed, reason)``, or ``None`` to leave the decision to other plugins.
        When no plugin answers, paths inside the working directory are allowed and others
        refused.

    Where it may be implemented: the sandbox distribution; policy plugins.

    Failure rule: if an implementation raises, the write (or read) is refused, the
    reason naming the plugin (a policy that cannot answer refuses).
    """


# ---------------------------------------------------------------------------------------
# Checkpoints (called by the pipeline)
# ---------------------------------------------------------------------------------------


@hookspec
def tai_checkpoint(  # noqa: PLR0917 - pluggy passes hook arguments by name
    root: str,
    session_id: str,
    round_number: int,
    reason: str,
    config: Mapping[str, Any],
    command_id: str,
) -> None:
    """Record the working tree as it is now, so that ``tai undo`` can bring it back.

    Called by the pipeline with ``reason``:

    * ``"write"`` — right before a round's changes are flushed to disk (only when the
      round has changes to write);
    * ``"run"`` — right before the first block of a round whose kind starts programs
      (:attr:`tai_core.blocks.BlockKind.runs_programs`: ``shell``, ``go-test``,
      ``pytest``), after that round's flush;
    * ``"end"`` — when the run ends (done, failed or cancelled): the tree as the run left
      it, which tells ``tai undo`` the edits made after the run from the run's own.

    Synchronous: the pipeline waits, since the point is to record the tree before it
    changes. An implementation must not fail the run: it reports its own problems (a
    warning) and returns.

    :param root: the working directory (its real path is the key of its checkpoints).
    :param session_id: the id of the session (the run) the checkpoint belongs to.
    :param round_number: the round about to write or run programs (for ``"end"``: the
        last round).
    :param reason: ``"write"``, ``"run"`` or ``"end"``.
    :param config: the merged configuration of the run (``checkpoint_max_file_bytes``).
    :param command_id: the tai command the run is one of: the goal loops of one ``tai
        chat`` share it (``tai undo`` undoes what the command did, all its loops); a run
        alone has its session id here.
    :return: nothing; results are ignored.

    Where it may be implemented: the checkpoint plugin (``checkpoints``, tai-checkpoints);
    plugins that keep the tree elsewhere (a VCS snapshot, a backup service).

    Failure rule: if an implementation raises, the failure is one warning naming the
    plugin and the hook; the other plugins are still called and the run goes on.
    """
