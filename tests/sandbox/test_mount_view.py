"""The filesystem view inside the sandbox (tai_sandbox._mounts.build_view), built directly:
one small program enters the namespaces with a view of a prepared tree, tries what a
command inside might try — write, list, read, rename, look at mount flags — and reports
each outcome; the tests check the report and the tree outside afterwards. One run serves
every test (it takes a fraction of a second), so each mutant of the module can be run
against all of them.

Most of the tree lives under pytest's temporary directory, below ``/tmp``, which the view
replaces by a fresh one: the writable roots there are bound back, the directories leading
to them are read-only, and everything else of the host's ``/tmp`` is gone. The working
directory lives in ``/var/tmp`` (a part of the host the view keeps, read-only), and its name
has a space in it (mountinfo writes it ``\\040``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.usefixtures("namespaces"), pytest.mark.permissions]

PROBE = r"""
import errno, json, os, sys
from functools import partial
from pathlib import Path
from tai_sandbox._mounts import Layer, build_view
from tai_sandbox._process import SandboxUnavailable, enter
from tai_sandbox.paths import WritableSet

config = json.loads(sys.argv[1])
if config.get("private"):  # a host whose /tmp (/run, /etc) is a tmpfs of its own
    from tai_sandbox import _linux
    uid, gid = os.getuid(), os.getgid()
    _linux.unshare(_linux.CLONE_NEWUSER | _linux.CLONE_NEWNS)
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    _linux.mount(None, "/", None, _linux.MS_REC | _linux.MS_PRIVATE)
    for top, files in config["private"]:  # in order: a later mount may cover an earlier
        _linux.mount("tmpfs", top, "tmpfs", 0, "mode=1777")
        for name, content in files.items():
            Path(name).parent.mkdir(parents=True, exist_ok=True)
            if content.startswith("->"):
                Path(name).symlink_to(content[2:])
            else:
                Path(name).write_text(content)
        if top in config.get("read_only", []):
            _linux.remount_readonly(top)
if config.get("refuse"):  # a kernel that will not make these mounts read-only
    from tai_sandbox import _linux
    remount_readonly = _linux.remount_readonly
    def refusing(target):
        if target in config["refuse"]:
            raise OSError(errno.EPERM, "refused")
        remount_readonly(target)
    _linux.remount_readonly = refusing
writable = WritableSet(
    cwd=Path(config["cwd"]),
    roots=tuple(map(Path, config["roots"])),
    hidden=tuple(map(Path, config["hidden"])),
)
layers = [Layer(*map(Path, layer)) for layer in config["layers"]]
protected = list(map(Path, config["protected"]))
view = partial(build_view, writable, protected, layers, list(map(Path, config["visible"])))
try:
    fallbacks = enter(view)
except SandboxUnavailable as error:
    print(json.dumps({"unavailable": str(error)}))
    sys.exit(0)

def outcome(action):
    try:
        return action()
    except OSError as error:
        return errno.errorcode[error.errno]

def write(path):
    with open(path, "w") as file:
        file.write("written inside")
    return "ok"

def flags(path):
    found = os.statvfs(path).f_flag
    names = {"rdonly": os.ST_RDONLY, "nosuid": os.ST_NOSUID, "nodev": os.ST_NODEV,
             "noexec": os.ST_NOEXEC}
    return sorted(name for name, bit in names.items() if found & bit)

def mounted(path):  # the file system mounted last at path: its type, source, options
    found = "not a mount point"
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields, _, rest = line.partition(" - ")
        point = fields.split()[4].encode().decode("unicode_escape")
        if point == path:
            fstype, source, options = rest.split()
            found = {"type": fstype, "source": source, "options": options}
    return found

