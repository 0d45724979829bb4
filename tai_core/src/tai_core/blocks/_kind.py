"""The contract every block kind fulfils, and the values a block run produces.

A block kind is a plain object registered through ``tai_register_block_kinds``; the core
never imports a kind by name. :class:`BlockKind` is a base class that implements the
generic parts (parameter validation, the refusal to run a kind whose execution does not
exist) so a plugin only declares data and overrides what is specific to it. Plugins may
also fulfil the contract without inheriting, as long as the attributes and methods below
exist (the plugin manager checks them at registration).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import attrs

from tai_core.blocks._header import NAME_CHARS

if TYPE_CHECKING:
    from tai_core.blocks._model import Block

#: The commands a kind may be available in: Go and Python goal loops, any-text generation,
#: the interactive chat, text answers.
COMMANDS: frozenset[str] = frozenset({"go", "py", "any", "ai", "next"})

#: The attributes and methods a registered kind must have.
REQUIRED_MEMBERS: tuple[str, ...] = (
    "name",
    "params",
    "prompt_section",
    "restatement",
    "disabled_notice",
    "streams",
    "triggers_round",
    "commands",
    "max_rounds",
    "runs",
    "runs_programs",
    "validate",
    "execute",
)


def is_valid_name(name: str) -> bool:
    """True when ``name`` is usable as a kind or parameter name in a block header."""
    return bool(name) and all(char in NAME_CHARS for char in name)


@attrs.frozen
class Param:
    """One header parameter of a kind: ``name="value"`` in ``kind(name="value")``."""

    name: str
    description: str
    required: bool = False
    #: When not empty, the only values accepted.
    choices: tuple[str, ...] = ()


@attrs.frozen
class BlockResult:
    """What running a block produced: the text fed back to the model next round.

    ``ok`` is false when the block failed or was refused; ``triggers_round`` says whether
    this result alone is a reason for another round.
    """

    kind: str
    ok: bool
    text: str
    triggers_round: bool = True


class RunContext(Protocol):
    """What a running block may know about its run (provided by the pipeline)."""

    @property
    def cwd(self) -> Path:
        """The working directory: every relative path of a block is relative to it."""
        ...

    @property
    def command(self) -> str:
        """The command being run: one of :data:`COMMANDS`."""
        ...

    @property
    def config(self) -> Mapping[str, Any]:
        """The merged configuration of the run."""
        ...

    @property
    def hook(self) -> Any:
        """The plugin manager's hook relay, for kinds that consult policies
        (``context.hook.tai_shell_policy(command=…, cwd=…, ask=…)``)."""
        ...


class BlockNotRunnableError(Exception):
    """A block of a kind whose execution this installation of tai does not provide.

    Raised instead of pretending: the block is reported as not run, with the reason.
    """


def _then(suggestion: str) -> str:
    """``: did you mean 'x'?`` after a problem, or ``""`` when nothing is near."""
    return f": {suggestion}" if suggestion else ""


class BlockKind:
    """Base class of block kinds: declare the class attributes, override what differs.

    Subclasses set :attr:`name`, :attr:`params`, :attr:`prompt_section`,
    :attr:`restatement`, :attr:`disabled_notice`, :attr:`streams`,
    :attr:`triggers_round` and :attr:`commands` (and :attr:`omitted_in`), and override
    :meth:`check_body`, :meth:`execute` (and :meth:`offered`) as needed.
    """

    #: The name written in the header: ``<<W name(...)``.
    name: ClassVar[str] = ""
    #: The parameters the header accepts; any other is refused by :meth:`validate`.
    params: ClassVar[tuple[Param, ...]] = ()
    #: The kind's section of the system prompt: what it does, its parameters and body.
    prompt_section: ClassVar[str] = ""
    #: The one-line reminder repeated at the end of the user prompt.
    restatement: ClassVar[str] = ""
    #: Said in the prompt when the kind is disabled: what to do instead.
    disabled_notice: ClassVar[str] = ""
    #: True when blocks are applied while the reply still streams (change blocks).
    streams: ClassVar[bool] = False
    #: True when a block of this kind makes the pipeline start another round.
    triggers_round: ClassVar[bool] = False
    #: The commands this kind is available in (a subset of :data:`COMMANDS`).
    commands: ClassVar[frozenset[str]] = frozenset()
    #: The commands in which this kind is not even announced as disabled, because it has
    #: no meaning there: another language's goal loops (``go-test``'s "tests cannot be run
    #: now" would mislead in a Python project, which has ``pytest``). Optional.
    omitted_in: ClassVar[frozenset[str]] = frozenset()
    #: When not empty, what the body must hold; a block without a body is then refused.
    requires_body: ClassVar[str] = ""
    #: Most rounds of a run in which blocks of this kind may run (0: no limit).
    max_rounds: ClassVar[int] = 0
    #: False for signal kinds the pipeline itself interprets (summary, done, plans,
    #: responses): their blocks are recorded, never executed.
    runs: ClassVar[bool] = True
    #: True for kinds whose blocks start programs (``shell``, ``go-test``, ``pytest``): the
    #: pipeline checkpoints the working tree before the first such block of a round, so
    #: what the program does to the tree can be undone (``tai undo``).
    runs_programs: ClassVar[bool] = False

    def available(self, config: Mapping[str, Any]) -> bool:
        """Whether the kind is switched on by ``config`` (flags already merged in); a kind
        that is off is announced as disabled in the prompt. On by default."""
        del config
        return True

    def validate(self, block: Block) -> list[str]:
        """Problems of ``block`` (empty when valid): unknown, missing or bad parameters, a
        missing body when :attr:`requires_body` says what it must hold, then whatever
        :meth:`check_body` finds."""
        from tai_core._nearest import did_you_mean

        known = {param.name: param for param in self.params}
        taken = f" (they take: {', '.join(sorted(known))})" if known else ""
        problems = [
            f"{self.name} blocks take no parameter {name!r}{taken}"
            + _then(did_you_mean(name, known))
            for name in block.params
            if name not in known
        ]
        for param in self.params:
            value = block.params.get(param.name)
            if not value:
                if param.required:
                    problems.append(
                        f"{self.name} blocks need the parameter {param.name!r} (not empty)"
                    )
            elif param.choices and value not in param.choices:
                problems.append(
                    f"{self.name} parameter {param.name!r} must be one of "
                    f"{', '.join(param.choices)}, not {value!r}"
                    + _then(did_you_mean(value, param.choices))
                )
        if self.requires_body and not block.body:
            article = "an" if self.name[:1].lower() in "aeiou" else "a"
            problems.append(f"{article} {self.name} block needs {self.requires_body} as its body")
        problems.extend(self.check_body(block))
        return problems

    def check_body(self, block: Block) -> list[str]:
        """Kind-specific problems of the body (none by default)."""
        del block
        return []

    def apply(self, block: Block, workspace: Any) -> Any:
        """Streaming kinds: apply ``block`` to the run's in-memory ``workspace`` while the
        reply streams and return the new workspace value; the base refuses."""
        del workspace
        raise BlockNotRunnableError(
            f"{self.name} blocks are recognised but cannot be applied in this version of tai; "
            f"the block at line {block.line} was not applied"
        )

    def offered(self, command: str, files: Sequence[str]) -> bool:
        """Whether the kind is worth offering in ``command`` to a model shown ``files``
        (the paths of the context's files, relative to the working directory): a kind that
        is not is left out of the prompt, as where :attr:`omitted_in` names the command
        (the Go kinds in an any-text run that shows no Go file). What a run shows changes
        seldom, so the cached prefix holds. Offered by default."""
        del command, files
        return True

    def prompt_for(self, command: str) -> str:
        """The kind's section of the system prompt in ``command``: :attr:`prompt_section`,
        unless the kind says less where part of it has no meaning (the change kind leaves
        out the rules of Go files in Python goal loops, and the other way round). The
        section must depend on ``command`` alone: it is part of the cached prefix."""
        del command
        return self.prompt_section

    def execute(self, block: Block, context: RunContext) -> BlockResult:
        """Run ``block``; the base refuses, saying this kind cannot run here."""
        del block, context
        raise BlockNotRunnableError(
            f"{self.name} blocks are recognised but cannot run in this version of tai; "
            "the block was not run"
        )


def missing_members(kind: object) -> list[str]:
    """The members of the kind contract that ``kind`` lacks or gets wrong."""
    missing = [member for member in REQUIRED_MEMBERS if not hasattr(kind, member)]
    if getattr(kind, "streams", False) and not hasattr(kind, "apply"):
        missing.append("apply (a kind that streams is applied while the reply streams)")
    if missing:
        return missing
    problems: list[str] = []
    name = kind.name  # type: ignore[attr-defined]
    if not isinstance(name, str) or not is_valid_name(name):
        problems.append(f"name {name!r} (letters, digits, '_', '.', ':' and '-' only)")
    unknown = set(kind.commands) - COMMANDS  # type: ignore[attr-defined]
    if unknown:
        problems.append(f"commands {sorted(unknown)} (known: {sorted(COMMANDS)})")
    return problems
