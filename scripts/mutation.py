"""Mutation testing of tai's safety core: does the suite notice when the code is wrong?

Usage (from the repository root; `scripts/_uv.sh` provides uv):

    uv run --no-sync python scripts/mutation.py              # every target
    uv run --no-sync python scripts/mutation.py --since main # targets changed since a commit
    uv run --no-sync python scripts/mutation.py --module tai_core/src/tai_core/store/_paths.py

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
`tai` subprocess) does not count. Every mutant mutmut leaves alive, or could not connect
to any test, is therefore run again against all its target's tests in a pytest process of
its own, the mutant named in `MUTANT_UNDER_TEST` (children inherit it); while mutmut
records which tests call what, children run the original code (a `sitecustomize` on their
path clears the recording mode, which works only in mutmut's own process).

A survivor that only rewrites prose (a string literal with a space in it: the wording of a
message) is counted apart as "wording" and needs no entry: tests check messages by the
facts they carry (the path, the reason), not by their words. Every other survivor needs an
entry in the survivors file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGE = ROOT / ".mutation"
TARGETS = ROOT / "scripts" / "mutation_targets.toml"
SURVIVORS = ROOT / "scripts" / "mutation_survivors.toml"
MEMBERS = ("tai_core", "tai_blocks", "tai_providers", "tai_sandbox")
STRING = re.compile(r"""[bfr]*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")
FIELDS = re.compile(r"\{[^{}]*\}")
KILLED = ("killed", "timeout", "segfault")
SITE = ROOT / "scripts" / "mutation_stage"


@dataclass(frozen=True)
class Target:
    module: str
    tests: tuple[str, ...]

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


@dataclass(frozen=True)
class Kept:
    function: str
    change: str
    reason: str


def load_targets() -> list[Target]:
    data = tomllib.loads(TARGETS.read_text(encoding="utf-8"))
    return [Target(t["module"], tuple(t["tests"])) for t in data["target"]]


def load_kept() -> list[Kept]:
    if not SURVIVORS.exists():
        return []
    data = tomllib.loads(SURVIVORS.read_text(encoding="utf-8"))
    return [Kept(k["function"], normalise(k["change"]), k["reason"]) for k in data.get("kept", [])]


def normalise(change: str) -> str:
    """A diff's changed lines with indentation dropped: stable when code moves around."""
    lines = (line.strip() for line in change.strip().splitlines())
    return "\n".join(line[0] + " " + line[1:].strip() for line in lines if line)


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
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for member in MEMBERS:
        for package in (ROOT / member / "src").iterdir():
            if package.is_dir() and not package.name.endswith(".egg-info"):
                shutil.copytree(package, STAGE / "src" / package.name, ignore=ignore)
    shutil.copytree(ROOT / "tests", STAGE / "tests", ignore=ignore)
    (STAGE / "site").mkdir()
    # On PYTHONPATH before mutmut fills it: a directory missing at start-up would be
    # remembered as empty (sys.path_importer_cache) and the original code imported.
    (STAGE / "mutants" / "src").mkdir(parents=True)
    (STAGE / "site" / "sitecustomize.py").write_text(SITE, encoding="utf-8")
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
        'pytest_add_cli_args = ["-p", "no:randomly", "-p", "no:cacheprovider"]\n'
        "use_git_change_detection = false\n",
        encoding="utf-8",
    )


def toml_list(items: object) -> str:
    return "[" + ", ".join(f'"{item}"' for item in items) + "]"  # type: ignore[attr-defined]


def toml_pairs(table: dict[str, object]) -> str:
    lines = []
    for key, value in table.items():
        rendered = toml_list(value) if isinstance(value, list) else f'"{value}"'
        lines.append(f"{key} = {rendered}")
    return "\n".join(lines)


def environment(mutant: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "MUTANT_UNDER_TEST"}
    env["PYTHONPATH"] = os.pathsep.join([str(STAGE / "site"), str(STAGE / "mutants" / "src")])
    if mutant is not None:
        env["MUTANT_UNDER_TEST"] = mutant
    return env


def mutmut(*args: str) -> None:
    command = [str(Path(sys.executable).with_name("mutmut")), *args]
    done = subprocess.run(command, cwd=STAGE, env=environment(), check=False)
    if done.returncode != 0:
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
        changed = [
            row
            for row in diff.splitlines()
            if row[:1] in "+-" and not row.startswith(("+++", "---"))
        ]
        found[name] = (status, normalise("\n".join(changed)))
    return found


