"""The verdict of a mutation run (scripts/mutation.py): which mutants count as killed,
which are kept with a reason (scripts/mutation_survivors.toml), and the score per module.

Results are stored per module in ``scripts/mutation_results/`` (one JSON file each: the
fingerprint of what was run, and every mutant's status and changed lines), so an
incremental run (``--since``, ``--module``) replaces the results of the modules it ran and
the report of all targets reads the latest of each. The fingerprint is a hash of the
module's source and its test files taken when the run was staged: a result whose module or
tests changed since is stale, and the report does not count it (a commit name would not do:
a run takes most of an hour, the tree goes on changing meanwhile, and a dirty tree has no
name). The result also lists the files the fingerprint was taken of, so that a run of the
survivors alone (``--survivors``) can tell that a module and its earlier test files are
unchanged and its tests only grew.

A survivor that only rewrites prose (a string literal with a space in it: the wording of a
message) is counted apart as "wording" and needs no entry: tests check messages by the
facts they carry (the path, the reason), not by their words. Every other survivor needs an
entry: the function, the changed lines (indentation aside: entries survive code moving
around) and why it is kept.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

STRING = re.compile(r"""[bfr]*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")
FIELDS = re.compile(r"\{[^{}]*\}")
KILLED = ("killed", "timeout", "segfault")


@dataclass(frozen=True)
class Kept:
    function: str
    change: str
    reason: str


def load_kept(path: Path) -> list[Kept]:
    if not path.exists():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Kept(k["function"], normalise(k["change"]), k["reason"]) for k in data.get("kept", [])]


def normalise(change: str) -> str:
    """A diff's changed lines with indentation dropped: stable when code moves around."""
    lines = (line.strip() for line in change.strip().splitlines())
    return "\n".join(line[0] + " " + line[1:].strip() for line in lines if line)


def changed_lines(diff: str) -> str:
    rows = diff.splitlines()
    return normalise(
        "\n".join(r for r in rows if r[:1] in "+-" and not r.startswith(("+++", "---")))
    )


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


def fingerprint(root: Path, files: list[str]) -> str:
    """A hash of ``files`` (relative to ``root``): their names and contents."""
    digest = hashlib.sha256()
    for name in sorted(files):
        path = root / name
        content = path.read_bytes() if path.is_file() else b"(missing)"
        digest.update(f"{name}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()


def save(
    directory: Path, dotted: str, taken: str, files: list[str], mutants: dict[str, list[str]]
) -> None:
    """Store a module's result: the fingerprint and the ``files`` it was taken of (the
    module and its test files), and every mutant's ``[status, changed lines]``."""
    directory.mkdir(exist_ok=True)
    data = {"fingerprint": taken, "files": sorted(files), "mutants": mutants}
    (directory / f"{dotted}.json").write_text(json.dumps(data, indent=1), encoding="utf-8")


def load(directory: Path, dotted: str) -> dict[str, object] | None:
    path = directory / f"{dotted}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def stub(name: str, change: str) -> str:
    """A survivors-file entry for a survivor, its reason still to be written."""
    function = name.partition("__mutmut_")[0]
    quote = "'''" if "'''" not in change else '"""'  # literal: backslashes stay as written
    return f'[[kept]]\nfunction = "{function}"\nchange = {quote}\n{change}\n{quote}\nreason = ""\n'


def report(
    modules: list[tuple[str, str, str]],
    directory: Path,
    kept: list[Kept],
    stubs: Path | None = None,
) -> int:
    """Print the score of each ``(module, dotted, fingerprint now)`` from its stored results
    and every unexplained survivor (also as entries to fill in, into ``stubs``); 1 when
    there is one, a kept entry is stale, or a module has no results or stale ones."""
    unexplained: list[tuple[str, str]] = []
    used: set[Kept] = set()
    rows: list[tuple[str, str | None, Counter[str]]] = []
    for module, dotted, now in modules:
        data = load(directory, dotted)
        if data is None:
            rows.append((module, None, Counter()))
            continue
        if data.get("fingerprint") != now:
            rows.append((module, "stale", Counter()))
            continue
        counts: Counter[str] = Counter()
        for name, (status, change) in sorted(data["mutants"].items()):  # type: ignore[union-attr]
            if status in KILLED:
                counts["killed"] += 1
            elif wording(change):
                counts["wording"] += 1
            else:
                function = name.partition("__mutmut_")[0]
                match = next(
                    (k for k in kept if k.function == function and k.change == change), None
                )
                if match is None:
                    counts["open"] += 1
                    unexplained.append((f"{name} ({status})", change))
                else:
                    counts["kept"] += 1
                    used.add(match)
        rows.append((module, "current", counts))
    print(f"\n{'module':44} {'mutants':>7} {'killed':>6} {'wording':>7} {'kept':>4} {'open':>4}")
    for module, state, counts in rows:
        name = module.partition("/src/")[2]
        if state != "current":
            why = "module or tests changed since its run" if state else "not run yet"
            print(f"{name:44} {why}")
            continue
        total = sum(counts.values())
        share = counts["killed"] / total if total else 1.0
        print(
            f"{name:44} {total:7} {counts['killed']:6} {counts['wording']:7} {counts['kept']:4}"
            f" {counts['open']:4}  killed {share:.1%}"
        )
    for name, change in unexplained:
        print(f"\nunexplained survivor {name}:\n{change}")
    if stubs is not None:
        entries = [stub(name.partition(" ")[0], change) for name, change in unexplained]
        stubs.write_text("\n".join(entries), encoding="utf-8")
    current = {module for module, state, _ in rows if state == "current"}
    prefixes = tuple(dotted + "." for module, dotted, _ in modules if module in current)
    stale = [k for k in kept if k not in used and k.function.startswith(prefixes)]
    for k in stale:
        print(f"\nkept entry matches no survivor now: {k.function}\n{k.change}")
    missing = any(state != "current" for _, state, _ in rows)
    return 1 if unexplained or stale or missing else 0
