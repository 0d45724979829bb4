"""Where the shell policy's view of a script stops (tai_sandbox._scope, _words): code
``eval`` runs never defines a variable before it is read, directories that still change
after the last round leave a relative path to the run, and a split only the run knows
loses nothing that follows it in the word. Each case is a defect the policy once could
have had unseen (mutation testing found no test for it)."""

from __future__ import annotations

from pathlib import Path

from tai_sandbox._scope import script_scope
from tai_sandbox._syntax import parse
from tai_sandbox._words import DYNAMIC, Expander, Scope

from .policy_cases import ROOT, check


def scope_of(text: str) -> Scope:
    root, source = parse(text)
    return script_scope(root, source, Scope({}, ("sh",), ("/w",), {"HOME": "/h"}))


def test_an_assignment_in_eval_code_keeps_what_the_variable_held_before(repo: Path) -> None:
    """``X=build`` at the top of a script defines X before anything reads it, so ``$X`` is
    ``build`` only; the same text run by ``eval`` may come after a read (here
    ``rm -rf "$X"/`` with X unset, which is ``rm -rf /``)."""
    check(
        [
            ('rm -rf "$X"/; eval X=build', ROOT),
            ('rm -rf "$X"/; eval "X=build; Y=1"', ROOT),
            ("X=build; rm -rf \"$X\"/", "allowed: no destructive pattern found "
             "(no allowed_shell_commands: any program runs)"),
        ],
        repo,
    )  # fmt: skip


def test_directories_that_still_change_after_the_last_round_are_left_to_the_run() -> None:
    # X grows in every round and is given up; the directories stay as they are
    steady = scope_of("X=a; X=$X.; cd /x")
    assert steady.values("X") is None
    assert steady.dirs == ("/w", "/x")
    # a cd to the growing value leads one directory deeper in every round: where the
    # last one leads is only known when the command runs
    growing = scope_of("X=a; X=$X/a; cd $X").dirs
    assert {"/w", "/w/a", "/w/a/a"} <= set(growing)
    assert growing[-1] is None


def expanded(words: str, scope: Scope) -> list[tuple[str, ...]]:
    root, source = parse(f"cmd {words}")
    command = next(n for n in root.children[0].children if n.type == "command_name").parent
    assert command is not None
    return Expander(source, scope).argvs(command.children_by_field_name("argument"))


def test_a_split_only_the_run_knows_keeps_the_rest_of_the_word() -> None:
    """With IFS unknown, ``$x`` may split anywhere; what follows it in the word is still
    part of the last field, and ``"$@"`` after it still gives its own fields (``/``)."""
    unknown = Scope(
        {"IFS": None, "x": frozenset({"a b"})}, ("sh", "k", "/"), ("/w",), {"HOME": "/h"}
    )
    assert expanded('$x"/etc"', unknown) == [(f"{DYNAMIC}/etc",)]
    assert expanded('$x"$@"', unknown) == [(f"{DYNAMIC}k", "/")]
