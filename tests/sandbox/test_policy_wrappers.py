"""The shell policy looks through wrapper commands as the programs read their options:
``xargs -n 1 rm -rf /`` is judged as ``rm -rf /``. For each wrapper, every option that
takes a value (short, bundled, the value attached or next, long with ``=`` or next, GNU
abbreviations the program accepts, ``--`` ending the options), options whose value is
optional (``xargs --replace``, ``-i``, ``-e``, ``-l``) that take none from the next
argument, and the wrappers that run a string through a shell (``watch``, ``flock -c``,
``su -c``, ``script -c``) however it is given.

The option lists come from the programs' own ``--help`` (GNU findutils' xargs, coreutils'
timeout, nice, stdbuf; util-linux's flock, script, su, chrt; procps-ng's watch; strace 6),
ltrace's getopt string and sudo's manual (``sudo(8)``: ``-a -C -c -D -g -h -p -R -r -T -t
-U -u`` and their long names). Where the program is installed,
:func:`test_the_real_program_runs_the_same_command` runs it with a harmless command in place
of ``rm -rf /``, so the prefix is shown to be read as the policy reads it.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

import pytest

from .policy_cases import ALLOWED, ROOT, check


def _later(path: str) -> str:
    return f"refused: recursive rm deletes {path}, a path only known when the command runs"


# -- wrappers that run their operands as a command ------------------------------------------

#: A wrapper and its options, the command following them. Each prefix runs ``rm -rf /``
#: (refused for the root) and ``echo ran`` (allowed); ``{lock}`` is a lock file.
PREFIXES = [
    # xargs (GNU findutils): -a -d -E -I -L -n -P -s take a value, attached or next
    "xargs -a /dev/null",
    "xargs -a/dev/null",
    "xargs -d ,",
    "xargs -d,",
    "xargs -E END",
    "xargs -I {}",
    "xargs -L 1",
    "xargs -n 1",
    "xargs -n1",
    "xargs -P 2",
    "xargs -s 4096",
    "xargs -s4096",
    # bundled after flags, the value next or attached
    "xargs -0n 1",
    "xargs -0rn1",
    "xargs -tL 1",
    # long options, the value after = or next
    "xargs --arg-file /dev/null",
    "xargs --arg-file=/dev/null",
    "xargs --delimiter ,",
    "xargs --max-args 1",
    "xargs --max-args=1",
    "xargs --max-procs 2",
    "xargs --max-chars 4096",
    "xargs --process-slot-var SLOT",
    # abbreviations getopt takes: no other long option starts so
    "xargs --arg /dev/null",
    "xargs --del ,",
    "xargs --max-a 1",
    "xargs --max-p 2",
    "xargs --max-c 4096",
    "xargs --pro SLOT",
    # optional values are attached only: the next argument is the command
    "xargs --replace",
    "xargs --rep",
    "xargs --eof",
    "xargs -e",
    "xargs -i",
    "xargs -l",
    "xargs -l1",
    # an optional value takes the rest of its bundle, even a letter that takes a value
    "xargs -eI",
    "xargs -iI",
    "xargs --max-lines=1",
    # options without a value, and -- ending them
    "xargs -0 -r -t -x",
    "xargs --null --no-run-if-empty --verbose",
    "xargs -n 1 --",
    "xargs --",
    # timeout (coreutils): -s -k take a value, then the duration
    "timeout 5",
    "timeout -s KILL 5",
    "timeout -sKILL 5",
    "timeout -k 1 5",
    "timeout -vk 1 5",
    "timeout --signal KILL 5",
    "timeout --signal=KILL 5",
    "timeout --kill-after 1 5",
    "timeout --sig KILL 5",
    "timeout --k 1 5",
    "timeout --preserve-status --foreground 5",
    "timeout -- 5",
    # nice, stdbuf (coreutils)
    "nice -n 5",
    "nice -n5",
    "nice --adjustment 5",
    "nice --adj 5",
    "stdbuf -o L",
    "stdbuf -oL",
    "stdbuf -i 0 -e 0",
    "stdbuf --output L",
    "stdbuf --out L",
    "stdbuf --input=0 --error 0",
    # flock (util-linux): -w -E take a value; the lock file, then the command
    "flock {lock}",
    "flock -x {lock}",
    "flock -s {lock}",
    "flock -n {lock}",
    "flock -w 1 {lock}",
    "flock -w1 {lock}",
    "flock -nw 1 {lock}",
    "flock -E 3 {lock}",
    "flock --timeout 1 {lock}",
    "flock --timeout=1 {lock}",
    "flock --wait 1 {lock}",
    "flock --w 1 {lock}",
    "flock --t 1 {lock}",
    "flock --conflict-exit-code 3 {lock}",
    "flock --con 3 {lock}",
    "flock --nb --close {lock}",
    "flock -- {lock}",
    # chrt (util-linux): -T -P -D take a value, then the priority
    "chrt -o 0",
    "chrt --other 0",
    "chrt -T 100000 -P 200000 -D 200000 -d 0",
    "chrt --sched-runtime 100000 --sched-period 200000 -d 0",
    "chrt --sched-dead 200000 -d 0",
    # taskset: the mask or CPU list, then the command
    "taskset 1",
    "taskset -c 0",
    # sudo (sudo(8)): -a -C -c -D -g -h -p -R -r -T -t -U -u take a value
    "sudo",
    "sudo -u bob",
    "sudo -ubob",
    "sudo -Eu bob",
    "sudo -g wheel",
    "sudo -p prompt",
    "sudo -C 5",
    "sudo -D /tmp",
    "sudo -R /srv",
    "sudo -r role",
    "sudo -t type",
    "sudo -T 60",
    "sudo -U bob",
    "sudo -a type",
    "sudo -c class",
    "sudo --user bob",
    "sudo --user=bob",
    "sudo --u bob",
    "sudo --group wheel",
    "sudo --chdir /tmp",
    "sudo --chroot /srv",
    "sudo --close-from 5",
    "sudo --command-timeout 60",
    "sudo --login-class class",
    "sudo --other-user bob",
    "sudo --auth-type type",
    "sudo --type type",
    "sudo --role role",
    "sudo --prompt prompt",
    "sudo --host host",
    # --login is an option of its own, not an abbreviation of --login-class
    "sudo --login",
    "sudo -- ",
    "sudo VAR=1",
    # doas (OpenBSD's doas(1)): -a -C -u take a value
    "doas -u bob",
    "doas -ubob",
    "doas -C /etc/doas.conf",
    "doas -a style",
    "doas -ns -a style",
    # strace (6: strace -h): -a -b -e -E -I -o -O -p -P -s -S -u -U -X take a value
    "strace -o /dev/null",
    "strace -o/dev/null",
    "strace -fo /dev/null",
    "strace -a 40",
    "strace -a40",
    "strace -X raw",
    "strace -I 1",
    "strace -b execve",
    "strace -E A=1",
    "strace -e trace=none",
    "strace -s 10",
    "strace -P /tmp",
    "strace -O 1",
    "strace -c -S calls -U name",
    "strace --output /dev/null",
    "strace --output=/dev/null",
    "strace --trace none",
    "strace --trace-path /tmp",
    "strace --trace-p /tmp",
    "strace --env A=1",
    "strace --columns 40",
    "strace --string-limit 10",
    "strace --signal none",
    "strace --status successful",
    "strace --abbrev none",
    "strace --verbose none",
    "strace --raw none",
    "strace --read 0",
    "strace --write 1",
    "strace --fault none",
    "strace --detach-on execve",
    "strace --interruptible 1",
    "strace --const-print-style raw",
    "strace --decode-pids comm",
    "strace -c --summary-columns name",
    "strace -c --summary-col name",
    "strace -c --summary-sort-by calls",
    "strace -c --summary-syscall-overhead 1",
    # options without a value; --summary is one, not an abbreviation of --summary-columns
    "strace --summary --follow-forks --quiet --absolute-timestamps --debug",
    "strace -f --",
    # ltrace (0.7.3's getopt string; -X in older ones): -S is a flag
    "ltrace -S",
    "ltrace -fS -o /dev/null",
    "ltrace -a 40",
    "ltrace -A 5",
    "ltrace -D 1",
    "ltrace -e malloc",
    "ltrace -F /etc/ltrace.conf",
    "ltrace -l libc.so.6",
    "ltrace -n 2",
    "ltrace -o/dev/null",
    "ltrace -p 1",
    "ltrace -s 10",
    "ltrace -u bob",
    "ltrace -w 3",
    "ltrace -x main",
    "ltrace -X main",
    "ltrace --align 40",
    "ltrace --config /etc/ltrace.conf",
    "ltrace --debug 1",
    "ltrace --indent=2",
    "ltrace --library libc.so.6",
    "ltrace --output /dev/null",
    "ltrace --where 3",
    "ltrace --demangle --no-signals",
]


def _program(prefix: str) -> str:
    return prefix.split(maxsplit=1)[0]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_the_command_behind_the_options_is_judged(prefix: str, repo: Path) -> None:
    prefix = prefix.replace("{lock}", "/tmp/lock")
    check([(f"{prefix} rm -rf /", ROOT), (f"{prefix} echo ran", ALLOWED)], repo)


#: Run here: the programs that run a command without privileges or a terminal. sudo,
#: watch, su are left out; chrt -d needs privileges.
RUNNABLE = [
    p
    for p in PREFIXES
    if _program(p) in ("xargs", "timeout", "nice", "stdbuf", "flock", "taskset", "chrt", "strace")
    and " -d 0" not in p
]


@functools.cache
def _can_trace() -> bool:
    done = subprocess.run(["strace", "-o", "/dev/null", "true"], capture_output=True, check=False)
    return done.returncode == 0


@pytest.mark.parametrize("prefix", RUNNABLE)
def test_the_real_program_runs_the_same_command(prefix: str, tmp_path: Path) -> None:
    if shutil.which(_program(prefix)) is None:
        pytest.skip(f"{_program(prefix)} is not installed")
    if _program(prefix) == "strace" and not _can_trace():
        pytest.skip("strace cannot trace here (no ptrace)")
    command = f"{prefix.replace('{lock}', str(tmp_path / 'lock'))} echo ran"
    done = subprocess.run(
        command, shell=True, input="x\n", capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.stdout.startswith("ran"), (command, done.stdout, done.stderr)


#: --max-lines takes its value only after = (-L takes the next argument): the number is
#: the command, as xargs runs it.
def test_xargs_max_lines_takes_no_next_argument(repo: Path) -> None:
    check([("xargs --max-lines 1 rm -rf /", ALLOWED), ("xargs --max-l 1 rm -rf /", ALLOWED)], repo)
    if shutil.which("xargs"):
        done = subprocess.run(
            ["xargs", "--max-lines", "1", "echo"], input="x", capture_output=True, text=True
        )
        assert "1: No such file or directory" in done.stderr


#: ``--`` ends a wrapper's options and a lone ``-`` is an operand: the word after them is
#: the command even when it looks like an option (nice runs a program named ``-n``).
OPERANDS = [
    ("nice -- -n 5 rm -rf /", ALLOWED),
    ("nice - rm -rf /", ALLOWED),
    ("sudo -- -u bob rm -rf /", ALLOWED),
    ("timeout -- 5 -k 1 rm -rf /", ALLOWED),
]


def test_the_options_end_at_double_dash_or_a_lone_dash(repo: Path) -> None:
    check(OPERANDS, repo)
    if shutil.which("nice"):
        for command in (["nice", "--", "-n", "5", "echo", "ran"], ["nice", "-", "echo", "ran"]):
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            assert (done.returncode, done.stdout) == (127, ""), (command, done.stderr)


# -- xargs: the string its input replaces -------------------------------------------------

XARGS_REPLACE = [
    # -I R, attached, bundled; --replace=R; {} for -i and --replace without a value
    ("xargs -I {} rm -rf build/{}", _later("build/…")),
    ("xargs -I{} rm -rf build/{}", _later("build/…")),
    ("xargs -0I % rm -rf build/%", _later("build/…")),
    ("xargs -0I% rm -rf build/%", _later("build/…")),
    ("xargs --replace=X rm -rf build/X", _later("build/…")),
    ("xargs --rep=X rm -rf build/X", _later("build/…")),
    ("xargs --replace rm -rf build/{}", _later("build/…")),
    ("xargs -i rm -rf build/{}", _later("build/…")),
    ("xargs -0i rm -rf build/{}", _later("build/…")),
    ("xargs -iX rm -rf build/X", _later("build/…")),
    # the last one given counts
    ("xargs -I X -I Y rm -rf build/Y", _later("build/…")),
    ("xargs -I X -i rm -rf build/{}", _later("build/…")),
    # a value of another option is not -i: the input is appended
    ("xargs -a -i rm -rf build/{}", _later("…")),
    ("xargs -n 1 rm -rf build", _later("…")),
    ("xargs --arg-file -i rm -rf build/{}", _later("…")),
    ("xargs --null -i rm -rf build/{}", _later("build/…")),
    ("xargs -0 -i rm -rf build/{}", _later("build/…")),
    # -e takes the rest of its bundle: -ei sets the end-of-file string i
    ("xargs -ei rm -rf build/{}", _later("…")),
    # a value next to its option, alone or ending a bundle, is not an option
    ("xargs --max-args 1 -i rm -rf build/{}", _later("build/…")),
    ("xargs -0a -i rm -rf build/{}", _later("…")),
    ("xargs -E -i rm -rf build/{}", _later("…")),
    # -e -i -l never take the next argument
    ("xargs -e -i rm -rf build/{}", _later("build/…")),
    # no command: echo, given the input
    ("xargs", ALLOWED),
    ("xargs -n 1", ALLOWED),
    ("xargs -I {}", ALLOWED),
    # -I without its value: xargs fails; the policy still reads the line
    ("xargs -I", ALLOWED),
]


def test_xargs_replaces_its_string(repo: Path) -> None:
    check(XARGS_REPLACE, repo)


# -- wrappers that run a string, or their operands, through a shell -------------------------

STRING_RUNNERS = [
    # watch (procps-ng): its operands joined into one shell string; -n -q take a value
    ("watch rm -rf /", ROOT),
    ("watch -n 2 rm -rf /", ROOT),
    ("watch -n2 rm -rf /", ROOT),
    ("watch -tn 2 rm -rf /", ROOT),
    ("watch --interval 2 rm -rf /", ROOT),
    ("watch --interval=2 rm -rf /", ROOT),
    ("watch --int 2 rm -rf /", ROOT),
    ("watch -q 3 rm -rf /", ROOT),
    ("watch --equexit 3 rm -rf /", ROOT),
    ("watch -c rm -rf /", ROOT),
    ("watch -- rm -rf /", ROOT),
    ("watch 'rm -rf /'", ROOT),
    ("watch -n 2 ls", ALLOWED),
    # the string is parsed again: a quoted word of sh -c is split
    ("watch sh -c 'rm -rf /'", ALLOWED),
    # -x/--exec runs the operands as they are
    ("watch -x sh -c 'rm -rf /'", ROOT),
    ("watch -tx sh -c 'rm -rf /'", ROOT),
    ("watch --exec sh -c 'rm -rf /'", ROOT),
    ("watch --ex sh -c 'rm -rf /'", ROOT),
    ("watch --exe sh -c 'rm -rf /'", ROOT),
    ("watch -n 2 -x sh -c 'rm -rf /'", ROOT),
    # after the command its words are its own
    ("watch ls -x rm -rf /", ALLOWED),
    ("watch echo -c 'rm -rf /'", ALLOWED),
    # flock: -c or --command right after the lock file is a shell string
    ("flock /tmp/lock -c 'rm -rf /'", ROOT),
    ("flock -n /tmp/lock --command 'rm -rf /'", ROOT),
    ("flock -w 1 /tmp/lock -c 'rm -rf /'", ROOT),
    ("flock /tmp/lock -c ls", ALLOWED),
    ("flock /tmp/lock grep -c x /etc/passwd", ALLOWED),
    # su (util-linux): -c/--command/--session-command, options anywhere before --
    ("su -c 'rm -rf /'", ROOT),
    ("su -c'rm -rf /'", ROOT),
    ("su -lc 'rm -rf /'", ROOT),
    ("su bob -c 'rm -rf /'", ROOT),
    ("su - bob -c 'rm -rf /'", ROOT),
    ("su -s /bin/sh -c 'rm -rf /' bob", ROOT),
    ("su -g wheel -c 'rm -rf /'", ROOT),
    ("su --command 'rm -rf /'", ROOT),
    ("su --command='rm -rf /'", ROOT),
    ("su --command='X=1 rm -rf /'", ROOT),
    ("su -s/bin/sh -c 'rm -rf /'", ROOT),
    ("su -wX -c 'rm -rf /'", ROOT),
    ("su --comm 'rm -rf /'", ROOT),
    ("su --session-command 'rm -rf /'", ROOT),
    ("su --shell /bin/sh --command 'rm -rf /' bob", ROOT),
    ("su -c ls -c 'rm -rf /'", ROOT),
    ("su -c 'rm -rf /' -c ls", ALLOWED),
    ("su -s -c bob", ALLOWED),
    # the value of another option is not -c: -g, -G, -s, -w take one, the next argument
    ("su -g -c 'rm -rf /'", ALLOWED),
    ("su -G -c 'rm -rf /'", ALLOWED),
    ("su -w -c 'rm -rf /'", ALLOWED),
    ("su --whitelist-environment -c 'rm -rf /'", ALLOWED),
    ("su --group -c 'rm -rf /'", ALLOWED),
    ("su --supp-group -c 'rm -rf /'", ALLOWED),
    ("su --shell -c 'rm -rf /'", ALLOWED),
    ("su -c ls -g 'rm -rf /'", ALLOWED),
    ("su -- bob -c 'rm -rf /'", ALLOWED),
    ("su bob", ALLOWED),
    ("su -c ls bob", ALLOWED),
    # script (util-linux): -c/--command; -I -O -B -T -m -E -o take a value
    ("script -c 'rm -rf /'", ROOT),
    ("script -qc 'rm -rf /' /dev/null", ROOT),
    ("script -q /dev/null -c 'rm -rf /'", ROOT),
    ("script -O log -c 'rm -rf /'", ROOT),
    ("script --command='rm -rf /' -q /dev/null", ROOT),
    ("script --comm 'rm -rf /' /dev/null", ROOT),
    ("script --command='X=1 rm -rf /' /dev/null", ROOT),
    ("script -Olog -c 'rm -rf /'", ROOT),
    ("script --log-out -c 'rm -rf /'", ALLOWED),
    ("script --log-in -c 'rm -rf /'", ALLOWED),
    ("script --log-io -c 'rm -rf /'", ALLOWED),
    ("script --log-timing -c 'rm -rf /'", ALLOWED),
    ("script --logging-format -c 'rm -rf /'", ALLOWED),
    ("script --echo -c 'rm -rf /'", ALLOWED),
    ("script -E never -c 'rm -rf /'", ROOT),
    ("script -E -c 'rm -rf /'", ALLOWED),
    ("script -o -c 'rm -rf /'", ALLOWED),
    ("script --output-limit -c 'rm -rf /'", ALLOWED),
    ("script -q /dev/null", ALLOWED),
    ("script -c ls /dev/null", ALLOWED),
    # busybox: its operands are the command
    ("busybox rm -rf /", ROOT),
    ("busybox ls", ALLOWED),
]


def test_string_runners_run_their_string(repo: Path) -> None:
    check(STRING_RUNNERS, repo)


SCRIPT_RUNS = [
    "script -qc 'echo ran' /dev/null",
    "script -q /dev/null -c 'echo ran'",
    "script --command='echo ran' -q /dev/null",
    "script --comm 'echo ran' -q /dev/null",
    "script --command='X=1 echo ran' -q /dev/null",
    "script -Olog -qc 'echo ran'",
    "flock {lock} -c 'echo ran'",
    "flock -w 1 {lock} --command 'echo ran'",
]


@pytest.mark.parametrize("command", SCRIPT_RUNS)
def test_the_real_string_runner_runs_its_string(command: str, tmp_path: Path) -> None:
    if shutil.which(command.split(maxsplit=1)[0]) is None:
        pytest.skip(f"{command.split(maxsplit=1)[0]} is not installed")
    command = command.replace("{lock}", str(tmp_path / "lock"))
    # Standard input is empty: util-linux's script, fed a line and then the end of its
    # input, waits two seconds before it ends.
    done = subprocess.run(
        command, shell=True, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        cwd=tmp_path, check=False,
    )  # fmt: skip
    assert "ran" in done.stdout, (command, done.stdout, done.stderr)
