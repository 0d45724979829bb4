"""Why each destructive command of the corpus is refused, and what becomes of code given
to interpreters on their command line, word for word.

The corpus tests say *that* a command is refused; these say *which rule* refused it, so a
rule that stops firing is noticed even when another one still refuses the command (the
policy's rules overlap on purpose). The one-liners below reach every kind of call the
policy reads in Python, Perl, Ruby, Node and PHP, harmless ones included. The expected
decisions and reasons live in ``corpus_reasons.json``
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

ONE_LINERS = [
    """python3 -c 'import subprocess; subprocess.run(["rm", "-rf", "/"])'""",
    """python3 -c 'import subprocess as sp; sp.call("rm -rf ~", shell=True)'""",
    """python3 -c 'import os; os.system("rm -rf ~")'""",
    """python3 -c 'import os; os.system(cmd)'""",
    """python3 -c 'import os; os.execvp("rm", ["rm", "-rf", "/"])'""",
    """python3 -c 'cmd = "rm -rf /"; print(cmd)'""",
    """python3 -c 'x = "rm -rf $HOME"; print(x)'""",
    """python3 -c 'print("hello world")'""",
    """python3 -c 'import shutil; shutil.rmtree("/usr")'""",
    """python3 -c 'import shutil; shutil.rmtree("build")'""",
    """python3 -c 'import shutil, sys; shutil.rmtree(sys.argv[1])'""",
    """python3 -c 'import os; os.remove("/etc/passwd")'""",
    """python3 -c 'import os; os.remove(name)'""",
    """python3 -c 'import os; os.chmod("/etc/passwd", 0o777)'""",
    """python3 -c 'import os; os.chmod("script.sh", 0o755)'""",
    """python3 -c 'open(".git/hooks/pre-commit", "w").write("x")'""",
    """python3 -c 'open(".git/config").read()'""",
    """python3 -c 'open(".git/config", "rb").read()'""",
    """python3 -c 'open(".git/config", mode="a")'""",
    """python3 -c 'open("/dev/sda", "wb")'""",
    """python3 -c 'from pathlib import Path; Path(".git/hooks/post-checkout").write_text("x")'""",
    """python3 -c 'from pathlib import Path; Path.home().joinpath("x").unlink()'""",
    """python3 -c 'import os\nwhile True: os.fork()'""",
    """python3 -c 'import os; os.fork()'""",
    """python3 -c 'def ('""",
    """perl -e 'system("rm -rf /")'""",
    """perl -e 'system "rm", "-rf", "/"'""",
    """perl -e 'print `rm -rf ~`'""",
    """perl -e 'print `ls`'""",
    """perl -e 'qx(rm -rf $dir)'""",
    """perl -e 'use File::Path; rmtree("/home")'""",
    """perl -e 'unlink "/etc/hosts"'""",
    """perl -e 'fork while 1'""",
    """ruby -e 'require "fileutils"; FileUtils.rm_rf("/")'""",
    """ruby -e 'FileUtils.rm_rf dir'""",
    """ruby -e 'system("ls -la")'""",
    """ruby -e 'File.write(".git/config", "x")'""",
    """ruby -e '%x(rm -rf /usr)'""",
    """node -e 'require("child_process").execSync("rm -rf ~")'""",
    """node -e 'require("fs").rmSync("/", {recursive: true})'""",
    """node -e 'require("fs").writeFileSync(".git/hooks/pre-push", "x")'""",
    """node -e 'console.log("rm -rf is a command")'""",
    """node -e 'require("fs").chmodSync("/usr/bin/x", 0o777)'""",
    """php -r 'shell_exec("rm -rf /");'""",
    """php -r 'file_put_contents(".git/config", "x");'""",
    """php -r 'echo "hi";'""",
]

#: git config reading and writing the repository's configuration, or another one.
GIT_CONFIG = [
    "git config --global user.name x",
    "git config --system a.b c",
    "git config --file o a.b c",
    "git config -f o a.b c",
    "git config --blob HEAD:x a.b",
    "git config --add a.b c",
    "git config --unset a.b",
    "git config --unset-all a.b",
    "git config --replace-all a.b c",
    "git config --rename-section a b",
    "git config --remove-section a",
    "git config --edit",
    "git config -e",
    "git config a.b c",
    "git config a.b",
    "git config --get a.b",
    "git config --get-all a.b",
    "git config --list",
    "git config -l",
    "git config --show-origin a.b",
    "git config --get-regexp a",
    "git config set a.b c",
    "git config unset a.b",
    "git config rename-section a b",
    "git config remove-section a",
    "git config edit",
    "git config get a.b",
    "git config list",
    "git -C . config a.b c",
    "git config --local a.b c",
]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("repo")
    subprocess.run(["git", "init", "-q"], cwd=directory, check=True)
    return directory


#: Commands whose reason depends on the machine: /tmp/x is where CI's instructions clone
#: tai, and then tai's own installation, which the policy names first (the corpus tests
#: still check that they are refused).
MACHINE_DEPENDENT = frozenset({"mv .git/hooks /tmp/x"})


def reasons(repo: Path) -> dict[str, str]:
    found = {}
    for command in [*DESTRUCTIVE, *ONE_LINERS, *GIT_CONFIG]:
        if command in MACHINE_DEPENDENT:
            continue
        allowed, reason = decide(command, repo, {}, {"HOME": "/home/u", "PATH": "/usr/bin:/bin"})
        shown = reason.replace(str(repo), "<repo>").replace(str(repo.parent), "<parent>")
        found[command] = f"{'allowed' if allowed else 'refused'}: {shown}"
    return found


def test_every_decision_gives_its_rules_reason(repo: Path) -> None:
    found = reasons(repo)
    if os.environ.get("TAI_REGENERATE_REASONS"):
        EXPECTED.write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n")
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    changed = {c: (expected.get(c), r) for c, r in found.items() if expected.get(c) != r}
    assert not changed, "\n".join(f"{c!r}: {old!r} -> {new!r}" for c, (old, new) in changed.items())
    assert set(expected) == set(found)
