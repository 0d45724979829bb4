"""One change block applied to the store: the operation chosen by the op and the file type.

A change never touches the disk: it reads the file through the store and writes the new
text back into it, so the same function serves a streaming reply (each block applied as
it arrives) and ``tai patch``. Every failure becomes one :class:`ChangeError` whose message
names the operation, the target and the file; when the failure concerns a file's content,
an error log with the whole context is written too (:mod:`._error_log`).
"""

from __future__ import annotations

from pathlib import Path

from tai_blocks.changes._error_log import try_error_log
from tai_blocks.changes._format import FormatError, format_go
from tai_blocks.changes._go_edit import ADD_OPS, GoEditError, edit_go, valid_go
from tai_blocks.changes._text import TextEditError, edit_edge, edit_text, line_end
from tai_core import Block
from tai_core.store import ApplyError, FileStore, StoreError, shown_path

GO_DECL_OPS = ("MODIFY", *ADD_OPS, "DELETE")
TEXT_OPS = ("REPLACE", "INSERT_BEFORE", "INSERT_AFTER")
EDGES = ("BEGIN", "END")


class ChangeError(ApplyError):
    """A change block that failed; the message is one line naming op, target and file.

    ``log`` is the name of the error log written for it, if any.
    """

    def __init__(self, op: str, target: str, file: str, reason: str) -> None:
        self.op, self.target, self.file = op, target, file
        self.reason = " ".join(reason.split())
        self.log: str | None = None
        super().__init__(self._message())

    def _message(self) -> str:
        parts = (self.op or "change", shown_path(self.target) if self.target else "")
        what = " ".join(part for part in parts if part)
        where = shown_path(self.file)
        text = f"{what} in {where}: {self.reason}" if self.file else f"{what}: {self.reason}"
        return text + (f" (details in {self.log})" if self.log else "")

    def logged(
        self,
        root: Path,
        *,
        find: str = "",
        body: str = "",
        source: str | None,
        modified: str | None,
    ) -> ChangeError:
        """Write the error log of this failure into ``root`` when there is file content to
        show (the file before, or the text the change produced); returns ``self``."""
        if source is None and modified is None:
            return self
        path = try_error_log(
            root,
            operation=self.op,
            target=self.target,
            file_path=self.file,
            find=find,
            change_block=body,
            source_file=source or "",
            modified_file=modified or "",
            error=self.reason,
        )
        if path is not None:
            self.log = path.name
            self.args = (self._message(),)
        return self


def is_go(key: str) -> bool:
    """Whether a path is edited as Go source."""
    return key.endswith(".go")


def _check_op(key: str, op: str, target: str) -> None:
    """Refuse an op the file's type does not support (before its content is read)."""
    if is_go(key) and op in TEXT_OPS:
        raise TextEditError(
            "Go files do not support text-level operations: use MODIFY, ADD_BEFORE, "
            "ADD_AFTER or DELETE with a declaration as target"
        )
    if not is_go(key) and op in GO_DECL_OPS and not (op in ADD_OPS and target in EDGES):
        raise TextEditError(
            f"{op} of a declaration works in Go files only; in other files use WRITE, "
            "REPLACE, INSERT_BEFORE, INSERT_AFTER, ADD_BEFORE/ADD_AFTER with BEGIN or END, "
            "or DELETE with target *"
        )


def _edit(key: str, text: str | None, *, op: str, target: str, find: str, body: str) -> str:
    if is_go(key):
        return edit_go(text, op, target, body)
    if op in TEXT_OPS:
        return edit_text(text, op, find, body)
    return edit_edge(text, target, body)


#: The name of the change kind's finisher on a store (see ``FileStore.with_finisher``).
FINISHER = "tai_blocks.changes: goimports"


def apply_change(store: FileStore, block: Block) -> FileStore:
    """``store`` with the change ``block`` applied; raises :class:`ChangeError`.

    The store returned carries :func:`finish_changes` as a finisher, so its flush formats
    the Go files changed (``store.finished()`` does it earlier, to fail sooner).
    """
    return _apply(store, block).with_finisher(FINISHER, finish_changes)


def _apply(store: FileStore, block: Block) -> FileStore:
    params = block.params
    op = params.get("op", "").strip()
    target = params.get("target", "").strip()
    path = params.get("file-path", "").strip()
    source: str | None = None
    try:
        if op not in (*GO_DECL_OPS, *TEXT_OPS, "WRITE", "RENAME"):
            raise TextEditError(f"unknown op {op!r}" if op else "unparseable change block: no op")
        key = store.resolve(path)
        if op == "RENAME":
            return store.rename(path, target)
        if op == "DELETE" and target == "*":
            return store.delete(path)
        if op == "WRITE":
            text = block.body + line_end(block.body) if block.body else ""
            return store.write(
                path, valid_go(text.encode("utf-8", "surrogateescape")) if is_go(key) else text
            )
        _check_op(key, op, target)
        store, source = store.load(path)
        new = _edit(key, source, op=op, target=target, find=params.get("find", ""), body=block.body)
        return store.write(path, new)
    except (GoEditError, TextEditError) as error:
        failure = ChangeError(op, target, path, error.reason)
        modified = error.modified if isinstance(error, GoEditError) else None
        find = params.get("find", "")
        raise failure.logged(
            store.root, find=find, body=block.body, source=source, modified=modified
        ) from None
    except StoreError as error:
        raise ChangeError(op, target, path, str(error)) from None


def finish_changes(store: FileStore) -> FileStore:
    """The round's changes made final before they are shown or flushed: Go files formatted
    (goimports). Raises :class:`ChangeError` naming the file goimports refused."""
    from tai_blocks.changes.goimports import ToolError

    try:
        return format_go(store)
    except FormatError as error:
        failure = ChangeError("format", "", error.path, error.message)
        source = store.base[error.path].text if error.path in store.base else None
        raise failure.logged(store.root, source=source, modified=error.text) from None
    except ToolError as error:
        raise ChangeError("format", "", "", str(error)) from None
