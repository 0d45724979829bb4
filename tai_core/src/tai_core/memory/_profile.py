"""The profiles file: what ``tai ai`` remembers about the user, per model.

``ai-memory.json`` in tai's data directory holds ``{"Entries": [{"Time", "Model",
"Items"}, …]}`` (the original tai's format): every update appends an entry, so the history
of a profile stays readable, and a model's profile is the items of its last entry. An
update is written under a lock (``ai-memory.json.lock``, ``flock``: two sessions never
lose each other's entries) to a temporary file renamed over the old one (a crash leaves
the old file or the new, never half of one).

The file lives in a directory the sandbox lets commands write, and its items go into every
later prompt of that model: so it is read defensively (a damaged file is reported and
counts as empty, never a crash) and bounded (:data:`MAX_ITEMS` items of at most
:data:`MAX_ITEM_CHARS` characters), so that a hostile or runaway update can neither stop
tai nor crowd the model's window. And every entry tai writes carries a ``Mac``: HMAC-SHA256
of its time, model and items under tai's key (:func:`tai_core.store._key.mac`, a purpose
of its own), which the sandbox hides from what a model runs. A profile is the items of the
model's last *signed* entry: an entry planted by a command inside a sandboxed run, or one
edited by hand, is not used until the user signs it (:func:`sign_all`, ``tai ai
-trust-memory``), so a model cannot leave instructions in every later prompt.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

import attrs

from tai_core._atomic import write_atomically
from tai_core._time import now

#: File name of the profiles in tai's data directory.
MEMORY_FILE = "ai-memory.json"
#: Most items a profile keeps (the newest first).
MAX_ITEMS = 64
#: Longest item kept, in characters (longer ones are cut, with an ellipsis).
MAX_ITEM_CHARS = 300


class ProfileDamaged(ValueError):
    """The profiles file is not what tai writes."""


#: The purpose of the entries' MACs (a key of its own, derived from tai's).
PURPOSE = "ai-memory"


@attrs.frozen
class Entry:
    """One update of one model's profile; ``mac`` as written (empty when none)."""

    time: str
    model: str
    items: tuple[str, ...]
    mac: str = ""

    def _message(self) -> bytes:
        return "\0".join([self.time, self.model, *self.items]).encode()

    def signed(self) -> Entry:
        """This entry with tai's MAC (:class:`~tai_core.store.FlushError` without the key)."""
        from tai_core.store._key import mac

        return attrs.evolve(self, mac=mac(self._message(), PURPOSE))

    @property
    def trusted(self) -> bool:
        """Whether tai wrote this entry as it is (never, when tai's key cannot be read)."""
        from tai_core.store import StoreError
        from tai_core.store._key import check

        try:
            return bool(self.mac) and check(self._message(), PURPOSE, self.mac)
        except StoreError:
            return False


def memory_path() -> Path:
    """Where the profiles live: in tai's data directory."""
    from tai_core.config import user_data_dir

    return user_data_dir() / MEMORY_FILE


def read_entries(path: Path) -> list[Entry]:
    """The entries of the profiles file at ``path`` (none when it does not exist);
    :class:`ProfileDamaged` when it cannot be read as tai writes it."""
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        raise ProfileDamaged(f"{path}: {error}") from None
    entries = data.get("Entries") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ProfileDamaged(f"{path}: no list of Entries")
    found = []
    for entry in entries:
        items = entry.get("Items") if isinstance(entry, dict) else None
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("Time"), str)
            and isinstance(entry.get("Model"), str)
            and isinstance(items, list)
            and all(isinstance(item, str) for item in items)
        ):
            raise ProfileDamaged(f"{path}: an entry is not {{Time, Model, Items}}")
        mac = entry.get("Mac")
        found.append(Entry(entry["Time"], entry["Model"], bounded(items),
                           mac if isinstance(mac, str) else ""))  # fmt: skip
    return found


def profile(entries: Sequence[Entry], model: str) -> tuple[str, ...]:
    """The items of ``model``'s last entry tai signed (none when it has none)."""
    for entry in reversed(entries):
        if entry.model == model and entry.trusted:
            return entry.items
    return ()


def untrusted(entries: Sequence[Entry]) -> list[Entry]:
    """The entries tai did not write as they are."""
    return [entry for entry in entries if not entry.trusted]


def sign_all(path: Path) -> list[Entry]:
    """Sign every entry of the profiles file as it is now (the user's word that they are
    theirs), under its lock; the entries that were not signed before."""
    import fcntl

    with path.with_name(path.name + ".lock").open("a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        entries = read_entries(path)
        newly = untrusted(entries)
        if newly:
            _write(path, [entry if entry.trusted else entry.signed() for entry in entries])
    return newly


def bounded(items: Iterable[str]) -> tuple[str, ...]:
    """``items`` stripped, without blanks and repeats, each cut to :data:`MAX_ITEM_CHARS`,
    the first :data:`MAX_ITEMS` of them."""
    kept: dict[str, None] = {}
    for item in items:
        text = " ".join(item.split())
        if len(text) > MAX_ITEM_CHARS:
            text = text[: MAX_ITEM_CHARS - 1] + "…"
        if text:
            kept.setdefault(text)
    return tuple(kept)[:MAX_ITEMS]


def merged(new: Sequence[str], old: Sequence[str]) -> tuple[str, ...]:
    """The profile after an update: the new items, then the old ones not repeated."""
    return bounded([*new, *old])


def record(path: Path, model: str, items: Sequence[str]) -> tuple[str, ...]:
    """Merge ``items`` into ``model``'s profile and append the entry, under the file's
    lock; the profile now. A damaged file is replaced (its entries cannot be kept)."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.with_name(path.name + ".lock").open("a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            entries = read_entries(path)
        except ProfileDamaged:
            entries = []
        profile_now = merged(items, profile(entries, model))
        entries.append(Entry(now(), model, profile_now).signed())
        _write(path, entries)
    return profile_now


def _write(path: Path, entries: Sequence[Entry]) -> None:
    data = {
        "Entries": [
            {"Time": e.time, "Model": e.model, "Items": list(e.items), "Mac": e.mac}
            for e in entries
        ]
    }

    def write(file: TextIO) -> None:
        json.dump(data, file, indent=2, ensure_ascii=False)
        file.write("\n")

    write_atomically(path, write)
