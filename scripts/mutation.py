"""Mutation testing of tai's safety core: does the suite notice when the code is wrong?

Usage (from the repository root; `scripts/_uv.sh` provides uv):

    uv run --no-sync python scripts/mutation.py              # every target
    uv run --no-sync python scripts/mutation.py --since main # targets changed since a commit
    uv run --no-sync python scripts/mutation.py --module tai_core/src/tai_core/store/_paths.py
    uv run --no-sync python scripts/mutation.py --survivors --module ...  # after adding tests,
                                                # or to finish a run that was stopped

The targets (modules and the tests that guard them) are listed in
`scripts/mutation_targets.toml`; the surviving mutants that are kept, each with its reason,
in `scripts/mutation_survivors.toml`. The run ends with a score per module and exits 1 when
a mutant survives that the survivors file does not explain (or a kept entry no longer
matches any survivor: the file must say what is true today).

Why mutmut: it is maintained, forks one worker per mutant from a process that has already
imported the suite, and runs for each mutant only the tests that call the mutated function
(it records which do), so a module's run takes minutes, not hours; cosmic-ray runs a whole
test command per mutant. mutmut only understands sources under `./src` (module names are
derived from file paths), while tai is a workspace of four members, each with its own
`src`: this script therefore stages the run in `.mutation/` with the members' packages side
by side in one `src/`, the tests and a generated `pyproject.toml`, and puts the mutated copy
first on `PYTHONPATH`, so that `tai` subprocesses started by the tests run the mutant too
(mutmut passes the mutant's name through the environment).

mutmut runs a mutant only against the tests it saw calling the mutated function in its own
process, so a test that reaches the function in a child process (a fork into namespaces, a
`tai` subprocess) does not count. For targets marked `children`, a hits pass therefore
records which tests reach which function in any process, and every mutant mutmut leaves
alive (or could not connect to a test) runs again, in a pytest process of its own with the
mutant named in `MUTANT_UNDER_TEST` (children inherit it), against at most the target's
`child_tests` of those tests (default `CHILD_TESTS`), within `--budget` minutes; mutants
not started in time are "unchecked" (`--record-only` goes on from the cache). See
`mutation_stage/` for how children record.

mutmut runs the clean tests in its own process and forks every worker from it, so what
tai's memoised functions remember from the clean run would be remembered by every mutant:
each pytest session of the run starts with them emptied (`mutation_stage/tai_mutation_fresh.py`).

A survivor is killed by a new test. Rather than run the whole target again (the shell
policy's group takes over an hour), `--survivors` runs only the mutants its stored result
left alive, when the new tests are in test files of their own added to the target: the
module and the stored run's test files being unchanged byte for byte (the stored
fingerprint is theirs), every mutant killed then is still killed by the same test, so the
merged result is what a whole run would give. A changed test file makes the result stale
as before, and the target is run whole. The same finishes a run that was stopped (its
unchecked mutants are stored as "not checked": `--record-only` stores what the staged run
has). Results are checked in (`scripts/mutation_results/`): a whole run of every target takes
longer than a working session.

Scores, stored results and the survivors file: see `_mutation_report.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

from _mutation_report import (
    KILLED,
    changed_lines,
    fingerprint,
    load,
    load_kept,
    report,
    save,
    wording,
)

ROOT = Path(__file__).resolve().parent.parent
STAGE = ROOT / ".mutation"
TARGETS = ROOT / "scripts" / "mutation_targets.toml"
SURVIVORS = ROOT / "scripts" / "mutation_survivors.toml"
#: The workspace members whose sources are staged: the folders holding a ``src``.
MEMBERS = tuple(
    str(folder.parent.relative_to(ROOT))
    for pattern in ("tai_core/src", "tai_sandbox/src", "libs/*/src", "plugins/*/src")
    for folder in sorted(ROOT.glob(pattern))
)
#: Stored results, checked in: a run takes longer than a working session, and a result
#: that is stale (its module or tests changed) says so by its fingerprint.
RESULTS = ROOT / "scripts" / "mutation_results"
#: Most tests a mutant is run against again in a child process (see second_chance).
CHILD_TESTS = 6
SITE = ROOT / "scripts" / "mutation_stage"


@dataclass(frozen=True)
class Target:
    module: str
    tests: tuple[str, ...]
    #: Whether its tests reach it in child processes (forks, `tai` subprocesses).
    children: bool = False
    #: Most tests a survivor is run against again in child processes (see second_chance).
    child_tests: int = CHILD_TESTS

    @property
    def staged(self) -> str:
        """The module's path in the staged tree: ``src/<package>/...``."""
        member, _, rest = self.module.partition("/src/")
        if member not in MEMBERS or not rest:
            raise SystemExit(f"mutation: {self.module}: not a source file of a workspace member")
        return f"src/{rest}"

    @property
    def dotted(self) -> str:
        return self.staged.removeprefix("src/").removesuffix(".py").replace("/", ".")

    @property
    def files(self) -> list[str]:
        """What the module's result depends on: its source and its test files."""
        return sorted({self.module, *(test.partition("::")[0] for test in self.tests)})

    def fingerprint(self) -> str:
        """A hash of :attr:`files` as they are now."""
        return fingerprint(ROOT, self.files)


