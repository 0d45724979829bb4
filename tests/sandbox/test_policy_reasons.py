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
from pathlib import Path

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
    # every path a deleting call is given, a first one not a literal included
    """perl -e 'unlink "x", "/etc/passwd"'""",
    """perl -e 'unlink($x, "/etc/passwd")'""",
    """perl -e 'unlink("x", "y")'""",
    """perl -e 'rmtree()'""",
    """perl -e 'use File::Path; rmtree("build", "/usr")'""",
    """ruby -e 'File.delete("x", "/etc/passwd")'""",
    """ruby -e 'FileUtils.rm_rf(["x", "/etc"])'""",
    """ruby -e 'FileUtils.rm_rf(["x", "build"])'""",
    """python3 -c 'import shutil; shutil.rmtree("build", True)'""",
    """perl -e 'unlink ".git/config"'""",
    """perl -e 'chmod 0644, ".git/hooks/pre-commit"'""",
    """perl -e 'chmod 0777, "/home/uX"'""",
    # opens that only read, and those that write
    """perl -e 'open(my $f, "<", ".git/config")'""",
    """perl -e 'open(F, "<.git/config")'""",
    """perl -e 'open(F, ">", ".git/config")'""",
    """perl -e 'open(F, "+<", ".git/config")'""",
    """python3 -c 'print(open(".git/HEAD").read())'""",
    """python3 -c 'import os; os.open(".git/config")'""",
    """python3 -c 'from pathlib import Path; Path(".git/config").open()'""",
    """python3 -c 'from pathlib import Path; Path(".git/config").open("w")'""",
    """ruby -e 'File.open(".git/config")'""",
    """python3 -c 'open(".git/config", "r", 1, "utf-8")'""",
    # strings read as shell commands, and those that are not
    """python3 -c 'print("rm -rf ~ `date`")'""",
    """python3 -c 'print("rm -rf ~\\x00")'""",
    """python3 -c 'import os; os.system("rm -rf $HOME")'""",
    """python3 -c 'import os; os.system("$0 -c \\"rm -rf ~\\"")'""",
    """python3 -c 'import os; os.system()'""",
    """ruby -e 'system(["rm", "rm"], "-rf", "/")'""",
    """python3 -c 'x = "> .git/config"; open("y", "w")'""",
    """python3 -c 'x = ".git/config"; open("y", "w")'""",
    # what Python's names stand for
    """python3 -c 'import os, shutil; shutil.rmtree(os.getcwd())'""",
    """python3 -c 'import pathlib, shutil; shutil.rmtree(pathlib.Path.cwd())'""",
    """python3 -c 'import posixpath, shutil; shutil.rmtree(posixpath.join("/", "usr"))'""",
    """python3 -c 'import os, shutil; shutil.rmtree(os.path.realpath("~"))'""",
    """python3 -c 'import shutil as os\nimport os.path\nos.rmtree("/usr")'""",
    # Perl's and Ruby's calls without parentheses end at a semicolon
    """perl -e 'system "ls"; unlink "/etc/hosts"'""",
    """perl -e 'qxXrm -rf ~X'""",
    """perl -e 'X("rm -rf ~")'""",
    """perl -e 'x\n# c\nsystem "rm -rf ~"'""",
    """perl -e 'system "rm", "-rf", "/\\"'""",
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
    """perl -e 'chmod 0777, "/home/u"'""",
    """perl -e 'chown 0, 0, "/"'""",
    """perl -e 'chmod 0755, "build/x"'""",
    """perl -e 'chmod 0777, "/home/u" or die'""",
    """ruby -e 'FileUtils.chmod_R 0777, "/etc"'""",
    """ruby -e 'FileUtils.chmod 0755, "bin/x"'""",
    """ruby -e 'system "ls"
puts "/"'""",
    """node -e 'require("fs").chmodSync("/home/u", 0o777)'""",
    """php -r 'chown("/", "u");'""",
    "git config set a.b c",
    "git config unset a.b",
    "git config rename-section a b",
    "git config remove-section a",
    "git config edit",
    "git config get a.b",
    "git config list",
    "git -C . config a.b c",
    "git config --local a.b c",
    "git config --show-origin --add a.b c",
    "git config --show-origin --replace-all a.b c",
    "git config --show-origin --rename-section a b",
    "git config --get a.b c",
    "git config --get-regexp a b",
    "git config --list a b",
    "git config -l a b",
    "git config --show-origin a b",
    "git config list x",
    "git config set a.b",
]


