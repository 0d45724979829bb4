"""The filesystem view inside the namespaces: read-only everywhere but the writable set.

Built by PID 1 of the new namespaces (see ``_process``), in this order, because each step
relies on the one before:

1. ``/`` becomes a private mount tree, so nothing done here propagates to the host.
2. Each writable root on the host (working directory, tai's data and cache directories) is
   bound onto itself: it becomes its own, read-write mount, without set-uid or device
   files taking effect inside.
3. Every other mount is remounted read-only (keeping the options the kernel locks). A
   mount that cannot be made read-only, and is not already, fails the set-up: the sandbox
   fails closed, never runs with a hole in it.
4. Fresh ``/tmp`` (tmpfs; the sockets of the host's ``/run`` and ``$XDG_RUNTIME_DIR`` are
   hidden behind empty ones too, after step 5), ``/dev`` (a tmpfs with only null, zero,
   full, random, urandom, tty, a new pts instance and a fresh ``shm``: a read-only mount
   does not stop writes *through* device nodes, so the raw disks are simply absent) and
   ``/proc`` (of the new PID namespace).
5. Writable roots that step 4 hid (a working directory under ``/tmp``) are bound again
   from a handle opened in step 2, and so, read-only, is tai's own installation when it
   lives under ``/tmp`` (a CI checkout): the forked tai still imports modules lazily.
6. Go's caches get an overlay each, mounted right after step 2 and kept out of step 3 (and
   bound again in step 5 when under ``/tmp``): the user's cache below, read-only, and a
   layer of the run's own above (in tai's cache directory, removed when the run ends), so
   builds inside find what is cached and write what they make where nothing outside reads
   it. Where the kernel refuses an overlay the cache stays read-only and the run uses
   private caches instead (:class:`Layer`, ``fallbacks``).
7. Protected paths are bound read-only over themselves; the directories between a
   writable root and a protected path are bound onto themselves too, because a mount
   point cannot be renamed or removed (EBUSY): ``mv .git x; mkdir .git`` would otherwise
   replace the protected hooks by writable ones. Hidden paths (tai's keys) get an empty
   read-only file system over them (readable, so tools walking past it do not fail).
   A path the namespace cannot reach is left as it is: a user namespace's root has no
   power over the files of users it does not map, so a directory of another user that
   the host's root walked into (mode 700, found under a working directory like ``/tmp``)
   is closed here, to every command inside as much as to the mount.

The mounts stay in force because tai drops every capability before it goes on
(``_linux.drop_capabilities``): without ``CAP_SYS_ADMIN`` nothing can be remounted or
unmounted, and a nested user namespace would only see them locked.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import attrs

from tai_sandbox import _linux
from tai_sandbox.paths import SCRATCH_ROOTS, WritableSet, within


@attrs.frozen
class Layer:
    """An overlay over ``target`` whose writes go to ``upper`` (``work``: overlayfs's
    scratch directory on the same file system)."""

    target: Path
    upper: Path
    work: Path

    def options(self) -> str:
        """The mount options; ``ValueError`` for paths overlayfs cannot be told."""
        paths = (self.target, self.upper, self.work)
        if any(set(str(path)) & set(",:\\") for path in paths):
            raise ValueError("a path holds a comma, colon or backslash")
        # userxattr: inside a user namespace overlayfs can keep its whiteouts and opaque
        # directories only in user.* attributes (without it removing a lower directory
        # fails with EIO)
        return f"userxattr,lowerdir={self.target},upperdir={self.upper},workdir={self.work}"


#: Replaced by fresh mounts, so never remounted.
_REPLACED = (Path("/proc"), Path("/dev"), Path("/tmp"))

#: The directory the sandbox replaces by a fresh one.
_TMP = Path("/tmp")
#: Device nodes the new ``/dev`` keeps.
_DEVICES = ("null", "zero", "full", "random", "urandom", "tty")


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(within(path, root) for root in roots)


def _mountpoints() -> list[Path]:
    """Every mount point, innermost last, ``\\040``-style escapes decoded, without repeats."""
    points: dict[Path, None] = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        raw = line.split()[4]
        decoded = raw.encode().decode("unicode_escape").encode("latin-1").decode()
        points[Path(decoded)] = None
    return list(points)


def _bind(source: Path | str, target: Path) -> None:
    _linux.mount(str(source), str(target), None, _linux.MS_BIND | _linux.MS_REC)


def _fresh_dev(staging: Path) -> None:
    """A fresh ``/dev``, built in a tmpfs mounted over ``staging`` for the while (so that no
    directory is made for it anywhere, not in the host's ``/tmp`` when that is a writable
    root) and moved onto ``/dev``, which uncovers ``staging`` again."""
    _linux.mount("tmpfs", str(staging), "tmpfs", _linux.MS_NOSUID | _linux.MS_NOEXEC, "mode=755")
    for name in _DEVICES:
        if Path("/dev", name).exists():
            (staging / name).touch()
            _linux.mount(f"/dev/{name}", str(staging / name), None, _linux.MS_BIND)
    (staging / "pts").mkdir()
    _linux.mount(
        "devpts",
        str(staging / "pts"),
        "devpts",
        _linux.MS_NOSUID | _linux.MS_NOEXEC,
        "newinstance,ptmxmode=0666,mode=620",
    )
    (staging / "shm").mkdir()
    _linux.mount(
        "tmpfs", str(staging / "shm"), "tmpfs", _linux.MS_NOSUID | _linux.MS_NODEV, "mode=1777"
    )
    links = {"ptmx": "pts/ptmx", "fd": "/proc/self/fd"}
    links |= {name: f"/proc/self/fd/{fd}" for fd, name in enumerate(("stdin", "stdout", "stderr"))}
    for name, target in links.items():
        (staging / name).symlink_to(target)
    _linux.mount(str(staging), "/dev", None, _linux.MS_MOVE)


def _anchors(protected: list[Path], roots: tuple[Path, ...]) -> list[Path]:
    """The directories strictly between a writable root and each protected path."""
    anchors: set[Path] = set()
    for path in protected:
        for parent in path.parents:
            if parent in roots or not _inside(parent, roots):
                break
            anchors.add(parent)
    return sorted(anchors, key=lambda path: len(path.parts))


def hidden_by_fresh_mounts(paths: Iterable[Path]) -> list[Path]:
    """The existing directories of ``paths`` that the fresh ``/tmp`` would hide, without
    those inside another of them."""
    kept: list[Path] = []
    # paths sort by their parts: a directory comes before every directory inside it
    for path in sorted({path.resolve() for path in paths if path.is_dir()}):
        if path != _TMP and within(path, _TMP) and not _inside(path, kept):
            kept.append(path)
    return kept


def _restore_hidden(handles: dict[Path, int], readonly: frozenset[Path]) -> None:
    """Bind again the roots the fresh mounts hid (a working directory under ``/tmp``; the
    ``readonly`` ones: a Python installation there). Their parent directories, recreated
    inside the fresh mount, are made read-only, as the host's parents are: only the roots
    themselves are writable, and the ``readonly`` ones not even they."""
    hidden = []
    for root, handle in handles.items():
        seen = os.fstat(handle)
        now = root.stat() if root.exists() else None
        if now is None or (now.st_dev, now.st_ino) != (seen.st_dev, seen.st_ino):
            root.mkdir(parents=True, exist_ok=True)
            hidden.append(root)
    tops = {
        fresh / root.relative_to(fresh).parts[0]
        for root in hidden
        for fresh in _REPLACED
        if fresh in root.parents and root.parent != fresh
    }
    for top in sorted(tops):
        _bind(top, top)
        _linux.remount_readonly(str(top))
    for root in sorted(hidden, key=lambda path: len(path.parts)):
        _bind(f"/proc/self/fd/{handles[root]}", root)
        if root in readonly:
            _linux.remount_readonly(str(root))
    for handle in handles.values():
        os.close(handle)


def _overlay(layer: Layer) -> str | None:
    """Mount ``layer``; why it could not be, or ``None``."""
    try:
        _linux.mount("overlay", str(layer.target), "overlay", _linux.MS_NOSUID, layer.options())
    except (OSError, ValueError) as error:
        return f"{layer.target}: {error}"
    return None


def _resolver_directories() -> list[Path]:
    """Where the system's resolver configuration really lives (``/etc/resolv.conf`` is
    often a link into ``/run``): kept visible when ``/run`` is hidden, or nothing resolves
    (:func:`_hide_sockets` binds back those inside what it hides)."""
    target = Path("/etc/resolv.conf").resolve()
    return [target.parent] if target.exists() else []


def _hide_sockets(roots: list[Path]) -> None:
    """An empty ``/run`` (and ``$XDG_RUNTIME_DIR``): a read-only mount does not stop
    ``connect()``, and the sockets there act outside the sandbox — the user's systemd and
    D-Bus (``systemd-run`` runs a command there), the system bus (as root, anything),
    Docker, agents, databases. What the resolver needs is bound back."""
    tops = [Path("/run"), Path("/var/run")]
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and Path(runtime).is_absolute():
        tops.append(Path(runtime))
    for top in dict.fromkeys(tops):
        if top.is_symlink() or not top.is_dir():
            continue
        if any(_inside(top, [root]) or _inside(root, [top]) for root in roots):
            continue  # a writable root (or tai itself) lives there
        keep = [d for d in _resolver_directories() if top in d.parents]
        handles = {d: os.open(d, os.O_PATH | os.O_CLOEXEC) for d in keep}
        flags = _linux.MS_NOSUID | _linux.MS_NODEV | _linux.MS_NOEXEC
        _linux.mount("tmpfs", str(top), "tmpfs", flags, "mode=755,size=64k")
        for directory, handle in handles.items():
            directory.mkdir(parents=True)  # in the empty tmpfs just mounted
            _bind(f"/proc/self/fd/{handle}", directory)
            _linux.remount_readonly(str(directory))
            os.close(handle)
        _linux.remount_readonly(str(top))


def _reachable(path: Path) -> bool:
    """Whether a lookup of ``path`` gets past its directories here (any other failure
    fails the set-up, as the mount would)."""
    try:
        os.lstat(path)
    except PermissionError:
        return False
    return True


def _hide(path: Path) -> None:
    flags = _linux.MS_RDONLY | _linux.MS_NOSUID | _linux.MS_NODEV | _linux.MS_NOEXEC
    _linux.mount("tmpfs", str(path), "tmpfs", flags, "mode=555,size=4k")


def build_view(
    writable: WritableSet,
    protected: list[Path],
    layers: Iterable[Layer] = (),
    visible: Iterable[Path] = (),
) -> list[str]:
    """Make this mount namespace's view; the overlays that could not be mounted (each
    ``"path: reason"``: those caches stay read-only). Raises ``OSError`` when a part of the
    view that keeps things out of reach cannot be made.

    ``visible`` are directories that must stay readable although the fresh ``/tmp`` would
    hide them: tai's own installation when it lives there (a forked tai still imports
    modules lazily), the user's configuration directory (read again inside).
    """
    _linux.mount(None, "/", None, _linux.MS_REC | _linux.MS_PRIVATE)
    host_roots = sorted(
        (
            root
            for root in writable.roots
            if (root not in SCRATCH_ROOTS or root == writable.cwd) and root.is_dir()
        ),
        key=lambda path: len(path.parts),
    )
    for root in host_roots:
        _bind(root, root)
        _linux.remount(str(root), _linux.MS_NOSUID | _linux.MS_NODEV)
    fallbacks, overlaid = [], []
    for layer in layers:
        problem = _overlay(layer)
        fallbacks += [problem] if problem else []
        overlaid += [] if problem else [layer.target]
    visible = list(visible)
    keep = [path for path in hidden_by_fresh_mounts(visible) if not _inside(path, host_roots)]
    handles = {
        root: os.open(root, os.O_PATH | os.O_CLOEXEC)
        for root in [*host_roots, *keep, *hidden_by_fresh_mounts(overlaid)]
    }
    for point in reversed(_mountpoints()):
        if _inside(point, [*host_roots, *overlaid]) or _inside(point, _REPLACED):
            continue
        try:
            _linux.remount_readonly(str(point))
        except OSError as error:
            if not os.path.lexists(point):
                continue  # covered by a later mount above it: no path leads there
            if not os.statvfs(point).f_flag & os.ST_RDONLY:
                raise OSError(error.errno, f"{point} cannot be made read-only: {error}") from None
    _fresh_dev(Path("/tmp"))
    if Path("/tmp") not in host_roots:
        _linux.mount("tmpfs", "/tmp", "tmpfs", _linux.MS_NOSUID | _linux.MS_NODEV, "mode=1777")
    _linux.mount("proc", "/proc", "proc", _linux.MS_NOSUID | _linux.MS_NODEV | _linux.MS_NOEXEC)
    _restore_hidden(handles, frozenset(keep))
    _hide_sockets([*host_roots, *visible, *overlaid])
    protected = [path for path in protected if _reachable(path)]
    hidden = [path for path in writable.hidden if _reachable(path)]
    for anchor in _anchors([*protected, *hidden], tuple(host_roots)):
        _bind(anchor, anchor)
    for path in sorted(protected, key=lambda path: len(path.parts)):
        _bind(path, path)
        _linux.remount_readonly(str(path))
    for path in hidden:
        _hide(path)
    os.chdir(writable.cwd)
    return fallbacks