def load_targets() -> list[Target]:
    data = tomllib.loads(TARGETS.read_text(encoding="utf-8"))
    return [
        Target(
            module,
            tuple(t["tests"]),
            bool(t.get("children")),
            int(t.get("child_tests", CHILD_TESTS)),
        )
        for t in data["target"]
        for module in t.get("modules") or [t["module"]]
    ]


def changed_since(targets: list[Target], since: str) -> list[Target]:
    """Targets whose module or one of whose test files changed since the commit."""
    out = subprocess.run(
        ["git", "diff", "--name-only", since, "--"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    changed = set(out)
    return [t for t in targets if {t.module, *(x.partition("::")[0] for x in t.tests)} & changed]


def stage(targets: list[Target]) -> None:
    """The staged tree mutmut runs in; rebuilt from the working tree every time."""
    print(f"mutation: staging {len(targets)} module(s) in {STAGE.relative_to(ROOT)}/", flush=True)
    shutil.rmtree(STAGE, ignore_errors=True)
    STAGE.mkdir(parents=True)
    taken = {t.dotted: t.fingerprint() for t in targets}  # before copying: what is run
    (STAGE / "fingerprints.json").write_text(json.dumps(taken, indent=1), encoding="utf-8")
    files = {t.dotted: t.files for t in targets}  # what the fingerprints were taken of
    (STAGE / "files.json").write_text(json.dumps(files, indent=1), encoding="utf-8")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for member in MEMBERS:
        for package in (ROOT / member / "src").iterdir():
            if package.is_dir() and not package.name.endswith(".egg-info"):
                shutil.copytree(package, STAGE / "src" / package.name, ignore=ignore)
    shutil.copytree(ROOT / "tests", STAGE / "tests", ignore=ignore)
    shutil.copytree(SITE, STAGE / "site", ignore=ignore)
    # On PYTHONPATH before mutmut fills it: a directory missing at start-up would be
    # remembered as empty (sys.path_importer_cache) and the original code imported.
    (STAGE / "mutants" / "src").mkdir(parents=True)
    pytest_options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "pytest"
    ]["ini_options"]
    tests = sorted({test for t in targets for test in t.tests})
    (STAGE / "pyproject.toml").write_text(
        "[tool.pytest.ini_options]\n"
        f"{toml_pairs(pytest_options)}\n"
        "[tool.mutmut]\n"
        'source_paths = ["src"]\n'
        f"only_mutate = {toml_list(t.staged for t in targets)}\n"
        f"pytest_add_cli_args_test_selection = {toml_list(tests)}\n"
        'pytest_add_cli_args = ["-p", "no:randomly", "-p", "no:cacheprovider", '
        '"-p", "tai_mutation_fresh"]\n'
        "use_git_change_detection = false\n",
        encoding="utf-8",
    )


def toml_list(items: Iterable[str]) -> str:
    return json.dumps(list(items))  # a JSON array of strings is a TOML array


def toml_pairs(table: dict[str, object]) -> str:
    """``table``'s strings and lists of strings as TOML lines (JSON's quoting is TOML's)."""
    return "\n".join(f"{key} = {json.dumps(value)}" for key, value in table.items())


def environment(mutant: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "MUTANT_UNDER_TEST"}
    env["PYTHONPATH"] = os.pathsep.join([str(STAGE / "site"), str(STAGE / "mutants" / "src")])
    if mutant is not None:
        env["MUTANT_UNDER_TEST"] = mutant
    return env


def hold_the_stage() -> None:
    """Take the stage for this run, or end: two runs in one stage would overwrite each
    other's mutants and results (a second run needs ``--stage`` elsewhere). The lock is
    the kernel's (``flock``) and dies with the process."""
    import fcntl

    STAGE.parent.mkdir(parents=True, exist_ok=True)
    lock = os.open(f"{STAGE}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SystemExit(
            f"mutation: another run is using {STAGE}; wait for it, or give this one "
            "--stage DIR of its own"
        ) from None
    _HELD.append(lock)  # kept open (and locked) until the process ends


#: The stage's lock, held for the run.
_HELD: list[int] = []


def mutmut(*args: str, children_only: bool = False) -> None:
    """Run mutmut in the stage. When every target is reached in child processes only
    (``_process`` alone), mutmut finds no test in its own process for any mutant and stops
    at once: that is no failure, the second chance runs every mutant (``not checked``)."""
    command = [str(Path(sys.executable).with_name("mutmut")), *args]
    done = subprocess.run(
        command, cwd=STAGE, env=environment(), check=False, capture_output=children_only
    )
    if done.returncode == 0:
        return
    if children_only:
        sys.stdout.write(done.stdout.decode(errors="replace"))
        sys.stderr.write(done.stderr.decode(errors="replace"))
        if b"could not find any test case for any mutant" in done.stdout + done.stderr:
            return
    raise SystemExit(f"mutation: mutmut {' '.join(args)} failed (exit {done.returncode})")


def inspect(targets: list[Target]) -> dict[str, tuple[str, str]]:
    """Every mutant of the targets: its status and its changed lines, read from mutmut's
    result files by mutmut's own code (in the staged tree, one process for all)."""
    done = subprocess.run(
        [sys.executable, str(STAGE / "site" / "inspect_results.py"), *(t.staged for t in targets)],
        cwd=STAGE,
        env=environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit("mutation: cannot read mutmut's results")
    found = {}
    for line in done.stdout.splitlines():
        name, status, diff = json.loads(line)
        found[name] = (status, changed_lines(diff))
    return found


def pytest_in_child(
    tests: list[str], env: dict[str, str], *extra: str
) -> subprocess.CompletedProcess[str] | None:
    """pytest on ``tests`` in the staged tree, in a process of its own (None: timed out)."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *extra, *tests]
    command += ["-p", "no:cacheprovider", "--rootdir", str(STAGE / "mutants")]
    try:
        return subprocess.run(
            command,
            cwd=STAGE / "mutants",
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None


def hits(targets: list[Target]) -> dict[str, set[str]]:
    """Which tests reach which function, in any process (forks and children included):
    one pass over every target's tests in recording mode (see ``mutation_stage``)."""
    cache = STAGE / "hits.tsv"
    if not cache.exists():
        print("mutation: recording which tests reach which function in child processes")
        env = environment("stats")
        env["MUTATION_HITS"] = str(STAGE / "hits.partial")
        tests = sorted({test for t in targets if t.children for test in t.tests})
        if pytest_in_child(tests, env, "-p", "tai_mutation_hits") is None:
            raise SystemExit("mutation: the hits pass timed out")
        (STAGE / "hits.partial").replace(cache)
    found: dict[str, set[str]] = defaultdict(set)
    for line in cache.read_text(encoding="utf-8").splitlines():
        test, _, function = line.partition("\t")
        if test:
            found[function].add(test)
    return found


def recorded_by_mutmut() -> dict[str, set[str]]:
    """The tests mutmut ran each function's mutants against (its own record; none when
    it found no test in its own process and stopped)."""
    path = STAGE / "mutants" / "mutmut-stats.json"
    if not path.exists():
        return {}
    stats = json.loads(path.read_text(encoding="utf-8"))
    return {k: set(v) for k, v in stats["tests_by_mangled_function_name"].items()}


def sample(tests: list[str], limit: int, own: tuple[str, ...] = ()) -> list[str]:
    """At most ``limit`` test paths for ``tests``: first the target's ``own`` test paths
    that hold any of them, whole (they were written to check it, and a module-scoped
    fixture — the mount view's one probe — is reached by the first test that asks for
    it, while the test that checks what it did may be another), then the others, taken
    in turn from each test file (another target's tests may pass through the function
    without looking at what it did)."""
    mine = [path for path in own if any(_covers(path, test) for test in tests)]
    others = [test for test in tests if not any(_covers(path, test) for path in own)]
    by_file: dict[str, list[str]] = defaultdict(list)
    for test in sorted(others):
        by_file[test.partition("::")[0]].append(test)
    in_turn = [test for group in zip_longest(*by_file.values()) for test in group if test]
    return (mine + in_turn)[:limit]


def _covers(path: str, test: str) -> bool:
    """True when the pytest ``path`` of a target (a file, or ``file::test``) holds ``test``."""
    return test == path or test.startswith(path + "::") or test.startswith(path + "[")


def second_chance(
    targets: list[Target], found: dict[str, tuple[str, str]], workers: int, budget: float
) -> dict[str, str]:
    """Statuses after running every mutant mutmut left alive (or could not connect to a
    test) against tests that reach its function that mutmut did not run — at most its
    target's ``child_tests`` of them, taken in turn from each test file — in a pytest
    process of its own with the mutant active; cached per run. Mutants not started within
    ``budget`` minutes are "unchecked" (a later ``--record-only`` goes on from the cache)."""
    cache = STAGE / "children.json"
    known: dict[str, str] = json.loads(cache.read_text()) if cache.exists() else {}
    reach, ran = hits(targets), recorded_by_mutmut()
    todo: dict[str, list[str]] = {}
    for name, (status, change) in found.items():
        function = name.partition("__mutmut_")[0]
        more = sorted(reach.get(function, set()) - ran.get(function, set()))
        owner = next(t for t in targets if name.startswith(t.dotted + "."))
        alive = status in ("survived", "no tests", "not checked")
        if alive and not wording(change) and more and owner.children:
            todo.setdefault(name, sample(more, owner.child_tests, owner.tests))
    todo = {name: tests for name, tests in todo.items() if name not in known}
    if todo:
        print(f"mutation: {len(todo)} mutant(s) again, against tests in child processes")
        from concurrent.futures import ThreadPoolExecutor

        deadline = time.monotonic() + budget * 60

        def status_of(name: str) -> str:
            if time.monotonic() > deadline:
                return "unchecked"
            done = pytest_in_child(todo[name], environment(name), "-x")
            if done is None:
                return "timeout"
            return {0: "survived", 1: "killed"}.get(done.returncode, "suspicious")

        with ThreadPoolExecutor(max_workers=workers) as pool:
            names = list(todo)
            for number, (name, status) in enumerate(
                zip(names, pool.map(status_of, names), strict=True), 1
            ):
                print(f"  [{number}/{len(names)}] {name}: {status}", flush=True)
                if status == "unchecked":
                    continue
                known[name] = status
                cache.write_text(json.dumps(known, indent=1), encoding="utf-8")
    return {**dict.fromkeys(todo, "unchecked"), **known}


def record(
    targets: list[Target], workers: int, budget: float, earlier: dict[str, list[str]] | None = None
) -> None:
    """Store the run's verdict per module: mutmut's, corrected by the second chance. With
    ``earlier`` (a run of the survivors alone: the stored mutants), only the mutants this run
    ran are read from it; the others keep their stored verdict."""
    found = inspect(targets) if earlier is None or earlier else {}
    if earlier is not None:
        found = {name: found[name] for name in earlier if name in found}
    children = any(t.children for t in targets)
    again = second_chance(targets, found, workers, budget) if children else {}
    taken = json.loads((STAGE / "fingerprints.json").read_text(encoding="utf-8"))
    # the files as they were listed when the run was staged (the targets may list more now)
    files = json.loads((STAGE / "files.json").read_text(encoding="utf-8"))
    for target in targets:
        stored = load(RESULTS, target.dotted) if earlier is not None else None
        mutants = dict(stored["mutants"]) if stored else {}  # type: ignore[call-overload]
        mutants.update(
            {
                name: [again.get(name, status), change]
                for name, (status, change) in found.items()
                if name.startswith(target.dotted + ".")
            }
        )
        save(RESULTS, target.dotted, taken[target.dotted], files[target.dotted], mutants)


def survivors(targets: list[Target]) -> dict[str, list[str]]:
    """The mutants the stored results of ``targets`` left alive or did not check (a run
    stopped before its end), to be run again: a target qualifies when its module and every
    test file of its stored run are byte for byte as they were then (the stored fingerprint
    is theirs), its tests now being those or more. Then every mutant the stored run killed
    is still killed by the same unchanged test, and only the others can change their
    verdict."""
    alive: dict[str, list[str]] = {}
    for target in targets:
        data = load(RESULTS, target.dotted)
        files = data.get("files") if data else None
        if not isinstance(files, list):
            raise SystemExit(f"mutation: {target.module}: no stored run to go on; run it whole")
        if data["fingerprint"] != fingerprint(ROOT, files):  # type: ignore[index]
            raise SystemExit(
                f"mutation: {target.module}: the module or a test file of its stored run has "
                "changed since (only added test files keep its kills valid); run it whole"
            )
        if not set(files) <= set(target.files):
            raise SystemExit(
                f"mutation: {target.module}: a test file of its stored run is no longer one "
                "of its tests (a test taken away may have killed a mutant); run it whole"
            )
        alive.update(
            (name, verdict)
            for name, verdict in data["mutants"].items()  # type: ignore[index]
            if verdict[0] not in KILLED
        )
    return alive


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--since", help="only targets whose module or tests changed since REV")
    parser.add_argument("--module", action="append", help="only this target (repeatable)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--report-only", action="store_true", help="report the stored results (no new run)"
    )
    parser.add_argument(
        "--record-only", action="store_true", help="record the staged run's results again"
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=120.0,
        help="minutes for running mutants again in child processes (default 120)",
    )
    parser.add_argument("--stage", type=Path, help="stage in this directory (default .mutation)")
    parser.add_argument(
        "--stubs", type=Path, help="write the unexplained survivors as entries to fill in"
    )
    parser.add_argument(
        "--all", action="store_true", help="report every target's latest stored results"
    )
    parser.add_argument(
        "--survivors",
        action="store_true",
        help="run again only the mutants the stored results left alive or did not check "
        "(the module and the stored run's test files unchanged; new test files may be added)",
    )
    args = parser.parse_args()
    if args.stage is not None:  # a second run beside a first one, in a tree of its own
        global STAGE  # noqa: PLW0603 - one run, one stage: set once, before anything reads it
        STAGE = args.stage.resolve()
    targets = load_targets()
    if args.module:
        unknown = set(args.module) - {t.module for t in targets}
        if unknown:
            raise SystemExit(f"mutation: not a target: {', '.join(sorted(unknown))}")
        targets = [t for t in targets if t.module in args.module]
    if args.since:
        targets = changed_since(targets, args.since)
    if not targets:
        print("mutation: no target changed; nothing to do")
        return 0
    earlier = survivors(targets) if args.survivors else None
    if not args.report_only:
        hold_the_stage()
    if not (args.report_only or args.record_only):
        stage(targets)
        if earlier is not None:
            print(f"mutation: the {len(earlier)} mutant(s) the stored results left alive, again")
        if earlier is None or earlier:
            mutmut(
                "run", "--max-children", str(args.workers), *(earlier or ()),
                children_only=all(t.children for t in targets),
            )  # fmt: skip
    if not args.report_only:
        record(targets, args.workers, args.budget, earlier)
    shown = load_targets() if args.all else targets
    modules = [(t.module, t.dotted, t.fingerprint()) for t in shown]
    return report(modules, RESULTS, load_kept(SURVIVORS), args.stubs)


if __name__ == "__main__":
    sys.exit(main())
