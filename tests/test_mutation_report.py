"""The verdict of a mutation run (scripts/_mutation_report.py): what counts as wording, which
survivors a kept entry explains, and that a result whose module or tests changed since its
run is not counted (no mutmut is run here)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def verdict() -> Iterator[ModuleType]:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        yield importlib.import_module("_mutation_report")
    finally:
        sys.path.remove(str(REPO / "scripts"))


@pytest.mark.parametrize(
    ("change", "prose"),
    [
        ('- raise E("cannot write")\n+ raise E("XXcannot writeXX")', True),
        ('- raise E(f"cannot write {path}")\n+ raise E(f"CANNOT WRITE {path}")', True),
        ('- raise E(f"cannot write {path}")\n+ raise E(f"cannot write {other}")', False),
        ('- x = "TMPDIR"\n+ x = "XXTMPDIRXX"', False),
        ("- if a and b:\n+ if a or b:", False),
        ('- f("a b")\n+ g("a b")', False),
        ('- f("a b")', False),
    ],
)
def test_only_prose_is_wording(verdict: ModuleType, change: str, prose: bool) -> None:
    assert verdict.wording(verdict.normalise(change)) is prose


def results(verdict: ModuleType, tmp_path: Path, source: str) -> tuple[Path, str]:
    """A module with one killed and one surviving mutant, stored as run on ``source``."""
    (tmp_path / "m.py").write_text(source, encoding="utf-8")
    (tmp_path / "test_m.py").write_text("def test(): pass\n", encoding="utf-8")
    taken = verdict.fingerprint(tmp_path, ["m.py", "test_m.py"])
    survivor = verdict.normalise("- return a + 1\n+ return a + 2")
    mutants = {"p.m.x_f__mutmut_1": ["killed", ""], "p.m.x_f__mutmut_2": ["survived", survivor]}
    verdict.save(tmp_path / "results", "p.m", taken, ["m.py", "test_m.py"], mutants)
    return tmp_path / "results", survivor


def test_a_survivor_is_open_until_a_kept_entry_explains_it(
    verdict: ModuleType,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    directory, survivor = results(verdict, tmp_path, "def f(a): return a + 1\n")
    now = verdict.fingerprint(tmp_path, ["m.py", "test_m.py"])
    assert verdict.report([("pkg/src/p/m.py", "p.m", now)], directory, []) == 1
    assert "unexplained survivor p.m.x_f__mutmut_2 (survived)" in capsys.readouterr().out
    kept = [verdict.Kept("p.m.x_f", survivor, "equivalent")]
    assert verdict.report([("pkg/src/p/m.py", "p.m", now)], directory, kept) == 0
    assert "killed 50.0%" in capsys.readouterr().out
    elsewhere = [verdict.Kept("p.m.x_g", survivor, "equivalent")]
    assert verdict.report([("pkg/src/p/m.py", "p.m", now)], directory, kept + elsewhere) == 1
    assert "kept entry matches no survivor now: p.m.x_g" in capsys.readouterr().out


@pytest.mark.parametrize("changed", ["m.py", "test_m.py"])
def test_a_result_is_stale_once_its_module_or_tests_change(
    verdict: ModuleType,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    changed: str,
) -> None:
    directory, survivor = results(verdict, tmp_path, "def f(a): return a + 1\n")
    kept = [verdict.Kept("p.m.x_f", survivor, "equivalent")]
    (tmp_path / changed).write_text("# changed\n", encoding="utf-8")
    now = verdict.fingerprint(tmp_path, ["m.py", "test_m.py"])
    assert verdict.report([("pkg/src/p/m.py", "p.m", now)], directory, kept) == 1
    out = capsys.readouterr().out
    assert "p/m.py" in out and "changed since its run" in out
    assert "killed 50" not in out and "kept entry matches no survivor" not in out


@pytest.fixture(scope="module")
def mutation() -> Iterator[ModuleType]:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        yield importlib.import_module("mutation")
    finally:
        sys.path.remove(str(REPO / "scripts"))


@pytest.mark.parametrize(
    ("tests", "changed", "refusal"),
    [
        (["test_m.py", "test_new.py"], None, None),
        (["test_m.py", "test_new.py"], "test_m.py", "has changed since"),
        (["test_m.py", "test_new.py"], "m.py", "has changed since"),
        (["test_m.py"], None, None),  # a stopped run goes on
        (["test_new.py"], None, "no longer one of its tests"),
    ],
)
def test_only_survivors_run_again_when_tests_were_only_added(
    verdict: ModuleType,
    mutation: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tests: list[str],
    changed: str | None,
    refusal: str | None,
) -> None:
    """``--survivors`` goes on from a stored result only while its module and test files are
    as they were and are still its tests (its kills hold); test files may have been added."""
    directory, survivor = results(verdict, tmp_path, "def f(a): return a + 1\n")
    (tmp_path / "test_new.py").write_text("def test_new(): pass\n", encoding="utf-8")
    if changed:
        (tmp_path / changed).write_text("# changed\n", encoding="utf-8")
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    monkeypatch.setattr(mutation, "RESULTS", directory)
    target = mutation.Target("m.py", tuple(tests))
    monkeypatch.setattr(mutation.Target, "dotted", property(lambda self: "p.m"))
    if refusal is None:
        assert mutation.survivors([target]) == {"p.m.x_f__mutmut_2": ["survived", survivor]}
    else:
        with pytest.raises(SystemExit, match=refusal):
            mutation.survivors([target])


def test_a_survivor_is_run_again_against_its_own_target_s_tests_first(
    mutation: ModuleType,
) -> None:
    """The second chance runs a mutant against the target's own test paths that reach its
    function, whole (a module-scoped fixture records its reach under the first test that
    asks for it), then against other tests that reach it, in turn from each file."""
    reaching = [
        "tests/a/test_other.py::test_1",
        "tests/a/test_other.py::test_2",
        "tests/b/test_mine.py::test_1[x]",
        "tests/b/test_also.py::test_only",
        "tests/c/test_third.py::test_1",
    ]
    own = ("tests/b/test_mine.py", "tests/b/test_unreached.py", "tests/b/test_also.py::test_only")
    assert mutation.sample(reaching, 4, own) == [
        "tests/b/test_mine.py",
        "tests/b/test_also.py::test_only",
        "tests/a/test_other.py::test_1",
        "tests/c/test_third.py::test_1",
    ]
    assert mutation.sample(reaching, 3) == [
        "tests/a/test_other.py::test_1",
        "tests/b/test_also.py::test_only",
        "tests/b/test_mine.py::test_1[x]",
    ]


def test_a_stub_keeps_the_change_as_written(verdict: ModuleType) -> None:
    """A change holding backslashes (a Windows separator, an escape) reads back unchanged."""
    import tomllib

    change = '- text = text.replace("\\\\", "/")\n+ text = text.replace("XX\\\\XX", "/")'
    entry = tomllib.loads(verdict.stub("m.x_f__mutmut_1", change))["kept"][0]
    assert entry["change"].strip("\n") == change and entry["function"] == "m.x_f"


def test_every_kept_survivor_says_why(verdict: ModuleType) -> None:
    kept = verdict.load_kept(REPO / "scripts" / "mutation_survivors.toml")
    assert kept, "the survivors file lists nothing"
    for entry in kept:
        assert entry.reason.startswith(("equivalent: ", "accepted: ")), entry
        packages = ("tai_core.", "tai_sandbox.", "tai_provider_kit.", "tai_changes.", "tai_python.")
        assert entry.function.startswith(packages), entry
        assert entry.change.startswith(("- ", "+ ")), entry
    assert len({(k.function, k.change) for k in kept}) == len(kept), "an entry is listed twice"


def test_a_second_run_in_the_same_stage_is_refused(tmp_path: Path) -> None:
    """Two runs in one stage would overwrite each other's mutants: the second ends at once
    (it happened: a --survivors run restaged the tree under a running one)."""
    import subprocess

    hold = (
        "import sys; from pathlib import Path; stage = Path(sys.argv[1]); "
        f"sys.path.insert(0, {str(REPO / 'scripts')!r}); import mutation; "
        "mutation.STAGE = stage; mutation.hold_the_stage(); print('held', flush=True); "
        "sys.stdin.read()"
    )
    stage = str(tmp_path / "stage")
    first = subprocess.Popen([sys.executable, "-c", hold, stage], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert first.stdout is not None and first.stdout.readline() == "held\n"
        second = subprocess.run([sys.executable, "-c", hold, stage], capture_output=True,
                                text=True, timeout=60)  # fmt: skip
        assert second.returncode == 1
        assert f"another run is using {stage}" in second.stderr
    finally:
        first.kill()
        first.wait()
    again = subprocess.run([sys.executable, "-c", hold, stage], input="", capture_output=True,
                           text=True, timeout=60)  # fmt: skip
    assert again.stdout == "held\n"  # the lock died with its holder
