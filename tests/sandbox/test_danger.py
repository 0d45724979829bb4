"""Which paths are precious (tai_sandbox._danger), function by function: the rules of
the shell policy judge every path a command deletes or changes with these."""

from __future__ import annotations

import pytest

from tai_sandbox._danger import (
    absolute,
    deletion_danger,
    precious,
    raw_device,
    shown,
    system_danger,
    within,
)
from tai_sandbox._words import DYNAMIC, Scope

CWD, HOME = "/work/proj", "/home/u"


def scope(*dirs: str | None, home: str = HOME) -> Scope:
    return Scope({}, None, dirs or (CWD,), {"HOME": home})


@pytest.mark.parametrize(
    ("path", "base", "full"),
    [("/a//b/../c", None, "/a/c"), ("//x", "/b", "/x"), ("x/../y", "/b", "/b/y"),
     ("x", None, None), ("", "/b", "/b"), ("//Xa/b", None, "/Xa/b")],
)  # fmt: skip
def test_absolute(path: str, base: str | None, full: str | None) -> None:
    assert absolute(path, base) == full


@pytest.mark.parametrize(
    ("path", "directory", "inside"),
    [("/a", "/a", True), ("/a/b", "/a", True), ("/a/b", "/a/", True), ("/ab", "/a", False),
     ("/a-evil/x", "/a", False), ("/x", "/", True), ("/", "/a", False), ("/aX/b", "/aX", True)],
)  # fmt: skip
def test_within(path: str, directory: str, inside: bool) -> None:
    assert within(path, directory) is inside


@pytest.mark.parametrize(
    ("full", "reason"),
    [
        ("/", "the root directory"),
        ("/*", "everything in the root directory"),
        ("/.*", "everything in the root directory"),
        ("/?", "the system directory /?"),  # a ? alone is not "everything"
        ("/work/proj", "the working directory"),
        ("/work/proj/*", "everything in the working directory"),
        ("/work", "/work, above it"),
        ("/work/*", "everything in /work, above it"),
        ("/home/u", "the home directory"),
        ("/home", "the home directory (/home)"),
        ("/home/u/*", "everything in the home directory"),
        ("/home/u/.?*", "everything in the home directory"),  # every dotfile
        ("/work/proj/X*", None),
        ("/usr", "the system directory /usr"),
        ("/usr/lib", "the system directory /usr/lib"),
        ("/srv/data", "the system directory /srv/data"),
        ("/opt/x/y", None),
        ("/data", "the system directory /data"),
        ("/data/x", None),
        ("/tmp/x/.git", "a repository's history (/tmp/x/.git)"),
        ("/tmp/x/.git/objects", None),
        ("/tmp/x/a*", None),
        ("/home/u/src", None),
        ("/work/proj/build", None),
    ],
)
def test_precious(full: str, reason: str | None) -> None:
    assert precious(full, CWD, HOME) == reason


def test_under_a_home_at_the_top_a_subdirectory_is_not_a_system_directory() -> None:
    assert precious("/root/cache", "/root/proj", "/root") is None
    assert precious("/root/cache", "/work/proj", "/home/u") == "the system directory /root/cache"
    assert precious("/x", "/work", "/") == "the system directory /x"  # HOME=/ is no home


@pytest.mark.parametrize(
    ("path", "dirs", "reason"),
    [
        (f"a{DYNAMIC}b", (CWD,), "a…b, a path only known when the command runs"),
        ("build", (None,), "build, relative to a directory only known when the command runs"),
        ("..", ("/work/proj/x/y", CWD), "/work, above it"),  # the second directory's
        ("build", ("/work/proj",), None),
        ("", (CWD,), None),
    ],
)
def test_deletion_danger_takes_every_possible_directory(path, dirs, reason) -> None:
    assert deletion_danger(path, scope(*dirs), CWD) == reason


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/", "/ (the root, the home or a parent of the working directory)"),
        (HOME, f"{HOME} (the root, the home or a parent of the working directory)"),
        ("/work", "/work (the root, the home or a parent of the working directory)"),
        ("/etc/ssh", "the system path /etc/ssh"),
        ("/usr", "the system path /usr"),
        (CWD, None),
        ("/work/proj/x", None),
        ("/home/u/x", None),
        ("/scratch/x", None),
    ],
)
def test_system_danger(path: str, reason: str | None) -> None:
    assert system_danger(path, scope(), CWD) == reason


def test_system_danger_judges_the_home_of_the_scope() -> None:
    assert system_danger("/usr", scope(home="/usr"), CWD) == (
        "/usr (the root, the home or a parent of the working directory)"
    )
    assert system_danger("/usr/x", scope(home="/usr"), CWD) is None  # inside the home
    assert system_danger("/usr/x", scope(), CWD) == "the system path /usr/x"


def test_system_danger_of_the_root_run_in_the_root() -> None:
    root = "/ (the root, the home or a parent of the working directory)"
    assert system_danger("/", scope("/"), "/") == root


@pytest.mark.parametrize(
    ("path", "dirs", "device"),
    [("/dev/sda", (CWD,), "/dev/sda"), ("/dev/mem", (CWD,), "/dev/mem"),
     ("/dev/../dev/sda1", (CWD,), "/dev/sda1"), ("//dev/sda", (CWD,), "/dev/sda"),
     ("/dev/null", (CWD,), None), ("/dev/fd/3", (CWD,), None), ("/dev/pts/0", (CWD,), None),
     ("/dev/shm/x", (CWD,), None), ("dev/sda", (CWD,), None), ("/devices/sda", (CWD,), None),
     ("/dev/mqueue/q", (CWD,), None), ("/dev/tty", (CWD,), None), ("/dev", (CWD,), None),
     ("sda", (CWD, "/dev"), "/dev/sda"), ("../sda", ("/dev/x",), "/dev/sda"),
     ("null", ("/dev",), None), ("sda", (None,), None), ("/dev/sda", (None,), "/dev/sda")],
)  # fmt: skip
def test_raw_device_in_every_possible_directory(
    path: str, dirs: tuple[str | None, ...], device: str | None
) -> None:
    assert raw_device(path, scope(*dirs)) == device


def test_shown() -> None:
    assert shown(f"/x/{DYNAMIC}") == "/x/…"
    assert shown("") == "''"