def wording(change: str) -> bool:
    """Whether the mutant only rewrites prose: the lines agree once literals are blanked,
    and every literal that differs has a space in it and the same replacement fields."""
    removed = [line[2:] for line in change.splitlines() if line.startswith("-")]
    added = [line[2:] for line in change.splitlines() if line.startswith("+")]
    if len(removed) != len(added) or not removed:
        return False
    for old, new in zip(removed, added, strict=True):
        if STRING.sub('""', old) != STRING.sub('""', new):
            return False
        before, after = STRING.findall(old), STRING.findall(new)
        if len(before) != len(after):
            return False
        for a, b in zip(before, after, strict=True):
            if a != b and (" " not in a or FIELDS.findall(a) != FIELDS.findall(b)):
                return False
    return True


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
        env["TAI_MUTATION_HITS"] = str(STAGE / "hits.partial")
        tests = sorted({test for t in targets for test in t.tests})
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
    """The tests mutmut ran each function's mutants against (its own record)."""
    stats = json.loads((STAGE / "mutants" / "mutmut-stats.json").read_text(encoding="utf-8"))
    return {k: set(v) for k, v in stats["tests_by_mangled_function_name"].items()}


def second_chance(
    targets: list[Target], found: dict[str, tuple[str, str]], workers: int
) -> dict[str, str]:
    """Statuses after running every mutant mutmut left alive (or could not connect to a
    test) against the tests that reach its function that mutmut did not run, in a pytest
    process of its own with the mutant active; cached per run."""
    cache = STAGE / "children.json"
    known: dict[str, str] = json.loads(cache.read_text()) if cache.exists() else {}
    reach, ran = hits(targets), recorded_by_mutmut()
    todo: dict[str, list[str]] = {}
    for name, (status, change) in found.items():
        function = name.partition("__mutmut_")[0]
        more = sorted(reach.get(function, set()) - ran.get(function, set()))
        if status in ("survived", "no tests") and not wording(change) and more:
            todo.setdefault(name, more)
    todo = {name: tests for name, tests in todo.items() if name not in known}
    if todo:
        print(f"mutation: {len(todo)} mutant(s) again, against tests in child processes")
        from concurrent.futures import ThreadPoolExecutor

        def status_of(name: str) -> str:
            done = pytest_in_child(todo[name], environment(name), "-x")
            if done is None:
                return "timeout"
            return {0: "survived", 1: "killed"}.get(done.returncode, "suspicious")

        with ThreadPoolExecutor(max_workers=workers) as pool:
            names = list(todo)
            for number, (name, status) in enumerate(
                zip(names, pool.map(status_of, names), strict=True), 1
            ):
                known[name] = status
                cache.write_text(json.dumps(known, indent=1), encoding="utf-8")
                print(f"  [{number}/{len(names)}] {name}: {status}", flush=True)
    return known


def report(targets: list[Target], kept: list[Kept], workers: int) -> int:
    statuses: dict[str, Counter[str]] = defaultdict(Counter)
    unexplained: list[tuple[str, str]] = []
    used: set[Kept] = set()
    found = inspect(targets)
    again = second_chance(targets, found, workers)
    for name, (first, change) in sorted(found.items()):
        target = next(t for t in targets if name.startswith(t.dotted + "."))
        status = again.get(name, first)
        if status in KILLED:
            statuses[target.module]["killed"] += 1
            continue
        if wording(change):
            statuses[target.module]["wording"] += 1
            continue
        function = name.partition("__mutmut_")[0]
        match = next((k for k in kept if k.function == function and k.change == change), None)
        if match is None:
            statuses[target.module][status] += 1
            unexplained.append((f"{name} ({status})", change))
        else:
            statuses[target.module]["kept"] += 1
            used.add(match)
    print(f"\n{'module':52} {'mutants':>7} {'killed':>6} {'wording':>7} {'kept':>4} {'open':>4}")
    for target in targets:
        counts = statuses[target.module]
        total = sum(counts.values())
        open_ = total - counts["killed"] - counts["kept"] - counts["wording"]
        score = counts["killed"] / total if total else 1.0
        print(
            f"{target.module.partition('/src/')[2]:52} {total:7} {counts['killed']:6}"
            f" {counts['wording']:7} {counts['kept']:4} {open_:4}  killed {score:.1%}"
        )
    for name, change in unexplained:
        print(f"\nunexplained survivor {name}:\n{change}")
    stale = [
        k
        for k in kept
        if k not in used and any(k.function.startswith(t.dotted + ".") for t in targets)
    ]
    for k in stale:
        print(f"\nkept entry matches no survivor now: {k.function}\n{k.change}")
    return 1 if unexplained or stale else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--since", help="only targets whose module or tests changed since REV")
    parser.add_argument("--module", action="append", help="only this target (repeatable)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--report-only", action="store_true", help="report the last run again (no new run)"
    )
    args = parser.parse_args()
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
    if not args.report_only:
        stage(targets)
        mutmut("run", "--max-children", str(args.workers))
    return report(targets, load_kept(), args.workers)


if __name__ == "__main__":
    sys.exit(main())