probes = config["probes"]
report = {
    "mounted": {p: mounted(p) for p in probes.get("mounted", [])},
    "links": {p: outcome(lambda p=p: os.readlink(p)) for p in probes.get("links", [])},
    "modes": {p: outcome(lambda p=p: oct(os.stat(p).st_mode & 0o7777))
              for p in probes.get("modes", [])},
    "fallbacks": fallbacks,
    "cwd": os.getcwd(),
    "list": {p: outcome(lambda p=p: sorted(os.listdir(p))) for p in probes["list"]},
    "read": {p: outcome(lambda p=p: Path(p).read_text()) for p in probes["read"]},
    "head": {p: outcome(lambda p=p: open(p, "rb").read(4).hex()) for p in probes.get("head", [])},
    "flags": {p: outcome(partial(flags, p)) for p in probes["flags"]},
    "write": {p: outcome(partial(write, p)) for p in probes["write"]},
    "rename": {a: outcome(lambda a=a, b=b: os.rename(a, b) or "ok") for a, b in probes["rename"]},
}
print(json.dumps(report))
"""


class Tree:
    """The prepared directories, outside."""

    def __init__(self, base: Path, outer: Path) -> None:
        self.base, self.outer, self.runtime = base, outer, outer / "run"
        self.fresh = f"/tmp/{outer.name}.txt"  # written in the fresh /tmp: not the host's
        self.work = outer / "work dir"
        self.data, self.cache, self.install = base / "data", base / "cache", base / "install"
        self.keys = self.data / "keys"
        self.gocache, self.comma = base / "gocache", outer / "go,cache"
        # a second overlay the kernel cannot be told of, under /tmp: hidden with the rest
        self.colon = base / "go:cache"
        # an X in a name: the characters refused in overlay options are exactly ",:\"
        self.upper, self.scratch = self.cache / "layer" / "Xupper", self.cache / "layer" / "work"
        for directory in (
            self.gocache, self.outer, self.comma, self.colon, self.install, self.runtime
        ):  # fmt: skip
            directory.mkdir()
        self.deep = self.work / "pkg" / "sub"  # a tai.toml two directories down
        for directory in (
            self.work / ".git" / "hooks", self.deep, self.keys, self.upper, self.scratch
        ):  # fmt: skip
            directory.mkdir(parents=True)
        files = {
            self.work / "notes.txt": "notes\n",
            self.work / ".git" / "config": "[core]\n",
            self.work / ".git" / "hooks" / "pre-commit": "#!/bin/sh\n",
            self.keys / "secret": "key\n",
            self.gocache / "cached.txt": "cached\n",
            self.install / "module.py": "x = 1\n",
            base / "outside.txt": "outside\n",
            self.runtime / "bus": "a socket stands here\n",
            self.comma / "cached.txt": "cached\n",
            self.colon / "cached.txt": "cached\n",
            self.deep / "tai.toml": "[sandbox]\n",
        }
        for path, text in files.items():
            path.write_text(text)

    def config(self) -> dict[str, Any]:
        w, git = str(self.work), self.work / ".git"
        return {
            "cwd": w,
            "roots": [w, str(self.data), str(self.cache), "/tmp", "/dev/shm"],
            "hidden": [str(self.keys)],
            "protected": [str(git / "hooks"), str(git / "config"), str(self.deep / "tai.toml")],
            "layers": [
                [str(self.gocache), str(self.upper), str(self.scratch)],
                [str(self.comma), str(self.upper), str(self.scratch)],
                [str(self.colon), str(self.upper), str(self.scratch)],
            ],
            "visible": [str(self.install)],
            "probes": {
                "write": [
                    f"{w}/new.txt", f"{self.data}/new.txt", f"{self.cache}/new.txt",
                    f"{git}/config", f"{git}/hooks/post-checkout", f"{git}/new.txt",
                    f"{self.keys}/new", f"{self.gocache}/built.txt", f"{self.comma}/built.txt",
                    f"{self.install}/module.py", f"{self.base}/new.txt", self.fresh,
                    f"{self.runtime}/new", "/dev/null", "/dev/full", "/dev/shm/new", "/dev/new",
                    f"{self.deep}/tai.toml", f"{self.colon}/built.txt",
                ],
                "list": [
                    "/dev", "/dev/pts", str(self.keys), str(self.runtime), str(self.base),
                    "/tmp", "/proc/self/task",
                ],
                "read": [
                    f"{self.gocache}/cached.txt", f"{self.install}/module.py",
                    f"{self.base}/outside.txt", f"{w}/notes.txt", f"{self.keys}/secret",
                    f"{self.comma}/cached.txt",
                    "/etc/resolv.conf",
                ],
                "flags": [
                    "/", w, str(self.data), "/tmp", "/dev", "/dev/shm", "/proc", str(self.install),
                    str(self.base), str(self.keys), str(self.gocache), str(self.comma),
                    str(self.runtime), "/etc", "/dev/pts",
                ],
                "rename": [
                    [str(git), f"{w}/git"], [f"{w}/notes.txt", f"{w}/moved.txt"],
                    [f"{w}/pkg", f"{w}/moved"], [str(self.deep), f"{w}/pkg/moved"],
                ],
                "head": ["/dev/zero", "/dev/null"],
                "mounted": [
                    "/dev", "/dev/pts", "/dev/shm", str(self.keys), str(self.runtime),
                    str(self.gocache), "/tmp", "/proc", str(self.base),
                ],
                "links": [
                    "/dev/ptmx", "/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr",
                ],
                "modes": ["/dev", "/dev/shm", "/dev/pts/ptmx", str(self.keys), str(self.runtime)],
            },
        }  # fmt: skip


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tree]:
    base = tmp_path_factory.mktemp("view")
    outer = Path("/var/tmp") / f"tai-view-{uuid.uuid4().hex}"  # outside /tmp: stays
    try:
        yield Tree(base, outer)
    finally:
        shutil.rmtree(outer, ignore_errors=True)


def probe(config: dict[str, Any], runtime: Path, cwd: Path | None = None) -> dict[str, Any]:
    """What the probe program reports from inside a view made with ``config``, started in
    ``cwd`` with ``runtime`` for ``$XDG_RUNTIME_DIR``."""
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(config)],
        capture_output=True, text=True, env=env, timeout=60, cwd=cwd,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def bare(cwd: str, roots: list[str], **probes: list[str]) -> dict[str, Any]:
    """A config for a view of ``roots`` alone, probed with ``probes`` (the rest empty)."""
    asked = {"write": [], "read": [], "list": [], "flags": [], "rename": [], **probes}
    return {
        "cwd": cwd, "roots": roots, "hidden": [], "protected": [], "layers": [], "visible": [],
        "probes": asked,
    }  # fmt: skip


@pytest.fixture(scope="module")
def report(tree: Tree) -> dict[str, Any]:
    return probe(tree.config(), tree.runtime)


def test_the_writable_roots_are_writable_and_nothing_else_of_the_host(
    tree: Tree, report: dict[str, Any]
) -> None:
    write = report["write"]
    for root in (tree.work, tree.data, tree.cache):
        assert write[f"{root}/new.txt"] == "ok"
        assert (root / "new.txt").read_text() == "written inside"
    assert write[f"{tree.base}/new.txt"] == "EROFS"  # the way to the roots is read-only
    assert write[f"{tree.install}/module.py"] == "EROFS"
    assert (tree.install / "module.py").read_text() == "x = 1\n"
    assert report["cwd"] == str(tree.work)


def test_protected_paths_stay_read_only_and_in_place(tree: Tree, report: dict[str, Any]) -> None:
    git = tree.work / ".git"
    assert report["write"][f"{git}/config"] == "EROFS"
    assert report["write"][f"{git}/hooks/post-checkout"] == "EROFS"
    assert report["write"][f"{git}/new.txt"] == "ok"  # the directory itself is not protected
    assert report["rename"] == {
        str(git): "EBUSY", f"{tree.work}/notes.txt": "ok",
        f"{tree.work}/pkg": "EBUSY", str(tree.deep): "EBUSY",  # each directory on the way
    }  # fmt: skip
    assert (git / "config").read_text() == "[core]\n"
    assert not (git / "hooks" / "post-checkout").exists()
    assert report["write"][f"{tree.deep}/tai.toml"] == "EROFS"
    assert (tree.deep / "tai.toml").read_text() == "[sandbox]\n"


def test_tai_s_keys_are_hidden_behind_an_empty_read_only_directory(
    tree: Tree, report: dict[str, Any]
) -> None:
    assert report["list"][str(tree.keys)] == []
    assert report["read"][f"{tree.keys}/secret"] == "ENOENT"
    assert report["write"][f"{tree.keys}/new"] == "EROFS"
    assert report["flags"][str(tree.keys)] == ["nodev", "noexec", "nosuid", "rdonly"]


def test_the_host_s_tmp_is_replaced(tree: Tree, report: dict[str, Any]) -> None:
    assert report["write"][tree.fresh] == "ok"
    assert not Path(tree.fresh).exists()
    assert report["read"][f"{tree.base}/outside.txt"] == "ENOENT"
    leading = tree.base.relative_to("/tmp").parts[0]
    assert report["list"]["/tmp"] == [leading]
    assert report["list"][str(tree.base)] == ["cache", "data", "gocache", "install"]
    # only what leads to a root or is to stay visible
    assert report["read"][f"{tree.install}/module.py"] == "x = 1\n"
    assert report["read"][f"{tree.work}/notes.txt"] == "notes\n"


def test_a_fresh_dev_holds_only_harmless_devices(report: dict[str, Any]) -> None:
    devices = ["null", "zero", "full", "random", "urandom", "tty", "pts", "shm", "ptmx"]
    assert report["list"]["/dev"] == sorted([*devices, "fd", "stdin", "stdout", "stderr"])
    assert report["list"]["/dev/pts"] == ["ptmx"]  # a new instance: no terminal of the host
    assert report["write"]["/dev/null"] == "ok"
    assert report["write"]["/dev/full"] == "ENOSPC"  # the devices themselves, not files
    assert report["head"] == {"/dev/zero": "00000000", "/dev/null": ""}
    assert report["write"]["/dev/shm/new"] == "ok"
    assert report["write"]["/dev/new"] == "ok"  # a tmpfs of its own, like the host's
    assert report["flags"]["/dev"] == ["noexec", "nosuid"]
    assert report["flags"]["/dev/shm"] == ["nodev", "nosuid"]
    assert report["flags"]["/dev/pts"] == ["noexec", "nosuid"]


def test_what_is_mounted_where(tree: Tree, report: dict[str, Any]) -> None:
    """Each mount of the view, as the kernel lists it: type, source, options."""

    def tmpfs(options: str) -> dict[str, str]:
        return {"type": "tmpfs", "source": "tmpfs", "options": options}

    owner = {f"uid={os.getuid()}", f"gid={os.getgid()}"}  # a file system user u mounted

    def as_root_sees_it(found: Any) -> Any:
        if not isinstance(found, dict) or os.getuid() == 0:
            return found
        options = ",".join(o for o in found["options"].split(",") if o not in owner)
        return {**found, "options": options}

    mounted = {path: as_root_sees_it(found) for path, found in report["mounted"].items()}
    assert mounted["/dev"] == tmpfs("rw,mode=755")
    assert mounted["/dev/pts"] == {
        "type": "devpts", "source": "devpts", "options": "rw,mode=620,ptmxmode=666"
    }  # fmt: skip
    assert mounted["/dev/shm"] == tmpfs("rw") and mounted["/tmp"] == tmpfs("rw")
    assert mounted["/proc"] == {"type": "proc", "source": "proc", "options": "rw"}
    assert mounted[str(tree.base)] == "not a mount point"  # above a root: no anchor there
    assert mounted[str(tree.keys)] == tmpfs("ro,size=4k,mode=555")  # hidden: tiny, read-only
    assert mounted[str(tree.runtime)] == tmpfs("rw,size=64k,mode=755")  # its sockets hidden
    overlay = mounted[str(tree.gocache)]
    assert (overlay["type"], overlay["source"]) == ("overlay", "overlay")
    assert overlay["options"].startswith(
        f"rw,lowerdir={tree.gocache},upperdir={tree.upper},workdir={tree.scratch},"
    )
    assert report["modes"] == {
        "/dev": "0o755", "/dev/shm": "0o1777", "/dev/pts/ptmx": "0o666",
        str(tree.keys): "0o555", str(tree.runtime): "0o755",
    }  # fmt: skip
    assert report["links"] == {
        "/dev/ptmx": "pts/ptmx", "/dev/fd": "/proc/self/fd", "/dev/stdin": "/proc/self/fd/0",
        "/dev/stdout": "/proc/self/fd/1", "/dev/stderr": "/proc/self/fd/2",
    }  # fmt: skip


def test_mount_flags(tree: Tree, report: dict[str, Any]) -> None:
    flags = report["flags"]
    assert "rdonly" in flags["/"] and "rdonly" in flags["/etc"]
    assert flags[str(tree.work)] == ["nodev", "nosuid"]  # a root: no set-uid, no devices
    assert flags[str(tree.data)] == ["nodev", "nosuid"]
    assert flags["/tmp"] == ["nodev", "nosuid"]
    assert flags["/proc"] == ["nodev", "noexec", "nosuid"]
    assert "rdonly" in flags[str(tree.install)] and "rdonly" in flags[str(tree.base)]
    assert report["list"]["/proc/self/task"] == ["2"]  # the new PID namespace's /proc


def test_a_cache_overlay_takes_the_run_s_writes_apart(tree: Tree, report: dict[str, Any]) -> None:
    assert report["read"][f"{tree.gocache}/cached.txt"] == "cached\n"
    assert report["write"][f"{tree.gocache}/built.txt"] == "ok"
    assert report["flags"][str(tree.gocache)] == ["nosuid"]
    assert not (tree.gocache / "built.txt").exists()  # the user's cache is untouched
    assert (tree.upper / "built.txt").read_text() == "written inside"


def test_a_cache_overlayfs_cannot_be_told_of_stays_read_only(
    tree: Tree, report: dict[str, Any]
) -> None:
    assert report["fallbacks"] == [
        f"{tree.comma}: a path holds a comma, colon or backslash",
        f"{tree.colon}: a path holds a comma, colon or backslash",
    ]
    assert report["read"][f"{tree.comma}/cached.txt"] == "cached\n"
    assert report["write"][f"{tree.comma}/built.txt"] == "EROFS"
    assert "rdonly" in report["flags"][str(tree.comma)]
    # under /tmp it is gone with the rest of the host's /tmp: never bound back writable
    assert report["write"][f"{tree.colon}/built.txt"] == "ENOENT"
    assert not (tree.colon / "built.txt").exists()


def test_the_runtime_directory_s_sockets_are_hidden(tree: Tree, report: dict[str, Any]) -> None:
    assert report["list"][str(tree.runtime)] == []
    assert report["write"][f"{tree.runtime}/new"] == "EROFS"
    assert (tree.runtime / "bus").exists()
    assert report["flags"][str(tree.runtime)] == ["nodev", "noexec", "nosuid", "rdonly"]


def test_the_resolver_configuration_stays_readable(report: dict[str, Any]) -> None:
    assert report["read"]["/etc/resolv.conf"] == Path("/etc/resolv.conf").read_text()


def test_a_host_whose_tmp_run_and_etc_are_mounts_of_their_own(tree: Tree) -> None:
    """Where /tmp is a tmpfs (not remounted read-only: the view replaces it), tai's
    installation there is bound back read-only all the same; where /etc/resolv.conf leads
    into /run (systemd-resolved), /run's sockets are hidden but the resolver's directory,
    two levels down, is bound back, read-only."""
    work = tree.outer / "second work"
    work.mkdir(exist_ok=True)
    resolved = "/run/systemd/resolve"
    stub = f"{resolved}/stub-resolv.conf"
    private = [
        ["/tmp", {"/tmp/install/module.py": "x = 1\n"}],
        ["/run", {stub: "nameserver 10.0.0.53\n", "/run/bus": "a socket\n"}],
        ["/etc", {"/etc/resolv.conf": f"->..{stub}"}],
    ]
    config = {
        "private": private,
        "cwd": str(work), "roots": [str(work)], "hidden": [], "protected": [], "layers": [],
        "visible": ["/tmp/install"],
        "probes": {
            "write": ["/tmp/install/module.py", "/tmp/new.txt", "/run/new", f"{resolved}/new"],
            "read": ["/tmp/install/module.py", "/etc/resolv.conf", "/run/bus"],
            "list": ["/tmp", "/run", "/run/systemd", resolved],
            "flags": ["/tmp/install", "/run", resolved],
            "rename": [],
        },
    }  # fmt: skip
    report = probe(config, tree.runtime)
    assert report["read"] == {
        "/tmp/install/module.py": "x = 1\n",
        "/etc/resolv.conf": "nameserver 10.0.0.53\n",
        "/run/bus": "ENOENT",
    }
    assert report["write"] == {
        "/tmp/install/module.py": "EROFS", "/tmp/new.txt": "ok",
        "/run/new": "EROFS", f"{resolved}/new": "EROFS",
    }  # fmt: skip
    assert report["list"] == {
        "/tmp": ["install"],
        "/run": ["systemd"],
        "/run/systemd": ["resolve"],
        resolved: ["stub-resolv.conf"],
    }
    assert "rdonly" in report["flags"]["/tmp/install"]
    assert report["flags"]["/run"] == ["nodev", "noexec", "nosuid", "rdonly"]
    assert "rdonly" in report["flags"][resolved]


def test_a_resolver_link_that_leads_nowhere(tree: Tree) -> None:
    """Where /etc/resolv.conf leads into a directory of /run that is not there (systemd's
    link, systemd-resolved not running), /run is hidden all the same and nothing of it is
    bound back."""
    work = tree.outer / "fifth work"
    work.mkdir(exist_ok=True)
    private = [
        ["/run", {"/run/bus": "a socket\n"}],
        ["/etc", {"/etc/resolv.conf": "->../run/systemd/resolve/stub-resolv.conf"}],
    ]
    config = bare(str(work), [str(work)], list=["/run"], read=["/etc/resolv.conf"])
    report = probe({**config, "private": private}, tree.runtime)
    assert report["list"] == {"/run": []}
    assert report["read"] == {"/etc/resolv.conf": "ENOENT"}


def test_a_writable_root_under_run_leaves_run_and_hides_the_runtime_directory(
    tree: Tree,
) -> None:
    """A writable root in /run keeps /run as it is (an empty one would hide the root); the
    socket directories after it, ``$XDG_RUNTIME_DIR`` here, are hidden all the same."""
    private = [["/run", {"/run/work/notes.txt": "notes\n", "/run/bus": "a socket\n"}]]
    lists = ["/run", "/run/work", str(tree.runtime)]
    config = bare("/run/work", ["/run/work"], list=lists, write=["/run/work/new.txt"])
    report = probe({**config, "private": private}, tree.runtime)
    assert report["list"] == {
        "/run": ["bus", "work"],
        "/run/work": ["notes.txt"],
        str(tree.runtime): [],
    }
    assert report["write"] == {"/run/work/new.txt": "ok"}


@pytest.mark.parametrize("where", ["in the working directory", "relative"])
def test_a_runtime_directory_that_is_no_socket_directory_stays(tree: Tree, where: str) -> None:
    """``$XDG_RUNTIME_DIR`` inside a writable root is not hidden (the root would lose it);
    a relative one names nothing (it is not hidden relative to wherever tai started)."""
    work = tree.outer / f"work {where}"
    runtime = work / "runtime" if where != "relative" else tree.outer / "relative"
    for directory in (work, runtime):
        directory.mkdir(exist_ok=True)
    (runtime / "kept").write_text("kept\n")
    config = {
        "cwd": str(work), "roots": [str(work)], "hidden": [], "protected": [], "layers": [],
        "visible": [],
        "probes": {"write": [], "read": [], "list": [str(runtime)], "flags": [], "rename": []},
    }  # fmt: skip
    told = Path("relative") if where == "relative" else runtime
    report = probe(config, told, cwd=tree.outer)
    assert report["list"] == {str(runtime): ["kept"]}


@pytest.mark.parametrize("already", [False, True])
def test_a_mount_that_cannot_be_made_read_only_fails_the_sandbox(tree: Tree, already: bool) -> None:
    """The sandbox fails closed: a mount the kernel will not make read-only stops it, unless
    the mount is read-only already."""
    work = tree.outer / "third work"
    work.mkdir(exist_ok=True)
    config = {
        "private": [["/srv", {"/srv/file": "x\n"}]], "read_only": ["/srv"] if already else [],
        "refuse": ["/srv"],
        "cwd": str(work), "roots": [str(work)], "hidden": [], "protected": [], "layers": [],
        "visible": [],
        "probes": {"write": ["/srv/new"], "read": [], "list": [], "flags": [], "rename": []},
    }  # fmt: skip
    report = probe(config, tree.runtime)
    if already:
        assert report["write"] == {"/srv/new": "EROFS"}
    else:
        assert report == {
            "unavailable": "[Errno 1] /srv cannot be made read-only: [Errno 1] refused"
        }


def test_a_mount_hidden_under_another_is_out_of_reach_and_left(tree: Tree) -> None:
    """A mount covered by a later one on a directory above it cannot be reached by any path
    (mountinfo still lists it): it neither fails the sandbox nor needs to be made read-only."""
    work = tree.outer / "fourth work"
    work.mkdir(exist_ok=True)
    config = {
        "private": [["/srv", {"/srv/below/file": "x\n"}], ["/srv/below", {}], ["/srv", {}]],
        "cwd": str(work), "roots": [str(work)], "hidden": [], "protected": [], "layers": [],
        "visible": [],
        "probes": {"write": ["/srv/new"], "read": [], "list": ["/srv"], "flags": [], "rename": []},
    }  # fmt: skip
    report = probe(config, tree.runtime)
    assert report["write"] == {"/srv/new": "EROFS"}
    assert report["list"] == {"/srv": []}


def test_a_working_directory_in_tmp_itself(tree: Tree) -> None:
    """Run in ``/tmp`` (tai's data directory below it, as in a CI job whose home is there),
    the host's ``/tmp`` is the working directory, all of it writable (the directories that
    lead to the data directory too), whatever it holds: a ``.tai-dev`` (where the view once
    built its ``/dev``: anyone may make one in ``/tmp``) stops nothing."""
    data = "/tmp/home/.local/share/tai"
    files = {"/tmp/.tai-dev/left": "left\n", "/tmp/notes.txt": "notes\n", f"{data}/x": "x\n"}
    writes = ["/tmp/new.txt", "/tmp/home/new.txt", f"{data}/new.txt"]
    config = bare("/tmp", ["/tmp", data], write=writes, list=["/tmp"], read=["/tmp/notes.txt"])
    report = probe({**config, "private": [["/tmp", files]]}, tree.runtime)
    assert report["list"] == {"/tmp": [".tai-dev", "home", "notes.txt"]}
    assert report["read"] == {"/tmp/notes.txt": "notes\n"}
    assert report["write"] == dict.fromkeys(writes, "ok")
    assert report["cwd"] == "/tmp"


def test_a_host_without_some_of_the_devices(tree: Tree) -> None:
    """A host whose /dev lacks some of the devices the view keeps (a container without a
    terminal: no /dev/tty) gets a fresh /dev with those it has."""
    work = tree.outer / "sixth work"
    work.mkdir(exist_ok=True)
    have = ["null", "zero", "full", "random", "urandom"]
    private = [["/dev", {f"/dev/{name}": "" for name in have}]]
    report = probe(
        {**bare(str(work), [str(work)], list=["/dev"]), "private": private}, tree.runtime
    )
    made = ["pts", "shm", "ptmx", "fd", "stdin", "stdout", "stderr"]
    assert report["list"] == {"/dev": sorted([*have, *made])}


def test_a_working_directory_in_a_project_under_tmp(tree: Tree, tmp_path: Path) -> None:
    """Run in a subdirectory of a project that lives under /tmp (a checkout there; the
    project is to stay visible), the project is bound back around the working directory,
    read-only, and the working directory in it, writable."""
    project = tmp_path / "project"
    work = project / "cmd"
    work.mkdir(parents=True)
    (project / "go.mod").write_text("module example\n")
    writes = [f"{project}/new.txt", f"{work}/new.txt"]
    probes = {"list": [str(project)], "read": [f"{project}/go.mod"], "write": writes}
    config = {**bare(str(work), [str(work)], **probes), "visible": [str(project)]}
    report = probe(config, tree.runtime)
    assert report["list"] == {str(project): ["cmd", "go.mod"]}
    assert report["read"] == {f"{project}/go.mod": "module example\n"}
    assert report["write"] == {f"{project}/new.txt": "EROFS", f"{work}/new.txt": "ok"}
    assert (work / "new.txt").read_text() == "written inside"
    assert not (project / "new.txt").exists()


@pytest.mark.root
def test_a_protected_path_in_another_user_s_private_directory(tree: Tree) -> None:
    """The host's root walks into every directory of a working directory (``/tmp``, as a CI
    job or a container runs tai) and finds ``.git`` in another user's private one; inside
    the namespace, whose root does not map that user, the directory is closed, to the
    mounts as to every command: the view is made without them, and nothing there opens."""
    work = tree.outer / "seventh work"
    private = work / "other user"
    git = private / "repo" / ".git"
    git.mkdir(parents=True)
    (git / "config").write_text("[core]\n")
    keys = private / "keys"
    keys.mkdir()
    for path in (private, private / "repo", git, git / "config", keys):
        os.chown(path, 65534, 65534)  # nobody: not mapped in the namespace
    private.chmod(0o700)
    writes = [f"{work}/new.txt", f"{git}/config", f"{private}/new.txt"]
    config = {
        **bare(str(work), [str(work)], write=writes, list=[str(private)]),
        "protected": [str(git)],
        "hidden": [str(keys)],
    }
    report = probe(config, tree.runtime)
    assert report["write"] == {
        f"{work}/new.txt": "ok", f"{git}/config": "EACCES", f"{private}/new.txt": "EACCES"
    }  # fmt: skip
    assert report["list"] == {str(private): "EACCES"}
    assert (git / "config").read_text() == "[core]\n"
