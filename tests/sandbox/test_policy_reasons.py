"""Why each destructive command of the corpus is refused, word for word.

The corpus tests say *that* a command is refused; these say *which rule* refused it, so a
rule that stops firing is noticed even when another one still refuses the command (the
policy's rules overlap on purpose). The expected reasons live in ``corpus_reasons.json``
(paths of the test's repository written as ``<repo>`` and ``<parent>``); after changing a
rule on purpose, regenerate it with ``TAI_REGENERATE_REASONS=1`` and read the diff.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tai_sandbox.policy import decide

from .corpus import DESTRUCTIVE

EXPECTED = Path(__file__).with_name("corpus_reasons.json")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("repo")
    subprocess.run(["git", "init", "-q"], cwd=directory, check=True)
    return directory


def reasons(repo: Path) -> dict[str, str]:
    found = {}
    for command in DESTRUCTIVE:
        reason = decide(command, repo, {}, {"HOME": "/home/u", "PATH": "/usr/bin:/bin"})[1]
        found[command] = reason.replace(str(repo), "<repo>").replace(str(repo.parent), "<parent>")
    return found


def test_every_refusal_gives_its_rules_reason(repo: Path) -> None:
    found = reasons(repo)
    if os.environ.get("TAI_REGENERATE_REASONS"):
        EXPECTED.write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n")
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    changed = {c: (expected.get(c), r) for c, r in found.items() if expected.get(c) != r}
    assert not changed, "\n".join(f"{c!r}: {old!r} -> {new!r}" for c, (old, new) in changed.items())
    assert set(expected) == set(found)