#: Scripts that reach each rule's branches: what a script does to its variables and its
#: directory, code fed to shells, redirections, functions, and each command rule's options.
RULE_CASES = [
    # variables a command sets (to what only the run knows), or unsets
    'read x; rm -rf "$x"', 'read -r x; rm -rf "$x"', 'mapfile x; rm -rf "$x"',
    'readarray x; rm -rf "$x"', 'getopts ab x; rm -rf "$x"', 'unset HOME; rm -rf "$HOME"',
    'unset -v HOME; rm -rf "$HOME"', 'rm -rf "$HOME"', "printf -v x '%s' /; rm -rf \"$x\"",
    'printf x -v; rm -rf "$x"/', "printf '%s' -v x; rm -rf \"$x\"",
    # "$@" is one word per parameter; brace expansion makes words side by side
    "bash -c 'rm -rf \"$@\"' sh build ~", "bash -c 'rm -rf \"$@\"' sh build dist",
    "cp evil {x,.git/hooks/pre-commit}", "cp {evil,.git/hooks/pre-commit}", "rm -rf {build,~}",
    "rm -rf {build,dist}",
    # the directory a script moves to
    "cd; rm -rf *", "cd /etc; rm -rf *", "pushd /etc; rm -rf *", "popd; rm -rf *",
    "pushd; rm -rf *", "cd -; rm -rf *", 'cd "$(cat f)"; rm -rf *', "cd build; rm -rf *",
    "cd /etc /usr; rm -rf *",
    # assignments
    'x=/; rm -rf "$x"', 'x=/et; x+=c; rm -rf "$x"', 'x[0]=/; rm -rf "${x[0]}"',
    'x=(/ /etc); rm -rf "${x[@]}"', 'x=; rm -rf "$x"/', 'x=/tmp; x="$(cat f)"; rm -rf "$x"',
    'x="$(cat f)"; x=/tmp; rm -rf "$x"', 'declare x=/; rm -rf "$x"', 'export x=/; rm -rf $x',
    'local x=/ 2>/dev/null; rm -rf "$x"', 'readonly y=/etc; rm -rf "$y"',
    'for d in / /etc; do rm -rf "$d"; done', 'f() { rm -rf "$1"; }; f /',
    'f() { rm -rf "$1"; }; f build', 'x=build; f() { rm -rf "$x"; }; f',
    # code fed to a shell on its standard input
    "bash <<EOF\nrm -rf ~\nEOF", "bash <<'EOF'\nls\nEOF", "sh <<< 'rm -rf ~'",
    "bash < script.sh", 'bash < "$(cat f)"', "source /dev/stdin <<< 'rm -rf ~'",
    '. /dev/stdin <<< "rm -rf ~"', 'bash <<< "$(curl -s x)"', 'bash <<< "$X"',
    "cat <<< 'rm -rf ~'", "bash 0< script.sh", "bash 2> err.txt <<< 'rm -rf ~'",
    "echo 'rm -rf ~' | bash", "echo 'rm -rf ~' | \"bash\"", "echo 'rm -rf ~' | /bin/sh",
    "printf 'rm -rf ~' | source /dev/stdin", "echo ls | sh", "cat s.sh | bash",
    "{ echo 'rm -rf ~'; } | bash", "echo 'rm -rf ~' 2>/dev/null | bash",
    "echo 'rm -rf ~' | bash 2>/dev/null", "echo 'rm -rf ~' | cat", "echo x | tee -a log",
    "echo 'rm -rf ~' | xargs echo", 'echo "$(cat f)" | bash',
    # redirections
    "echo x >&2", "echo x >& out.txt", "echo x >&-", "echo x > .git/hooks/pre-commit",
    "echo x >> /etc/passwd", "echo x >| .git/config", "cat < .git/config",
    "echo x &> /dev/sda", "echo x 2> /etc/x", "{ echo x; } > .git/config",
    'echo x > "$(cat f)"', "exec 3> .git/config",
    # functions
    "f() { rm -rf ~; }; f", ":(){ :|:& };:", "f() { f | f & }; f", "f() { f; }; f",
    "f() { echo hi; }; f; f", "f() { f & }; f", "function g { g | g; }; g",
    "f() { g; }; g() { f | f; }; f",
    # nesting
    "bash -c \"bash -c 'bash -c ls'\"",
    "eval 'eval \"eval \\\"eval ls\\\"\"'",
    # eval, trap
    "eval 'rm -rf ~'", 'eval "$(cat f)"', "eval ls", "trap 'rm -rf ~' EXIT",
    "trap -- 'rm -rf ~' EXIT", "trap - EXIT", "trap -l", "trap 'echo hi' INT",
    'trap "$(cat f)" EXIT', "trap 'rm -rf ~'", "trap -p EXIT",
    # shells and their options
    "bash -c 'rm -rf ~'", "bash -o pipefail -c 'rm -rf ~'", "bash +O extglob -c 'rm -rf ~'",
    "bash -O extglob -c 'rm -rf ~'", "bash +o posix -c 'rm -rf ~'",
    "bash --rcfile x -c 'rm -rf ~'", "bash --init-file x -c 'rm -rf ~'",
    "bash --norc -c 'rm -rf ~'", "bash -xc 'rm -rf ~'", "bash -ex -c 'rm -rf ~'",
    "sh -- script.sh", "bash -", "bash -c 'rm -rf \"$1\"' sh /", "bash -c 'rm -rf \"$0\"' /",
    "bash script.sh", "bash -c", "bash -c 'ls' -- x", "bash +x script.sh",
    "bash -s <<< 'rm -rf ~'", "zsh -c 'rm -rf ~'", "fish -c 'rm -rf ~'",
    # copies and moves
    "cp x /etc/passwd", "cp -t /etc x", "cp --target-directory /etc x", "cp x y /usr/bin",
    "cp -S .bak x /etc/x", "mv x .git/hooks/pre-commit", "mv .git/config /var/tmp/y",
    "install x /usr/bin/x", "install -m 755 x /usr/bin/x", "ln -s x .git/hooks/pre-commit",
    "ln -sf x /etc/x", "cp x build/", "cp -r src build", "mv a b", "cp x",
    "cp -t build x", "mv -t /usr x",
    # find
    "find / -delete", "find . -delete", "find -delete", "find ~ -exec rm -rf {} +",
    "find / -name x -exec rm {} \\;", "find /etc ! -name x -delete",
    "find /var/tmp/y -execdir rm {} \\;", "find / -ok rm {} \\;", "find / -okdir rm {} \\;",
    "find . -exec chmod 777 {} +", "find / -exec echo {} \\;", "find / -name x",
    "find build -delete", "find / ( -name a -o -name b ) -delete", "find / -exec rm {}",
    "find / -exec rm {} \\; -exec shred {} \\;", "find ~ -exec unlink {} +",
    # modes and owners
    "chmod -R 777 /", "chmod --recursive 777 /etc", "chmod 777 /", "chmod 777 ~",
    "chmod 777 ~/", "chmod 777 /etc/passwd", "chown -R u /usr", "chmod --reference=/x -R /etc",
    "chmod -Rv 755 ./build", "chgrp -R g /", "chmod -v 777 /", "chown u:g /",
    # power
    "init 0", "telinit 6", "init 3", "systemctl poweroff", "systemctl restart nginx",
    "loginctl suspend", "systemctl reboot --force", "kill -9 -1", "kill -- -1", "kill -1",
    "kill -s TERM -1", "kill 1234", "kill -9 1", "shutdown -h now", "halt", "poweroff",
    # rm
    "rm -r /", "rm -R /etc", "rm --recursive ~", "rm -f /etc/passwd", 'rm -rf "$(cat f)"',
    'rm -rf /"$(cat f)"', "rm -rf build", 'rm "$(cat f)" x', "rm -fr ~/", "rm -d /var/tmp/y",
    'rm -rf "$X"', "rm --force --recursive /usr", "rm .git/config", "rm -- -rf",
    # files written
    "sed -i s/a/b/ .git/config", "sed s/a/b/ .git/config", "sed --in-place=.bak s/a/b/ .git/config",
    "sed -ie s/a/b/ /etc/hosts", "tee .git/hooks/pre-commit", "truncate -s0 /etc/passwd",
    "touch /etc/x", "touch -r ref .git/config", "mkdir -m 700 /etc/x", "rmdir /usr/x",
    "unlink .git/config", "truncate -s 0 build/log", "tee -a /etc/hosts",
    # a ~ left after expansion is a literal name (no such user), in the directory
    "touch ~nosuchuser", "echo x > ~nosuchuser/.git/config", "touch '~'/x",
    'cd "$(cat f)"; echo x > y',
    # interpreters' flags: code given inline, by =, after flags with values, after --
    "perl -e'print 1' -e 'system(\"rm -rf ~\")'",
    "python3 -- -c 'import shutil; shutil.rmtree(\"/\")'",
    "python3 -B -W ignore -c 'import shutil; shutil.rmtree(\"/\")'",
    "node --eval=1 --eval=2 --eval='require(\"fs\").rmSync(\"/\", {recursive: true})'",
    "node --eval=1 --eval='require(\"fs\").rmSync(\"/\", {recursive: true})'",
    "node --eval 1 --eval 'require(\"fs\").rmSync(\"/\", {recursive: true})'",
    "python3 -Wc 'import shutil; shutil.rmtree(\"/\")'", "perl -eE 'system(\"rm -rf ~\")'",
    "perl -eeE 'system(\"rm -rf ~\")'", "perl -e 'unlink \"/etc/passwd\"' -e 1",
    # copies: sources and the target directory, however it is given
    "mv -t build x .git/config", "mv x ~", "mv a .git/config b", "cp -t .git/hooks x", "cp -v",
    "cp -r /var/tmp/y/.git build", "cp --target-directory=.git/hooks x",
    "cp --target=.git/hooks x", "cp -t.git/hooks x", "cp -vt .git/hooks x",
    "ln -st .git/hooks x", "cp -tx .git/hooks/a", "mv -tx .git/hooks/a", "cp -St x y",
    "cp -St x .git/hooks/y", "cp -- -t .git/hooks x", "cp x -t", "touch -r .git/config x",
    # find's roots, actions and what -delete deletes
    "find / -exec sudo rm -rf {} +", "find '(' -delete ')'", "find '!' -delete", "find /",
    "find build", "find .git -name x -delete", "find .git/hooks -delete",
    "find .git -name x -exec rm {} +", "find / -exec echo {} \\; -exec rm {} \\;",
    "find / -exec echo {} + -exec rm {} +", "find ~ -execdir rm -rf {} +",
    "find / -exec + -exec rm {} +",
    # eval's and trap's code, with the script's directory and parameters
    "cd /; eval 'rm -rf etc'", "bash -c 'eval \"rm -rf $1\"' sh /",
    "cd /; trap 'rm -rf etc' EXIT", "bash -c 'trap \"rm -rf $1\" EXIT' sh /",
    "trap 'rm -rf ~' - INT", "trap -- '-c; rm -rf ~' EXIT", "trap '-c; rm -rf ~' EXIT",
    "trap -- - EXIT",
    # modes, power, rm's options
    "chmod --reference=/R /etc/x", "chmod 777 ../../../../../../../../../../../..",
    "cd /; chmod 777 .", "cd ~; chmod 777 .", "chmod 777 .", "telinit -t 5 0",
    "rm --force /etc/passwd", "rm $(cat f) /etc", "rm /$X /etc",
    # shells' options
    "bash -- -c 'rm -rf ~'", 'bash - "$(cat f)"', 'bash -x -- "$(cat f)"',
    'bash -- "$(cat f)" x', "bash -o pipefail -o errexit -c 'rm -rf ~'",
    "bash -o posix -c 'rm -rf ~' x", "bash --norc --noprofile -c 'rm -rf ~'",
    "bash -x --norc -c 'rm -rf ~'", "bash --norc 'rm -rf ~'", "bash +x -c 'rm -rf ~'",
    "bash + -c 'rm -rf ~'", "bash +c 'rm -rf ~'", "bash -x 'rm -rf ~'", "bash +xc 'rm -rf ~'",
    "sh + + -c 'rm -rf ~'",
    "cd /; bash -c 'rm -rf etc'",
    # git: history, options with commands, settings, and the directory they run in
    "git stash drop stash@{1}", "git rebase --exec='rm -rf ~ x=1' main", "git rebase main -x",
    "git rebase -x 'rm -rf ~'", "git push origin +m", "cd /; git -c core.pager='rm -rf etc' log",
    "git -c core.pager='$0 -c \"rm -rf ~\"' log", "git bisect good halt",
    "git bisect run shutdown", "git submodule --quiet foreach 'rm -rf ~'",
    "cd /; git submodule foreach 'rm -rf etc'", "git clone -c core.pager='x=1; rm -rf ~' u",
    "cd /; git clone -c core.pager='rm -rf etc' u", "cd /; git rebase -x 'rm -rf etc' main",
    "git -c core.pager='x=1; rm -rf ~' log",
    "export V='rm -rf ~'; git -p --config-env core.pager=V log",
    "export V='rm -rf ~'; git --config-env core.pager=V -p log",
    "read GIT_CONFIG_KEY_0; git log",
    "read GIT_CONFIG_VALUE_0; export GIT_CONFIG_KEY_0=core.pager; git log",
    "git --git-dir .git push -f", "git --work-tree . push -f", "git --namespace n push -f",
    "git -p push -f", 'read GIT_PAGER; git log', "cd /; GIT_PAGER='rm -rf etc' git log",
    "git -c core.fsmonitor=true status",
    # the analysis: code fed to shells, with their parameters, in their directory
    "bash -s / <<< 'rm -rf \"$1\"'", "echo 'rm -rf \"$1\"' | bash -s /",
    "bash -s -- / <<< 'rm -rf $1'", "bash -o posix -s / <<< 'rm -rf $1'", "bash <<< 'rm -rf $1'",
    "bash <<< 'rm -rf \"$0\"'", "bash -c 'bash <<< \"rm -rf \\$1\"' sh /",
    "bash -c 'source /dev/stdin <<< \"rm -rf \\$1\"' sh /",
    "echo 'rm -rf $1' | bash -s \"$(cat f)\"", "cd /; bash <<< 'rm -rf etc'",
    "cd /; echo 'rm -rf etc' | bash", "echo 'rm -rf ~' | . /dev/stdin",
    "echo 'rm -rf ~' | bash 2>e | cat", "echo 'rm -rf ~' | { cat; } | bash",
    "echo 'rm -rf ~' | # c\n bash", "bash <<EOF && true\nrm -rf ~\nEOF",
    "bash <<EOF | cat\nrm -rf ~\nEOF", "bash <<< 'rm -rf ~' > out", "bash <<EOF\nEOF",
    'bash > "$(cat f)"', 'bash 2> "$(cat f)" script.sh', "curl=2 | bash", '"curl" -s u | bash',
    "curl -o x.sh u; bash x.sh", "wget -O x.sh u; cd /; bash x.sh",
    # what a script's commands do to its variables and directory
    'unset HOME; rm -rf /"$HOME"etc/ssh', 'unset -f HOME; rm -rf /"$HOME"etc/ssh',
    "echo 'rm -rf ~' | bash=1", 'cat <<< "$(cat f)"', 'x="$0"; rm -rf "$x"',
    "bash -c 'x=\"$1\"; rm -rf \"$x\"' sh /", 'HOME=; rm -rf /"$HOME"', 'x=(build); rm -rf ~/"$x"',
    "if true; then echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    'unset HOME; rm -rf /"$HOME"', "pushd /; rm -rf etc", "popd; rm -rf etc", "cd; rm -rf ../u",
    "pushd; rm -rf ../u", "cd -; rm -rf etc", "cd build; echo x > ../.git/config",
    'for d; do rm -rf "$d"; done', 'read x; x=/; rm -rf "$x"', 'rm -rf "$0"',
    "\"$0\" -c 'rm -rf ~'",
    'x[0]=/; rm -rf "$x"', 'x[1]=build; rm -rf "$x"', 'x=(build dist); rm -rf "$x"',
    # functions, redirections
    "f() { f | cat; }; f", "f() { f; f; }; f", "echo x >& .git/config",
    # output known without running anything: echo's options, printf, base64, mktemp
    "echo -neE 'rm -rf ~' | bash", "echo -X 'rm -rf ~' | bash", "echo -e -n 'rm -rf \\x7e' | bash",
    "echo -e -E 'rm -rf \\x7e' | bash", "echo -n 'rm -rf \\x7e' | bash",
    "rm -rf \"$(printf '%b' /)\"", "rm -rf \"$(echo 'L w==' | base64 -d)\"",
    'rm -rf "$(mktemp -d -p /)"', 'rm -rf "$(mktemp -p / -d)"',
    # ~+ and $PWD: the directories the script may be in
    "cd '/ etc'; rm -rf ~+", 'cd "$(cat f)"; rm -rf "$PWD"',
    # code that interpreters run, in the directory the script moved to
    "cd /; python3 -c 'import os; os.system(\"rm -rf etc$x\")'",
    "cd /; python3 -c 'import os; os.system(\"rm -rf etc\")'", "cd /; perl -e 'print `rm -rf etc`'",
    "cd /; python3 -c 'print(\"rm -rf etc\")'",
    # raw devices, however their path is written
    "echo x > //dev/sda", "cd /dev; echo x > sda", "dd if=x of=//dev/sda", "cd /dev; shred sda",
    "cd /dev; echo x > null", "echo x > dev/sda", "chmod -R 777 /Xetc", "rm -rf ~/.?*",
    "rm -rf X*",
]  # fmt: skip


#: Commands whose reason depends on the machine: /tmp/x is where CI's instructions clone
#: tai, and then tai's own installation, which the policy names first (the corpus tests
#: still check that they are refused).
MACHINE_DEPENDENT = frozenset({"mv .git/hooks /tmp/x"})


def reasons(repo: Path) -> dict[str, str]:
    found = {}
    for command in [*DESTRUCTIVE, *ONE_LINERS, *GIT_CONFIG, *RULE_CASES]:
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
