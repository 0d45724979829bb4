"""Walking a command's syntax tree: every command it would run, and what feeds them.

The walk visits every node of the tree, so commands inside ``$(…)``, ``<(…)``,
subshells, pipelines, lists, loops, conditions and function bodies are all checked.
Before walking, it collects what the script itself assigns (``X=…``, ``for x in …``,
``read x``, ``cd dir``, ``eval``'s code) into the :class:`~tai_sandbox._words.Scope` the
words are expanded in (:mod:`tai_sandbox._scope`); the order of statements is ignored, so
a variable's every value counts.
Besides each command's own rules (``_rules``), the walk checks what only the tree shows:
redirections that write, code fed to a shell or an interpreter (wrappers looked through)
through a pipe, a here-document or a here-string, and functions that call themselves in a
pipeline or in the background.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NoReturn

import attrs

from tai_sandbox import _commands, _danger, _rules
from tai_sandbox._code import check_code
from tai_sandbox._scope import script_scope
from tai_sandbox._syntax import descendants, node_text, parse
from tai_sandbox._words import DYNAMIC, Expander, Scope, TooComplex
from tai_sandbox._words import pipeline_output as _output

if TYPE_CHECKING:
    from tree_sitter import Node

#: Most levels of shell code inside shell code (``sh -c "eval 'bash -c …'"``).
MAX_DEPTH = 8
_WRITE_OPERATORS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&", "&>|"})


class Refused(Exception):
    """The command is refused; the message says why."""


def _stdin_parameters(argv: tuple[str, ...], scope: Scope) -> tuple[str, ...] | None:
    """``$0``, ``$1``, … of code read from the input of ``argv``: a sourced file's are the
    script's own; a shell's are its name and the words after its options (``bash -s a``),
    or, when its script is its input (``bash /dev/stdin a``), that script's name and them."""
    if _commands.program(argv[0]) in ("source", "."):
        return scope.positional
    call = _commands.shell_call(argv[1:])
    operands = argv[1 + call.operands :]
    if call.stdin or not operands:
        return (argv[0], *operands)
    return operands


class Analysis:
    """Checks shell commands run in ``cwd`` against the destructive patterns."""

    #: How deep the shell code being read is nested (set by :meth:`check`).
    _depth: int
    #: Files the command downloads, and files it runs as code (absolute paths).
    _downloads: set[str]
    _runs: set[str]

    def __init__(
        self,
        cwd: str,
        environ: Mapping[str, str],
        protection: Callable[[str, str | None], str | None],
    ) -> None:
        self.cwd = cwd
        self.environ = environ
        self._protection = protection

    def check(self, text: str) -> str | None:
        """Why ``text`` is refused, or ``None`` when no destructive pattern is found."""
        self._depth = 0
        self._downloads, self._runs = set(), set()
        try:
            self._script(text, None, ("sh",))
            ran = sorted(self._downloads & self._runs)
            if ran:
                self.refuse(f"it runs {ran[0]}, which it downloads: code nobody has read")
        except Refused as refusal:
            return str(refusal)
        except TooComplex:
            return "the command stands for too many possible commands to check"
        return None

    # -- the Checker protocol of _rules -------------------------------------------------

    def refuse(self, reason: str) -> NoReturn:
        """Stop the analysis: refused for ``reason``."""
        raise Refused(reason)

    def run(self, argv: Sequence[str], scope: Scope) -> None:
        """Check a command that another command runs."""
        self._invocation(tuple(argv), scope)

    def script(self, text: str, scope: Scope, positional: tuple[str, ...] | None) -> None:
        """Check shell code that a command runs (parsed again)."""
        if self._depth >= MAX_DEPTH:
            self.refuse(f"shell code is nested more than {MAX_DEPTH} levels deep")
        self._depth += 1
        try:
            self._script(text, scope, positional)
        finally:
            self._depth -= 1

    def protection(self, path: str, scope: Scope) -> str | None:
        """Why writing ``path`` would change a protected path, or ``None``."""
        for base in scope.dirs:
            reason = self._protection(path, base)
            if reason:
                return reason
        return None

    # -- the walk -----------------------------------------------------------------------

    def _script(self, text: str, parent: Scope | None, positional: tuple[str, ...] | None) -> None:
        root, source = parse(text)
        if root.has_error:
            bad = next(n for n in descendants(root) if n.type == "ERROR" or n.is_missing)
            near = node_text(bad, source).strip()[:40] or "the end"
            self.refuse(f"it is not a well-formed shell command (near {near!r})")
        base = Scope({}, positional, (self.cwd,), self.environ)
        if parent is not None:
            base = attrs.evolve(parent, positional=positional)
        self._walk(root, Expander(source, script_scope(root, source, base)))

    def _walk(self, node: Node, expander: Expander) -> None:
        kind = node.type
        if kind == "function_definition":
            self._function(node, expander)
            return
        if kind == "command":
            self._command(node, expander)
        elif kind == "pipeline":
            self._pipeline(node, expander)
        elif kind == "file_redirect":
            self._redirect(node, expander)
        for child in node.children:
            self._walk(child, expander)

    def _command(self, node: Node, expander: Expander) -> None:
        name = node.child_by_field_name("name")
        if name is None:
            return
        # tree-sitter-bash puts a here-string in the command, a here-document and < around it
        feeds = [c for c in node.children if c.type == "herestring_redirect"]
        if node.parent is not None and node.parent.type == "redirected_statement":
            feeds += [
                child
                for child in node.parent.children_by_field_name("redirect")
                if child.type in ("heredoc_redirect", "file_redirect")
            ]
        for argv in expander.argvs([name, *node.children_by_field_name("argument")]):
            self._invocation(argv, expander.scope)
            if feeds and _commands.reads_code_from_stdin(argv):
                for feed in feeds:
                    self._fed_code(feed, argv, expander)

    def _invocation(self, argv: tuple[str, ...], scope: Scope) -> None:
        while argv:
            if DYNAMIC in argv[0]:
                self.refuse(
                    f"the program {_danger.shown(argv[0])} is only known when the command runs"
                )
            inner = _commands.unwrap(argv)
            if inner is None:
                break
            directory = _commands.run_directory(argv)
            if directory is not None:  # env -C DIR, sudo -D DIR: the command runs there
                known = DYNAMIC not in directory
                dirs = (_danger.absolute(directory, base) if known else None for base in scope.dirs)
                scope = attrs.evolve(scope, dirs=tuple(dict.fromkeys(dirs)))
            argv = inner
        if argv:
            self._record(self._downloads, _commands.downloaded(argv), scope)
            executed = _commands.executed(argv)
            if executed:
                self._record(self._runs, [executed], scope)
            name = _commands.program(argv[0])
            rule = _rules.rule_for(name)
            if rule is not None:
                rule(self, name, list(argv[1:]), scope)

    @staticmethod
    def _record(found: set[str], paths: Sequence[str], scope: Scope) -> None:
        """Add ``paths`` to ``found``, made absolute against each directory of ``scope``."""
        for path in paths:
            if path and DYNAMIC not in path:
                found.update(full for base in scope.dirs if (full := _danger.absolute(path, base)))

    def _fed_code(self, feed: Node, argv: tuple[str, ...], expander: Expander) -> None:
        """Code given to a shell or an interpreter on its input by a here-document, a
        here-string or ``<``."""
        reader = _commands.program(argv[0])
        if feed.type == "heredoc_redirect":
            # a well-formed here-document has a body, empty or not (others are refused)
            body = next(c for c in feed.children if c.type == "heredoc_body")
            text = node_text(body, expander.source)
        else:
            if feed.type == "file_redirect" and not any(c.type == "<" for c in feed.children):
                return
            words = [c for c in feed.named_children if c.type != "file_descriptor"]
            values = [" ".join(fields) for word in words[-1:] for fields in expander.expand(word)]
            if feed.type == "file_redirect":
                if any(DYNAMIC in value for value in values):
                    self.refuse(f"{reader} runs code read from a command's output")
                return
            if any(DYNAMIC in value for value in values):
                self.refuse(f"{reader} runs code only known when the command runs")
            text = "\n".join(values)
        self._input_code(text, argv, expander.scope)

    def _input_code(self, text: str, argv: tuple[str, ...], scope: Scope) -> None:
        """Check ``text``, the code ``argv`` reads from its input, by what runs it once its
        wrappers are looked through (``sudo bash``): a shell, with its parameters, or an
        interpreter."""
        runner = _commands.stdin_reader(argv) or _commands.unwrapped(argv)
        name = _commands.program(runner[0])
        if name in _commands.SHELLS or name in ("source", "."):
            self.script(text, scope, _stdin_parameters(runner, scope))
        elif name in _commands.INTERPRETERS:
            check_code(self, name, text, scope)

    def _pipeline(self, node: Node, expander: Expander) -> None:
        elements = [c for c in node.named_children if c.type != "comment"]
        for index, element in enumerate(elements[1:], 1):
            # a redirection after a pipeline's command is the whole pipeline's (tree-sitter
            # wraps the pipeline so far), so an element after the first is never redirected
            consumer = element
            name = consumer.child_by_field_name("name") if consumer.type == "command" else None
            if name is None:
                continue
            words = [name, *consumer.children_by_field_name("argument")]
            for argv in expander.argvs(words):
                if _commands.reads_code_from_stdin(argv):
                    self._piped_code(elements[:index], argv, expander)

    def _piped_code(self, upstream: list[Node], argv: tuple[str, ...], expander: Expander) -> None:
        reader = _commands.program(argv[0])
        text = _output(upstream, expander)
        if text is not None:
            self._input_code(text, argv, expander.scope)
            return
        for node in upstream:
            for found in descendants(node):
                name = found.child_by_field_name("name") if found.type == "command" else None
                if (
                    name is not None
                    and _commands.program(node_text(name, expander.source).strip("\"'\\"))
                    in _commands.DOWNLOADERS
                ):
                    self.refuse(f"it pipes a download into {reader}, running code nobody has read")
        self.refuse(f"it pipes a command's output into {reader}, running code only known then")

    def _redirect(self, node: Node, expander: Expander) -> None:
        operator = next(c.type for c in node.children if not c.is_named)  # >, >>, <, …
        destination = node.child_by_field_name("destination")
        if operator not in _WRITE_OPERATORS or destination is None:
            return
        body = node.parent.child_by_field_name("body") if node.parent is not None else None
        name = body.child_by_field_name("name") if body and body.type == "command" else None
        source = expander.source
        downloads = name is not None and (
            _commands.program(node_text(name, source)) in _commands.DOWNLOADERS
        )
        for fields in expander.expand(destination):
            if downloads:
                self._record(self._downloads, fields, expander.scope)
            for path in fields:
                if operator == ">&" and (path.isdigit() or path == "-"):
                    continue
                _danger.check_written(self, path, expander.scope, "a redirection")

    def _function(self, node: Node, expander: Expander) -> None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name_node is None or body is None:
            return
        name = node_text(name_node, expander.source)
        calls = [
            found
            for found in descendants(body)
            if found.type == "command"
            and (called := found.child_by_field_name("name")) is not None
            and node_text(called, expander.source) == name
        ]
        spawns = any(n.type in ("&", "pipeline") for n in descendants(body))
        if calls and (len(calls) > 1 or spawns):
            self.refuse(
                f"the function {name} calls itself in a pipeline or the background: a fork bomb"
            )
        self._walk(body, Expander(expander.source, attrs.evolve(expander.scope, positional=None)))
